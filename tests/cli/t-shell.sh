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

done_testing
