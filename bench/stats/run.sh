#!/bin/sh
# Cost and accuracy of compare's exact Mann–Whitney p (bench/stats/mwu.c),
# compiled from the sources; prints the table of docs/PERFORMANCE.md "## stats".
# usage: bench/stats/run.sh [BUILD]
set -eu
here=$(dirname "$0")
root=$here/../..
out=${1:-build}/bench
mkdir -p "$out"
${CC:-cc} -O2 -std=c17 -D_GNU_SOURCE -Wall -Wextra -I"$root/src" -o "$out/mwu" \
	"$here/mwu.c" "$root/src/stats/stats.c" "$root/src/util/xalloc.c" -lm
"$out/mwu"
