#!/bin/sh
# End-to-end tests of limits, exit statuses, files and sizes under hostile or
# careless use: a --memory-limit that cannot be enforced is refused before the
# command runs, a cancelled bisect-check aborts `git bisect run`, devices and
# other users' links are refused as outputs, records are read by one reader
# with one set of bounds, and renderers stay linear in what they are given.
# Each command that could hang runs under `timeout`; run as root, the
# non-root cases use setpriv to become nobody.
. ./lib.sh
P=$PERFHUNT
W=$WORKLOADS/phwork
cd "$TMP" || exit 1
unset PERFHUNT_SAFE_DIRECTORY SUDO_UID SUDO_GID
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1
# nobody CMD...: runs CMD as nobody (65534), from /
nobody() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
CAN_NOBODY=0
[ $ROOT = 1 ] && command -v setpriv >/dev/null && CAN_NOBODY=1

# --- limits that cannot be enforced ------------------------------------------------
t "--memory-limit with --cgroup off: refused (exit 2) before the command runs"
timeout 20 "$P" run --no-save --cgroup off --memory-limit 16 -- "$W" out:RAN >out 2>err; st=$?
expect_status 2 $st && expect_grep 'memory-limit needs the memory cgroup' err &&
	expect_no_grep RAN out && check "one line: $(cat err)" [ "$(wc -l <err)" = 1 ] && ok

t "--memory-limit as a user who cannot create a cgroup: refused (exit 2), the command never runs"
if [ $CAN_NOBODY = 1 ]; then
	nobody timeout 20 env PERFHUNT_DB=/nonexistent/h.db "$P" run --no-save --memory-limit 16 -- "$W" out:RAN \
		>out 2>err; st=$?
	expect_status 2 $st && expect_grep '^perfhunt: --memory-limit cannot be enforced here: ' err &&
		expect_no_grep RAN out && check "one line: $(cat err)" [ "$(wc -l <err)" = 1 ] && ok
else skip "not root or no setpriv"; fi

t "--memory-limit where perfhunt can write a cgroup: enforced (the tree is killed past it)"
timeout 30 "$P" run --no-save -q --memory-limit 16 -- "$W" alloc:64 out:SURVIVED >out 2>err; st=$?
if grep -q 'cannot be enforced here' err; then skip "no writable memory cgroup here: $(cat err)"
else expect_status 137 $st && expect_no_grep SURVIVED out && ok; fi

# --- signals and exit statuses of bisect-check ----------------------------------------
"$P" run -q --no-save -o base.json -- "$W" spin:20 2>err || fail "baseline run: $(cat err)"
for signum in TERM:15 HUP:1; do
	sig=${signum%:*}
	t "bisect-check cancelled by SIG$sig during a run: exit 128+N (git bisect run aborts), not 125 (skip)"
	rm -f started.pid
	timeout 60 "$P" bisect-check --baseline base.json -n 3 -- "$W" pidfile:started.pid sleep:20000 >out 2>err &
	M=$!
	i=0; while [ ! -s started.pid ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -$sig $M; wait $M; st=$?
	want=$((128 + ${signum#*:}))
	expect_status $want $st && expect_grep "^bisect-check: cancelled \($want\): SIG$sig received during run 1 of 3" out &&
		expect_no_grep 'skip \(125\)' out && ok
done

t "bisect-check against a baseline of another command on another host: both said on stderr"
sed 's/"hostname": "[^"]*"/"hostname": "elsewhere"/' base.json >other.json
timeout 60 "$P" bisect-check --baseline other.json -n 1 -- "$W" spin:21 >out 2>err; st=$?
check "status 0 or 1, got $st" [ $st -le 1 ] && expect_grep '^note: BASE and NEW ran different commands:' err &&
	expect_grep 'spin:20$' err && expect_grep 'spin:21$' err &&
	expect_grep '^note: BASE and NEW were recorded on different hosts:' err && expect_grep '^  base: elsewhere$' err &&
	check "one line on stdout" [ "$(wc -l <out)" = 1 ] && ok

t "compare of runs from two hosts says so, as it says two commands"
timeout 30 "$P" compare other.json base.json >out 2>err; st=$?
expect_status 0 $st && expect_grep '^note: BASE and NEW were recorded on different hosts:' out &&
	expect_grep '^  base: elsewhere$' out && expect_no_grep 'different commands' out && ok

done_testing
