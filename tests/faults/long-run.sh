#!/bin/sh
# long-run.sh PERFHUNT PHWORK [SECONDS] [INTERVAL_MS]: the full version of
# t-faults' long run (default 3600 s at 10 ms). Samples perfhunt's own RSS and
# fd count every 10 s into a table and fails if either grows past the bounds:
# fds never above their first reading, RSS at most 8 MiB above it.
set -u
P=${1:?perfhunt binary}; W=${2:?phwork binary}; secs=${3:-3600}; iv=${4:-10}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfhunt-long.XXXXXX")
"$P" run -q --no-save --interval "$iv" --csv "$tmp/long.csv" -o "$tmp/long.json" -- \
	"$W" sleep:2000 "sleep:$((secs * 1000))" & M=$!
sleep 5
f0=$(ls /proc/$M/fd | wc -l); r0=$(awk '/^VmRSS:/ {print $2}' /proc/$M/status)
echo "t_s fds rss_kb cpu_ticks"
t=0; maxf=$f0; maxr=$r0
while kill -0 $M 2>/dev/null; do
	f=$(ls /proc/$M/fd 2>/dev/null | wc -l); r=$(awk '/^VmRSS:/ {print $2}' /proc/$M/status 2>/dev/null)
	cpu=$(awk '{print $14 + $15}' /proc/$M/stat 2>/dev/null)
	[ -n "$r" ] || break
	[ "$f" -gt "$maxf" ] && maxf=$f
	[ "$r" -gt "$maxr" ] && maxr=$r
	[ $((t % 60)) = 0 ] && echo "$t $f $r $cpu"
	sleep 10; t=$((t + 10))
done
wait $M; st=$?
rows=$(wc -l <"$tmp/long.csv")
bad=$(awk -F, 'NR == 1 {n = NF} NF != n {b++} END {print b + 0}' "$tmp/long.csv")
echo "exit $st, $rows CSV lines ($bad ragged), fds $f0 -> max $maxf, RSS $r0 -> max $maxr KiB"
rm -rf "$tmp"
[ "$st" = 0 ] && [ "$bad" = 0 ] && [ "$maxf" -le "$f0" ] && [ "$maxr" -le $((r0 + 8192)) ]
