/* stats: summaries, outliers, a seeded bootstrap, Mann–Whitney U, Holm.
 *
 * Order statistics work on private copies (callers' arrays are const). A
 * bootstrap resample's median is drawn from its exact distribution (the
 * order statistics of n uniform draws) rather than from n draws, so an
 * interval costs O(n log n + resamples) however many runs each side holds.
 * The exact Mann–Whitney distribution is the permutation distribution of the
 * observed midranks (doubled, so ties stay integers), counted by a subset-sum
 * table: ties need no special case and the p-value is the one a brute-force
 * permutation gives.
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *c = xmalloc(n * sizeof(*c));
	memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	return c;
}

/* Rearranges a[0..n) so that a[k] holds the k-th smallest value and every
 * element before it is <= a[k] (Hoare partition); returns a[k]. */
static double select_kth(double *a, size_t n, size_t k)
{
	long lo = 0, hi = (long)n - 1, kk = (long)k;
	while (lo < hi) {
		double pivot = a[lo + (hi - lo) / 2];
		long i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				double t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			break;
	}
	return a[k];
}

/* Median of a scratch buffer (reordered). */
static double median_inplace(double *a, size_t n)
{
	double upper = select_kth(a, n, n / 2);
	if (n % 2)
		return upper;
	double lower = a[0];
	for (size_t i = 1; i < n / 2; i++)
		if (a[i] > lower)
			lower = a[i];
	return lower + (upper - lower) / 2;
}

double stats_mean(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double stats_stddev(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	if (n == 1)
		return 0;
	double m = stats_mean(x, n), s = 0;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (double)(n - 1));
}

double stats_median(const double *x, size_t n)
{
	return stats_quantile(x, n, 0.5);
}

/* Type-7 quantile of an already sorted array. */
static double quantile_sorted(const double *s, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	if (lo >= n - 1)
		return s[n - 1];
	double frac = h - (double)lo;
	if (frac == 0 || s[lo] == s[lo + 1])
		return s[lo];
	return s[lo] + frac * (s[lo + 1] - s[lo]);
}

double stats_quantile(const double *x, size_t n, double q)
{
	if (n == 0 || !(q >= 0 && q <= 1))
		return NAN;
	double *s = sorted_copy(x, n);
	double v = quantile_sorted(s, n, q);
	free(s);
	return v;
}

double stats_mad_raw(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double med = stats_median(x, n);
	double *d = xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	double v = median_inplace(d, n);
	free(d);
	return v;
}

double stats_mad(const double *x, size_t n)
{
	return STATS_MAD_SCALE * stats_mad_raw(x, n);
}

double stats_min(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double v = x[0];
	for (size_t i = 1; i < n; i++)
		if (x[i] < v)
			v = x[i];
	return v;
}

double stats_max(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double v = x[0];
	for (size_t i = 1; i < n; i++)
		if (x[i] > v)
			v = x[i];
	return v;
}

void stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	out->n = n;
	out->median = stats_median(x, n);
	out->mean = stats_mean(x, n);
	out->stddev = stats_stddev(x, n);
	out->mad = stats_mad(x, n);
	out->min = stats_min(x, n);
	out->max = stats_max(x, n);
}

size_t stats_outliers(const double *x, size_t n, double *z, bool *is_outlier)
{
	size_t count = 0;
	if (n == 0)
		return 0;
	/* z = factor · (x - median) / spread: 0.6745 / MAD (Iglewicz–Hoaglin), or
	 * 0.7979 / mean absolute deviation when over half the values are equal. */
	double med = stats_median(x, n), spread = stats_mad_raw(x, n), factor = 0.6745;
	if (spread == 0) {
		for (size_t i = 0; i < n; i++)
			spread += fabs(x[i] - med);
		spread /= (double)n;
		factor = 1 / STATS_MEANAD_SCALE;
	}
	for (size_t i = 0; i < n; i++) {
		double zi = spread > 0 ? factor * (x[i] - med) / spread : 0;
		bool out = fabs(zi) > STATS_OUTLIER_Z &&
			   fabs(x[i] - med) > STATS_OUTLIER_MIN_REL * fabs(med);
		if (z)
			z[i] = zi;
		if (is_outlier)
			is_outlier[i] = out;
		count += out;
	}
	return count;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void stats_rng_init(struct stats_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t stats_rng_next(struct stats_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t stats_rng_below(struct stats_rng *r, uint64_t bound)
{
	/* Reject the top sliver of the range that would bias small values; it
	 * lies above UINT64_MAX - bound, so the division that finds it is
	 * needed only up there (a permutation test draws 10^7 of these). */
	uint64_t v;
	for (;;) {
		v = stats_rng_next(r);
		if (v <= UINT64_MAX - bound || v < UINT64_MAX - UINT64_MAX % bound)
			return v % bound;
	}
}

/* Uniform in (0, 1), from 53 random bits. */
static double rng_open01(struct stats_rng *r)
{
	return ((double)(stats_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

/* Gamma(a, 1) for a >= 1: Marsaglia and Tsang, "A Simple Method for
 * Generating Gamma Variables" (ACM TOMS 26(3), 2000), its normal variate by
 * Box–Muller. */
static double rng_gamma(struct stats_rng *r, double a)
{
	double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x, v;
		do {
			double u1 = rng_open01(r), u2 = rng_open01(r);
			x = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		double u = rng_open01(r);
		if (u < 1 - 0.0331 * (x * x) * (x * x) || log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

double stats_resample_median(struct stats_rng *r, const double *s, size_t n)
{
	/* The resample's k-th smallest value is s[floor(n U)], U the k-th
	 * smallest of n uniform draws: a Beta(k + 1, n - k) variate (k from 0),
	 * drawn as X / (X + Y) of two gamma variates. For an even n the next
	 * one up is the smallest of the n - k - 1 draws above U. */
	size_t k = (n - 1) / 2;
	double x = rng_gamma(r, (double)(k + 1)), y = rng_gamma(r, (double)(n - k));
	double u = x / (x + y);
	size_t i = (size_t)(u * (double)n);
	double lower = s[i < n ? i : n - 1];
	if (n % 2)
		return lower;
	u += (1 - u) * -expm1(log(rng_open01(r)) / (double)(n - k - 1));
	i = (size_t)(u * (double)n);
	double upper = s[i < n ? i : n - 1];
	return lower + (upper - lower) / 2;
}

int stats_bootstrap_ratio_ci(const double *base, size_t nb, const double *nw, size_t nn,
			     size_t resamples, double level, uint64_t seed,
			     double *lo, double *hi)
{
	if (nb == 0 || nn == 0 || resamples == 0 || !(level > 0 && level < 1))
		return -1;
	struct stats_rng r;
	stats_rng_init(&r, seed);
	double *sb = sorted_copy(base, nb), *sn = sorted_copy(nw, nn);
	double *ratios = xmalloc(resamples * sizeof(*ratios));
	for (size_t i = 0; i < resamples; i++) {
		double mb = stats_resample_median(&r, sb, nb);
		double mn = stats_resample_median(&r, sn, nn);
		if (mb == 0)
			ratios[i] = mn == 0 ? 1 : INFINITY;
		else
			ratios[i] = mn / mb;
	}
	qsort(ratios, resamples, sizeof(*ratios), cmp_double);
	double tail = (1 - level) / 2;
	*lo = quantile_sorted(ratios, resamples, tail);
	*hi = quantile_sorted(ratios, resamples, 1 - tail);
	free(ratios);
	free(sb);
	free(sn);
	return 0;
}

/* Doubled midranks of the pooled sample: integers, so the permutation
 * distribution of a rank sum has integer support and tail sums are exact
 * comparisons. w[] ascending (value order); side[] says whose value it is. */
struct ranked {
	double v;
	int side; /* 0: a, 1: b */
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/* Two-sided p of the observed sum s_obs of k doubled ranks drawn from w[0..n)
 * (ascending): 2 · min(P(S <= s_obs), P(S >= s_obs)) under the permutation
 * distribution, every k-subset equally likely. count[j][s] is the number of
 * j-subsets of the values seen so far with sum s (a double: C(100, 50) is
 * 1e29, and a probability needs relative, not integer, precision). The sums
 * reachable by j of the first i values lie in [P(j), P(i) - P(i - j)] (P the
 * prefix sums), so only that band is visited. */
static double mwu_exact_p(const long *w, size_t n, size_t k, long s_obs)
{
	long *prefix = xmalloc((n + 1) * sizeof(*prefix));
	prefix[0] = 0;
	for (size_t i = 0; i < n; i++)
		prefix[i + 1] = prefix[i] + w[i];
	size_t width = (size_t)(prefix[n] - prefix[n - k]) + 1;
	double *count = xcalloc((k + 1) * width, sizeof(*count));
	count[0] = 1;
	for (size_t i = 1; i <= n; i++) {
		long wi = w[i - 1];
		size_t j_hi = i < k ? i : k, j_lo = k + i > n ? k + i - n : 1;
		for (size_t j = j_hi; j >= j_lo; j--) {
			double *to = count + j * width;
			const double *from = count + (j - 1) * width;
			long s_lo = prefix[j - 1] + wi, s_hi = prefix[i] - prefix[i - j];
			for (long s = s_hi; s >= s_lo; s--)
				to[s] += from[s - wi];
		}
	}
	const double *dist = count + k * width;
	double total = 0, low = 0, high = 0;
	for (long s = prefix[k]; s <= prefix[n] - prefix[n - k]; s++) {
		total += dist[s];
		if (s <= s_obs)
			low += dist[s];
		if (s >= s_obs)
			high += dist[s];
	}
	free(count);
	free(prefix);
	double p = 2 * (low < high ? low : high) / total;
	return p > 1 ? 1 : p;
}

double stats_mwu_min_p(size_t na, size_t nb)
{
	if (na == 0 || nb == 0)
		return 1;
	/* log C(na + nb, na) through lgamma: exact enough, and never overflows */
	double log_c = lgamma((double)(na + nb) + 1) - lgamma((double)na + 1) - lgamma((double)nb + 1);
	double p = 2 * exp(-log_c);
	return p < 1 ? p : 1;
}

size_t stats_mwu_runs_needed(size_t tests, double alpha)
{
	double m = tests ? (double)tests : 1;
	for (size_t k = 2; k <= 1000; k++)
		if (m * stats_mwu_min_p(k, k) < alpha)
			return k;
	return 0;
}

double stats_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb,
			    enum stats_mwu_method *method)
{
	if (method)
		*method = STATS_MWU_NONE;
	if (na == 0 || nb == 0)
		return NAN;
	size_t n = na + nb;
	struct ranked *r = xmalloc(n * sizeof(*r));
	long *w = xmalloc(n * sizeof(*w));
	for (size_t i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 1 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	/* The smaller side's sum of doubled midranks is the statistic. */
	int small = nb < na;
	size_t k = small ? nb : na;
	long sum2_small = 0, sum2_a = 0;
	double tie_term = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && r[j].v == r[i].v)
			j++;
		long rank2 = (long)(i + j + 1); /* 2 × the mean of ranks i+1 .. j */
		for (size_t m = i; m < j; m++) {
			w[m] = rank2;
			sum2_small += r[m].side == small ? rank2 : 0;
			sum2_a += r[m].side == 0 ? rank2 : 0;
		}
		double t = (double)(j - i);
		tie_term += t * t * t - t;
		i = j;
	}
	free(r);
	double p;
	if (na <= STATS_MWU_EXACT_MAX && nb <= STATS_MWU_EXACT_MAX) {
		if (method)
			*method = STATS_MWU_EXACT;
		p = mwu_exact_p(w, n, k, sum2_small);
	} else {
		if (method)
			*method = STATS_MWU_NORMAL;
		double n1 = (double)na, n2 = (double)nb, nn = (double)n;
		double u1 = (double)sum2_a / 2 - n1 * (n1 + 1) / 2, u2 = n1 * n2 - u1;
		double u = u1 > u2 ? u1 : u2;
		double var = n1 * n2 / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
		p = var > 0 ? erfc((u - n1 * n2 / 2 - 0.5) / sqrt(var) / sqrt(2.0)) : 1;
	}
	free(w);
	return p > 1 ? 1 : p < 0 ? 0 : p;
}

const char *stats_mwu_method_name(enum stats_mwu_method m)
{
	switch (m) {
	case STATS_MWU_EXACT: return "exact";
	case STATS_MWU_NORMAL: return "normal";
	case STATS_MWU_NONE: break;
	}
	return "none";
}

struct indexed {
	double p;
	size_t i;
};

static int cmp_indexed(const void *a, const void *b)
{
	const struct indexed *x = a, *y = b;
	int c = cmp_double(&x->p, &y->p);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The p-values that are not NaN, smallest first (*k of them), their
 * adjusted values set to NaN where p is; caller frees. */
static struct indexed *sorted_p(const double *p, size_t m, double *adj, size_t *k)
{
	struct indexed *o = xmalloc((m ? m : 1) * sizeof(*o));
	*k = 0;
	for (size_t i = 0; i < m; i++)
		if (!isnan(p[i]))
			o[(*k)++] = (struct indexed){ p[i], i };
	qsort(o, *k, sizeof(*o), cmp_indexed);
	for (size_t i = 0; i < m; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	return o;
}

void stats_holm(const double *p, size_t m, double *adj)
{
	size_t k;
	struct indexed *o = sorted_p(p, m, adj, &k);
	double running = 0;
	for (size_t r = 0; r < k; r++) {
		double v = (double)(k - r) * o[r].p;
		if (v > 1)
			v = 1;
		if (v > running)
			running = v;
		adj[o[r].i] = running;
	}
	free(o);
}

void stats_bh(const double *p, size_t m, double *adj)
{
	size_t k;
	struct indexed *o = sorted_p(p, m, adj, &k);
	double running = 1;
	for (size_t r = k; r-- > 0;) {
		double v = (double)k / (double)(r + 1) * o[r].p;
		if (v < running)
			running = v;
		adj[o[r].i] = running;
	}
	free(o);
}

double stats_geomean(const double *ratios, size_t n)
{
	double s = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(ratios[i]) && ratios[i] > 0) {
			s += log(ratios[i]);
			k++;
		}
	return k ? exp(s / (double)k) : NAN;
}

enum stats_verdict stats_verdict(double ci_lo, double ci_hi, double p_adjusted,
				 double threshold, double alpha)
{
	if (isnan(ci_lo) || isnan(ci_hi))
		return STATS_INCONCLUSIVE;
	bool significant = p_adjusted < alpha;
	if (ci_lo > 1 + threshold && significant)
		return STATS_REGRESSED;
	if (ci_hi < 1 - threshold && significant)
		return STATS_IMPROVED;
	if (ci_lo >= 1 - threshold && ci_hi <= 1 + threshold)
		return STATS_SAME;
	return STATS_INCONCLUSIVE;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case STATS_SAME: return "same";
	case STATS_REGRESSED: return "regressed";
	case STATS_IMPROVED: return "improved";
	case STATS_INCONCLUSIVE: return "inconclusive";
	case STATS_NO_SIGNIFICANCE: return "no significance (n=1)";
	}
	return "inconclusive";
}

const char *stats_verdict_label(enum stats_verdict v)
{
	return v == STATS_INCONCLUSIVE ? "inconclusive \u2014 run more" : stats_verdict_name(v);
}
