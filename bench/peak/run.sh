#!/bin/sh
# bench/peak/run.sh [BUILD] [ROWS]: `perfhunt peak` against `sort -t, -k2 -n | tail -1`
# and awk on a ROWS-row (default 10 M, ~310 MB) CSV in the seed's 3-column format,
# warm in the page cache. Generates the file with gencsv.c in a temp dir, removes it
# after, checks that the three tools agree on the peak row, and prints ratios and GB/s.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
rows=${2:-10000000}
ph=$(cd "$here/../.." && pwd)/$build/perfhunt
[ -x "$ph" ] || { echo "bench/peak: build perfhunt first ($ph)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench/peak: needs hyperfine" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfhunt-peak-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/gencsv" "$here/gencsv.c"
"$tmp/gencsv" "$rows" >"$tmp/big.csv"
bytes=$(wc -c <"$tmp/big.csv")
cat "$tmp/big.csv" >/dev/null # warm the page cache

# The three must name the same row before their speed means anything.
want=$(sort -t, -k2 -n "$tmp/big.csv" | tail -1)
awk_row=$(awk -F, '$2>m{m=$2;r=$0}END{print r}' "$tmp/big.csv")
ph_row=$("$ph" peak "$tmp/big.csv" | sed 's/.*: //')
[ "$want" = "$awk_row" ] && [ "$want" = "$ph_row" ] ||
	{ echo "bench/peak: tools disagree: sort '$want' awk '$awk_row' perfhunt '$ph_row'" >&2; exit 1; }

cd "$tmp"
# Other work on the machine slows every command: the load is printed with the results.
load_before=$(uptime | sed 's/.*load average: //')
hyperfine -N --warmup 1 --runs "${RUNS:-5}" --export-markdown "$tmp/table.md" --export-json "$tmp/r.json" \
	-n 'perfhunt peak' "$ph peak big.csv" \
	-n 'sort | tail -1' "sh -c 'sort -t, -k2 -n big.csv | tail -1'" \
	-n 'awk' "awk -F, '\$2>m{m=\$2;r=\$0}END{print r}' big.csv" >&2
echo "## $rows rows, $bytes bytes, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $load_before before, $(uptime | sed 's/.*load average: //') after"
cat "$tmp/table.md"
/usr/bin/python3 - "$tmp/r.json" "$bytes" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
b = int(sys.argv[2])
p = r["perfhunt peak"]
print()
print(f"perfhunt peak: {b / p['median'] / 1e9:.2f} GB/s (median {p['median']*1000:.0f} ms)")
for k in ("sort | tail -1", "awk"):
    print(f"{k}: {r[k]['median'] / p['median']:.1f}x slower than perfhunt peak (median {r[k]['median']*1000:.0f} ms)")
PY
