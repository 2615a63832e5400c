#!/bin/bash
# bench/overhead/spaced.sh PERFHUNT... : `run -q --no-save --gpu off -- /bin/true`
# 40 times 50 ms apart with each perfhunt given, with and without its memory
# cgroup, then /bin/true bare; medians in ms. Spaced runs show what a single
# run pays: the kernel's cgroup move waits for a grace period unless another
# move came within ~20 ms, which back-to-back benchmarks hide. Needs bash
# (EPOCHREALTIME) and awk only, so it runs on a bare machine too.
set -u
[ $# -ge 1 ] || { echo "usage: bench/overhead/spaced.sh PERFHUNT..." >&2; exit 2; }
stat -fc 'cgroup fs: %T' /sys/fs/cgroup; uname -r
ms() { awk -v s="$1" -v e="$2" 'BEGIN{printf "%.3f\n", (e-s)*1000}'; }
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
for bin in "$@"; do
	for mode in "" "--cgroup off"; do
		for i in $(seq 1 40); do
			s=$EPOCHREALTIME; "$bin" run -q --no-save --gpu off $mode -- /bin/true; e=$EPOCHREALTIME
			ms "$s" "$e"; sleep 0.05
		done | median | sed "s|^|$bin ${mode:-(cgroup)}: median |; s|$| ms|"
	done
done
for i in $(seq 1 40); do s=$EPOCHREALTIME; /bin/true; e=$EPOCHREALTIME; ms "$s" "$e"; sleep 0.05; done |
	median | sed 's|^|/bin/true bare: median |; s|$| ms|'
