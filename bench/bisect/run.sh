#!/bin/sh
# Error rates and runs of perfhunt bisect's decision rule against a fixed-n
# bisect (bench/bisect/sim.c, compiled with src/stats/bisectrule.c itself);
# prints the table of docs/BISECT.md.
# usage: bench/bisect/run.sh [BUILD] [TRIALS]
set -eu
here=$(dirname "$0")
root=$here/../..
out=${1:-build}/bench
mkdir -p "$out"
${CC:-cc} -O2 -std=c17 -D_GNU_SOURCE -Wall -Wextra -I"$root/src" -o "$out/bisect-sim" \
	"$here/sim.c" "$root/src/stats/bisectrule.c" "$root/src/stats/stats.c" "$root/src/util/xalloc.c" -lm
"$out/bisect-sim" "${2:-200}"
