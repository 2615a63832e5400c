#!/bin/sh
# End-to-end tests of `perfhunt watch`, `stop` and `ps` on real processes.
. ./lib.sh
W="$WORKLOADS/phwork"
P="$PERFHUNT"
export PERFHUNT_STATE_DIR="$TMP/state"

t "watch a PID for a duration"
"$W" alloc:32 sleep:4000 & T=$!
sleep 0.3
"$P" watch -q --no-save --duration 500ms -o "$TMP/w.json" $T; st=$?
expect_status 0 $st && [ "$(jget "$TMP/w.json" kind)" = watch ] &&
	[ "$(jget "$TMP/w.json" ended)" = "--duration reached" ] &&
	between 32768 "$(jget "$TMP/w.json" summary.peak_rss_kb)" 60000 && ok
kill $T 2>/dev/null; wait $T 2>/dev/null

t "watch until the tree exits, children included"
"$W" sleep:200 children:2:8:300 & T=$!
"$P" watch -q --no-save --interval 20 -o "$TMP/w2.json" $T; st=$?
expect_status 0 $st && [ "$(jget "$TMP/w2.json" ended)" = "the watched tree exited" ] &&
	[ "$(jget "$TMP/w2.json" summary.max_procs)" -ge 3 ] && ok
wait $T 2>/dev/null

t "watch a PID that does not exist"
"$P" watch -q --no-save 999999 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep '^perfhunt: no process with PID 999999$' "$TMP/err" && ok

for args in "" "abc" "1 2" "--duration 0 1" "--duration soon 1" "--name x 1"; do
	t "usage error: watch $args"
	# shellcheck disable=SC2086
	"$P" watch --no-save $args 2>/dev/null; expect_status 2 $? && ok
done

t "--name finds the one process of that name"
cp "$W" "$TMP/phw$$"
"$TMP/phw$$" sleep:3000 & T=$!
sleep 0.2
"$P" watch -q --no-save --duration 200ms --name "phw$$" -o "$TMP/n.json"; st=$?
expect_status 0 $st && [ "$(jget "$TMP/n.json" summary.max_procs)" = 1 ] && ok

t "--name with several matches lists them"
"$TMP/phw$$" sleep:3000 & T2=$!
sleep 0.2
"$P" watch -q --no-save --duration 200ms --name "phw$$" 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep "2 processes are named 'phw$$' \(PIDs [0-9]+, [0-9]+\)" "$TMP/err" && ok
kill $T $T2 2>/dev/null; wait $T $T2 2>/dev/null

t "--pidfile"
"$W" pidfile:"$TMP/daemon.pid" sleep:3000 & T=$!
sleep 0.3
"$P" watch -q --no-save --duration 200ms --pidfile "$TMP/daemon.pid" -o "$TMP/pf.json"; st=$?
expect_status 0 $st && [ -s "$TMP/pf.json" ] && ok
kill $T 2>/dev/null; wait $T 2>/dev/null

t "--pidfile that does not hold a PID"
echo "garbage" >"$TMP/bad.pid"
"$P" watch -q --no-save --pidfile "$TMP/bad.pid" 2>"$TMP/err"; expect_status 1 $? &&
	expect_grep "does not hold a PID" "$TMP/err" && ok

t "a process of another user is refused with a clear line"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	"$W" sleep:3000 & T=$!
	sleep 0.2
	setpriv --reuid=65534 --regid=65534 --clear-groups env PERFHUNT_STATE_DIR=/tmp \
		"$P" watch -q --no-save --duration 200ms $T 2>"$TMP/err"; st=$?
	expect_status 1 $st && expect_grep 'permission denied' "$TMP/err" && ok
	kill $T 2>/dev/null; wait $T 2>/dev/null
else ok; fi

t "SIGINT ends a foreground watch with a record"
"$W" sleep:4000 & T=$!
"$P" watch -q --no-save -o "$TMP/int.json" $T & M=$!
sleep 0.4; kill -INT $M; wait $M; st=$?
expect_status 0 $st && [ "$(jget "$TMP/int.json" ended)" = "stopped by SIGINT" ] && ok
kill $T 2>/dev/null; wait $T 2>/dev/null

t "detach, ps, stop: the summary comes back with the peak"
"$W" alloc:24 sleep:4000 & T=$!
sleep 0.2
id=$("$P" watch --no-save --detach --csv "$TMP/d.csv" $T)
"$P" ps >"$TMP/ps"
expect_grep "^$id +running" "$TMP/ps" || true
sleep 0.3
"$P" stop "$id" 2>"$TMP/stop"; st=$?
expect_status 0 $st && expect_grep 'stopped by SIGTERM' "$TMP/stop" && expect_grep 'peak RSS +(2[4-9]|[3-9][0-9])\.' "$TMP/stop" &&
	[ "$(wc -l <"$TMP/d.csv")" -ge 3 ] && [ -z "$(ls "$PERFHUNT_STATE_DIR")" ] && ok
kill $T 2>/dev/null; wait $T 2>/dev/null

t "detach with --export-openmetrics: stop writes the file the detached monitor was given"
"$W" alloc:8 sleep:4000 & T=$!
sleep 0.2
id=$("$P" watch --no-save --detach --interval 50 --export-openmetrics "$TMP/d.prom" $T)
sleep 0.3
"$P" stop "$id" 2>"$TMP/stop"; st=$?
kill $T 2>/dev/null; wait $T 2>/dev/null
expect_status 0 $st && expect_grep '^perfhunt_wall_seconds' "$TMP/d.prom" &&
	expect_grep '^perfhunt_peak_rss_bytes' "$TMP/d.prom" && no_sanitizer "$TMP/stop" && ok

t "stop without ID and no monitor"
"$P" stop 2>"$TMP/err"; expect_status 1 $? && expect_grep 'no monitor is running' "$TMP/err" && ok

t "a stale state file whose PID was reused signals nothing"
sleep 30 & S=$!
printf '{"id":"%s","pid":%d,"starttime_ticks":1,"target_pid":1,"target":"x","started_at":"","log":"%s/x.log"}' \
	"$S" "$S" "$PERFHUNT_STATE_DIR" >"$PERFHUNT_STATE_DIR/$S.json"
"$P" stop "$S" 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep 'not running' "$TMP/err" && kill -0 $S && [ ! -e "$PERFHUNT_STATE_DIR/$S.json" ] && ok
kill $S; wait $S 2>/dev/null

t "a monitor whose target exited is stopped with its summary"
"$W" sleep:300 & T=$!
id=$("$P" watch --no-save --detach $T)
wait $T; sleep 0.5
"$P" ps | grep -q "^$id  *finished" && "$P" stop "$id" 2>"$TMP/stop" && expect_grep 'the watched tree exited' "$TMP/stop" && ok ||
	fail "$(cat "$TMP/stop" 2>/dev/null)"

done_testing
