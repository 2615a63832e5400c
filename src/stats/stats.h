/* stats: the statistics behind bench and compare, as pure functions.
 *
 * Nothing here reads files or prints. Inputs are plain arrays of doubles that
 * are never modified; every result is deterministic: the bootstrap uses its own
 * seeded PRNG (xoshiro256** seeded by splitmix64), so a comparison prints the
 * same interval on every machine. Reference values for the tests come from
 * SciPy or a brute-force permutation (see tests/unit/test_stats.c).
 */
#ifndef PERFHUNT_STATS_H
#define PERFHUNT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Scale that turns the raw MAD into a consistent estimator of sigma (normal data). */
#define STATS_MAD_SCALE 1.4826
/* Iglewicz–Hoaglin: |modified z| above this marks an outlier. */
#define STATS_OUTLIER_Z 3.5
#define STATS_BOOTSTRAP_RESAMPLES 10000
#define STATS_BOOTSTRAP_SEED 0x7065726668756e74ULL /* "perfhunt" */

/* All of these return NAN for n == 0. */
double stats_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1 in the denominator); 0 for n == 1. */
double stats_stddev(const double *x, size_t n);
double stats_median(const double *x, size_t n);
/* Quantile q in [0, 1], linear interpolation between order statistics
 * (R type 7, numpy's default). */
double stats_quantile(const double *x, size_t n, double q);
/* Median absolute deviation from the median, raw (unscaled). */
double stats_mad_raw(const double *x, size_t n);
/* STATS_MAD_SCALE * raw MAD. */
double stats_mad(const double *x, size_t n);
double stats_min(const double *x, size_t n);
double stats_max(const double *x, size_t n);

struct stats_summary {
	size_t n;
	double median, mean, stddev, mad, min, max;
};
void stats_summarize(const double *x, size_t n, struct stats_summary *out);

/* Modified z-score 0.6745 · (x - median) / raw MAD of each value into z
 * (Iglewicz–Hoaglin); when the MAD is 0 (over half the values equal) the
 * spread is 1.2533 · the mean absolute deviation from the median instead, and
 * z is 0 for every value when that is 0 too. A value is an
 * outlier when |z| > STATS_OUTLIER_Z and it also lies more than
 * STATS_OUTLIER_MIN_REL of the median away from it: a steady benchmark's MAD
 * is tiny, and a run 1 % off a 220 ms median (σ 1.9 ms) is noise, not a
 * reason to warn. Returns how many are outliers and, when is_outlier is
 * non-NULL, flags them there. */
#define STATS_MEANAD_SCALE 1.253314
#define STATS_OUTLIER_MIN_REL 0.05
size_t stats_outliers(const double *x, size_t n, double *z, bool *is_outlier);

/* Small deterministic PRNG: xoshiro256**, seeded through splitmix64. */
struct stats_rng {
	uint64_t s[4];
};
void stats_rng_init(struct stats_rng *r, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *r);
/* Uniform integer in [0, bound), bound > 0, without modulo bias. */
uint64_t stats_rng_below(struct stats_rng *r, uint64_t bound);

/* The median of one resample with replacement of s[0..n) (sorted, n > 0),
 * drawn from its exact distribution in O(1): what the median of n draws of
 * s[stats_rng_below(r, n)] gives, without the n draws. */
double stats_resample_median(struct stats_rng *r, const double *s, size_t n);

/* Percentile-bootstrap confidence interval (level, e.g. 0.95) of
 * median(new) / median(base), resampling each side with replacement.
 * A resample whose base median is 0 gives ratio 1 when the new median is also
 * 0, else +inf. Returns -1 when either side is empty or resamples is 0. */
int stats_bootstrap_ratio_ci(const double *base, size_t nb, const double *nw, size_t nn,
			     size_t resamples, double level, uint64_t seed,
			     double *lo, double *hi);

/* Two-sided Mann–Whitney U test p-value.
 * STATS_MWU_EXACT: the exact permutation distribution of the observed ranks,
 * ties included (midranks), p = 2 · min(P(S <= s), P(S >= s)) for the smaller
 * side's rank sum s — what enumerating every split of the pooled values gives.
 * Used while both samples have at most STATS_MWU_EXACT_MAX values: the table
 * costs about k² · N² steps (k the smaller size, N the total), a few ms at
 * 50 + 50, and beyond that the normal approximation is within 1e-3 of it.
 * STATS_MWU_NORMAL: the normal approximation with tie and continuity
 * corrections (SciPy's method='asymptotic'). Identical samples give 1, never
 * NaN. *method (optional) says which test gave p; NAN (method NONE) when a
 * side is empty. */
enum stats_mwu_method {
	STATS_MWU_NONE,   /* no test: a side has fewer than two values, or none */
	STATS_MWU_EXACT,
	STATS_MWU_NORMAL,
};
#define STATS_MWU_EXACT_MAX 50
#define STATS_MWU_EXACT_MAX_STR "50"
double stats_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb,
			    enum stats_mwu_method *method);
/* "exact", "normal", "none" */
const char *stats_mwu_method_name(enum stats_mwu_method m);
/* The smallest two-sided p the test can give samples of na and nb values:
 * 2 / C(na + nb, na), the two most extreme splits of distinct values (ties
 * only raise it), at most 1. With 3 + 3 runs it is 0.1. */
double stats_mwu_min_p(size_t na, size_t nb);
/* The fewest runs a side (k + k) with which the smallest p, Holm-adjusted
 * over tests tests (tests times it), falls under alpha; 0 past 1000. */
size_t stats_mwu_runs_needed(size_t tests, double alpha);

/* Holm–Bonferroni adjusted p-values of p[0..m) into adj (may alias p).
 * NaN entries are left NaN and do not count towards m. */
void stats_holm(const double *p, size_t m, double *adj);

/* Benjamini–Hochberg adjusted p-values (q-values, R's p.adjust "BH") of
 * p[0..m) into adj (may alias p); NaN entries as in stats_holm. Rejecting
 * q < alpha bounds the expected share of false findings by alpha, and the
 * chance of any when nothing changed. */
void stats_bh(const double *p, size_t m, double *adj);

/* Geometric mean of the finite, positive ratios; NAN when there are none. */
double stats_geomean(const double *ratios, size_t n);

enum stats_verdict {
	STATS_SAME,
	STATS_REGRESSED,
	STATS_IMPROVED,
	STATS_INCONCLUSIVE,
	STATS_NO_SIGNIFICANCE, /* n = 1 on a side: deltas only */
};
/* Verdict for a lower-is-better metric from the CI of NEW/BASE and the
 * adjusted p-value: regressed when the whole CI is above 1 + threshold and
 * p_adjusted < alpha, improved symmetrically below 1 - threshold, same when the
 * CI lies within [1 - threshold, 1 + threshold], otherwise inconclusive. */
enum stats_verdict stats_verdict(double ci_lo, double ci_hi, double p_adjusted,
				 double threshold, double alpha);
/* Stable machine name: "regressed", "improved", "same", "inconclusive",
 * "no significance (n=1)". */
const char *stats_verdict_name(enum stats_verdict v);
/* What a person reads: as the name, but "inconclusive — run more". */
const char *stats_verdict_label(enum stats_verdict v);

#endif
