#!/bin/sh
# churn.sh PERFHUNT PHWORK [SECONDS]: about 1000 short-lived children per
# second for SECONDS (default 10) under perfhunt at 5 ms; prints perfhunt's fd
# count and RSS before and after the churn and fails on a leaked fd or more
# than 16 MiB of growth.
set -u
P=${1:?perfhunt binary}; W=${2:?phwork binary}; secs=${3:-10}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfhunt-churn.XXXXXX")
set --
i=0; while [ $i -lt $((secs * 10)) ]; do set -- "$@" churn:100 sleep:100; i=$((i + 1)); done
"$P" run -q --no-save --interval 5 -o "$tmp/c.json" -- "$W" pidfile:"$tmp/a" sleep:300 "$@" \
	pidfile:"$tmp/b" sleep:500 & M=$!
while [ ! -s "$tmp/a" ]; do sleep 0.05; done
f1=$(ls /proc/$M/fd | wc -l); r1=$(awk '/^VmRSS:/ {print $2}' /proc/$M/status)
while [ ! -s "$tmp/b" ]; do sleep 0.05; done
f2=$(ls /proc/$M/fd | wc -l); r2=$(awk '/^VmRSS:/ {print $2}' /proc/$M/status)
wait $M; st=$?
echo "exit $st; fds $f1 -> $f2; RSS $r1 -> $r2 KiB; wall $(grep -o '"wall_s": [0-9.]*' "$tmp/c.json")"
rm -rf "$tmp"
[ "$st" = 0 ] && [ "$f2" -le $((f1 + 2)) ] && [ "$r2" -le $((r1 + 16384)) ]
