#!/bin/sh
# Reproduces the figures of docs/GPU.md on a machine with an NVIDIA GPU:
# pin_demo recorded by perfhunt (GPU memory, counters, probes) at two sizes,
# with nvidia-smi sampling the same process alongside for comparison.
#   examples/gpu/measure.sh OUTDIR [GIB...]      (PERFHUNT=path/to/perfhunt)
# Each size runs twice: pageable-then-pinned (touched buffer), and --pin-first
# (pinning untouched memory, as the seed's engine did).
set -u
out=$(realpath -m "${1:-gpu-out}")
shift
sizes=${*:-4 16}
p=${PERFHUNT:-perfhunt}
mkdir -p "$out"
cd "$(dirname "$0")" || exit 1
make >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
{ nvidia-smi -L; nvidia-smi; uname -r; nproc; } >"$out/machine.txt" 2>&1
for gib in $sizes; do
	for mode in touched pinfirst; do
		tag=$gib-$mode
		flag=
		[ "$mode" = pinfirst ] && flag=--pin-first
		nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits -lms 100 \
			>"$out/smi-apps-$tag.csv" 2>&1 &
		a=$!
		nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader,nounits -lms 100 \
			>"$out/smi-gpu-$tag.csv" 2>&1 &
		g=$!
		"$p" run --no-save --counters --interval 50 -o "$out/run-$tag.json" --csv "$out/run-$tag.csv" -- \
			./pin_demo --host-gib "$gib" --device-gib "$gib" --chunks 4 $flag 2>"$out/run-$tag.txt"
		echo "exit $?" >>"$out/run-$tag.txt"
		sleep 0.3
		kill "$a" "$g" 2>/dev/null
		"$p" report -o "$out/report-$tag.html" "$out/run-$tag.json" >/dev/null 2>&1
	done
done
