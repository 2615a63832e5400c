#!/bin/sh
# Ordinary shell use: pipelines, signals, full outputs and odd files around
# perfhunt never hang it or lose a run. Every case is a real pipeline or
# signal sequence; anything that could hang runs under `timeout`, so a
# regression fails its case (status 124) instead of stalling the suite.
# Cases are grouped by topic, one block each; append a new block at the end.
. ./lib.sh
W="$WORKLOADS/phwork"
P="$PERFHUNT"
export PERFHUNT_DB="$TMP/h.db" PERFHUNT_STATE_DIR="$TMP/state"
cd "$TMP" || exit 1
LIMIT=20 # seconds: far beyond what any case needs; reaching it is the bug
# not_hung STATUS: fails the case when timeout ended the command
not_hung() { [ "$1" != 124 ] || { fail "still running after ${LIMIT}s (a hang)"; return 1; }; }

# ---- pipes, signals and odd files: what the command sees, runs never lost ----

t "a FIFO as --pidfile is refused at once (exit 2), never waited on"
mkfifo fifo
timeout "$LIMIT" "$P" watch -q --no-save --pidfile fifo 2>err; st=$?
not_hung $st && expect_status 2 $st && expect_grep "^perfhunt: pidfile 'fifo' is not a regular file$" err && ok

t "a FIFO as --attach-pidfile is refused at once (exit 2)"
timeout "$LIMIT" "$P" run -q --no-save --attach-pidfile fifo -- true 2>err; st=$?
not_hung $st && expect_status 2 $st && expect_grep "^perfhunt: pidfile 'fifo' is not a regular file$" err && ok

t "a directory as --pidfile is refused (exit 2)"
timeout "$LIMIT" "$P" watch -q --no-save --pidfile "$TMP" 2>err; st=$?
not_hung $st && expect_status 2 $st && expect_grep "is not a regular file$" err && ok

t "run -- yes | head -c 10: yes gets SIGPIPE, perfhunt exits 141 with the run recorded"
{ timeout "$LIMIT" "$P" run -q -o y.json -- yes; echo $? >st; } | head -c 10 >head.out
st=$(cat st)
not_hung $st && expect_status 141 $st && [ "$(wc -c <head.out)" = 10 ] &&
	[ "$(jget y.json exit.signal_name)" = SIGPIPE ] && expect_grep "stdout failed \\(Broken pipe\\)" y.json &&
	[ "$(sql "$PERFHUNT_DB" "select count(*) from runs where command like 'yes%'")" = 1 ] && ok

t "a command that ignores SIGPIPE sees EPIPE on its writes and ends by itself"
{ timeout "$LIMIT" "$P" run -q --no-save -- sh -c 'trap "" PIPE; yes; echo "yes=$?" >&2' 2>err; echo $? >st; } |
	head -c 10 >/dev/null
st=$(cat st)
not_hung $st && expect_status 0 $st && expect_grep '^yes: standard output: Broken pipe$' err &&
	expect_grep '^yes=1$' err && ok

t "perfhunt's stderr into | head: the command's stderr writes fail as they would without it"
{ timeout "$LIMIT" "$P" run -q --no-save -o e.json -- sh -c 'yes >&2'; echo $? >st; } 2>&1 | head -c 10 >/dev/null
st=$(cat st)
not_hung $st && expect_status 141 $st && [ "$(jget e.json exit.status)" = 141 ] &&
	expect_grep "stderr failed \\(Broken pipe\\)" e.json && ok

t "a full stdout (/dev/full): the command's writes fail (EPIPE through the probe pipe), the run is recorded"
# Without perfhunt seq reports ENOSPC and exits 1; while perfhunt reads the
# stream for probes the command gets EPIPE (SIGPIPE) instead: documented.
timeout "$LIMIT" "$P" run -q --no-save -o f.json -- sh -c 'seq 1 100000; echo "rc=$?" >&2' >/dev/full 2>err; st=$?
not_hung $st && expect_status 0 $st && expect_grep '^rc=141$' err &&
	expect_grep "stdout failed \\(No space left on device\\)" f.json && ok

t "a full stdout with --no-probes: the command writes there itself and sees ENOSPC (exit 1), as without perfhunt"
timeout "$LIMIT" "$P" run -q --no-save --no-probes -- sh -c 'seq 1 100000; echo "rc=$?" >&2' >/dev/full 2>err; st=$?
not_hung $st && expect_status 0 $st && expect_grep '^rc=1$' err && expect_grep 'No space left on device' err && ok

t "a closed stdout (>&-): the command finds it closed too, its output never lands in a file perfhunt opened"
timeout "$LIMIT" "$P" run -q --no-save --csv c.csv -o c.json -- sh -c 'echo into-the-csv; echo "rc=$?" >&2' >&- 2>err
st=$?
# as without perfhunt: the write fails (EBADF), the shell says so, rc=1
not_hung $st && expect_status 0 $st && expect_grep '^rc=1$' err && expect_no_grep into-the-csv c.csv &&
	expect_grep "stdout cannot be written \\(Bad file descriptor\\)" c.json && ok

t "a slow reader of perfhunt's stdout back-pressures the command, never the sampler"
# 80 kB fill the pipe to the reader, which sleeps 3 s; the command is not
# blocked (its own pipe has room) and holds 32 MiB for 1 s meanwhile. The
# monitor must sample through it (it used to block in write: 3 samples, a
# sampled peak of 12 KiB) and relay every byte once the reader reads.
{ timeout "$LIMIT" "$P" run -q --no-save --interval 50 -o slow.json -- \
	sh -c 'head -c 80000 /dev/zero | tr "\0" x; echo; exec "$0" alloc:32 sleep:1000' "$W"; echo $? >st; } |
	(sleep 3; wc -c >count)
st=$(cat st)
not_hung $st && expect_status 0 $st && [ "$(cat count)" = 80001 ] &&
	check "sampled peak $(jget slow.json summary.peak_tree_rss_kb) KiB below the 32 MiB held" \
		between 32768 "$(jget slow.json summary.peak_tree_rss_kb)" 1000000 && ok

# wait_for SHELL-TEST: polls (every 50 ms, 20 s at most) until the test holds
wait_for() { i=0; while ! eval "$1" >/dev/null 2>&1; do i=$((i + 1)); [ $i -lt 400 ] || return 1; sleep 0.05; done; }
# start_bg CMD...: CMD in the background under timeout ($M, the status to
# wait for) and its own PID in $MP (timeout would relay signals itself)
start_bg() {
	rm -f mpid
	timeout "$LIMIT" sh -c 'echo $$ >mpid; exec "$@"' sh "$@" 2>err & M=$!
	wait_for '[ -s mpid ]'
	MP=$(cat mpid)
}
# lock_history: an exclusive transaction on the history until the file
# 'release' appears; a run being stored meanwhile waits in SQLite's busy
# timeout, so a signal sent then lands while the record is being kept
lock_history() {
	rm -f release locked
	(echo 'BEGIN EXCLUSIVE;'; echo "select 'locked';"; while [ ! -e release ]; do sleep 0.05; done; echo 'COMMIT;') |
		sqlite3 -bail -cmd '.timeout 10000' "$PERFHUNT_DB" >locked & LOCKER=$!
	wait_for 'grep -q locked locked' || echo "# the history could not be locked"
}
# held: the lock was taken (else the case would not test what it says)
held() { grep -q locked locked || { fail "the history could not be locked"; return 1; }; }
runs() { sql "$PERFHUNT_DB" "select count(*) from runs"; }

if command -v sqlite3 >/dev/null; then
"$P" run -q -- true # the history exists before it is locked
"$W" sleep:60000 & T=$!

t "watch: a second SIGTERM while the run is being stored does not lose it"
before=$(runs); rm -f w.json w.csv
lock_history
start_bg "$P" watch -q --interval 20 --csv w.csv -o w.json $T
wait_for '[ "$(wc -l <w.csv 2>/dev/null)" -ge 2 ]'
kill -TERM $MP
wait_for '[ -s w.json ]' # written; storing it waits on the lock
kill -TERM $MP
touch release; wait $M; st=$?; wait $LOCKER
held && not_hung $st && expect_status 0 $st && [ "$(jget w.json ended)" = "stopped by SIGTERM" ] &&
	check "runs stored: $before before, $(runs) after" [ "$(runs)" = $((before + 1)) ] && ok

t "run: SIGTERM forwarded, a second one while the run is being stored does not lose it (exit 143)"
before=$(runs); rm -f r.json r.csv
lock_history
start_bg "$P" run -q --interval 20 --csv r.csv -o r.json -- "$W" sleep:60000
wait_for '[ "$(wc -l <r.csv 2>/dev/null)" -ge 2 ]'
kill -TERM $MP
wait_for '[ -s r.json ]'
kill -TERM $MP
touch release; wait $M; st=$?; wait $LOCKER
held && not_hung $st && expect_status 143 $st && [ "$(jget r.json exit.signal_name)" = SIGTERM ] &&
	check "runs stored: $before before, $(runs) after" [ "$(runs)" = $((before + 1)) ] && ok

t "watch: a third signal while the run is being stored ends perfhunt as that signal does"
rm -f w.json w.csv
lock_history
start_bg "$P" watch -q --interval 20 --csv w.csv -o w.json $T
wait_for '[ "$(wc -l <w.csv 2>/dev/null)" -ge 2 ]'
kill -TERM $MP
wait_for '[ -s w.json ]'
kill -TERM $MP; kill -HUP $MP # two signals (distinct, so they cannot merge into one)
wait $M; st=$?; touch release; wait $LOCKER
# (pending together, they are delivered lowest number first: either ends it)
held && not_hung $st && check "exit status $st, expected 129 or 143" [ $st = 129 -o $st = 143 ] && ok

t "two 'perfhunt stop ID' at once: one stops and prints, the other says so and exits 1; the run is stored"
before=$(runs)
id=$("$P" watch --detach --interval 20 $T)
lock_history
timeout "$LIMIT" "$P" stop "$id" 2>s1 & A=$!
timeout "$LIMIT" "$P" stop "$id" 2>s2 & B=$!
wait_for 'grep -q "already being stopped" s1 s2'
touch release; wait $A; sa=$?; wait $B; sb=$?; wait $LOCKER
held && not_hung $sa && not_hung $sb &&
	check "statuses $sa and $sb, expected 0 and 1 in some order" [ "$((sa + sb))" = 1 ] &&
	if [ $sa = 0 ]; then win=s1 lose=s2; else win=s2 lose=s1; fi &&
	expect_grep 'stopped by SIGTERM' $win &&
	expect_grep "^perfhunt: monitor $id is already being stopped by another 'perfhunt stop'; waiting for it to finish\$" $lose &&
	check "runs stored: $before before, $(runs) after" [ "$(runs)" = $((before + 1)) ] && ok
kill $T; wait $T 2>/dev/null
else
	for c in "watch: a second SIGTERM while storing" "run: a second SIGTERM while storing" "watch: a third signal" \
		"two stops at once"; do t "$c"; skip "no sqlite3 to hold the history's lock"; done
fi

t "SIGKILL during --profile: the next --profile removes the perf.data left behind"
mkdir -p pt && chmod 700 pt
start_bg env TMPDIR="$TMP/pt" "$P" run -q --no-save --profile -- "$W" pidfile:spin.pid spin:5000
if ! wait_for 'ls pt/perfhunt-profile-*/perf.data' || ! wait_for '[ -s spin.pid ]'; then
	wait $M; skip "no profile started here: $(head -1 err)"
else
	kill -KILL $MP; wait $M; kill "$(cat spin.pid)"
	left=$(ls -d pt/perfhunt-profile-* 2>/dev/null)
	# beside it: one of a live perfhunt (this shell's PID stands in), one
	# of a dead PID that another user owns; both are kept
	true & dead=$!; wait $dead
	mkdir pt/perfhunt-profile-$$-live00 pt/perfhunt-profile-$dead-other
	: >pt/perfhunt-profile-$$-live00/perf.data
	: >pt/perfhunt-profile-$dead-other/perf.data
	chown -R nobody pt/perfhunt-profile-$dead-other 2>/dev/null
	TMPDIR="$TMP/pt" timeout "$LIMIT" "$P" run -q --no-save --profile -- true 2>err; st=$?
	not_hung $st && expect_status 0 $st && check "the killed run left no directory (nothing to remove)" [ -n "$left" ] &&
		check "still there: $left" [ ! -e "$left" ] &&
		check "a live perfhunt's directory was removed" [ -e pt/perfhunt-profile-$$-live00/perf.data ] &&
		if [ "$(stat -c %u pt/perfhunt-profile-$dead-other)" != "$(id -u)" ]; then
			check "another user's directory was removed" [ -e pt/perfhunt-profile-$dead-other/perf.data ]
		fi && ok
fi

done_testing
