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

t "compare names the kernel that moved; show and report list each phase's top kernels; the trace has GPU tracks, an arrow from the launch to its kernel"
# two real records of a phase msm; the GPU side of each is what --gpu-trace
# would have written there (phases[].gpu, docs/FORMATS.md), the phase as
# long as its GPU work
for side in base new; do
	$PERFHUNT run --no-save -q -o "$TMP/$side.json" -- sh -c 'echo PERFHUNT: begin=msm >&2; echo PERFHUNT: end=msm >&2' 2>/dev/null
done
/usr/bin/python3 - "$TMP/base.json" "$TMP/new.json" <<'PY'
import json, sys
for path, ms, busy in ((sys.argv[1], 10.0, 12.0), (sys.argv[2], 1200.0, 1202.0)):
    r = json.load(open(path))
    gpu = {"busy_ms": busy, "kernel_ms": busy, "launches": 313,
           "kernels": [{"name": "msm_bucket_accumulate", "ms": ms, "launches": 312},
                       {"name": "ntt_twiddle", "ms": 2.0, "launches": 1}],
           "h2d_bytes": 0, "d2h_bytes": 0, "d2d_bytes": 0, "h2d_pageable_bytes": 0, "sync_ms": busy}
    for ph in r["phases"]:
        ph["gpu"] = gpu
        ph["end_ms"] = ph["start_ms"] + busy  # the phase waited for its kernels
        ph["duration_ms"] = busy
    start = r["phases"][0]["start_ms"]
    # the kernel's launch: its process, and [thread, call, start_ms, duration_ms]
    r["gpu_trace"] = {"slices": [[0, "kernel", "msm_bucket_accumulate", start, ms, 4242,
                                  [77, "cudaLaunchKernel", start - 0.02, 0.01]],
                                 [0, "h2d", "h2d", start, 2.5]],
                      "slices_left_out": 0}
    for st in r["phase_stats"]:
        st["gpu"] = gpu
        for k in ("total_ms", "median_ms", "min_ms", "max_ms"):
            st[k] = busy
    json.dump(r, open(path, "w"))
PY
$PERFHUNT compare "$TMP/base.json" "$TMP/new.json" >"$TMP/cmp" 2>&1
$PERFHUNT show "$TMP/new.json" >"$TMP/show" 2>&1
$PERFHUNT report -o "$TMP/r.html" "$TMP/new.json" >/dev/null 2>&1
$PERFHUNT show -q --export-trace "$TMP/t.json" "$TMP/new.json" >/dev/null 2>&1
/usr/bin/python3 - "$TMP/t.json" >"$TMP/gputracks" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
for e in ev:
    if e["ph"] == "X" and e.get("cat") in ("kernel", "h2d", "cuda_api"):
        print(names.get((e["pid"], e["tid"])), e["name"], round(e["dur"]))
    if e["ph"] in ("s", "f"):
        print("flow", e["ph"], names.get((e["pid"], e["tid"])), round(e["ts"]))
PY
if expect_grep 'msm .*: (.*, )?kernel msm_bucket_accumulate \+1\.190 s, GPU busy \+1\.190 s' "$TMP/cmp" &&
	expect_grep '^msm .* msm_bucket_accumulate 1\.200 s \(312\), ntt_twiddle 2\.00 ms \(1\)' "$TMP/show" &&
	expect_grep '<th>GPU busy %</th>' "$TMP/r.html" &&
	check "the trace keeps the trace-event format: $(/usr/bin/python3 ./trace_check.py "$TMP/t.json" 2>&1 | tail -2)" \
		sh -c '/usr/bin/python3 ./trace_check.py "$1" >/dev/null 2>&1' - "$TMP/t.json" &&
	expect_grep '^GPU 0 kernels msm_bucket_accumulate 1200000$' "$TMP/gputracks" &&
	expect_grep '^GPU 0 copies h2d 2500$' "$TMP/gputracks" &&
	expect_grep '^process 4242 thread 77: CUDA calls cudaLaunchKernel 10$' "$TMP/gputracks" &&
	start_us=$(/usr/bin/python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["phases"][0]["start_ms"] * 1000))' "$TMP/new.json") &&
	expect_grep "^flow s process 4242 thread 77: CUDA calls $((start_us - 20))\$" "$TMP/gputracks" &&
	expect_grep "^flow f GPU 0 kernels $start_us\$" "$TMP/gputracks" &&
	expect_grep '>1\.202 s</td><td>100 %</td><td class="l">msm_bucket_accumulate 1\.200 s \(312\)<' "$TMP/r.html"; then ok; fi

t "compare says when a phase's H2D copies went from pinned to pageable memory, with each side's throughput"
# two real records of a phase h2d whose GPU side is what --gpu-trace writes
# for 4 GiB copied from pinned memory at 50.7 GB/s (base) and from pageable
# memory at 6.8 GB/s (new): the H200's figures (docs/GPU.md); the phase as
# long as its copies
for side in base new; do
	$PERFHUNT run --no-save -q -o "$TMP/$side.json" -- sh -c 'echo PERFHUNT: begin=h2d >&2; echo PERFHUNT: end=h2d >&2' 2>/dev/null
done
/usr/bin/python3 - "$TMP/base.json" "$TMP/new.json" <<'PY'
import json, sys
size = 4 << 30
for path, gbps, pageable in ((sys.argv[1], 50.7, 0), (sys.argv[2], 6.8, size)):
    r = json.load(open(path))
    ms = size / gbps / 1e6
    gpu = {"busy_ms": 0, "kernel_ms": 0, "launches": 0, "kernels": [], "h2d_bytes": size, "h2d_gbps": gbps,
           "d2h_bytes": 0, "d2d_bytes": 0, "h2d_pageable_bytes": pageable, "sync_ms": 0}
    for ph in r["phases"]:
        ph["gpu"] = gpu
        ph["end_ms"] = ph["start_ms"] + ms
        ph["duration_ms"] = ms
    for st in r["phase_stats"]:
        st["gpu"] = gpu
        for k in ("total_ms", "median_ms", "min_ms", "max_ms"):
            st[k] = ms
    json.dump(r, open(path, "w"))
PY
$PERFHUNT compare "$TMP/base.json" "$TMP/new.json" >"$TMP/cmp" 2>&1
$PERFHUNT compare "$TMP/new.json" "$TMP/base.json" >"$TMP/cmp2" 2>&1
if expect_grep '^ *h2d  *\+547 ms .*: pageable copies 4\.00 GiB at 6\.8 GB/s \(was pinned at 50\.7 GB/s\)' "$TMP/cmp" &&
	expect_grep '^ *h2d  *-547 ms .*: pinned copies 4\.00 GiB at 50\.7 GB/s \(was pageable at 6\.8 GB/s\)' "$TMP/cmp2" &&
	check "the pageable bytes are not a second reason" [ "$(grep -c 'pageable H2D' "$TMP/cmp")" = 0 ]; then ok; fi

t "the trace export draws an arrow from each kernel's and copy's launch to it (an H200 recording replayed as the command)"
# gpu_replay.py writes the collector's file of trace_demo --mib 16 --iters 20
# (46 kernels, 5 copies, each with its cudaLaunchKernel or cudaMemcpy) as the
# measured process, on this machine's clock (the collector's path is only
# handed to CUDA, which the replay never loads: any readable file stands for it)
PERFHUNT_GPU_COLLECTOR=$PWD/gpu_replay.py $PERFHUNT run --gpu-trace --no-save -q -o "$TMP/l.json" -- \
	/usr/bin/python3 ./gpu_replay.py ../unit/data/gputrace/launch/541.jsonl 2>"$TMP/err"
st=$?
$PERFHUNT show -q --export-trace "$TMP/lt.json" "$TMP/l.json" >/dev/null 2>&1
/usr/bin/python3 - "$TMP/lt.json" >"$TMP/flows" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
calls = [e for e in ev if e["ph"] == "X" and e.get("cat") == "cuda_api"]
print("calls", len(calls), " ".join(sorted({e["name"] for e in calls})))
print("starts", sum(e["ph"] == "s" for e in ev), "ends", sum(e["ph"] == "f" for e in ev))
print("tracks", " ".join(sorted({names[(e["pid"], e["tid"])].split(":")[1].strip() for e in calls})))
PY
if expect_status 0 "$st" &&
	check "the trace keeps the trace-event format: $(/usr/bin/python3 ./trace_check.py "$TMP/lt.json" 2>&1 | tail -2)" \
		sh -c '/usr/bin/python3 ./trace_check.py "$1" >/dev/null 2>&1' - "$TMP/lt.json" &&
	expect_grep '^calls 51 cudaLaunchKernel cudaMemcpy$' "$TMP/flows" &&
	expect_grep '^starts 51 ends 51$' "$TMP/flows" &&
	expect_grep '^tracks CUDA calls$' "$TMP/flows"; then ok; fi

t "no NVIDIA driver: the CSV has the documented header, no gpu_procs_mib column, and no phase names a GPU process"
if [ -e /dev/nvidiactl ] || [ -e /proc/driver/nvidia/version ]; then
	skip "an NVIDIA driver is here: GPU memory is sampled"
else
	$PERFHUNT run --no-save -q -o "$TMP/n.json" --csv "$TMP/n.csv" -- \
		sh -c 'echo "PERFHUNT: pid=$$ begin=a" >&2; echo PERFHUNT: end=a >&2' 2>"$TMP/err"
	st=$?
	# docs/FORMATS.md's header line, the tree's column named as this machine counts it
	doc=$(grep -m1 '^epoch_ms,' ../../docs/FORMATS.md | sed 's/,tree_cgroup_kb$//')
	got=$(head -1 "$TMP/n.csv" | sed -E 's/,tree_(cgroup|pss|rss_sum)_kb$//')
	if expect_status 0 "$st" && check "header '$got', documented '$doc'" [ "$got" = "$doc" ] &&
		check "no gpu_procs_mib column" [ "$(grep -c gpu_procs_mib "$TMP/n.csv")" = 0 ] &&
		check "the phase bound to its pid" [ "$(jget "$TMP/n.json" phases.0.values.pid)" -gt 0 ] &&
		check "no GPU memory in its resources" [ "$(jget "$TMP/n.json" phases.0.resources.gpu_max_mib 2>/dev/null)" = "" ] &&
		check "no gpu_pid" [ "$(jget "$TMP/n.json" phases.0.resources.gpu_pid 2>/dev/null)" = "" ]; then ok; fi
fi

done_testing
