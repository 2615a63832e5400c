#!/usr/bin/python3
"""How the history commands grow with the runs in the history: CPU time and
peak RSS of `history import`, `detect`, `trend wall_s` and `site` at 10^3 ->
10^5 runs, one run per commit (the most points a history of N runs can give),
five series (wall_s, user_s, peak_rss_kb, two phases), a +10 % step in wall_s
at the middle, made by tests/reference/histgen.py. One run per cell: a cell
at 10^5 runs takes tens of seconds. Same table as run.py (fitted growth,
largest size against the linear extrapolation from the smallest); the site's
files and bytes are printed under it.

usage: bench/scale/history.py --perfhunt build/perfhunt [--sizes 1000,10000,100000]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "reference"))
import histgen  # noqa: E402
from run import measure, table  # noqa: E402


def history(path, n):
    rng = random.Random(1)
    histgen.write_jsonl(path, (histgen.run_record(
        ["./server", "--bench"], i, (1.0 if i < n // 2 else 1.1) * (1 + 0.02 * rng.gauss(0, 1)),
        commit=histgen.fake_commit(i), metrics={"peak_rss_kb": 1000 + rng.random(), "user_s": 0.5 + rng.random() / 100},
        phases={"load": 100 + rng.random(), "serve": 50 + rng.random()}) for i in range(n)))


def cell(ph, n, d):
    src, db, site = (os.path.join(d, f"{x}-{n}") for x in ("h.jsonl", "h.db", "site"))
    history(src, n)
    os.environ["PERFHUNT_DB"] = db
    out = {"import": measure([ph, "history", "import", src])}
    out["detect"] = measure([ph, "history", "detect"])
    out["trend wall_s"] = measure([ph, "history", "trend", "wall_s"])
    out["site"] = measure([ph, "history", "site", site])
    files = sum(len(f) for _, _, f in os.walk(site))
    size = int(subprocess.run(["du", "-sb", site], capture_output=True, text=True).stdout.split()[0])
    return out, (files, size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", required=True)
    ap.add_argument("--sizes", default="1000,10000,100000")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as d:
        cells = [cell(args.perfhunt, n, d) for n in sizes]
    table("runs", sizes, [(("history", c), [x[0][c] for x in cells]) for c in cells[0][0]])
    print()
    print("site: " + ", ".join(f"{n} runs: {f} files, {b / 1e3:.0f} KB" for n, (_, (f, b)) in zip(sizes, cells)))


main()
