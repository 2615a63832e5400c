#!/bin/sh
# Faults, end to end, in CI-short form (tests/faults/*.sh are the full-length
# versions, results in docs/RELIABILITY.md): perfhunt SIGKILLed mid-run, the
# child OOM-killed in a memory cgroup, a child that ignores SIGTERM, fork
# churn, 5000 threads, a tree whose members exit between reads, a long run at
# 10 ms with perfhunt's own RSS and fds flat, and (opt-in) a stepped clock.
. ./lib.sh
P="$PERFHUNT"
W="$WORKLOADS/phwork"
export PERFHUNT_DB="$TMP/h.db" PERFHUNT_STATE_DIR="$TMP/state"
cd "$TMP" || exit 1

# wait_file FILE: until FILE exists (a phwork pidfile: step), at most 20 s
wait_file() { i=0; while [ ! -s "$1" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done; [ -s "$1" ]; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }
# csv_whole FILE: every line has the header's field count and the file ends with a newline
csv_whole() {
	awk -F, 'NR == 1 {n = NF} NF != n {bad++} END {exit bad > 0 || NR < 2}' "$1" &&
		[ "$(tail -c1 "$1" | od -An -c | tr -d ' ')" = '\n' ]
}

t "perfhunt SIGKILLed mid-run: the CSV is whole, the child keeps running"
"$P" run -q --no-save --interval 10 --csv k.csv -- "$W" pidfile:k.pid sleep:5000 & M=$!
wait_file k.pid && sleep 0.5
kill -KILL $M; wait $M 2>/dev/null
C=$(cat k.pid)
check "CSV has cut or ragged lines" csv_whole k.csv && check "child $C was killed with the monitor" kill -0 "$C" && ok
kill "$C" 2>/dev/null

t "the child OOM-killed in a memory cgroup: signal 9, killed, samples intact"
"$P" run --no-save --memory-limit 64 --interval 10 -o oom.json --csv oom.csv -- "$W" alloc:256 >out 2>err; st=$?
if grep -q -i 'cgroup' err && ! [ -s oom.json ]; then
	skip "no memory cgroup here: $(head -1 err)"
else
	expect_status 137 $st && [ "$(jget oom.json exit.signal)" = 9 ] && expect_grep 'killed by SIGKILL' err &&
		check "samples" csv_whole oom.csv && no_sanitizer err &&
		check "peak within the limit" between 1 "$(jget oom.json summary.peak_rss_kb)" 70000 && ok
fi

t "a child that ignores SIGTERM: forwarded, survives, SIGKILL ends it, record written"
"$P" run --no-save -o term.json -- "$W" ignore-term pidfile:term.pid sleep:6000 >out 2>err & M=$!
wait_file term.pid && sleep 0.3
C=$(cat term.pid)
kill -TERM $M; sleep 0.5
if check "child died of SIGTERM" kill -0 "$C" && check "perfhunt gave up waiting" kill -0 $M; then
	kill -KILL "$C"; wait $M; st=$?
	expect_status 137 $st && [ "$(jget term.json exit.signal)" = 9 ] && expect_grep 'killed by SIGKILL' err && ok
else kill -KILL "$C" $M 2>/dev/null; wait $M 2>/dev/null; fi

t "fork churn: no fd leaked, RSS bounded"
"$P" run -q --no-save --interval 5 -o churn.json -- "$W" pidfile:c1.pid sleep:300 churn:3000 pidfile:c2.pid sleep:300 & M=$!
wait_file c1.pid; f1=$(fds $M); r1=$(rss_kb $M)
wait_file c2.pid; f2=$(fds $M); r2=$(rss_kb $M)
wait $M; st=$?
expect_status 0 $st && check "fds $f1 -> $f2" [ "$f2" -le $((f1 + 2)) ] &&
	check "RSS $r1 -> $r2 KiB" [ "$r2" -le $((r1 + 16384)) ] && ok

t "5000 threads: max_threads recorded"
"$P" run -q --no-save --interval 20 -o thr.json -- "$W" threads:5000:5000 2>err; st=$?
expect_status 0 $st && check "max_threads $(jget thr.json summary.max_threads)" \
	[ "$(jget thr.json summary.max_threads)" -ge 5000 ] && no_sanitizer err && ok

t "a tree whose members exit between reads (grandchildren churn at 1 ms)"
set --; i=0; while [ $i -lt 150 ]; do set -- "$@" grandchild:1:2 children:3:1:1; i=$((i + 1)); done
"$P" run -q --no-save --interval 1 -o churn2.json --csv churn2.csv -- "$W" "$@" 2>err; st=$?
expect_status 0 $st && check "empty stderr: $(head -c 300 err)" [ ! -s err ] &&
	check "max_procs" [ "$(jget churn2.json summary.max_procs)" -ge 2 ] && check "csv" csv_whole churn2.csv && ok

t "a long run at 10 ms (CI: 20 s): perfhunt's RSS and fds flat"
"$P" run -q --no-save --interval 10 --csv long.csv -o long.json -- "$W" pidfile:l1.pid sleep:2000 pidfile:l2.pid \
	sleep:16000 pidfile:l3.pid sleep:500 & M=$!
wait_file l2.pid; f1=$(fds $M); r1=$(rss_kb $M)
wait_file l3.pid; f2=$(fds $M); r2=$(rss_kb $M)
wait $M; st=$?
expect_status 0 $st && check "fds $f1 -> $f2" [ "$f2" -le "$f1" ] &&
	check "RSS $r1 -> $r2 KiB" [ "$r2" -le $((r1 + 4096)) ] && check "csv" csv_whole long.csv &&
	check "rows $(wc -l <long.csv)" [ "$(wc -l <long.csv)" -ge 1000 ] && ok

t "the clock stepped back 1 h and forward again during a run: monotonic times"
if [ "${PERFHUNT_TEST_CLOCK_STEP:-}" = 1 ] && [ "$(id -u)" = 0 ]; then
	# Back first: no realtime timer of another process fires early.
	"$P" run -q --no-save --interval 20 -o clk.json --csv clk.csv -- "$W" pidfile:clk.pid sleep:2500 & M=$!
	wait_file clk.pid
	r0=$(date +%s.%N); u0=$(cut -d' ' -f1 /proc/uptime)
	date -s "@$(echo "$r0 - 3600" | bc)" >/dev/null
	sleep 1
	date -s "@$(echo "$r0 + $(cut -d' ' -f1 /proc/uptime) - $u0" | bc)" >/dev/null
	wait $M; st=$?
	expect_status 0 $st && check "wall_s $(jget clk.json summary.wall_s)" between 2 "$(jget clk.json summary.wall_s)" 4 &&
		check "t_ms not monotonic" awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "t_ms") c = i}
			NR > 2 && $c < last {exit 1} NR > 1 {last = $c}' clk.csv && ok
else skip "set PERFHUNT_TEST_CLOCK_STEP=1 as root (steps the system clock)"; fi

done_testing
