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

t "a slow reader of perfhunt's stdout back-pressures the command, never the sampler"
# 80 kB fill the pipe to the reader, which sleeps 3 s; the command is not
# blocked (its own pipe has room) and holds 32 MiB for 1 s meanwhile. The
# monitor must sample through it (it used to block in write: 3 samples, a
# sampled peak of 12 KiB) and relay every byte once the reader reads.
timeout "$LIMIT" "$P" run -q --no-save --interval 50 -o slow.json -- \
	sh -c 'head -c 80000 /dev/zero | tr "\0" x; echo; exec "$0" alloc:32 sleep:1000' "$W" | (sleep 3; wc -c >count)
st=$?
not_hung $st && expect_status 0 $st && [ "$(cat count)" = 80001 ] &&
	check "sampled peak $(jget slow.json summary.peak_tree_rss_kb) KiB below the 32 MiB held" \
		between 32768 "$(jget slow.json summary.peak_tree_rss_kb)" 1000000 && ok

done_testing
