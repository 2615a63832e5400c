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

A third by probe lines: `run` of `yes 'PERFHUNT: x_ms=1' | head -n N` for
10^5 -> 10^7 lines, with --no-save and storing the run in a fresh history
(its RSS is the one a user sees), then show, report and compare.

A fourth by samples: `run --interval 1 -- sleep N/1000` for 10^3 -> 10^5
samples (1 to 100 s of wall time; --samples 10000,100000,1000000 adds the
10^6 of a 24 h watch at 100 ms, 17 minutes), then show, report and compare.

A fifth by runs a side: compare of two bench records of N runs of `true`
and of tests/workloads/phwork with two phases (a real `bench -n 20` record,
its runs repeated with 5 % noise, the new side 10 % slower), 10^2 -> 10^4.

usage: bench/scale/run.py --perfhunt build/perfhunt --phgen build/tests/workloads/phgen
       [--sizes 100,1000,10000] [--args 2000,20000,200000]
       [--probes 100000,1000000,10000000] [--samples 1000,10000,100000]
       [--bench-runs 100,1000,10000] [--only phases,args,probes,samples,runs]
"""
import argparse
import copy
import json
import math
import os
import random
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
    return renderers(args, rec, d, out)


def renderers(args, rec, d, out):
    """show, report and compare of one record, the fewest of 3 runs each."""
    out["show"] = measure([args.perfhunt, "show", rec], 3)
    out["report"] = measure([args.perfhunt, "report", rec, "-o", os.path.join(d, "r.html")], 3)
    out["compare"] = measure([args.perfhunt, "compare", rec, rec], 3)
    return out


def tail(args, argv, rec):
    """perfhunt's own CPU in a run (less its command's) and its peak RSS."""
    cpu, rss = measure([args.perfhunt, "run", "-q"] + argv)
    r = json.load(open(rec))
    return (max(cpu - r["summary"]["user_s"] - r["summary"]["sys_s"], 0), rss)


def probe_cell(args, n, d):
    rec = os.path.join(d, f"probes-{n}.json")
    cmd = ["--", "sh", "-c", f"yes 'PERFHUNT: x_ms=1' | head -n {n}"]
    out = {"run tail": tail(args, ["--no-save", "-o", rec] + cmd, rec)}
    os.environ["PERFHUNT_DB"] = os.path.join(d, f"probes-{n}.db")
    out["run tail, stored"] = tail(args, ["-o", rec] + cmd, rec)
    del os.environ["PERFHUNT_DB"]
    return renderers(args, rec, d, out)


TAKEN = []  # samples each sample_cell's run took: the interval stretches under load


def sample_cell(args, n, d):
    rec = os.path.join(d, f"samples-{n}.json")
    out = {"run tail": tail(args, ["--no-save", "--interval", "1", "-o", rec, "--csv", os.path.join(d, "s.csv"),
                                   "--", "sleep", str(n / 1000)], rec)}
    TAKEN.append(json.load(open(rec))["summary"]["samples"])
    return renderers(args, rec, d, out)


BENCHES = {
    "true": lambda args: ["true"],
    "phases": lambda args: [os.path.join(os.path.dirname(args.phgen), "phwork"), "begin:load", "spin:1",
                            "end:load", "begin:work", "spin:1", "end:work"],
}


def bench_records(args, d, sizes, what):
    """base and new bench records of each size, from one real bench of 20 runs."""
    src = os.path.join(d, "b20.json")
    subprocess.run([args.perfhunt, "bench", "-n", "20", "--no-save", "--export-json", src, "--"]
                   + BENCHES[what](args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    b = json.load(open(src))
    out = {}
    for n in sizes:
        for side, scale in (("base", 1.0), ("new", 1.1)):
            rng, r = random.Random(n + int(scale * 10)), copy.deepcopy(b)
            runs = []
            for i in range(n):
                run = copy.deepcopy(b["commands"][0]["runs"][i % 20])
                for k in ("wall_s", "user_s", "sys_s"):
                    run["summary"][k] *= scale * (1 + 0.05 * rng.gauss(0, 1))
                for p in run.get("phases", []):
                    p["start_ms"], p["end_ms"] = p["start_ms"] * scale, p["end_ms"] * scale
                runs.append(run)
            r["commands"][0]["runs"], r["order"] = runs, [0] * n
            r["options"]["runs"] = n
            path = os.path.join(d, f"bench-{what}-{side}-{n}.json")
            json.dump(r, open(path, "w"))
            out[n, side] = path
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", required=True)
    ap.add_argument("--phgen", required=True)
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--args", default="2000,20000,200000")
    ap.add_argument("--probes", default="100000,1000000,10000000")
    ap.add_argument("--samples", default="1000,10000,100000")
    ap.add_argument("--bench-runs", default="100,1000,10000")
    ap.add_argument("--only", default="phases,args,probes,samples,runs")
    args = ap.parse_args()
    only = set(args.only.split(","))
    ints = lambda v: [int(x) for x in v.split(",")]  # noqa: E731
    with tempfile.TemporaryDirectory() as d:
        if "phases" in only:
            sizes, rows = ints(args.sizes), []
            for shape in SHAPES:
                cells = [cell(args, shape, n, d) for n in sizes]
                rows += [((shape, c), [x[c] for x in cells]) for c in cells[0]]
            table("phases", sizes, rows)
            print()
        for key, title, group, fn, sizes in (
                ("args", "arguments", "command line", command_cell, ints(args.args)),
                ("probes", "probe lines", "probes", probe_cell, ints(args.probes)),
                ("samples", "samples", "samples", sample_cell, ints(args.samples))):
            if key in only:
                cells = [fn(args, n, d) for n in sizes]
                table(title, sizes, [((group, c), [x[c] for x in cells]) for c in cells[0]])
                if key == "samples":
                    print("\nsamples taken: " + ", ".join(f"{t} of {n}" for t, n in zip(TAKEN, sizes)))
                print()
        if "runs" in only:
            sizes, rows = ints(args.bench_runs), []
            for what in BENCHES:
                recs = bench_records(args, d, sizes, what)
                rows.append(((f"bench, {what}", "compare"),
                             [measure([args.perfhunt, "compare", recs[n, "base"], recs[n, "new"]]) for n in sizes]))
                print(f"bench, {what}: a side {os.path.getsize(recs[sizes[-1], 'base']) / 2**20:.1f} MiB "
                      f"at {sizes[-1]} runs")
            table("runs a side", sizes, rows)


if __name__ == "__main__":
    main()
