#!/usr/bin/python3
"""How `perfhunt bench` grows with its runs: CPU time (perfhunt's and the
runs', through GNU time) and peak RSS of `bench -r N -- true` at 10^2 ->
10^4 runs, with --no-save, with the history (a fresh SQLite file per size)
and with every per-run export (--export-json, --export-csv,
--export-gobench). A bench keeps its runs in a spool file and a value per
run per metric in memory, so its RSS should stay flat where 10^4 runs once
held 375 MB. One run per cell; same table as run.py.

usage: bench/scale/bench_mem.py --perfhunt build/perfhunt [--sizes 100,1000,10000]
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import measure, table  # noqa: E402


def cell(ph, n, d):
    bench = [ph, "bench", "-q", "--style=none", "-r", str(n)]
    os.environ["PERFHUNT_DB"] = os.path.join(d, f"h-{n}.db")
    out = {"--no-save": measure(bench + ["--no-save", "--", "true"])}
    out["history"] = measure(bench + ["--", "true"])
    out["exports"] = measure(bench + ["--no-save", "--export-json", os.path.join(d, "b.json"),
                                      "--export-csv", os.path.join(d, "b.csv"),
                                      "--export-gobench", os.path.join(d, "b.txt"), "--", "true"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", required=True)
    ap.add_argument("--sizes", default="100,1000,10000")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as d:
        cells = [cell(args.perfhunt, n, d) for n in sizes]
    rows = [(("bench true", c), [x[c] for x in cells]) for c in cells[0]]
    table("runs", sizes, rows)


if __name__ == "__main__":
    main()
