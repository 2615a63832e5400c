#!/usr/bin/python3
"""gpu_replay: a CUDA process's activity file, recorded on an H200 by
perfhunt's collector, replayed as a measured command on a machine without a
GPU: its timestamps are moved onto this machine's CLOCK_MONOTONIC (perfhunt's
clock) to start now, the command lasts as long as the recording did, and the
file is written into $PERFHUNT_GPU_TRACE_DIR at its end, as the collector
flushes at exit. So `run --gpu-trace` reads, maps and exports real activity.

    gpu_replay.py RECORDING.jsonl   (under perfhunt run --gpu-trace)
"""
import json
import os
import sys
import time

src = sys.argv[1]
lines = [json.loads(l) for l in open(src) if l.strip()]
stamps = [o[k] for o in lines for k in ("ts", "start", "end") if isinstance(o.get(k), int)]
shift = time.monotonic_ns() + 1_000_000 - min(stamps)
for o in lines:
    for k in ("ts", "start", "end"):
        if isinstance(o.get(k), int):
            o[k] += shift
time.sleep(max(0, (max(stamps) + shift - time.monotonic_ns()) / 1e9))
out = os.path.join(os.environ["PERFHUNT_GPU_TRACE_DIR"], os.path.basename(src))
with open(out, "w") as f:
    for o in lines:
        f.write(json.dumps(o, separators=(",", ":")) + "\n")
