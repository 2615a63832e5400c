#!/usr/bin/python3
"""How the reading side grows with the phases of a run: CPU time and peak RSS
of show, report, the trace export and compare for records of 10^2 -> 10^4
phases, nested (20 names, each holding the next), overlapping (one name,
requests ~50 deep) and flat (a quarter as many names as phases, 300 lanes),
made by tests/workloads/phgen through a real `perfhunt run`.

For each command and shape: the fitted growth (the least-squares slope of
log CPU time over log phases) and the ratio of the largest size's time to
the linear extrapolation from the smallest (<= 1: no worse than linear;
times under 10 ms count as 10 ms, GNU time's resolution). "run tail" is
perfhunt's own CPU in `run` (building, writing and rendering the record):
its CPU with the command's, less the command's. CPU (user + sys) rather
than wall: the machine is shared and its wall times are noisy; the fewest
of 3 runs per cell (1 for run).

A second table does the same by the length of the command line: `run --
true x x ...` with 2 000, 20 000 and 200 000 arguments (the last near
ARG_MAX), then show, report and compare of its record.

usage: bench/scale/run.py --perfhunt build/perfhunt --phgen build/tests/workloads/phgen
       [--sizes 100,1000,10000] [--args 2000,20000,200000]
"""
import argparse
import json
import math
import os
import subprocess
import tempfile

SHAPES = {
    "nested": lambda n: ["nested", str(n), "--names", "20"],
    "overlapping": lambda n: ["burst", str(n)],
    "flat": lambda n: ["flat", str(n), "--names", str(max(1, n // 4)), "--lanes", "300"],
}


def measure(argv, repeat=1):
    """CPU seconds (user + sys) and peak RSS (MiB) of one command, the
    fewest of repeat runs. Through GNU time: a child forked by Python would
    carry Python's RSS high-water mark across its exec."""
    best = None
    with tempfile.NamedTemporaryFile("r") as f:
        for _ in range(repeat):
            p = subprocess.run(["/usr/bin/time", "-o", f.name, "-f", "%U %S %M"] + argv,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if p.returncode:
                raise SystemExit(f"failed ({p.returncode}): {' '.join(argv)}")
            f.seek(0)
            u, s, m = f.read().split()[-3:]
            got = (float(u) + float(s), int(m) / 1024)
            best = got if best is None or got[0] < best[0] else best
    return best


def cell(args, shape, n, d):
    rec = os.path.join(d, f"{shape}-{n}.json")
    run_cpu, run_rss = measure([args.perfhunt, "run", "-q", "--no-save", "-o", rec, "--", args.phgen]
                               + SHAPES[shape](n))
    r = json.load(open(rec))
    cmd_cpu = r["summary"]["user_s"] + r["summary"]["sys_s"]
    out = {"run tail": (max(run_cpu - cmd_cpu, 0), run_rss)}
    out["show"] = measure([args.perfhunt, "show", rec], 3)
    out["report"] = measure([args.perfhunt, "report", rec, "-o", os.path.join(d, "r.html")], 3)
    out["trace"] = measure([args.perfhunt, "show", "-q", "--export-trace", os.path.join(d, "t.json"), rec], 3)
    out["compare"] = measure([args.perfhunt, "compare", rec, rec], 3)
    return out


def table(title, sizes, rows):
    """rows: [(label, [(cpu, rss) per size])]; prints one markdown table."""
    print("| " + title + " | command | " + " | ".join(f"{n}: CPU s, RSS MiB" for n in sizes)
          + " | growth | largest / linear |")
    print("|---|---|" + "---|" * len(sizes) + "---|---|")
    for (group, c), cells in rows:
        t = [x[0] for x in cells]
        row = " | ".join(f"{x[0]:.3f}, {x[1]:.1f}" for x in cells)
        lo, hi = max(t[0], 0.01), max(t[-1], 0.01)
        xs = [math.log(n) for n in sizes]
        ys = [math.log(max(v, 0.01)) for v in t]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        growth = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        ratio = hi / (lo * sizes[-1] / sizes[0])
        print(f"| {group} | {c} | {row} | n^{growth:.2f} | {ratio:.2f} |")


def command_cell(args, n, d):
    rec = os.path.join(d, f"args-{n}.json")
    out = {"run": measure([args.perfhunt, "run", "-q", "--no-save", "-o", rec, "--", "true"] + ["x"] * n)}
    out["show"] = measure([args.perfhunt, "show", rec], 3)
    out["report"] = measure([args.perfhunt, "report", rec, "-o", os.path.join(d, "r.html")], 3)
    out["compare"] = measure([args.perfhunt, "compare", rec, rec], 3)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", required=True)
    ap.add_argument("--phgen", required=True)
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--args", default="2000,20000,200000")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    nargs = [int(x) for x in args.args.split(",")]
    with tempfile.TemporaryDirectory() as d:
        rows = []
        for shape in SHAPES:
            cells = [cell(args, shape, n, d) for n in sizes]
            rows += [((shape, c), [x[c] for x in cells]) for c in cells[0]]
        table("phases", sizes, rows)
        print()
        cells = [command_cell(args, n, d) for n in nargs]
        table("arguments", nargs, [(("command line", c), [x[c] for x in cells]) for c in cells[0]])


if __name__ == "__main__":
    main()
