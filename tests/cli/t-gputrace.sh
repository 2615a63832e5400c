#!/bin/sh
# run --gpu-trace where the GPU work cannot happen (this machine has no GPU):
# the command still gets the collector and the trace's directory in its
# environment (where the collector was built), perfhunt says in one line why
# nothing was traced, the command's exit status and the record are otherwise
# unchanged, and the directory is gone afterwards. The reader and the
# per-phase mapping are tested on H200 recordings in tests/unit/test_gputrace.c.
. ./lib.sh
COLLECTOR=$(dirname "$PERFHUNT")/src/gputrace/libperfhunt-gputrace.so

t "no CUDA process: one line says why, the status is the command's, no gpu_trace in the record"
$PERFHUNT run --gpu-trace --no-save -q -o "$TMP/r.json" -- sh -c 'echo PERFHUNT: begin=a >&2; exit 3' 2>"$TMP/err"
st=$?
n=$(grep -c 'gpu trace: nothing traced' "$TMP/err")
if expect_status 3 "$st" && check "one line, got $n: $(cat "$TMP/err")" [ "$n" = 1 ] &&
	check "record without gpu_trace" [ "$(jget "$TMP/r.json" gpu_trace 2>/dev/null)" = "" ] &&
	check "the phase is still there" [ "$(jget "$TMP/r.json" phases.0.name)" = a ] &&
	check "no gpu member in phases" [ "$(jget "$TMP/r.json" phases.0.gpu 2>/dev/null)" = "" ]; then ok; fi

t "the collector is named to CUDA and NVTX, with a private trace directory removed afterwards"
if [ ! -r "$COLLECTOR" ]; then
	skip "the collector was not built here (no CUPTI)"
else
	$PERFHUNT run --gpu-trace --no-save -q -- sh -c 'echo "$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH|$PERFHUNT_GPU_TRACE_DIR" >"$0"; test -d "$PERFHUNT_GPU_TRACE_DIR" && test -w "$PERFHUNT_GPU_TRACE_DIR"' "$TMP/env" 2>"$TMP/err"
	st=$?
	IFS='|' read -r cuda nvtx dir <"$TMP/env"
	if expect_status 0 "$st" && check "CUDA_INJECTION64_PATH '$cuda'" [ "$cuda" -ef "$COLLECTOR" ] &&
		check "NVTX_INJECTION64_PATH '$nvtx'" [ "$nvtx" = "$cuda" ] &&
		check "directory '$dir' removed" [ ! -e "$dir" ] &&
		expect_grep 'nothing traced: no process of the command started CUDA' "$TMP/err"; then ok; fi
fi

t "a collector that cannot be read: the run goes on and says so"
PERFHUNT_GPU_COLLECTOR=$TMP/none $PERFHUNT run --gpu-trace --no-save -q -- sh -c 'test -z "$CUDA_INJECTION64_PATH"' 2>"$TMP/err"
st=$?
if expect_status 0 "$st" && expect_grep "nothing traced: the collector named by PERFHUNT_GPU_COLLECTOR" "$TMP/err"; then ok; fi

done_testing
