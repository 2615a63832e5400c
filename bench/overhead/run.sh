#!/bin/sh
# Wrapper overhead: wall time of `true` and `sleep 1` run bare, under
# /usr/bin/time -v, under a minimal fork+exec+wait4 wrapper (minwrap.c) and
# under perfhunt run with and without its memory cgroup, each set in one
# hyperfine session (-N: no shell in between), from a directory outside any
# git repository. Then where perfhunt's time goes: the same `true` with the
# GPU probe off, and inside a git work tree (the record's git field runs
# `git status`).
# With LAUNCH=1 only the launch session: `run -q --no-save -- true` with and
# without the cgroup, `run -q -- true` keeping the history (a fresh one in
# OUT_DIR), the minimal wrapper beside them, and, with BASE=PERFHUNT, the same
# rows for an earlier perfhunt (before/after in one session); then
# `bench -n 100 -- true` against `hyperfine -N -r 100 true`; then runs 20 ms
# apart, interleaved (interleave.py), and the history fold's window
# (foldwindow.py: from a run's exit until history.db alone holds it).
# usage: [LAUNCH=1] [BASE=OLD_PERFHUNT] bench/overhead/run.sh PERFHUNT HELPERS_DIR [OUT_DIR]
set -eu
ph=$(realpath "$1")
bdir=$(cd "$(dirname "$0")" && pwd)
mw=$(realpath "$2")/minwrap
repo=$(cd "$(dirname "$0")" && git rev-parse --show-toplevel 2>/dev/null || true)
out=${3:-$(mktemp -d /tmp/phover-XXXXXX)}
mkdir -p "$out"
cd "$out"
tr=/usr/bin/true
hf() { hyperfine -N --warmup 3 --style basic "$@" >&2; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "${LAUNCH:-}" = 1 ]; then
	mkdir -p "$out/hist" "$out/histbase"
	# The history row gets its database from hyperfine's own environment:
	# `env PERFHUNT_DB=... perfhunt` would add env's exec (~0.8 ms here) to it.
	# The runs without the history ignore the variable.
	set -- -n "minwrap true" "$mw $tr" \
		-n "perfhunt run --no-save --cgroup off true" "$ph run -q --no-save --cgroup off -- $tr" \
		-n "perfhunt run --no-save true" "$ph run -q --no-save -- $tr" \
		-n "perfhunt run true (history kept)" "$ph run -q -- $tr"
	if [ -n "${BASE:-}" ]; then
		base=$(realpath "$BASE")
		set -- "$@" -n "before: perfhunt run --no-save --cgroup off true" "$base run -q --no-save --cgroup off -- $tr" \
			-n "before: perfhunt run --no-save true" "$base run -q --no-save -- $tr"
	fi
	PERFHUNT_DB=$out/hist/h.db hf --runs "${RUNS:-200}" --export-json launch.json "$@"
	if [ -n "${BASE:-}" ]; then
		# a history of its own (an older schema): a session of its own, with the wrapper
		PERFHUNT_DB=$out/histbase/h.db hf --runs "${RUNS:-200}" --export-json launchbase.json \
			-n "minwrap true" "$mw $tr" -n "before: perfhunt run true (history kept)" "$base run -q -- $tr"
	fi
	set -- -n "hyperfine -N -r 100 true" "hyperfine -N -r 100 --style none $tr" \
		-n "perfhunt bench -n 100 true" "$ph bench -q --no-save -n 100 -- $tr" \
		-n "perfhunt bench --cgroup off -n 100 true" "$ph bench -q --no-save --cgroup off -n 100 -- $tr"
	[ -n "${BASE:-}" ] && set -- "$@" -n "before: perfhunt bench -n 100 true" "$base bench -q --no-save -n 100 -- $tr"
	hf --runs 10 --export-json benchn.json "$@"
	# Interleaved round by round (interleave.py; VAR=VALUE words before a
	# command are its environment): back-to-back, with the history before and
	# after in one session, then 20 ms apart (what a user sees; back-to-back
	# runs hide the cgroup v1 move's RCU wait); then the history fold's window.
	set -- "minwrap=$mw $tr" "run --no-save=$ph run -q --no-save -- $tr" \
		"run (history kept)=PERFHUNT_DB=$out/hist/i.db $ph run -q -- $tr"
	[ -n "${BASE:-}" ] && set -- "$@" "before: run (history kept)=PERFHUNT_DB=$out/histbase/i.db $base run -q -- $tr"
	/usr/bin/python3 "$bdir/interleave.py" 200 "$@" >"$out/b2b.md"
	set -- "minwrap=$mw $tr" "run --no-save --cgroup off=$ph run -q --no-save --cgroup off -- $tr" \
		"run --no-save=$ph run -q --no-save -- $tr" \
		"run --cgroup off (history kept)=PERFHUNT_DB=$out/hist/g.db $ph run -q --cgroup off -- $tr"
	[ -n "${BASE:-}" ] && set -- "$@" "before: run --cgroup off (history kept)=PERFHUNT_DB=$out/histbase/g.db $base run -q --cgroup off -- $tr"
	GAP_MS=20 /usr/bin/python3 "$bdir/interleave.py" 100 "$@" >"$out/apart.md"
	/usr/bin/python3 "$bdir/foldwindow.py" "$ph" 100 >"$out/fold.txt"
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "back-to-back, interleaved (interleave.py):"
	cat "$out/b2b.md"
	echo
	echo "runs 20 ms apart, interleaved (interleave.py):"
	cat "$out/apart.md"
	cat "$out/fold.txt"
	echo
	/usr/bin/python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
for name in ("launch.json", "launchbase.json"):
    if not os.path.exists(os.path.join(out, name)):
        continue
    res = json.load(open(os.path.join(out, name)))["results"]
    mw = res[0]["median"]
    print("| command | median ms | mean ± σ ms | user ms | sys ms | added vs minwrap ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in res:
        print("| `%s` | %.2f | %.2f ± %.2f | %.2f | %.2f | %+.2f |" % (r["command"], r["median"] * 1e3, r["mean"] * 1e3,
              r["stddev"] * 1e3, r["user"] * 1e3, r["system"] * 1e3, (r["median"] - mw) * 1e3))
    print()
res = json.load(open(os.path.join(out, "benchn.json")))["results"]
hf = res[0]["median"]
print("| command | median ms | per run ms | / hyperfine |")
print("|---|---:|---:|---:|")
for r in res:
    print("| `%s` | %.1f | %.2f | %.2f |" % (r["command"], r["median"] * 1e3, r["median"] * 10, r["median"] / hf))
PY
	echo "raw: $out"
	exit 0
fi

hf --runs 200 --export-json true.json \
	-n "true (bare)" "$tr" \
	-n "/usr/bin/time -v true" "/usr/bin/time -v $tr" \
	-n "minwrap true" "$mw $tr" \
	-n "perfhunt run --cgroup off true" "$ph run -q --no-save --cgroup off -- $tr" \
	-n "perfhunt run true" "$ph run -q --no-save -- $tr"
hf --runs 10 --export-json sleep1.json \
	-n "sleep 1 (bare)" "/usr/bin/sleep 1" \
	-n "/usr/bin/time -v sleep 1" "/usr/bin/time -v /usr/bin/sleep 1" \
	-n "minwrap sleep 1" "$mw /usr/bin/sleep 1" \
	-n "perfhunt run --cgroup off sleep 1" "$ph run -q --no-save --cgroup off -- /usr/bin/sleep 1" \
	-n "perfhunt run sleep 1" "$ph run -q --no-save -- /usr/bin/sleep 1"
hf --runs 200 --export-json parts.json \
	-n "minwrap true" "$mw $tr" \
	-n "perfhunt run --cgroup off --gpu off true" "$ph run -q --no-save --cgroup off --gpu off -- $tr" \
	-n "perfhunt run --cgroup off true" "$ph run -q --no-save --cgroup off -- $tr" \
	-n "perfhunt run --gpu off true" "$ph run -q --no-save --gpu off -- $tr"
if [ -n "$repo" ]; then
	(cd "$repo" && hf --runs 30 --export-json "$out/git.json" \
		-n "in a git work tree: perfhunt run --cgroup off --gpu off true" \
		"$ph run -q --no-save --cgroup off --gpu off -- $tr" \
		-n "in a git work tree: git status --porcelain --untracked-files=no" \
		"git status --porcelain --untracked-files=no")
fi

/usr/bin/python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def table(name, ref_bare=True):
    path = os.path.join(out, name + ".json")
    if not os.path.exists(path):
        return
    res = json.load(open(path))["results"]
    mw = next((r["median"] for r in res if r["command"].startswith("minwrap")), None)
    bare = res[0]["median"] if ref_bare else None
    print("| command | median ms | mean ± σ ms | added vs bare ms | added vs minwrap ms |")
    print("|---|---:|---:|---:|---:|")
    for r in res:
        print("| `%s` | %.2f | %.2f ± %.2f | %s | %s |" % (
            r["command"], r["median"] * 1e3, r["mean"] * 1e3, r["stddev"] * 1e3,
            "%+.2f" % ((r["median"] - bare) * 1e3) if bare is not None else "",
            "%+.2f" % ((r["median"] - mw) * 1e3) if mw is not None else ""))
    print()
table("true")
table("sleep1")
table("parts", ref_bare=False)
table("git", ref_bare=False)
PY
echo "raw: $out"
