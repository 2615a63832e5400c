#!/usr/bin/python3
"""Wide trees: the monitor's CPU per sample and its share of a core at 100,
1 000 and 5 000 processes sampled every 10 ms, the build before a change
against the build after it, in one run.

Each size and mode builds one tree (bench/sampler/tree: N processes, asleep,
or "work": each child wakes once a second for 10 us), and each build in turn
watches it (`perfhunt watch --interval 10 --csv`) for WARM + SPAN seconds.
The steady state is read from outside, between WARM and WARM + SPAN (after
start-up: opening and reading every member, the first PSS readings): the
watch's own CPU from /proc/PID/stat (utime + stime), its samples from the
CSV's rows. CPU per sample = its CPU / its samples, share of a core = its CPU
/ SPAN. A watched tree's memory is its members' PSS sum (no cgroup).
Medians of --repeat repetitions.
usage: wide.py --before OLD_PERFHUNT --after NEW_PERFHUNT --helpers DIR [--sizes 100,1000,5000]
       [--modes rest,work] [--repeat 3] [--warm 4] [--span 4]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rows(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def one(a, binary, root, n, tmp):
    """The watch's CPU, samples and seconds between a.warm and a.warm + a.span."""
    rec, csv_path = os.path.join(tmp, "w.json"), os.path.join(tmp, "w.csv")
    env = dict(os.environ, PERFHUNT_SAMPLE_BUDGET=a.budget) if a.budget else None
    argv = [binary, "watch", "-q", "--no-save", "--interval", "10", "--duration", "%gs" % (a.warm + a.span + 1),
            "--csv", csv_path, "-o", rec, str(root)]
    w = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    time.sleep(a.warm)
    c0, r0, t0 = cpu_s(w.pid), rows(csv_path), time.monotonic()
    time.sleep(a.span)
    c1, r1, t1 = cpu_s(w.pid), rows(csv_path), time.monotonic()
    if w.wait() != 0:
        sys.exit("bench: %s failed" % " ".join(argv))
    s = json.load(open(rec))["summary"]
    if s["max_procs"] != n:
        print("# %s counted %d processes of %d" % (binary, s["max_procs"], n), flush=True)
    return c1 - c0, r1 - r0, t1 - t0, s


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
    ap.add_argument("--warm", type=float, default=4)
    ap.add_argument("--span", type=float, default=4)
    ap.add_argument("--budget", default="", help="PERFHUNT_SAMPLE_BUDGET for both builds (1000: never stretch)")
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
                        dc, ds, dw, s = one(a, binary, root, n, tmp)
                        if ds > 0 and dw > 0:
                            per[name].append((dc / ds * 1e3, dc / dw, ds / dw, s.get("samples_stretched", 0),
                                              s["samples"], s["max_procs"]))
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
          "| stretched (whole watch) | processes counted |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for n, mode, med in rows:
        for name, _ in bins:
            m = med[name]
            print("| %d | %s | %s | %.3f | %.2f | %.2f | %.0f | %.0f of %.0f | %.0f |" % (
                n, mode, name, m[0], m[0] * 1e3 / n, m[1], m[2], m[3], m[4], m[5]))


if __name__ == "__main__":
    main()
