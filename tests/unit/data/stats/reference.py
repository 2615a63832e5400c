# Reference values for tests/unit/test_stats.c, computed independently of
# perfhunt with NumPy/SciPy (Debian 12: python3-numpy, python3-scipy 1.10).
# Run: /usr/bin/python3 tests/unit/data/stats/reference.py
# The output is pasted into the tables of test_stats.c.
import numpy as np
from scipy import stats

A = [1.1, 2.3, 3.5, 4.2, 5.0]
B = [2.8, 3.9, 6.1, 7.4, 8.8, 9.0]
# 20 vs 20, no ties: the largest exact case
E1 = [round(10 + 0.37 * i + (i % 3) * 0.011, 3) for i in range(20)]
E2 = [round(12 + 0.41 * i + (i % 4) * 0.013, 3) for i in range(20)]
# ties
T1 = [1, 2, 2, 3, 3, 3, 4, 5]
T2 = [3, 4, 4, 5, 5, 6, 7, 7]
# large: 30 vs 35, no ties, normal approximation
L1 = [round(50 + ((i * 37) % 101) * 0.1, 2) for i in range(30)]
L2 = [round(52 + ((i * 53) % 103) * 0.1, 3) + 0.0005 for i in range(35)]
# summaries
S = [88.9, 90.1, 87.5, 89.3, 120.0, 88.7, 89.9]
P = [0.01, 0.04, 0.03, 0.005, 0.5, 0.2]

def fmt(v):
    return ", ".join(repr(float(x)) for x in v)

for name, x in [("A", A), ("B", B), ("E1", E1), ("E2", E2), ("T1", T1), ("T2", T2),
                ("L1", L1), ("L2", L2), ("S", S), ("P", P)]:
    print(f"{name} = {{ {fmt(x)} }}")

print("p exact A,B      ", repr(stats.mannwhitneyu(A, B, alternative='two-sided', method='exact').pvalue))
print("p exact E1,E2    ", repr(stats.mannwhitneyu(E1, E2, alternative='two-sided', method='exact').pvalue))
print("p asymptotic T1,T2", repr(stats.mannwhitneyu(T1, T2, alternative='two-sided', method='asymptotic', use_continuity=True).pvalue))
print("p asymptotic L1,L2", repr(stats.mannwhitneyu(L1, L2, alternative='two-sided', method='asymptotic', use_continuity=True).pvalue))
print("p asymptotic [5,5,5],[5,5,5]", repr(stats.mannwhitneyu([5, 5, 5], [5, 5, 5], alternative='two-sided', method='asymptotic').pvalue))
print("median S", repr(np.median(S)), "mean", repr(np.mean(S)), "std ddof=1", repr(np.std(S, ddof=1)))
print("quantile S .25 .9", repr(np.quantile(S, 0.25)), repr(np.quantile(S, 0.9)))
print("mad raw S", repr(stats.median_abs_deviation(S, scale=1.0)))
med = np.median(S); mad = stats.median_abs_deviation(S, scale=1.0)
print("modified z S", [repr(0.6745 * (x - med) / mad) for x in S])
# Holm by its definition: sorted p times (m - rank), running max, clipped at 1
o = np.argsort(P); m = len(P)
adj = np.minimum(1, np.maximum.accumulate([(m - r) * P[i] for r, i in enumerate(o)]))
out = np.empty(m); out[o] = adj
print("holm P", [repr(float(v)) for v in out])
print("geomean [1.1, 0.9, 1.25]", repr(stats.gmean([1.1, 0.9, 1.25])))

# Bootstrap: an independent Python implementation of the documented procedure
# (xoshiro256** seeded by splitmix64, unbiased draws by rejection, resample
# BASE then NEW, ratio of medians, numpy's linear percentile).
M64 = (1 << 64) - 1
def rng(seed):
    s = []
    x = seed
    for _ in range(4):
        x = (x + 0x9e3779b97f4a7c15) & M64
        z = x
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
        s.append(z ^ (z >> 31))
    rotl = lambda v, k: ((v << k) | (v >> (64 - k))) & M64
    while True:
        r = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
        s[3] = rotl(s[3], 45)
        yield r
def below(g, bound):
    limit = M64 - M64 % bound
    while True:
        v = next(g)
        if v < limit:
            return v % bound
g = rng(42)
print("rng seed 42 first 3", [hex(next(g)) for _ in range(3)])
X = [10, 11, 12, 13, 14]; Y = [12, 13, 14, 15, 16.5]
g = rng(42); ratios = []
for _ in range(2000):
    mb = np.median([X[below(g, len(X))] for _ in X])
    mn = np.median([Y[below(g, len(Y))] for _ in Y])
    ratios.append(mn / mb)
print("bootstrap X,Y 2000 seed 42 95%", repr(np.percentile(ratios, 2.5)), repr(np.percentile(ratios, 97.5)))

# Exact Mann–Whitney with ties: SciPy's method='exact' refuses ties (1.10 falls
# back silently to its tie-free table), so the reference is the definition
# itself: every split of the pooled sample into sizes (na, nb) equally likely,
# the smaller side's sum of midranks S, p = min(1, 2 min(P(S <= s), P(S >= s))),
# counted with exact fractions. brute() enumerates the splits; genfun() counts
# them with an integer generating function, for sizes too large to enumerate,
# and is checked against brute() on every small case first.
from fractions import Fraction
from itertools import combinations
from scipy.stats import rankdata

def split(a, b):
    r = [int(2 * v) for v in rankdata(list(a) + list(b))]  # doubled midranks
    small = list(range(len(a))) if len(a) <= len(b) else list(range(len(a), len(a) + len(b)))
    return r, len(small), sum(r[i] for i in small)

def two_sided(dist, s):
    total = sum(dist.values())
    lo = sum(c for v, c in dist.items() if v <= s)
    hi = sum(c for v, c in dist.items() if v >= s)
    return min(Fraction(1), 2 * Fraction(min(lo, hi), total))

def brute(a, b):
    r, k, s = split(a, b)
    dist = {}
    for c in combinations(r, k):
        dist[sum(c)] = dist.get(sum(c), 0) + 1
    return two_sided(dist, s)

def genfun(a, b):
    r, k, s = split(a, b)
    f = [dict() for _ in range(k + 1)]  # f[j][sum] = number of j-subsets
    f[0][0] = 1
    for w in r:
        for j in range(k, 0, -1):
            for v, c in f[j - 1].items():
                f[j][v + w] = f[j].get(v + w, 0) + c
    return two_sided(f[k], s)

G6 = [11, 14, 17, 17, 22, 30]       # the good build, one tie
B6 = [75, 81, 88, 90, 96, 103]      # its bad build: no overlap
X7 = [12, 12, 13, 15, 15, 18, 20]   # ties within and across the sides
Y9 = [13, 15, 15, 16, 18, 21, 21, 24, 25]
Z0 = [0, 0, 0, 0, 1, 0]             # majflt-like counts
Z1 = [0, 0, 2, 3, 0, 0]
# 50 vs 50, integer milliseconds: many ties, the largest exact case
W1 = [200 + (i * 37) % 23 for i in range(50)]
W2 = [203 + (i * 53) % 23 for i in range(50)]
# 50 vs 50 without ties: SciPy's exact table applies and must agree
U1 = [round(100 + 0.37 * i + (i % 7) * 0.0011, 4) for i in range(50)]
U2 = [round(103 + 0.29 * i + (i % 5) * 0.0013, 4) + 0.00005 for i in range(50)]
for name, x in [("G6", G6), ("B6", B6), ("X7", X7), ("Y9", Y9), ("Z0", Z0), ("Z1", Z1),
                ("W1", W1), ("W2", W2), ("U1", U1), ("U2", U2)]:
    print(f"{name} = {{ {fmt(x)} }}")
for name, a, b in [("G6,B6", G6, B6), ("X7,Y9", X7, Y9), ("Z0,Z1", Z0, Z1), ("T1,T2", T1, T2),
                   ("A,B", A, B), ("five", [5, 5, 5], [5, 5, 5])]:
    p = brute(a, b)
    assert genfun(a, b) == p and genfun(b, a) == p, name
    print("p exact ties", name, p, repr(float(p)))
print("p exact ties W1,W2", repr(float(genfun(W1, W2))),
      "asymptotic", repr(stats.mannwhitneyu(W1, W2, alternative='two-sided', method='asymptotic').pvalue))
print("p exact U1,U2 genfun", repr(float(genfun(U1, U2))),
      "scipy exact", repr(stats.mannwhitneyu(U1, U2, alternative='two-sided', method='exact').pvalue))
# 51 vs 51: past the exact limit, SciPy's asymptotic p with tie correction
V1 = W1 + [210]; V2 = W2 + [211]
print("p asymptotic V1,V2 (W1+[210], W2+[211])", repr(stats.mannwhitneyu(V1, V2, alternative='two-sided', method='asymptotic').pvalue))
print("p exact L1,L2 (30 vs 35, no ties)", repr(stats.mannwhitneyu(L1, L2, alternative='two-sided', method='exact').pvalue),
      "genfun", repr(float(genfun(L1, L2))))
