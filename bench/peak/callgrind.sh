#!/bin/sh
# bench/peak/callgrind.sh [BUILD] [ROWS]: instructions per line of `perfhunt peak` on a
# ROWS-row (default 300 000) seed-format CSV, counted by valgrind's callgrind: unlike
# wall time, the count does not depend on what else the machine is running. The total
# includes the process's start (dynamic linking, about 1.3 M instructions).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
rows=${2:-300000}
ph=$(cd "$here/../.." && pwd)/$build/perfhunt
[ -x "$ph" ] || { echo "bench/peak: build perfhunt first ($ph)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "bench/peak: needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfhunt-peak-cg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/gencsv" "$here/gencsv.c"
"$tmp/gencsv" "$rows" >"$tmp/small.csv"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$ph" peak "$tmp/small.csv" >/dev/null 2>"$tmp/vg.log"
total=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$tmp/vg.log")
[ -n "$total" ] || { cat "$tmp/vg.log" >&2; exit 1; }
echo "$rows lines, $(wc -c <"$tmp/small.csv") bytes: $total instructions, $((total / rows)) per line"
