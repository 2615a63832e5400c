#!/usr/bin/python3
"""bench/detect/accuracy: false alarms and sensitivity of `perfhunt history detect`.

False alarms: 100 seeded series of 200 points without any change (normal
noise, 5 % of the level) — how many series get a change point at the default
alpha, and how many change points in all. Sensitivity: for noise of 1, 2, 5
and 10 % and steps from 0.5 % to 50 %, 20 seeded series of 200 points with
the step after point 100; a step counts as found in a series when a change
point of the right direction lies within 2 points of it. The table gives the
share found, and the smallest step found in at least 19 of 20 series.

Every series is one metric of the same 200 run records (one per commit), so
the whole measurement is one `history import` and one `history detect`.
usage: bench/detect/accuracy.py [--perfhunt build/perfhunt] [-- extra detect options]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "reference"))
import histgen  # noqa: E402

POINTS = 200
AT = 100
NOISES = (0.01, 0.02, 0.05, 0.10)
STEPS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.10, 0.20, 0.50)
REPS = 20
NULLS = 100


def series_values(seed, noise, step):
    rng = random.Random(seed)
    return [100.0 * (1 + (step if i >= AT else 0)) * (1 + noise * rng.gauss(0, 1)) for i in range(POINTS)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", default="build/perfhunt")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    a.perfhunt = os.path.abspath(a.perfhunt)
    cols = {}
    for k in range(NULLS):
        cols["null_%03d" % k] = series_values(1000 + k, 0.05, 0)
    for ni, noise in enumerate(NOISES):
        for si, step in enumerate(STEPS):
            for r in range(REPS):
                cols["s_%d_%d_%02d" % (ni, si, r)] = series_values(50000 + 1000 * ni + 100 * si + r, noise, step)
    recs = [histgen.run_record(["./accuracy"], i, 1.0, commit=histgen.fake_commit(i),
                               metrics={name: v[i] for name, v in cols.items()}) for i in range(POINTS)]
    with tempfile.TemporaryDirectory() as tmp:
        src, db, out = (os.path.join(tmp, x) for x in ("h.jsonl", "h.db", "d.json"))
        histgen.write_jsonl(src, recs)
        env = dict(os.environ, PERFHUNT_DB=db)
        subprocess.run([a.perfhunt, "history", "import", src], env=env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([a.perfhunt, "history", "detect", "-q", "--export-json", out] + a.extra,
                       env=env, cwd=tmp, check=True)
        rec = json.load(open(out))
    by = {s["metric"]: s["changes"] for s in rec["series"]}
    flagged = sum(1 for k in range(NULLS) if by["null_%03d" % k])
    total = sum(len(by["null_%03d" % k]) for k in range(NULLS))
    print("alpha %g, min segment %d, min magnitude %g %%, %d permutations" %
          (rec["alpha"], rec["min_segment"], rec["min_magnitude_pct"], rec["permutations"]))
    print("false alarms: %d of %d no-change series (%d change points in all)" % (flagged, NULLS, total))
    print()
    print("| noise | " + " | ".join("%g %%" % (100 * s) for s in STEPS) + " | smallest step found in >= 19/20 |")
    print("|--:|" + "--:|" * len(STEPS) + "--:|")
    for ni, noise in enumerate(NOISES):
        cells, smallest = [], "-"
        for si, step in enumerate(STEPS):
            found = 0
            for r in range(REPS):
                for c in by["s_%d_%d_%02d" % (ni, si, r)]:
                    if abs(c["index"] - AT) <= 2 and c["direction"] == "regression":
                        found += 1
                        break
            cells.append("%d/%d" % (found, REPS))
            if found >= REPS - 1 and smallest == "-":
                smallest = "%g %%" % (100 * step)
        print("| %g %% | %s | %s |" % (100 * noise, " | ".join(cells), smallest))


if __name__ == "__main__":
    main()
