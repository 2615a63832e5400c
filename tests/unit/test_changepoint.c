/* Unit tests of src/stats/changepoint: Q̂ against the paper's formula summed
 * pair by pair, positions of known steps, determinism, the defined answers
 * for short, constant and non-finite series, single outliers, and the merge
 * of shifts under the minimum magnitude. The reference values of an
 * independent implementation are checked end to end by tests/cli/t-detect.sh
 * (tests/reference/edivisive.py).
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

#include "stats/changepoint.h"
#include "stats/stats.h"

/* Normal noise from the project's PRNG (Box–Muller), so series are fixed. */
static double gauss(struct stats_rng *r)
{
	double u = ((double)(stats_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
	double v = ((double)(stats_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* x[i] = level(i) * (1 + noise * N(0,1)), level 100 before step_at, 100 * (1 + step) after. */
static void series(double *x, size_t n, size_t step_at, double step, double noise, uint64_t seed)
{
	struct stats_rng r;
	stats_rng_init(&r, seed);
	for (size_t i = 0; i < n; i++)
		x[i] = (i < step_at ? 100 : 100 * (1 + step)) * (1 + noise * gauss(&r));
}

/* Q̂ straight from Matteson & James (2014), eq. (3) and (4), alpha = 1. */
static double qhat_direct(const double *x, size_t n, size_t tau)
{
	double m = (double)tau, k = (double)(n - tau), cross = 0, wx = 0, wy = 0;
	for (size_t i = 0; i < tau; i++)
		for (size_t j = tau; j < n; j++)
			cross += fabs(x[i] - x[j]);
	for (size_t i = 0; i < tau; i++)
		for (size_t j = i + 1; j < tau; j++)
			wx += fabs(x[i] - x[j]);
	for (size_t i = tau; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			wy += fabs(x[i] - x[j]);
	double energy = 2 * cross / (m * k) - wx / (m * (m - 1) / 2) - wy / (k * (k - 1) / 2);
	return m * k / (m + k) * energy;
}

static void test_qhat_matches_the_formula(void **state)
{
	(void)state;
	double x[37], q[37];
	series(x, 37, 20, 0.05, 0.03, 7);
	for (size_t i = 0; i < 37; i += 5)
		x[i] = round(x[i]); /* ties */
	x[3] = x[4] = x[30];
	size_t best = changepoint_qhat(x, 37, 3, q);
	double top = -INFINITY;
	for (size_t tau = 0; tau < 37; tau++) {
		if (tau < 3 || tau > 34) {
			assert_true(isnan(q[tau]));
			continue;
		}
		double want = qhat_direct(x, 37, tau);
		if (fabs(q[tau] - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
			fail_msg("tau %zu: got %.17g, want %.17g", tau, q[tau], want);
		if (want > top)
			top = want;
	}
	assert_true(q[best] == top || fabs(q[best] - top) < 1e-9 * fabs(top));
	assert_int_equal(changepoint_qhat(x, 5, 3, q), 0);
}

static void test_one_step(void **state)
{
	(void)state;
	double x[100];
	series(x, 100, 60, 0.20, 0.02, 1);
	struct changepoint_opts o;
	changepoint_opts_init(&o);
	struct changepoint_result r;
	assert_int_equal(changepoint_detect(x, 100, &o, &r, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].index, 60);
	assert_int_equal(r.items[0].before_start, 0);
	assert_int_equal(r.items[0].after_end, 100);
	assert_true(r.items[0].p_value == 1.0 / (CHANGEPOINT_PERMUTATIONS + 1));
	assert_true(r.items[0].rel_change > 0.17 && r.items[0].rel_change < 0.23);
	assert_true(r.items[0].before_median > 98 && r.items[0].before_median < 102);
	assert_true(r.items[0].after_mad > 0);
	assert_int_equal(r.tests, 2);
	changepoint_result_release(&r);

	/* a decrease is found the same way, with a negative change */
	series(x, 100, 40, -0.10, 0.01, 2);
	assert_int_equal(changepoint_detect(x, 100, &o, &r, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].index, 40);
	assert_true(r.items[0].rel_change < -0.08);
	changepoint_result_release(&r);
}

static void test_two_steps_and_determinism(void **state)
{
	(void)state;
	double x[150], copy[150];
	series(x, 150, 50, 0.10, 0.02, 3);
	for (size_t i = 100; i < 150; i++)
		x[i] *= 0.8;
	memcpy(copy, x, sizeof(x));
	struct changepoint_opts o;
	changepoint_opts_init(&o);
	struct changepoint_result a, b;
	assert_int_equal(changepoint_detect(x, 150, &o, &a, NULL), 0);
	assert_memory_equal(x, copy, sizeof(x)); /* input untouched */
	assert_int_equal(a.n, 2);
	assert_int_equal(a.items[0].index, 50);
	assert_int_equal(a.items[1].index, 100);
	assert_int_equal(a.items[0].after_end, 100);
	assert_int_equal(a.items[1].before_start, 50);
	assert_true(a.items[0].rel_change > 0 && a.items[1].rel_change < 0);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(changepoint_detect(x, 150, &o, &b, NULL), 0);
		assert_int_equal(b.n, a.n);
		for (size_t i = 0; i < a.n; i++) {
			assert_int_equal(b.items[i].index, a.items[i].index);
			assert_true(b.items[i].p_value == a.items[i].p_value);
			assert_true(b.items[i].q == a.items[i].q);
		}
		changepoint_result_release(&b);
	}
	changepoint_result_release(&a);
}

static void test_no_change(void **state)
{
	(void)state;
	double x[200];
	struct changepoint_opts o;
	changepoint_opts_init(&o);
	struct changepoint_result r;
	/* noise only: several seeds, none reports a change */
	for (uint64_t seed = 10; seed < 15; seed++) {
		series(x, 200, 200, 0, 0.05, seed);
		assert_int_equal(changepoint_detect(x, 200, &o, &r, NULL), 0);
		assert_int_equal(r.n, 0);
		assert_int_equal(r.tests, 1);
		changepoint_result_release(&r);
	}
	/* constant: every Q̂ is 0, nothing is even tested */
	for (size_t i = 0; i < 200; i++)
		x[i] = 42;
	assert_int_equal(changepoint_detect(x, 200, &o, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.tests, 0);
	changepoint_result_release(&r);
	/* too short for two segments: one point, nine points */
	assert_int_equal(changepoint_detect(x, 1, &o, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	changepoint_result_release(&r);
	assert_int_equal(changepoint_detect(x, 9, &o, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	changepoint_result_release(&r);
	assert_int_equal(changepoint_detect(NULL, 0, &o, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	changepoint_result_release(&r);
}

static void test_outliers_are_not_change_points(void **state)
{
	(void)state;
	double x[120];
	struct changepoint_opts o;
	changepoint_opts_init(&o);
	struct changepoint_result r;
	/* one spike of 10x anywhere, the last point included */
	size_t at[] = { 3, 60, 117, 119 };
	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		series(x, 120, 120, 0, 0.02, 20 + k);
		x[at[k]] *= 10;
		assert_int_equal(changepoint_detect(x, 120, &o, &r, NULL), 0);
		if (r.n)
			fail_msg("spike at %zu: change point at %zu", at[k], r.items[0].index);
		changepoint_result_release(&r);
	}
}

static void test_small_shift_merged(void **state)
{
	(void)state;
	double x[100];
	series(x, 100, 50, 0.005, 0.0005, 4); /* +0.5 %, clearly significant */
	struct changepoint_opts o;
	changepoint_opts_init(&o);
	o.min_magnitude = 0;
	struct changepoint_result r;
	assert_int_equal(changepoint_detect(x, 100, &o, &r, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].index, 50);
	assert_int_equal(r.merged, 0);
	changepoint_result_release(&r);
	o.min_magnitude = 0.01;
	assert_int_equal(changepoint_detect(x, 100, &o, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.merged, 1);
	changepoint_result_release(&r);
}

static void test_zero_before(void **state)
{
	(void)state;
	double x[40] = { 0 };
	for (size_t i = 20; i < 40; i++)
		x[i] = 3 + (double)(i % 2);
	struct changepoint_opts o;
	changepoint_opts_init(&o);
	struct changepoint_result r;
	assert_int_equal(changepoint_detect(x, 40, &o, &r, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.items[0].index, 20);
	assert_true(isinf(r.items[0].rel_change) && r.items[0].rel_change > 0);
	changepoint_result_release(&r);
}

static void test_bad_input(void **state)
{
	(void)state;
	double x[20];
	series(x, 20, 10, 0.5, 0.01, 5);
	struct changepoint_opts o;
	changepoint_opts_init(&o);
	struct changepoint_result r;
	struct err e;
	x[7] = NAN;
	assert_int_equal(changepoint_detect(x, 20, &o, &r, &e), -1);
	assert_string_equal(e.msg, "point 8 of the series is not a finite number");
	x[7] = INFINITY;
	assert_int_equal(changepoint_detect(x, 20, &o, &r, &e), -1);
	x[7] = 1;
	o.alpha = 1;
	assert_int_equal(changepoint_detect(x, 20, &o, &r, &e), -1);
	changepoint_opts_init(&o);
	o.min_segment = 1;
	assert_int_equal(changepoint_detect(x, 20, &o, &r, &e), -1);
	changepoint_opts_init(&o);
	o.permutations = 0;
	assert_int_equal(changepoint_detect(x, 20, &o, &r, &e), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qhat_matches_the_formula),
		cmocka_unit_test(test_one_step),
		cmocka_unit_test(test_two_steps_and_determinism),
		cmocka_unit_test(test_no_change),
		cmocka_unit_test(test_outliers_are_not_change_points),
		cmocka_unit_test(test_small_shift_merged),
		cmocka_unit_test(test_zero_before),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
