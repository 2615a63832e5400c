#!/bin/sh
# Passthrough latency: a child writes a line stamped with CLOCK_MONOTONIC
# every 10 ms (ticker.c); a reader stamps each line's arrival (latency.c).
# Once through a direct pipe, once with perfhunt run in between (child stdout
# -> perfhunt's pipe -> perfhunt's stdout), with its default 100 ms interval
# and at --interval 10. The added latency is the difference of medians.
# usage: bench/passthrough/run.sh PERFHUNT HELPERS_DIR   (LINES=1000 by default)
set -eu
ph=$1
h=$2
n=${LINES:-1000}
for round in 1 2 3; do
	"$h/ticker" "$n" 10 | "$h/latency" "direct pipe (round $round)"
	"$ph" run -q --no-save -- "$h/ticker" "$n" 10 | "$h/latency" "perfhunt run (round $round)"
	"$ph" run -q --no-save --interval 10 -- "$h/ticker" "$n" 10 |
		"$h/latency" "perfhunt run --interval 10 (round $round)"
done
