#!/bin/sh
# Runs every benchmark of docs/PERFORMANCE.md against the perfhunt in BUILD.
# usage: bench/run-all.sh [BUILD] [helpers]   (make bench BUILD=build-perf)
# Helpers are compiled into BUILD/bench (with "helpers": only that, so one
# benchmark can then be run alone, as docs/PERFORMANCE.md shows); results are
# printed as the tables the document quotes.
set -eu
build=${1:-build}
here=$(dirname "$0")
ph=$build/perfhunt
helpers=$build/bench
py=/usr/bin/python3
mkdir -p "$helpers"
cc=${CC:-cc}
for src in sampler/tree sampler/floor sampler/perfile overhead/minwrap accuracy/spike passthrough/ticker passthrough/latency threads/threads; do
	$cc -O2 -Wall -Wextra -pthread -o "$helpers/$(basename $src)" "$here/$src.c"
done
[ "${2:-}" = helpers ] && exit 0

echo "## sampler: monitor CPU per process-sample"
sleep 600 &
"$helpers/perfile" $! 20000
kill $!
$py "$here/sampler/run.py" --perfhunt "$ph" --helpers "$helpers"
echo
echo "## sampler: every thread's schedstat, per thread-sample"
$py "$here/threads/run.py" --perfhunt "$ph" --helpers "$helpers"
echo
echo "## accuracy: a 1 GiB spike held 50 ms, sampled at 1 s"
$py "$here/accuracy/run.py" --perfhunt "$ph" --helpers "$helpers"
echo
echo "## overhead: wrapper overhead (hyperfine -N)"
"$here/overhead/run.sh" "$ph" "$helpers"
echo
echo "## passthrough: latency added to the child's output lines"
"$here/passthrough/run.sh" "$ph" "$helpers"
echo
echo "## peak: perfhunt peak vs sort | tail and awk"
"$here/peak/run.sh" "$build"
echo
echo "## stats: exact Mann-Whitney p, cost and distance to the normal approximation"
"$here/stats/run.sh" "$build"
echo "## history detect: 20 series by number of runs"
$py "$here/detect/run.py" --perfhunt "$ph"
echo
echo "## phases: per-phase attribution against ground truth, by phase length / interval"
$py "$here/phases/run.py" --perfhunt "$ph" --phpin "$build/tests/workloads/phpin"
echo
echo "## scale: the reading side by phases (10^2 -> 10^4: nested, overlapping, flat)"
$py "$here/scale/run.py" --perfhunt "$ph" --phgen "$build/tests/workloads/phgen"
