#!/usr/bin/python3
"""Wide trees: the monitor's CPU per sample and its share of a core at 100,
1 000 and 5 000 processes sampled every 10 ms, the build before a change
against the build after it, in one run.

Each size and mode builds one tree (bench/sampler/tree: N processes, asleep,
or "work": each child wakes once a second for 10 us) and `perfhunt watch
--interval 10` watches it for 2 s and for 4 s, the builds alternating; the
slopes between the two cancel start-up (opening and first reading every
member): CPU per sample = d(summary.monitor_cpu_s) / d(summary.samples),
share of a core = d(monitor_cpu_s) / d(wall_s), samples a second =
d(samples) / d(wall_s). A watched tree's memory is its members' PSS sum (no
cgroup). Medians of --repeat repetitions.
usage: wide.py --before OLD_PERFHUNT --after NEW_PERFHUNT --helpers DIR [--sizes 100,1000,5000]
       [--modes rest,work] [--repeat 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def one(binary, root, n, secs, tmp):
    rec = os.path.join(tmp, "w.json")
    argv = [binary, "watch", "-q", "--no-save", "--interval", "10", "--duration", "%ds" % secs, "-o", rec,
            str(root)]
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (" ".join(argv), p.returncode, p.stderr[-500:]))
    s = json.load(open(rec))["summary"]
    if s["max_procs"] != n:
        print("# %s counted %d processes of %d" % (binary, s["max_procs"], n), flush=True)
    return s


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--helpers", required=True, help="where bench/run-all.sh built tree")
    ap.add_argument("--sizes", default="100,1000,5000")
    ap.add_argument("--modes", default="rest,work")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    bins = [("before", a.before), ("after", a.after)]
    rows = []
    print("load at the start: %s" % load())
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in a.sizes.split(",")]:
            for mode in a.modes.split(","):
                tree = subprocess.Popen([os.path.join(a.helpers, "tree"), str(n), "100000", "0", mode],
                                        stdout=subprocess.PIPE, text=True)
                root = int(tree.stdout.readline().split()[1])
                time.sleep(1 + n / 2000)  # every child past its first wake
                per = {name: [] for name, _ in bins}
                for _ in range(a.repeat):
                    for name, binary in bins:
                        s2 = one(binary, root, n, 2, tmp)
                        s4 = one(binary, root, n, 4, tmp)
                        ds = s4["samples"] - s2["samples"]
                        dw = s4["wall_s"] - s2["wall_s"]
                        dc = s4["monitor_cpu_s"] - s2["monitor_cpu_s"]
                        if ds > 0 and dw > 0:
                            per[name].append((dc / ds * 1e3, dc / dw, ds / dw, s4.get("samples_stretched", 0),
                                              s4["samples"], s4["max_procs"]))
                tree.kill()
                tree.wait()
                med = {k: [statistics.median(x[i] for x in v) for i in range(6)] if v else [float("nan")] * 6
                       for k, v in per.items()}
                rows.append((n, mode, med))
                print("# %d processes, %s: %s (load %s)" % (n, mode, "; ".join(
                    "%s %s" % (k, " ".join("%.3f ms %.2f core" % (x[0], x[1]) for x in v))
                    for k, v in per.items()), load()), flush=True)
    print("load at the end: %s" % load())
    print("| processes | tree | build | CPU ms/sample | µs per process-sample | share of a core | samples/s "
          "| stretched (4 s watch) | processes counted |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for n, mode, med in rows:
        for name, _ in bins:
            m = med[name]
            print("| %d | %s | %s | %.3f | %.2f | %.2f | %.0f | %.0f of %.0f | %.0f |" % (
                n, mode, name, m[0], m[0] * 1e3 / n, m[1], m[2], m[3], m[4], m[5]))


if __name__ == "__main__":
    main()
