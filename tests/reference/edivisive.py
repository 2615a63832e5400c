#!/usr/bin/python3
"""edivisive: E-Divisive means written from Matteson & James (2014), to check perfhunt's.

An independent reading of the paper (no code shared with src/stats/changepoint.c):
the divergence Q̂(X, Y; alpha = 1) of eq. (3)-(4) from a full distance matrix
(scipy.spatial.distance) and its 2-D prefix sums; the split (tau, kappa) of the
cluster maximising it, searched over every kappa as section 2.3 does
(--kappa full) or with kappa the end of the cluster (--kappa end, the variant
perfhunt implements); hierarchical estimation with the permutation test of
section 3.1 (observations permuted within every current cluster, the largest
Q̂ recomputed, p = (#{permuted >= observed} + 1) / (R + 1)); min_size points
per cluster at least. Randomness from numpy's seeded generator.

Run as a test (tests/cli/t-detect.sh): builds fixed seeded series (steps of
2, 5 and 20 % at noise 1, 5 and 10 %, a variance change, outliers, two steps,
no change), imports them into a throwaway history as run records, runs
`perfhunt history detect --min-magnitude 0`, and compares the positions
(exactly) and p-values (within the stated tolerance) with this reference in
the kappa = end variant, and the positions with the paper's kappa search.
Exit 0 when all agree, 1 when not, 77 when numpy or scipy is missing.

usage: edivisive.py --perfhunt PATH [--permutations R] [--table]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from scipy.spatial.distance import pdist, squareform
except ImportError as exc:  # a skip, not a failure
    print("skipped: %s (scripts/setup installs python3-numpy python3-scipy)" % exc)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import histgen  # noqa: E402

N = 150
MIN_SIZE = 5
ALPHA = 0.01


def best_split(z, min_size, kappa):
    """(q, tau) maximising Q̂ over the cluster z; (-inf, None) when too short."""
    n = len(z)
    if n < 2 * min_size:
        return -math.inf, None
    d = squareform(pdist(z.reshape(-1, 1), "cityblock"))
    p = np.zeros((n + 1, n + 1))
    p[1:, 1:] = d.cumsum(0).cumsum(1)
    tau = np.arange(n + 1).reshape(-1, 1)               # rows: tau
    ks = np.arange(n + 1).reshape(1, -1)                # columns: kappa
    valid = (tau >= min_size) & (ks - tau >= min_size)
    if kappa == "end":
        valid &= ks == n
    m = tau.astype(float)
    k = np.maximum(ks - tau, 2).astype(float)
    diag = np.diag(p)
    cross = p[tau, ks] - diag[tau]                          # sum |X_i - Y_j|, X = z[:tau], Y = z[tau:kappa]
    within_x = diag[tau] / 2                                # sum over i < j in X
    within_y = (diag[ks] - p[tau, ks] - p[ks, tau] + diag[tau]) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        e = 2 * cross / (m * k) - within_x / (m * (m - 1) / 2) - within_y / (k * (k - 1) / 2)
        q = np.where(valid, m * k / (m + k) * e, -np.inf)
    flat = int(np.argmax(q))                                # first maximum: smallest tau
    t = flat // (n + 1)
    return float(q.flat[flat]), (t if np.isfinite(q.flat[flat]) else None)


def e_divisive(x, sig_lvl=ALPHA, r=499, min_size=MIN_SIZE, kappa="full", seed=1):
    """Change points (first index of each new cluster) with their p-values."""
    rng = np.random.default_rng(seed)
    x = np.asarray(x, dtype=float)
    bounds = [0, len(x)]
    found = []
    while True:
        clusters = list(zip(bounds[:-1], bounds[1:]))
        splits = [best_split(x[a:b], min_size, kappa) for a, b in clusters]
        c = max(range(len(clusters)), key=lambda i: splits[i][0])
        q_obs, tau = splits[c]
        if tau is None or q_obs <= 0:
            break
        hits = 0
        for _ in range(r):
            top = -math.inf
            for a, b in clusters:
                if b - a >= 2 * min_size:
                    top = max(top, best_split(rng.permutation(x[a:b]), min_size, kappa)[0])
            hits += top >= q_obs - 1e-9 * abs(q_obs)
        pval = (hits + 1) / (r + 1)
        if pval > sig_lvl:
            break
        cut = clusters[c][0] + tau
        found.append((cut, pval))
        bounds = sorted(bounds + [cut])
    return sorted(found)


def cases():
    out = {}
    seed = 100
    for noise in (0.01, 0.05, 0.10):
        for step in (0.02, 0.05, 0.20):
            seed += 1
            g = np.random.default_rng(seed)
            level = np.where(np.arange(N) < 90, 100.0, 100.0 * (1 + step))
            out["step%d_noise%d" % (round(step * 100), round(noise * 100))] = level * (1 + noise * g.standard_normal(N))
    g = np.random.default_rng(201)
    noise = np.where(np.arange(N) < 75, 0.01, 0.10)
    out["variance"] = 100.0 * (1 + noise * g.standard_normal(N))
    g = np.random.default_rng(202)
    x = 100.0 * (1 + 0.02 * g.standard_normal(N))
    x[[17, 60, 61, 149]] *= 3
    out["outliers"] = x
    g = np.random.default_rng(203)
    level = np.select([np.arange(N) < 50, np.arange(N) < 100], [100.0, 110.0], 93.5)
    out["two_steps"] = level * (1 + 0.02 * g.standard_normal(N))
    g = np.random.default_rng(204)
    out["none"] = 100.0 * (1 + 0.05 * g.standard_normal(N))
    return out


def run_perfhunt(perfhunt, series, permutations):
    recs = [histgen.run_record(["./reference"], i, 1.0, commit=histgen.fake_commit(i),
                               metrics={name: float(v[i]) for name, v in series.items()}) for i in range(N)]
    with tempfile.TemporaryDirectory() as tmp:
        src, db, out = (os.path.join(tmp, f) for f in ("h.jsonl", "h.db", "d.json"))
        histgen.write_jsonl(src, recs)
        env = dict(os.environ, PERFHUNT_DB=db)
        subprocess.run([perfhunt, "history", "import", src], env=env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([perfhunt, "history", "detect", "-q", "--min-magnitude", "0", "--alpha", str(ALPHA),
                        "--min-segment", str(MIN_SIZE), "--export-json", out], env=env, cwd=tmp, check=True)
        rec = json.load(open(out))
    if rec["permutations"] != permutations:
        sys.exit("perfhunt uses %d permutations, the reference %d" % (rec["permutations"], permutations))
    return {s["metric"]: [(c["index"], c["p_value"]) for c in s["changes"]] for s in rec["series"]}


def tolerance(p, r):
    """Two Monte Carlo estimates of one p-value from r permutations each
    differ by less than this (4 standard errors, plus one step of 1/(r+1))."""
    return 4 * math.sqrt(p * (1 - p) / r) + 1 / (r + 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", required=True)
    ap.add_argument("--permutations", type=int, default=499)
    ap.add_argument("--table", action="store_true", help="print the comparison as markdown")
    a = ap.parse_args()
    series = cases()
    got = run_perfhunt(os.path.abspath(a.perfhunt), series, a.permutations)
    bad = 0
    if a.table:
        print("| series | reference, kappa = end | reference, kappa searched (paper) | perfhunt |")
        print("|:--|:--|:--|:--|")
    for name, x in series.items():
        end = e_divisive(x, r=a.permutations, kappa="end")
        # the paper's search over kappa: positions only, fewer permutations (it is the slow one)
        full = e_divisive(x, r=199, kappa="full")
        mine = got.get(name, [])
        fmt = lambda cps: ", ".join("%d (p %.3g)" % c for c in cps) or "none"  # noqa: E731
        ok = [c[0] for c in mine] == [c[0] for c in end] and [c[0] for c in full] == [c[0] for c in end]
        for (_, pm), (_, pr) in zip(mine, end):
            ok = ok and abs(pm - pr) <= tolerance(max(pm, pr), a.permutations)
        if a.table:
            print("| %s | %s | %s | %s |" % (name, fmt(end), fmt(full), fmt(mine)))
        else:
            print("%s %s: reference %s, paper's kappa search %s, perfhunt %s" %
                  ("ok" if ok else "DIFFERS", name, fmt(end), fmt(full), fmt(mine)))
        bad += not ok
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
