# lib.sh: helpers for end-to-end CLI tests (git t/ style, POSIX sh).
# Each test file sources this, calls `t NAME` before each case and `ok`/`fail`.
# $PERFHUNT is the binary under test, $WORKLOADS the built workload folder.
set -u
: "${PERFHUNT:?}" "${WORKLOADS:?}"
T_PASS=0
T_FAIL=0
T_SKIP=0
T_NAME=
TMP=$(mktemp -d "${TMPDIR:-/tmp}/perfhunt-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# runs a test records go to a throwaway history, never the source tree's
export PERFHUNT_DB="${PERFHUNT_DB:-$TMP/history.db}"
T_DONE=1
# A case that ends without ok or fail (a bare `[ ... ] && ok` that was false)
# is a failure: no check may pass by saying nothing.
unfinished() { [ "$T_DONE" = 1 ] || fail "the case ended without ok or fail (a check was false)"; }
t() { unfinished; T_NAME=$1; T_DONE=0; }
ok() { T_PASS=$((T_PASS + 1)); T_DONE=1; echo "ok - $T_NAME"; }
# (a message of several lines continues as TAP comments)
fail() { T_FAIL=$((T_FAIL + 1)); T_DONE=1; printf '%s\n' "not ok - $T_NAME: $*" | sed '2,$s/^/# /'; }
# skip REASON: the case cannot run here; counted apart, never as a pass (TAP's # SKIP)
skip() { T_SKIP=$((T_SKIP + 1)); T_DONE=1; echo "ok - $T_NAME # SKIP $*"; }
# check DESCRIPTION COMMAND...: runs a shell test, fails the case with DESCRIPTION if false
check() { d=$1; shift; if "$@"; then :; else fail "$d"; return 1; fi; }
expect_status() { # expect_status WANT GOT
	[ "$1" = "$2" ] || { fail "exit status $2, expected $1"; return 1; }
}
# excerpt FILE: a file for a failure's message, its start and its end if long
excerpt() {
	if [ "$(wc -c <"$1")" -le 2000 ]; then cat "$1"; else head -c 600 "$1"; printf '\n[…]\n'; tail -c 1400 "$1"; fi
}
expect_grep() { # expect_grep PATTERN FILE
	grep -q -E -- "$1" "$2" || { fail "'$1' not in $2: $(excerpt "$2")"; return 1; }
}
expect_no_grep() {
	! grep -q -E -- "$1" "$2" || { fail "'$1' unexpectedly in $2"; return 1; }
}
# jget FILE JQ-LIKE-PATH: prints a value from a JSON file (python3 json, stdlib only)
jget() {
	/usr/bin/python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if isinstance(v,(dict,list)) else v)' "$1" "$2"
}
# no_sanitizer [FILE]: no ASan/UBSan report in FILE (default $TMP/err)
no_sanitizer() { ! grep -q -E 'Sanitizer|runtime error:' "${1:-$TMP/err}"; }
# sql DB QUERY: plain sqlite3 with a busy timeout, as a reader beside perfhunt
# needs one (a fold opening the file may rebuild its WAL index for a moment)
sql() { sqlite3 -cmd '.timeout 10000' "$@"; }
# between LOW VALUE HIGH: numeric check (floats ok)
between() { awk -v l="$1" -v v="$2" -v h="$3" 'BEGIN{exit !(v>=l && v<=h)}'; }
# unwound_past_lock BENCH PHASE FRAME...: the share (whole percent) of the
# blocked time of PHASE's off-CPU stacks in BENCH's runs under glibc's
# __lll_lock_wait that perf unwound past it to one of the FRAMEs (the code
# that took the lock); its DWARF unwinding of a blocked thread sometimes
# stops in __lll_lock_wait, and where most of that time stops there the code
# line, which follows the time, can name no caller
unwound_past_lock() {
	/usr/bin/python3 -c 'import json,sys
under = past = 0
for c in json.load(open(sys.argv[1]))["commands"]:
    for r in c["runs"]:
        for s in r.get("profile", {}).get("offcpu", {}).get("phases", {}).get(sys.argv[2], {}).get("stacks", []):
            f = s["stack"].split(";")
            w = [i for i, x in enumerate(f) if "lll_lock_wait" in x]
            if w:
                under += s["ms"]
                past += s["ms"] if any(x in sys.argv[3:] for x in f[:w[0]]) else 0
print(int(100 * past / under) if under else 0)' "$@"
}
# scratch_repo: a new git repository $R ($TMP/repo), the current directory
# from then on, with a fixed author and HOME=$TMP; the whole file is skipped
# where git or a C compiler is missing. commit MESSAGE: every change
# committed there; prints its hash.
scratch_repo() {
	command -v git >/dev/null 2>&1 || { t "a scratch repository"; skip "git is not installed"; done_testing; exit; }
	command -v cc >/dev/null 2>&1 || { t "a scratch repository"; skip "cc is not installed"; done_testing; exit; }
	export GIT_AUTHOR_NAME="Ada Tester" GIT_AUTHOR_EMAIL=ada@example.com
	export GIT_COMMITTER_NAME="Ada Tester" GIT_COMMITTER_EMAIL=ada@example.com
	export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP"
	R="$TMP/repo"
	mkdir "$R" && cd "$R" && git init -q -b main . || { t "a scratch repository"; fail "git init failed"; done_testing; exit; }
}
commit() { git add -A && git commit -q -m "$1" && git rev-parse HEAD; }
done_testing() {
	unfinished
	echo "1..$((T_PASS + T_FAIL + T_SKIP))"
	echo "# $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" = 0 ]
}
