#!/bin/sh
# make demo: record a small "prover" in miniature — phases reported on stderr
# and on $PERFHUNT_FD, a working set per phase, helper processes, a 50 ms spike
# — then show the run, and render its HTML report.
set -eu
build=${1:-build}
p="$build/perfhunt"
w="$build/tests/workloads/phwork"
out="$build/demo"
mkdir -p "$out"
export PERFHUNT_DB="$out/history.db"

echo "== perfhunt run: a prover in miniature (phases, children, a 50 ms spike)"
"$p" run --interval 20 -o "$out/run.json" --csv "$out/run.csv" --tag demo -- "$w" \
	fd:begin=load alloc:48 sleep:150 fd:end=load \
	'err:CUZK_TIMING: pin_abc_ms=150 num_circuits=10' \
	fd:begin=prove children:2:16:200 alloc:64 sleep:50 free fd:end=prove \
	'err:CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=120' 'err:CUZK_TIMING: gpu_tid=0 batch_add_ms=60' \
	fd:begin=verify spin:100 fd:end=verify

echo
echo "== perfhunt show $out/run.json (the tree's memory over time)"
"$p" show "$out/run.json" | tail -2
echo
"$p" peak "$out/run.csv"
"$p" report -o "$out/run.html" "$out/run.json"
echo "report: $out/run.html   record: $out/run.json   timeline: $out/run.csv"
