#!/usr/bin/python3
"""Tree memory benchmark: the monitor's CPU per sample with the tree's memory
counted once (the cgroup's usage; the members' PSS without a cgroup) against
the sum of RSS of the build before it, on trees of 1, 100 and 1000 processes.

Each variant runs bench/sampler/tree with 4 MiB (N processes sharing them;
"rest": none moves, "busy": the root faults a page every millisecond, so
every sample must read the PSS again) under `perfhunt run --interval 10` for 2 s and for 4 s;
the cost per sample is the slope of summary.monitor_cpu_s (perfhunt's own
CPU, not the tree's) over summary.samples between the two, so start-up and
the forks cancel. Variants alternate within each repetition, in one run.
usage: run.py --old OLD_PERFHUNT --new NEW_PERFHUNT --helpers DIR [--sizes 1,100,1000] [--repeat 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

VARIANTS = [  # name, which binary, extra options
    ("old: RSS sum", "old", []),
    ("new: cgroup usage", "new", []),
    ("new: PSS sum", "new", ["--cgroup", "off"]),
]


def one(binary, opts, tree, n, secs, mode, tmp):
    rec = os.path.join(tmp, "r.json")
    argv = [binary, "run", "-q", "--no-save", "--interval", "10", *opts, "-o", rec, "--",
            tree, str(n), str(secs), "4", mode]
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (" ".join(argv), p.returncode, p.stderr[-500:]))
    s = json.load(open(rec))["summary"]
    return s["monitor_cpu_s"], s["samples"], s.get("tree_mem_method", "RSS sum")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--helpers", required=True, help="where bench/run-all.sh built tree")
    ap.add_argument("--sizes", default="1,100,1000")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    bins = {"old": a.old, "new": a.new}
    tree = os.path.join(a.helpers, "tree")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in a.sizes.split(",")]:
            for mode in ("rest", "busy"):
                per = {v[0]: [] for v in VARIANTS}
                methods = {}
                for _ in range(a.repeat):
                    for name, which, opts in VARIANTS:
                        c2, s2, _ = one(bins[which], opts, tree, n, 2, mode, tmp)
                        c4, s4, m = one(bins[which], opts, tree, n, 4, mode, tmp)
                        methods[name] = m
                        if s4 > s2:
                            per[name].append((c4 - c2) / (s4 - s2) * 1e6)
                med = {k: statistics.median(v) if v else float("nan") for k, v in per.items()}
                rows.append((n, mode, med, methods))
                print("# %d processes, %s: %s" % (n, mode, ", ".join(
                    "%s %s" % (k, " ".join("%.1f" % x for x in v)) for k, v in per.items())), flush=True)
    old, cg, pss = (v[0] for v in VARIANTS)
    print("| processes | tree | old: RSS sum µs/sample | cgroup usage µs/sample | cgroup / old "
          "| PSS sum µs/sample | PSS / old |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for n, mode, med, _ in rows:
        print("| %d | %s | %.1f | %.1f | %.2f | %.1f | %.2f |" % (
            n, mode, med[old], med[cg], med[cg] / med[old], med[pss], med[pss] / med[old]))
    print("methods: %s" % "; ".join("%s = %s" % (k, v) for k, v in rows[-1][3].items()))


if __name__ == "__main__":
    main()
