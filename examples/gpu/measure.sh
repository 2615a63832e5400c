#!/bin/sh
# Reproduces the figures of docs/GPU.md on a machine with an NVIDIA GPU:
# pin_demo recorded by perfhunt (GPU memory, counters, probes) at two sizes,
# with nvidia-smi sampling the same process alongside for comparison.
#   examples/gpu/measure.sh OUTDIR [GIB...]      (PERFHUNT=path/to/perfhunt)
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
	nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits -lms 100 \
		>"$out/smi-apps-$gib.csv" 2>&1 &
	a=$!
	nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader,nounits -lms 100 \
		>"$out/smi-gpu-$gib.csv" 2>&1 &
	g=$!
	"$p" run --no-save --counters --interval 50 -o "$out/run-$gib.json" --csv "$out/run-$gib.csv" -- \
		./pin_demo --host-gib "$gib" --device-gib "$gib" --chunks 4 2>"$out/run-$gib.txt"
	echo "exit $?" >>"$out/run-$gib.txt"
	sleep 0.3
	kill "$a" "$g" 2>/dev/null
	"$p" report -o "$out/report-$gib.html" "$out/run-$gib.json" >/dev/null 2>&1
done
