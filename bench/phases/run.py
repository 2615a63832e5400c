#!/usr/bin/python3
"""Per-phase attribution against ground truth, by phase length / interval.

tests/workloads/phpin prints what getrusage said of each of its phases
(TRUTH lines); perfhunt's phases[].resources should put the same faults and
CPU in the same phase. For phase lengths from 0.5x to 20x the sampling
interval, this runs the bad build (every fault in `pin`) with its phases as
markers and as duration probes, and reports the attribution error:
100 * (attributed - true) / true for pin's minor faults, spin's user CPU and
sys's sys CPU. CPU comes from /proc in 10 ms ticks, so short CPU phases carry
up to +-10 ms of quantisation whatever perfhunt does.

usage: bench/phases/run.py --perfhunt build/perfhunt --phpin build/tests/workloads/phpin
       [--interval 50] [--repeat 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

RATIOS = (0.5, 1, 2, 5, 10, 20)
MS_PER_MIB = 1.1  # pinning untouched memory on this VM, measured: 96 MiB in ~107 ms


def truth_of(stderr):
    t = {}
    for line in stderr.splitlines():
        if line.startswith("TRUTH "):
            f = dict(kv.split("=") for kv in line.split()[1:])
            name = f.pop("name")
            t[name] = {k: float(v) for k, v in f.items()}
    return t


def one(args, ratio, mode):
    length_ms = ratio * args.interval
    mib = max(1, round(length_ms / MS_PER_MIB))
    cmd = [args.phpin, "--bad", "--mib", str(mib), "--spin-ms", str(round(length_ms)),
           "--sys-ms", str(round(length_ms)), "--probes", mode, "--gap-ms", "5"]
    with tempfile.TemporaryDirectory() as d:
        rec = os.path.join(d, "r.json")
        p = subprocess.run([args.perfhunt, "run", "-q", "--no-save", "--interval", str(args.interval),
                            "-o", rec, "--"] + cmd, capture_output=True, text=True)
        truth = truth_of(p.stderr)
        got = {ph["name"]: ph["resources"] for ph in json.load(open(rec))["phases"]}
    def err(phase, key):
        t = truth[phase][key]
        return 100 * (got[phase][key] - t) / t if t > 0 else float("nan")
    return err("pin", "minflt"), err("spin", "user_ms"), err("sys", "sys_ms"), \
        got["pin"]["approximate"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", required=True)
    ap.add_argument("--phpin", required=True)
    ap.add_argument("--interval", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    load = open("/proc/loadavg").read().split()[0]
    print(f"interval {args.interval} ms, median of {args.repeat} runs, load {load}")
    print("| phase length / interval | probes | pin minor faults | spin user CPU | sys sys CPU | pin approximate |")
    print("|--:|:--|--:|--:|--:|:--|")
    for mode in ("marker", "duration"):
        for ratio in RATIOS:
            runs = [one(args, ratio, mode) for _ in range(args.repeat)]
            cols = [statistics.median(r[i] for r in runs) for i in range(3)]
            approx = sum(r[3] for r in runs)
            print(f"| {ratio:g}x ({ratio * args.interval:g} ms) | {mode} | "
                  + " | ".join(f"{c:+.1f} %" for c in cols) + f" | {approx}/{args.repeat} |")


if __name__ == "__main__":
    main()
