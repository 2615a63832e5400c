/* Unit tests of src/stats: summaries, Mann–Whitney, Holm, bootstrap,
 * verdicts, record-to-metric extraction and the comparison.
 *
 * Every expected number below was computed outside perfhunt by
 * tests/unit/data/stats/reference.py (NumPy, SciPy 1.10), run as
 *   /usr/bin/python3 tests/unit/data/stats/reference.py
 * e.g. p exact A,B = scipy.stats.mannwhitneyu(A, B, alternative='two-sided',
 * method='exact').pvalue; medians and quantiles are numpy.median/quantile,
 * the raw MAD scipy.stats.median_abs_deviation(x, scale=1.0).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export/compare_text.h"
#include "stats/comparison.h"
#include "stats/metrics.h"
#include "stats/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_close(double got, double want, double rel)
{
	double tol = rel * (fabs(want) > 1 ? fabs(want) : 1);
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* Reference vectors (reference.py prints them). */
static const double A[] = { 1.1, 2.3, 3.5, 4.2, 5.0 };
static const double B[] = { 2.8, 3.9, 6.1, 7.4, 8.8, 9.0 };
static const double E1[] = { 10.0, 10.381, 10.762, 11.11, 11.491, 11.872, 12.22, 12.601, 12.982, 13.33,
			     13.711, 14.092, 14.44, 14.821, 15.202, 15.55, 15.931, 16.312, 16.66, 17.041 };
static const double E2[] = { 12.0, 12.423, 12.846, 13.269, 13.64, 14.063, 14.486, 14.909, 15.28, 15.703,
			     16.126, 16.549, 16.92, 17.343, 17.766, 18.189, 18.56, 18.983, 19.406, 19.829 };
static const double T1[] = { 1, 2, 2, 3, 3, 3, 4, 5 };
static const double T2[] = { 3, 4, 4, 5, 5, 6, 7, 7 };
static const double L1[] = { 50.0, 53.7, 57.4, 51.0, 54.7, 58.4, 52.0, 55.7, 59.4, 53.0, 56.7, 50.3, 54.0,
			     57.7, 51.3, 55.0, 58.7, 52.3, 56.0, 59.7, 53.3, 57.0, 50.6, 54.3, 58.0, 51.6,
			     55.3, 59.0, 52.6, 56.3 };
static const double L2[] = { 52.0005, 57.3005, 52.3005, 57.600500000000004, 52.600500000000004, 57.9005,
			     52.9005, 58.200500000000005, 53.200500000000005, 58.5005, 53.5005, 58.8005,
			     53.8005, 59.100500000000004, 54.100500000000004, 59.4005, 54.4005,
			     59.700500000000005, 54.700500000000005, 60.0005, 55.0005, 60.3005, 55.3005,
			     60.600500000000004, 55.600500000000004, 60.9005, 55.9005, 61.200500000000005,
			     56.200500000000005, 61.5005, 56.5005, 61.8005, 56.8005, 62.100500000000004,
			     57.100500000000004 };
static const double S[] = { 88.9, 90.1, 87.5, 89.3, 120.0, 88.7, 89.9 };

static void test_summaries(void **state)
{
	(void)state;
	assert_close(stats_median(S, N(S)), 89.3, 1e-12);
	assert_close(stats_mean(S, N(S)), 93.48571428571428, 1e-12);
	assert_close(stats_stddev(S, N(S)), 11.723257307794702, 1e-12);
	assert_close(stats_quantile(S, N(S), 0.25), 88.80000000000001, 1e-12);
	assert_close(stats_quantile(S, N(S), 0.9), 102.06, 1e-12);
	assert_close(stats_mad_raw(S, N(S)), 0.6000000000000085, 1e-9);
	assert_close(stats_mad(S, N(S)), 1.4826 * 0.6000000000000085, 1e-9);
	assert_close(stats_min(S, N(S)), 87.5, 0);
	assert_close(stats_max(S, N(S)), 120.0, 0);
	double even[] = { 4, 1, 3, 2 };
	assert_close(stats_median(even, 4), 2.5, 0);
	assert_close(even[0], 4, 0); /* input untouched */
	double one = 7;
	assert_close(stats_median(&one, 1), 7, 0);
	assert_close(stats_stddev(&one, 1), 0, 0);
	assert_true(isnan(stats_median(NULL, 0)));
	assert_true(isnan(stats_mean(NULL, 0)));
	assert_true(isnan(stats_mad(NULL, 0)));
	struct stats_summary s;
	stats_summarize(S, N(S), &s);
	assert_int_equal(s.n, 7);
	assert_close(s.median, 89.3, 1e-12);
}

static void test_outliers(void **state)
{
	(void)state;
	static const double want_z[] = { -0.4496666666666507, 0.8993333333333173, -2.023499999999968, 0.0,
					 34.51191666666618, -0.674499999999984, 0.6745 };
	double z[16];
	bool out[16];
	assert_int_equal(stats_outliers(S, N(S), z, out), 1);
	for (size_t i = 0; i < N(S); i++) {
		assert_close(z[i], want_z[i], 1e-9);
		assert_int_equal(out[i], i == 4);
	}
	/* MAD 0: the mean absolute deviation scales z (0.7979 · 6 / 1.5 = 3.19) */
	double flat[] = { 3, 3, 3, 9 };
	assert_int_equal(stats_outliers(flat, 4, z, NULL), 0);
	assert_close(z[3], 6 / (1.253314 * 1.5), 1e-9);
	double spike[] = { 5, 5, 5, 5, 5, 9 };
	assert_int_equal(stats_outliers(spike, 6, z, out), 1);
	assert_true(out[5]);
	double still[] = { 7, 7, 7 };
	assert_int_equal(stats_outliers(still, 3, z, NULL), 0);
	assert_close(z[0], 0, 0);
	/* A steady run: σ 1.9 ms at 220 ms, one run 2.6 % off. Its |z| is far
	 * above 3.5 (the MAD is small), but 2.6 % of the median is noise. */
	double steady[] = { 219.1, 220.0, 220.4, 219.6, 220.2, 225.8, 219.8, 220.1, 219.9, 220.3 };
	assert_int_equal(stats_outliers(steady, N(steady), z, out), 0);
	assert_true(fabs(z[5]) > STATS_OUTLIER_Z);
	/* the same run 15 % off is an outlier */
	steady[5] = 253;
	assert_int_equal(stats_outliers(steady, N(steady), z, out), 1);
	assert_true(out[5]);
}

static void test_rng(void **state)
{
	(void)state;
	struct stats_rng r;
	stats_rng_init(&r, 42);
	assert_true(stats_rng_next(&r) == 0x15780b2e0c2ec716ULL);
	assert_true(stats_rng_next(&r) == 0x6104d9866d113a7eULL);
	assert_true(stats_rng_next(&r) == 0xae17533239e499a1ULL);
	for (int i = 0; i < 1000; i++)
		assert_true(stats_rng_below(&r, 7) < 7);
}

static void test_bootstrap(void **state)
{
	(void)state;
	double x[] = { 10, 11, 12, 13, 14 }, y[] = { 12, 13, 14, 15, 16.5 };
	double lo, hi, lo2, hi2;
	/* reference.py: the same bootstrap in Python, each resample n draws,
	 * 2000 resamples, seed 42; the ends are atoms of the discrete
	 * distribution of the ratio, which drawing each median from its exact
	 * distribution (test_resample_median) reaches as well */
	assert_int_equal(stats_bootstrap_ratio_ci(x, 5, y, 5, 2000, 0.95, 42, &lo, &hi), 0);
	assert_close(lo, 0.9285714285714286, 1e-12);
	assert_close(hi, 1.5, 1e-12);
	/* reproducible */
	assert_int_equal(stats_bootstrap_ratio_ci(x, 5, y, 5, 2000, 0.95, 42, &lo2, &hi2), 0);
	assert_true(lo == lo2 && hi == hi2);
	/* constant, identical samples: exactly [1, 1] */
	double c[] = { 7, 7, 7, 7 };
	assert_int_equal(stats_bootstrap_ratio_ci(c, 4, c, 4, 1000, 0.95, 1, &lo, &hi), 0);
	assert_true(lo == 1 && hi == 1);
	/* zeros on both sides (majflt): ratio 1, never NaN */
	double zeros[] = { 0, 0, 0 };
	assert_int_equal(stats_bootstrap_ratio_ci(zeros, 3, zeros, 3, 100, 0.95, 1, &lo, &hi), 0);
	assert_true(lo == 1 && hi == 1);
	assert_int_equal(stats_bootstrap_ratio_ci(zeros, 3, y, 5, 100, 0.95, 1, &lo, &hi), 0);
	assert_true(isinf(lo) && isinf(hi));
	assert_int_equal(stats_bootstrap_ratio_ci(x, 0, y, 5, 100, 0.95, 1, &lo, &hi), -1);
}

/* Probability of each median of a resample with replacement of v[0..n), by
 * enumerating all n^n index tuples; returns the number of distinct medians. */
static size_t resample_median_exact(const double *v, size_t n, double *med, double *prob)
{
	size_t total = 1, nm = 0;
	for (size_t i = 0; i < n; i++)
		total *= n;
	for (size_t t = 0; t < total; t++) {
		double d[8];
		for (size_t i = 0, c = t; i < n; i++, c /= n)
			d[i] = v[c % n];
		double m = stats_median(d, n);
		size_t j = 0;
		while (j < nm && med[j] != m)
			j++;
		if (j == nm) {
			med[nm] = m;
			prob[nm++] = 0;
		}
		prob[j] += 1.0 / (double)total;
	}
	return nm;
}

/* stats_resample_median against the exact distribution of a resample's
 * median, odd and even n, ties included: every median's frequency in 200 000
 * draws within 5 standard errors of its probability. */
static void test_resample_median(void **state)
{
	(void)state;
	static const double odd[] = { 1, 2, 2, 4, 7 }, even[] = { 1, 3, 4, 4, 8, 9 };
	const double *sets[] = { odd, even };
	size_t sizes[] = { 5, 6 };
	for (size_t k = 0; k < 2; k++) {
		double med[64], prob[64], seen[64] = { 0 };
		size_t nm = resample_median_exact(sets[k], sizes[k], med, prob), draws = 200000;
		struct stats_rng r;
		stats_rng_init(&r, 7 + k);
		for (size_t t = 0; t < draws; t++) {
			double m = stats_resample_median(&r, sets[k], sizes[k]);
			size_t j = 0;
			while (j < nm && med[j] != m)
				j++;
			if (j == nm)
				fail_msg("n %zu: median %g is not a resample's", sizes[k], m);
			seen[j]++;
		}
		for (size_t j = 0; j < nm; j++) {
			double f = seen[j] / (double)draws, se = sqrt(prob[j] * (1 - prob[j]) / (double)draws);
			if (fabs(f - prob[j]) > 5 * se + 1e-9)
				fail_msg("n %zu: median %g drawn %.5f of the time, probability %.5f", sizes[k], med[j], f,
					 prob[j]);
		}
	}
	/* one value: always it */
	struct stats_rng r;
	stats_rng_init(&r, 1);
	double one = 3.5;
	assert_true(stats_resample_median(&r, &one, 1) == 3.5);
}

/* Exact p-values with ties: reference.py's brute-force permutation (every
 * split of the pooled values), as exact fractions. */
static const double G6[] = { 11, 14, 17, 17, 22, 30 };
static const double B6[] = { 75, 81, 88, 90, 96, 103 };
static const double X7[] = { 12, 12, 13, 15, 15, 18, 20 };
static const double Y9[] = { 13, 15, 15, 16, 18, 21, 21, 24, 25 };
static const double Z0[] = { 0, 0, 0, 0, 1, 0 };
static const double Z1[] = { 0, 0, 2, 3, 0, 0 };

/* 50 + 50 (the largest exact size): W with many ties (integer ms), U without. */
static void fill_w(double *w1, double *w2)
{
	for (int i = 0; i < 50; i++) {
		w1[i] = 200 + (i * 37) % 23;
		w2[i] = 203 + (i * 53) % 23;
	}
}

static void test_mann_whitney(void **state)
{
	(void)state;
	enum stats_mwu_method m;
	assert_close(stats_mann_whitney_p(A, N(A), B, N(B), &m), 0.08225108225108226, 1e-12);
	assert_int_equal(m, STATS_MWU_EXACT);
	assert_string_equal(stats_mwu_method_name(m), "exact");
	/* argument order does not matter for a two-sided test */
	assert_close(stats_mann_whitney_p(B, N(B), A, N(A), &m), 0.08225108225108226, 1e-12);
	assert_close(stats_mann_whitney_p(E1, N(E1), E2, N(E2), &m), 0.004681198543944589, 1e-10);
	assert_int_equal(m, STATS_MWU_EXACT);
	/* 30 vs 35 without ties: SciPy's exact table */
	assert_close(stats_mann_whitney_p(L1, N(L1), L2, N(L2), &m), 0.006010555383094403, 1e-10);
	assert_int_equal(m, STATS_MWU_EXACT);

	/* ties: the exact permutation distribution of the midranks */
	assert_close(stats_mann_whitney_p(T1, N(T1), T2, N(T2), &m), 7.0 / 715, 1e-12);
	assert_int_equal(m, STATS_MWU_EXACT);
	/* the 6 vs 6 that do not overlap, one tie: 2/924 */
	assert_close(stats_mann_whitney_p(G6, N(G6), B6, N(B6), &m), 1.0 / 462, 1e-12);
	assert_close(stats_mann_whitney_p(B6, N(B6), G6, N(G6), &m), 1.0 / 462, 1e-12);
	assert_int_equal(m, STATS_MWU_EXACT);
	assert_close(stats_mann_whitney_p(X7, N(X7), Y9, N(Y9), &m), 97.0 / 1430, 1e-12);
	assert_close(stats_mann_whitney_p(Y9, N(Y9), X7, N(X7), &m), 97.0 / 1430, 1e-12);
	assert_close(stats_mann_whitney_p(Z0, N(Z0), Z1, N(Z1), &m), 5.0 / 11, 1e-12);

	double w1[51], w2[51];
	fill_w(w1, w2);
	assert_close(stats_mann_whitney_p(w1, 50, w2, 50, &m), 0.033319810160280114, 1e-10);
	assert_int_equal(m, STATS_MWU_EXACT);
	double u1[50], u2[50];
	for (int i = 0; i < 50; i++) {
		u1[i] = round((100 + 0.37 * i + (i % 7) * 0.0011) * 1e4) / 1e4;
		u2[i] = round((103 + 0.29 * i + (i % 5) * 0.0013) * 1e4) / 1e4 + 0.00005;
	}
	assert_close(stats_mann_whitney_p(u1, 50, u2, 50, &m), 0.33426713121687107, 1e-10);
	/* 51 vs 51: the normal approximation with tie and continuity corrections */
	w1[50] = 210;
	w2[50] = 211;
	assert_close(stats_mann_whitney_p(w1, 51, w2, 51, &m), 0.03400412398424719, 1e-10);
	assert_int_equal(m, STATS_MWU_NORMAL);
	assert_string_equal(stats_mwu_method_name(m), "normal");

	/* identical samples: 1, not NaN */
	double five[] = { 5, 5, 5 };
	assert_close(stats_mann_whitney_p(five, 3, five, 3, &m), 1.0, 0);
	assert_int_equal(m, STATS_MWU_EXACT);
	double one_a = 1, one_b = 2;
	assert_close(stats_mann_whitney_p(&one_a, 1, &one_b, 1, &m), 1.0, 0);
	assert_true(isnan(stats_mann_whitney_p(A, 0, B, N(B), &m)));
	assert_int_equal(m, STATS_MWU_NONE);
	assert_string_equal(stats_mwu_method_name(m), "none");
	assert_true(isnan(stats_mann_whitney_p(A, 0, B, N(B), NULL)));
}

static void test_holm(void **state)
{
	(void)state;
	double p[] = { 0.01, 0.04, 0.03, 0.005, 0.5, 0.2 };
	static const double want[] = { 0.05, 0.12, 0.12, 0.03, 0.5, 0.4 };
	double adj[N(p)];
	stats_holm(p, N(p), adj);
	for (size_t i = 0; i < N(p); i++)
		assert_close(adj[i], want[i], 1e-12);
	/* NaN (n = 1 metrics) does not count towards m */
	double q[] = { 0.01, NAN, 0.04 };
	stats_holm(q, 3, q);
	assert_close(q[0], 0.02, 1e-12);
	assert_true(isnan(q[1]));
	assert_close(q[2], 0.04, 1e-12);
	double big[] = { 0.6, 0.7 };
	stats_holm(big, 2, big);
	assert_close(big[0], 1, 0);
}

/* Against R: p.adjust(c(0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205), "BH"),
 * given shuffled, with a NaN that does not count. */
static void test_bh(void **state)
{
	(void)state;
	double p[] = { 0.06, 0.001, 0.205, NAN, 0.041, 0.008, 0.074, 0.039, 0.042 };
	static const double want[] = { 0.08, 0.008, 0.205, NAN, 0.0672, 0.032, 0.0845714285714286, 0.0672, 0.0672 };
	stats_bh(p, N(p), p);
	for (size_t i = 0; i < N(p); i++) {
		if (isnan(want[i]))
			assert_true(isnan(p[i]));
		else
			assert_close(p[i], want[i], 1e-12);
	}
	/* fifteen frames of 5 + 5 runs all at the exact minimum 2/252: all kept below 0.05 */
	double same[15];
	for (size_t i = 0; i < 15; i++)
		same[i] = 2.0 / 252;
	stats_bh(same, 15, same);
	assert_close(same[14], 2.0 / 252, 1e-15);
}

static void test_geomean_verdict(void **state)
{
	(void)state;
	double r[] = { 1.1, 0.9, 1.25 };
	assert_close(stats_geomean(r, 3), 1.0736145845094707, 1e-12);
	double bad[] = { 0, INFINITY, NAN };
	assert_true(isnan(stats_geomean(bad, 3)));
	assert_int_equal(stats_verdict(1.05, 1.07, 0.001, 0.02, 0.05), STATS_REGRESSED);
	assert_int_equal(stats_verdict(1.05, 1.07, 0.2, 0.02, 0.05), STATS_INCONCLUSIVE);
	assert_int_equal(stats_verdict(0.90, 0.95, 0.001, 0.02, 0.05), STATS_IMPROVED);
	assert_int_equal(stats_verdict(0.99, 1.01, 0.8, 0.02, 0.05), STATS_SAME);
	assert_int_equal(stats_verdict(1.00, 1.00, 1.0, 0.02, 0.05), STATS_SAME);
	assert_int_equal(stats_verdict(0.99, 1.05, 0.01, 0.02, 0.05), STATS_INCONCLUSIVE);
	assert_int_equal(stats_verdict(NAN, NAN, NAN, 0.02, 0.05), STATS_INCONCLUSIVE);
	assert_string_equal(stats_verdict_label(STATS_INCONCLUSIVE), "inconclusive \u2014 run more");
	assert_string_equal(stats_verdict_name(STATS_NO_SIGNIFICANCE), "no significance (n=1)");
}

/* A run record with wall_s and a pin_abc phase of pin_ms (in two pieces). */
static json_t *make_run(double wall_s, double pin_ms, bool with_cgroup)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"schema\": \"perfhunt.run/1\","
		 " \"summary\": {\"wall_s\": %.17g, \"user_s\": 0.5, \"sys_s\": 0.1, \"peak_rss_kb\": 1024,"
		 " \"peak_tree_rss_kb\": 2048, \"minflt\": 100, \"majflt\": 0%s},"
		 " \"phases\": [{\"name\": \"pin_abc\", \"start_ms\": 0, \"end_ms\": %.17g},"
		 " {\"name\": \"pin_abc\", \"start_ms\": 1000, \"end_ms\": %.17g},"
		 " {\"name\": \"ntt\", \"start_ms\": 0, \"end_ms\": 300}],"
		 " \"counters\": {\"cycles\": {\"value\": 5000, \"supported\": true},"
		 " \"instructions\": {\"value\": 7, \"supported\": false}}}",
		 wall_s, with_cgroup ? ", \"cgroup_peak_kb\": 4096" : "", pin_ms / 2, 1000 + pin_ms / 2);
	json_error_t je;
	json_t *r = json_loads(buf, 0, &je);
	if (!r)
		fail_msg("fixture: %s", je.text);
	return r;
}

/* A run of phpin's pin phase: its time, minor faults and kernel CPU. */
static json_t *make_gpu_pin_run(double wall_s, double pin_ms, double minflt, double sys_ms, double gpu_mib)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"schema\": \"perfhunt.run/1\", \"summary\": {\"wall_s\": %.17g},"
		 " \"phases\": [{\"name\": \"pin\", \"start_ms\": 10, \"end_ms\": %.17g,"
		 " \"resources\": {\"minflt\": %.17g, \"sys_ms\": %.17g, \"user_ms\": 0,"
		 " \"gpu_growth_mib\": %.17g}}]}",
		 wall_s, 10 + pin_ms, minflt, sys_ms, gpu_mib);
	json_error_t je;
	json_t *r = json_loads(buf, 0, &je);
	if (!r)
		fail_msg("fixture: %s", je.text);
	return r;
}

/* Compares n runs a side: pin 68 ms with no faults and 10 ms of sys against
 * 100 ms with 40 960 faults and 50 ms of sys; its GPU growth gpu_mib[side]. */
static void pin_compare(size_t n, const double gpu_mib[2], struct comparison *c)
{
	struct metrics_set side[2];
	struct err e = { 0 };
	for (int k = 0; k < 2; k++) {
		json_t *runs[8];
		assert_true(n <= 8);
		for (size_t i = 0; i < n; i++)
			runs[i] = k ? make_gpu_pin_run(0.4 + (double)i * 1e-3, 100 + (double)i * 0.1, 40960 + (double)i,
						       50, gpu_mib[k])
				    : make_gpu_pin_run(0.37 + (double)i * 1e-3, 68 + (double)i * 0.1, 0, 10, gpu_mib[k]);
		assert_int_equal(metrics_from_records(runs, n, &side[k], &e), 0);
		for (size_t i = 0; i < n; i++)
			json_decref(runs[i]);
	}
	struct comparison_opts o;
	comparison_opts_init(&o);
	o.resamples = 200;
	assert_int_equal(comparison_run(&side[0], &side[1], &o, c, &e), 0);
	metrics_set_release(&side[0]);
	metrics_set_release(&side[1]);
}

/* 3 + 3 runs: no p can pass 0.05 (the smallest is 0.1, 0.2 after Holm over
 * wall_s and phase:pin), so nothing is established; the compare says how many
 * runs could decide (5 + 5), and pin, which moved most, keeps its reasons,
 * never one whose sign flips (GPU growth 5608 -> -2048 MiB). */
static void test_comparison_small_n_lead(void **state)
{
	(void)state;
	assert_close(stats_mwu_min_p(3, 3), 0.1, 1e-12);
	assert_close(stats_mwu_min_p(5, 5), 2.0 / 252, 1e-12);
	assert_int_equal(stats_mwu_runs_needed(1, 0.05), 4);
	assert_int_equal(stats_mwu_runs_needed(2, 0.05), 5);
	struct comparison c;
	pin_compare(3, (const double[2]){ 5608, -2048 }, &c);
	assert_string_equal(c.metrics[0].name, "wall_s");
	assert_int_equal(c.metrics[0].verdict, STATS_INCONCLUSIVE);
	assert_int_equal(c.metrics[0].runs_needed, 5);
	assert_int_equal(c.regressed, 0);
	const struct comparison_phase *pin = &c.phases[0];
	assert_string_equal(pin->name, "pin");
	assert_false(pin->changed);
	assert_true(pin->leading);
	assert_true(pin->n_reasons >= 1);
	assert_string_equal(pin->reasons[0].key, "minflt");
	for (size_t i = 0; i < pin->n_reasons; i++)
		assert_string_not_equal(pin->reasons[i].key, "gpu_growth_mib");
	comparison_release(&c);
}

/* pin grows by 32 ms; its kernel CPU by 40 ms (more than the phase's delta:
 * the 10 ms tick) and its minor faults from none to 40 960. Both are named,
 * the faults first: kernel CPU can account for no more than all the time. */
static void test_comparison_reasons(void **state)
{
	(void)state;
	struct comparison c;
	pin_compare(5, (const double[2]){ 0, 0 }, &c);
	assert_string_equal(c.phases[0].name, "pin");
	assert_true(c.phases[0].changed);
	assert_int_equal(c.phases[0].n_reasons, 2);
	assert_string_equal(c.phases[0].reasons[0].key, "minflt");
	assert_string_equal(c.phases[0].reasons[1].key, "sys_s");
	comparison_release(&c);
}

/* A lock held across the work of 4 threads: msm 600 ms at parallelism 1.6
 * against 1 000 ms at 1.0, the same CPU, blocked 1.45 s -> 3.05 s. The phase
 * says it waited: parallelism and blocked thread time lead its reasons. */
static void test_comparison_reasons_thread_states(void **state)
{
	(void)state;
	struct metrics_set side[2];
	struct err e = { 0 };
	for (int k = 0; k < 2; k++) {
		json_t *runs[6];
		for (int i = 0; i < 6; i++) {
			double ms = (k ? 1000 : 600) + i, oncpu = 960 + i;
			char buf[1024];
			snprintf(buf, sizeof(buf),
				 "{\"schema\": \"perfhunt.run/1\", \"summary\": {\"wall_s\": %.17g},"
				 " \"phases\": [{\"name\": \"msm\", \"start_ms\": 10, \"end_ms\": %.17g,"
				 " \"resources\": {\"user_ms\": %.17g, \"sys_ms\": 0, \"oncpu_ms\": %.17g,"
				 " \"runnable_ms\": 0, \"blocked_ms\": %.17g, \"parallelism\": %.17g}}]}",
				 ms / 1000 + 0.1, 10 + ms, oncpu, oncpu, 4 * ms - oncpu, oncpu / ms);
			json_error_t je;
			runs[i] = json_loads(buf, 0, &je);
			assert_non_null(runs[i]);
		}
		assert_int_equal(metrics_from_records(runs, 6, &side[k], &e), 0);
		for (int i = 0; i < 6; i++)
			json_decref(runs[i]);
	}
	struct comparison_opts o;
	comparison_opts_init(&o);
	o.resamples = 200;
	struct comparison c;
	assert_int_equal(comparison_run(&side[0], &side[1], &o, &c, &e), 0);
	assert_string_equal(c.phases[0].name, "msm");
	assert_true(c.phases[0].changed);
	assert_int_equal(c.phases[0].n_reasons, 2);
	assert_string_equal(c.phases[0].reasons[0].key, "blocked_ms");
	assert_string_equal(c.phases[0].reasons[1].key, "parallelism");
	char why[256];
	compare_text_reasons(&c.phases[0], why, sizeof(why));
	assert_string_equal(why, "blocked +1.600 s (thread time), parallelism 1.6 \u2192 0.96");
	comparison_release(&c);
	metrics_set_release(&side[0]);
	metrics_set_release(&side[1]);
}

static void test_metrics_extract(void **state)
{
	(void)state;
	json_t *runs[3] = { make_run(1.0, 100, true), make_run(2.0, 200, false), make_run(3.0, 300, true) };
	struct metrics_set s;
	struct err e = { 0 };
	assert_int_equal(metrics_from_records(runs, 3, &s, &e), 0);
	assert_int_equal(s.runs, 3);
	assert_string_equal(s.items[0].name, "wall_s");
	const struct metrics_series *m = metrics_find(&s, "wall_s");
	assert_int_equal(m->n, 3);
	assert_close(m->values[2], 3.0, 0);
	m = metrics_find(&s, "cgroup_peak_kb");
	assert_int_equal(m->n, 2);
	m = metrics_find(&s, "phase:pin_abc");
	assert_non_null(m);
	assert_true(m->is_phase);
	assert_close(m->values[1], 200, 1e-12); /* both pieces summed */
	assert_close(metrics_find(&s, "phase:ntt")->values[0], 300, 0);
	assert_non_null(metrics_find(&s, "cycles"));
	assert_null(metrics_find(&s, "instructions")); /* unsupported counter */
	assert_null(metrics_find(&s, "gpu_peak_mib"));

	/* a phase only NEW has is compared against zeros */
	struct metrics_set other;
	metrics_set_init(&other);
	json_t *r = make_run(1.0, 10, false);
	json_array_append_new(json_object_get(r, "phases"),
			      json_pack("{s:s, s:f, s:f}", "name", "fresh", "start_ms", 1.0, "end_ms", 5.0));
	assert_int_equal(metrics_add_records(&other, &r, 1, &e), 0);
	metrics_align_phases(&s, &other);
	m = metrics_find(&s, "phase:fresh");
	assert_non_null(m);
	assert_int_equal(m->n, 3);
	assert_close(m->values[0] + m->values[1] + m->values[2], 0, 0);
	json_decref(r);
	metrics_set_release(&other);
	metrics_set_release(&s);
	for (int i = 0; i < 3; i++)
		json_decref(runs[i]);
}

static void expect_bad(const char *json, const char *msg)
{
	json_error_t je;
	json_t *r = json_loads(json, 0, &je);
	assert_non_null(r);
	struct metrics_set s;
	struct err e = { 0 };
	assert_int_equal(metrics_from_records(&r, 1, &s, &e), -1);
	if (!strstr(e.msg, msg))
		fail_msg("error '%s' does not contain '%s'", e.msg, msg);
	json_decref(r);
}

static void test_metrics_errors(void **state)
{
	(void)state;
	expect_bad("{\"schema\":\"perfhunt.run/1\"}", "no \"summary\" object");
	expect_bad("{\"summary\":{\"user_s\":1}}", "summary.wall_s is missing");
	expect_bad("{\"summary\":{\"wall_s\":-1}}", "summary.wall_s must be a non-negative number");
	expect_bad("{\"summary\":{\"wall_s\":\"1\"}}", "summary.wall_s must be a non-negative number");
	expect_bad("{\"summary\":{\"wall_s\":1,\"minflt\":1e308}}", "summary.minflt");
	expect_bad("{\"summary\":{\"wall_s\":1},\"phases\":[{\"name\":\"x\",\"start_ms\":5,\"end_ms\":1}]}",
		   "phases[0] ('x') needs start_ms <= end_ms");
	expect_bad("{\"summary\":{\"wall_s\":1},\"phases\":[{\"start_ms\":5,\"end_ms\":6}]}", "phases[0] has no name");
	expect_bad("{\"summary\":{\"wall_s\":1},\"phases\":{}}", "\"phases\" must be an array");
	expect_bad("{\"summary\":{\"wall_s\":1},\"counters\":{\"c\":{\"value\":-3}}}", "run 1: counters.c.value must be a non-negative number");
	expect_bad("{\"schema\":\"perfhunt.bench/1\",\"summary\":{\"wall_s\":1}}", "schema is not perfhunt.run/1");
	expect_bad("[]", "not a JSON object");
}

static void test_runs_of_bench(void **state)
{
	(void)state;
	json_error_t je;
	json_t *b = json_loads("{\"schema\":\"perfhunt.bench/1\",\"commands\":["
			       "{\"name\":\"a\",\"runs\":[{\"summary\":{\"wall_s\":1}}]},"
			       "{\"name\":\"b\",\"runs\":[{\"summary\":{\"wall_s\":2}},{\"summary\":{\"wall_s\":3}}]}]}",
			       0, &je);
	assert_non_null(b);
	json_t **runs;
	size_t n;
	struct err e = { 0 };
	assert_int_equal(metrics_runs_of(b, NULL, &runs, &n, &e), 0);
	assert_int_equal(n, 1);
	free(runs);
	assert_int_equal(metrics_runs_of(b, "b", &runs, &n, &e), 0);
	assert_int_equal(n, 2);
	free(runs);
	assert_int_equal(metrics_runs_of(b, "2", &runs, &n, &e), 0);
	assert_int_equal(n, 2);
	free(runs);
	assert_int_equal(metrics_runs_of(b, "3", &runs, &n, &e), -1);
	assert_string_equal(e.msg, "no command '3' in the bench record (it has 2)");
	json_decref(b);
	json_t *x = json_loads("{\"schema\":\"perfhunt.other/9\"}", 0, &je);
	assert_int_equal(metrics_runs_of(x, NULL, &runs, &n, &e), -1);
	assert_non_null(strstr(e.msg, "unsupported schema"));
	json_decref(x);
}

/* Builds a set of n runs: wall = w0 + i * step s, pin_abc = pin ms. */
static void make_side(struct metrics_set *s, size_t n, double w0, double step, double pin)
{
	json_t *runs[12];
	assert_true(n <= 12);
	for (size_t i = 0; i < n; i++)
		runs[i] = make_run(w0 + (double)i * step, pin + (double)i * 0.05, false);
	struct err e = { 0 };
	assert_int_equal(metrics_from_records(runs, n, s, &e), 0);
	for (size_t i = 0; i < n; i++)
		json_decref(runs[i]);
}

static void test_comparison(void **state)
{
	(void)state;
	struct metrics_set base, nw;
	struct comparison c;
	struct comparison_opts o;
	struct err e = { 0 };
	comparison_opts_init(&o);
	o.resamples = 500; /* keep the test quick; the CI is far from the threshold */

	/* pin_abc grows by 5.7 s, wall by 5.6 s */
	make_side(&base, 10, 88.9, 0.01, 30);
	make_side(&nw, 10, 94.5, 0.01, 5730);
	assert_int_equal(comparison_run(&base, &nw, &o, &c, &e), 0);
	assert_string_equal(c.metrics[0].name, "wall_s");
	assert_int_equal(c.metrics[0].verdict, STATS_REGRESSED);
	assert_close(c.metrics[0].delta_pct, 100 * (94.545 / 88.945 - 1), 1e-9);
	assert_true(c.metrics[0].ci_low > 1.05 && c.metrics[0].ci_high < 1.07);
	assert_true(c.metrics[0].p_adjusted < 0.05);
	assert_true(c.regressed >= 1);
	assert_string_equal(c.phases[0].name, "pin_abc");
	assert_close(c.phases[0].delta_ms, 5700, 1e-9);
	assert_close(c.phases[0].share_pct, 100 * 5700 / 5600.0, 1e-6);
	assert_string_equal(c.phases[1].name, "ntt");
	assert_close(c.phases[1].delta_ms, 0, 0);
	comparison_release(&c);

	/* identical inputs: every metric is the same */
	assert_int_equal(comparison_run(&base, &base, &o, &c, &e), 0);
	for (size_t i = 0; i < c.n_metrics; i++)
		assert_int_equal(c.metrics[i].verdict, STATS_SAME);
	assert_int_equal(c.regressed, 0);
	assert_close(c.geomean, 1, 0);
	comparison_release(&c);

	/* --metric restricts; an unknown one is an error */
	const char *only[] = { "phase:pin_abc" };
	o.only = only;
	o.n_only = 1;
	assert_int_equal(comparison_run(&base, &nw, &o, &c, &e), 0);
	assert_int_equal(c.n_metrics, 1);
	assert_int_equal(c.n_phases, 1);
	assert_close(c.phases[0].share_pct, 100 * 5700 / 5600.0, 1e-6);
	comparison_release(&c);
	const char *unknown[] = { "nope" };
	o.only = unknown;
	assert_int_equal(comparison_run(&base, &nw, &o, &c, &e), -1);
	assert_string_equal(e.msg, "metric 'nope' is not in both BASE and NEW");
	o.n_only = 0;
	metrics_set_release(&nw);

	/* n = 1 on a side: deltas only */
	make_side(&nw, 1, 94.5, 0, 5730);
	assert_int_equal(comparison_run(&base, &nw, &o, &c, &e), 0);
	for (size_t i = 0; i < c.n_metrics; i++) {
		assert_int_equal(c.metrics[i].verdict, STATS_NO_SIGNIFICANCE);
		assert_true(isnan(c.metrics[i].p_value) && isnan(c.metrics[i].ci_low));
	}
	assert_true(c.metrics[0].delta_pct > 6);
	comparison_release(&c);
	metrics_set_release(&nw);
	metrics_set_release(&base);
}

/* A run with a phase "step" of step_ms, wall wall_s and side metrics. */
static json_t *small_run(double wall_s, double step_ms, double minflt, double majflt, double cycles)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"schema\": \"perfhunt.run/1\","
		 " \"summary\": {\"wall_s\": %.17g, \"user_s\": %.17g, \"sys_s\": 0.01, \"peak_rss_kb\": %.17g,"
		 " \"minflt\": %.17g, \"majflt\": %.17g},"
		 " \"phases\": [{\"name\": \"step\", \"start_ms\": 5, \"end_ms\": %.17g}],"
		 " \"counters\": {\"cycles\": {\"value\": %.17g, \"supported\": true}}}",
		 wall_s, wall_s / 2, 3000 + minflt, minflt, majflt, 5 + step_ms, cycles);
	json_error_t je;
	json_t *r = json_loads(buf, 0, &je);
	if (!r)
		fail_msg("fixture: %s", je.text);
	return r;
}

static void small_side(struct metrics_set *s, const double *step_ms, const double *majflt, double wall0)
{
	json_t *runs[6];
	for (size_t i = 0; i < 6; i++)
		runs[i] = small_run(wall0 + 0.001 * (double)((i * 5) % 6), step_ms[i], 900 + (double)((i * 7) % 5),
				    majflt[i], 1e6 + (double)i);
	struct err e = { 0 };
	assert_int_equal(metrics_from_records(runs, 6, s, &e), 0);
	for (size_t i = 0; i < 6; i++)
		json_decref(runs[i]);
}

static void test_families(void **state)
{
	(void)state;
	assert_int_equal(comparison_family_of("wall_s", false), COMPARISON_PRIMARY);
	assert_int_equal(comparison_family_of("phase:pin_abc", true), COMPARISON_PRIMARY);
	assert_int_equal(comparison_family_of("phase:gpu.kernel", true), COMPARISON_PRIMARY);
	assert_int_equal(comparison_family_of("phase:pin_abc.minflt", true), COMPARISON_PHASE_RESOURCES);
	assert_int_equal(comparison_family_of("phase:pin_abc.user_s", true), COMPARISON_PHASE_RESOURCES);
	assert_int_equal(comparison_family_of("phase:gpu.kernel.rss_growth_kb", true), COMPARISON_PHASE_RESOURCES);
	assert_int_equal(comparison_family_of("phase:x", false), COMPARISON_SECONDARY);
	assert_int_equal(comparison_family_of("user_s", false), COMPARISON_SECONDARY);
	assert_int_equal(comparison_family_of("cycles", false), COMPARISON_SECONDARY);
	assert_string_equal(comparison_family_name(COMPARISON_PRIMARY), "primary");
	assert_string_equal(comparison_family_name(COMPARISON_SECONDARY), "secondary");
	assert_string_equal(comparison_family_name(COMPARISON_PHASE_RESOURCES), "phase resources");
}

/* The case: 6 runs against 6 that do not overlap (one tie), beside
 * side metrics. Exact p 2/924; Holm within the primary family (wall_s and
 * the phase) keeps it far below 0.05, so the phase is regressed. */
/* What is a measurement, and in which unit, from a metric's name. */
static void test_metric_units(void **state)
{
	(void)state;
	static const char *const not_measured[] = { "peak_rss_pid", "samples", "monitor_cpu_s", "interval_ms",
						    "peak_at_ms", "daemon.peak_at_ms" };
	for (size_t i = 0; i < sizeof(not_measured) / sizeof(*not_measured); i++)
		assert_false(metrics_is_measurement(not_measured[i]));
	static const char *const measured[] = { "wall_s", "cpu_pct", "peak_rss_kb", "write_bytes", "task-clock",
						"phase:samples", "max_procs", "daemon.vcsw" };
	for (size_t i = 0; i < sizeof(measured) / sizeof(*measured); i++)
		assert_true(metrics_is_measurement(measured[i]));
	assert_int_equal(metrics_unit("phase:pin"), METRICS_MS);
	assert_int_equal(metrics_unit("phase:pin.user_s"), METRICS_S);
	assert_int_equal(metrics_unit("phase:pin.write_bytes"), METRICS_BYTES);
	assert_int_equal(metrics_unit("phase:pin.minflt"), METRICS_COUNT);
	assert_int_equal(metrics_unit("task-clock"), METRICS_NS);
	assert_int_equal(metrics_unit("daemon.cpu-clock"), METRICS_NS);
	assert_int_equal(metrics_unit("daemon.peak_above_idle_kb"), METRICS_KB);
	assert_int_equal(metrics_unit("gpu_peak_mib"), METRICS_MIB);
	assert_int_equal(metrics_unit("cpu_pct"), METRICS_PCT);
	assert_int_equal(metrics_unit("instructions"), METRICS_COUNT);
}

static void test_comparison_small_n(void **state)
{
	(void)state;
	static const double no_majflt[6] = { 0 }, some_majflt[6] = { 0, 0, 0, 0, 2, 3 };
	struct metrics_set base, nw;
	struct comparison c;
	struct comparison_opts o;
	struct err e = { 0 };
	comparison_opts_init(&o);
	o.resamples = 2000;
	small_side(&base, G6, no_majflt, 1.0);
	small_side(&nw, B6, some_majflt, 1.0);
	assert_int_equal(comparison_run(&base, &nw, &o, &c, &e), 0);
	/* primary first, then the rest in the sets' order */
	assert_string_equal(c.metrics[0].name, "wall_s");
	assert_string_equal(c.metrics[1].name, "phase:step");
	assert_string_equal(c.metrics[2].name, "user_s");
	assert_int_equal(c.family_tests[COMPARISON_PRIMARY], 2);
	assert_int_equal(c.family_tests[COMPARISON_SECONDARY], c.n_metrics - 2);
	const struct comparison_metric *step = &c.metrics[1];
	assert_int_equal(step->family, COMPARISON_PRIMARY);
	assert_int_equal(step->test, STATS_MWU_EXACT);
	assert_close(step->p_value, 2.0 / 924, 1e-12);
	assert_close(step->p_adjusted, 2 * 2.0 / 924, 1e-12);
	assert_int_equal(step->verdict, STATS_REGRESSED);
	assert_int_equal(step->runs_needed, 0); /* 6 + 6 runs can decide */
	for (size_t i = 0; i < c.n_metrics; i++) {
		const struct comparison_metric *m = &c.metrics[i];
		assert_int_equal(m->family, i < 2 ? COMPARISON_PRIMARY : COMPARISON_SECONDARY);
		assert_int_equal(m->test, STATS_MWU_EXACT);
		if (!strcmp(m->name, "majflt")) {
			/* 0 vs 0: same, and no 1.000..inf interval */
			assert_int_equal(m->verdict, STATS_SAME);
			assert_true(isnan(m->ci_low) && isnan(m->ci_high));
			assert_false(isnan(m->p_value));
		}
		if (!strcmp(m->name, "wall_s") || !strcmp(m->name, "user_s") || !strcmp(m->name, "sys_s"))
			assert_int_equal(m->verdict, STATS_SAME); /* identical samples */
	}
	assert_int_equal(c.regressed, 1); /* phase:step only: the side metrics are equal */
	comparison_release(&c);
	/* identical samples are the same even when their spread (11..30 ms)
	 * leaves the bootstrap interval wider than the threshold */
	assert_int_equal(comparison_run(&base, &base, &o, &c, &e), 0);
	assert_true(c.metrics[1].ci_low < 0.98 && c.metrics[1].ci_high > 1.02);
	assert_int_equal(c.metrics[1].verdict, STATS_SAME);
	assert_close(c.metrics[1].p_value, 1, 0);
	comparison_release(&c);
	metrics_set_release(&base);
	/* identical small counts (0, 1, 2): same, and no "0.5..inf" interval */
	static const double few[6] = { 0, 1, 1, 0, 1, 2 };
	small_side(&base, G6, few, 1.0);
	assert_int_equal(comparison_run(&base, &base, &o, &c, &e), 0);
	for (size_t i = 0; i < c.n_metrics; i++) {
		assert_int_equal(c.metrics[i].verdict, STATS_SAME);
		assert_false(isinf(c.metrics[i].ci_low) || isinf(c.metrics[i].ci_high));
	}
	comparison_release(&c);
	metrics_set_release(&nw);
	metrics_set_release(&base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_resample_median),
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_geomean_verdict),
		cmocka_unit_test(test_metrics_extract),
		cmocka_unit_test(test_metrics_errors),
		cmocka_unit_test(test_runs_of_bench),
		cmocka_unit_test(test_comparison),
		cmocka_unit_test(test_comparison_reasons),
		cmocka_unit_test(test_comparison_reasons_thread_states),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_comparison_small_n),
		cmocka_unit_test(test_metric_units),
		cmocka_unit_test(test_comparison_small_n_lead),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
