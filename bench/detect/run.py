#!/usr/bin/python3
"""bench/detect: how long `perfhunt history detect` takes on a large history.

Builds histories of R runs, one per commit, each with 20 series (wall_s and
19 other summary metrics, three of them with a step), imports them with
`perfhunt history import`, then times `perfhunt history detect` (best of 5
wall-clock runs, the database warm in the page cache) for R = 250, 500,
1000, 2000, so the table shows how time grows with the number of runs.
Target: 1000 runs x 20 series under 2 s.

usage: bench/detect/run.py [--perfhunt build/perfhunt] [--runs 250,500,1000,2000]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "reference"))
import histgen  # noqa: E402


def history(path, runs, seed=1):
    rng = random.Random(seed)
    recs = []
    for i in range(runs):
        step = 1.0 if i < runs * 0.6 else 1.1
        metrics = {}
        for m in range(1, 20):
            level = 100.0 * m * (step if m in (3, 7, 11) else 1.0)
            metrics["m%02d_ms" % m] = level * (1 + 0.03 * rng.gauss(0, 1))
        recs.append(histgen.run_record(["./bench-target"], i, step * (1 + 0.02 * rng.gauss(0, 1)),
                                       commit=histgen.fake_commit(i), metrics=metrics))
    histgen.write_jsonl(path, recs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", default="build/perfhunt")
    ap.add_argument("--runs", default="250,500,1000,2000")
    a = ap.parse_args()
    ph = os.path.abspath(a.perfhunt)
    print("| runs | series | points per series | change points | detect, best of 5 |")
    print("|--:|--:|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as tmp:
        for runs in (int(x) for x in a.runs.split(",")):
            db = os.path.join(tmp, "h%d.db" % runs)
            src = os.path.join(tmp, "h%d.jsonl" % runs)
            history(src, runs)
            env = dict(os.environ, PERFHUNT_DB=db)
            subprocess.run([ph, "history", "import", src], env=env, check=True, stdout=subprocess.DEVNULL)
            best = None
            out = ""
            for _ in range(5):
                t0 = time.perf_counter()
                p = subprocess.run([ph, "history", "detect"], env=env, cwd=tmp, check=True,
                                   capture_output=True, text=True)
                dt = time.perf_counter() - t0
                best = dt if best is None else min(best, dt)
                out = p.stdout
            found = sum(1 for line in out.splitlines() if line.startswith("  regression") or
                        line.startswith("  improvement") or line.startswith("  shift"))
            print("| %d | 20 | %d | %d | %.3f s |" % (runs, runs, found, best))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
