#!/bin/sh
# What --gpu-trace costs a kernel-heavy program, and how much of it is CUPTI's
# own: trace_demo run bare, under cupti_floor (a subscriber that only counts
# the records of the kinds it is given) and under perfhunt's collector, the
# modes alternated in each repeat so drift spreads over all of them. Prints
# one line per run (mib, mode, repeat, wall ms, the compute phase's CUDA-event
# ms), then each mode's medians against bare's.
#   examples/gpu/overhead.sh TRACE_DEMO COLLECTOR.so FLOOR.so REPEATS "MIB:ITERS..." [MODE...]
# Modes: bare; floor_k (kernels), floor_kc (kernels, CLOCK_MONOTONIC
# timestamps), floor_all (the collector's kinds and clock, NVTX aside);
# coll_cuda (the collector, CUDA injection only), coll (and NVTX, as
# `perfhunt run --gpu-trace` loads it); base (the collector built from an
# earlier tree, $BASE_COLLECTOR, as coll: to hold a change against).
set -u
demo=$1 coll=$2 floor=$3 reps=$4 sizes=$5
shift 5
modes=${*:-bare floor_k floor_kc floor_all coll_cuda coll}
tmp=$(mktemp -d)
run() { # mode mib iters
	dir=$tmp/trace
	rm -rf "$dir" && mkdir -p "$dir"
	case $1 in
	bare) set -- env ;;
	floor_k) set -- env CUDA_INJECTION64_PATH="$floor" CUPTI_FLOOR_KINDS=kernel ;;
	floor_kc) set -- env CUDA_INJECTION64_PATH="$floor" CUPTI_FLOOR_KINDS=kernel CUPTI_FLOOR_CLOCK=1 ;;
	floor_all) set -- env CUDA_INJECTION64_PATH="$floor" CUPTI_FLOOR_CLOCK=1 \
		CUPTI_FLOOR_KINDS=kernel,memcpy,memset,memory,sync,runtime,driver ;;
	coll_cuda) set -- env CUDA_INJECTION64_PATH="$coll" PERFHUNT_GPU_TRACE_DIR="$dir" ;;
	coll) set -- env CUDA_INJECTION64_PATH="$coll" NVTX_INJECTION64_PATH="$coll" PERFHUNT_GPU_TRACE_DIR="$dir" ;;
	base) set -- env CUDA_INJECTION64_PATH="$BASE_COLLECTOR" NVTX_INJECTION64_PATH="$BASE_COLLECTOR" \
		PERFHUNT_GPU_TRACE_DIR="$dir" ;;
	esac
	t0=$(date +%s%N)
	"$@" "$demo" --mib "$mib" --iters "$iters" 2>"$tmp/err" >/dev/null
	t1=$(date +%s%N)
	ev=$(sed -n 's/.*compute_event_ms=\([0-9.]*\).*/\1/p' "$tmp/err")
	echo "$mib $mode $r $(( (t1 - t0) / 1000000 )) ${ev:-NA}"
}
for size in $sizes; do
	mib=${size%%:*} iters=${size##*:}
	r=0
	while [ "$r" -lt "$reps" ]; do
		r=$((r + 1))
		for mode in $modes; do run "$mode"; done
	done
done | tee "$tmp/runs"
awk '{ k = $1 " " $2; w[k] = w[k] " " $4; e[k] = e[k] " " $5; if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
function med(s,   a, m, i, j, t) { m = split(s, a, " "); for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
END { for (i = 0; i < n; i++) { split(order[i], kk, " "); b = kk[1] " bare"
	printf "median mib=%s %-10s wall %7.1f ms (%+.1f %%)  compute %8.2f ms (%+.1f %%)\n", kk[1], kk[2], med(w[order[i]]),
		100 * (med(w[order[i]]) / med(w[b]) - 1), med(e[order[i]]), 100 * (med(e[order[i]]) / med(e[b]) - 1) } }' "$tmp/runs"
rm -rf "$tmp"
