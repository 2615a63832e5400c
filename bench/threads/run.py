#!/usr/bin/python3
"""The sampling cost of every thread's schedstat: perfhunt watching one
process of 1, 10, 100 and 1000 threads (all asleep) at --interval 10.

perfhunt's CPU comes from wait4's rusage (it is our child); start-up is removed
by the slope between a 2 s and a 4 s watch: (cpu4 - cpu2) / (samples4 -
samples2), per sample and per thread-sample. Beside it, the floor: the same
schedstat files kept open and pread in a loop (bench/threads/threads.c).
Three repetitions, the median shown; every figure of one table comes from
one run of this script.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--perfhunt", required=True)
ap.add_argument("--helpers", required=True)
ap.add_argument("--reps", type=int, default=3)
a = ap.parse_args()
tool = os.path.join(a.helpers, "threads")


def watch(pid, secs, tmp):
    out = os.path.join(tmp, "w.json")
    p = subprocess.Popen([a.perfhunt, "watch", "-q", "--no-save", "--interval", "10", "--duration",
                          str(secs), "-o", out, str(pid)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    rec = json.load(open(out))
    return ru.ru_utime + ru.ru_stime, rec["summary"]["samples"]


print("| threads | perfhunt µs/sample | µs per thread-sample | floor µs per thread-read | load |")
print("|---:|---:|---:|---:|---|")
with tempfile.TemporaryDirectory() as tmp:
    for n in (1, 10, 100, 1000):
        hold = subprocess.Popen([tool, "hold", str(n)], stdout=subprocess.PIPE, text=True)
        pid = int(hold.stdout.readline())
        per = []
        for _ in range(a.reps):
            c2, s2 = watch(pid, 2, tmp)
            c4, s4 = watch(pid, 4, tmp)
            per.append((c4 - c2) / (s4 - s2) * 1e6)
        floor = subprocess.run([tool, "floor", str(pid)], capture_output=True, text=True).stdout.split()
        hold.kill()
        hold.wait()
        m = statistics.median(per)
        load = " ".join(open("/proc/loadavg").read().split()[:3])
        print(f"| {n} | {m:.1f} | {m / n:.2f} | {float(floor[1]) / 1000:.2f} | {load} |")
        sys.stdout.flush()
