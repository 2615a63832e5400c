/* Unit tests of the decision rule of perfhunt bisect (stats/bisectrule.c):
 * no verdict from too few runs, different only past both the low p and the
 * smallest effect, same by a high p that falls with n or by a CI within the
 * effect, not yet in between, and a pair's verdict from its metrics'.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "stats/bisectrule.h"

static struct bisectrule rule(void)
{
	struct bisectrule r;
	bisectrule_init(&r);
	return r;
}

static void test_too_few_runs(void **state)
{
	(void)state;
	struct bisectrule r = rule();
	const double a[] = { 10, 11, 12, 13 }, b[] = { 40, 41, 42, 43 };
	struct bisectrule_result res;
	/* four times slower, but four runs a side: never a verdict */
	assert_int_equal(bisectrule_decide(&r, a, 4, b, 4, &res), BISECTRULE_NOT_YET);
	assert_int_equal(res.n, 4);
	assert_true(res.p < 0.05);
	assert_int_equal(bisectrule_decide(&r, a, 0, b, 4, &res), BISECTRULE_NOT_YET);
	assert_true(isnan(res.p));
}

static void test_different(void **state)
{
	(void)state;
	struct bisectrule r = rule();
	const double a[] = { 30, 31, 29, 30.5, 29.5 }, b[] = { 60, 61, 59, 62, 58 };
	struct bisectrule_result res;
	assert_int_equal(bisectrule_decide(&r, a, 5, b, 5, &res), BISECTRULE_DIFFERENT);
	assert_true(res.p < 0.01);
	assert_float_equal(res.base_median, 30, 1e-9);
	assert_float_equal(res.new_median, 60, 1e-9);
	assert_true(res.ci_low > 1.8 && res.ci_high < 2.2);
	/* faster counts too: the hunt finds improvements */
	assert_int_equal(bisectrule_decide(&r, b, 5, a, 5, NULL), BISECTRULE_DIFFERENT);
	/* a phase that appears (0 ms before) */
	const double zero[] = { 0, 0, 0, 0, 0 };
	assert_int_equal(bisectrule_decide(&r, zero, 5, a, 5, NULL), BISECTRULE_DIFFERENT);
}

static void test_established_but_small(void **state)
{
	(void)state;
	struct bisectrule r = rule();
	/* separated (p < 0.01), but 3 % apart against a 10 % effect, the CI
	 * within it: same */
	const double a[] = { 100, 100.2, 100.4, 100.6, 100.8 }, b[] = { 103, 103.2, 103.4, 103.6, 103.8 };
	struct bisectrule_result res;
	assert_int_equal(bisectrule_decide(&r, a, 5, b, 5, &res), BISECTRULE_SAME);
	assert_true(res.p < 0.01);
	/* separated, medians 8 % apart, but the CI reaches past 10 %: not yet */
	const double g[] = { 96, 100, 102, 104, 106 }, h[] = { 107, 108, 110, 112, 118 };
	assert_int_equal(bisectrule_decide(&r, g, 5, h, 5, &res), BISECTRULE_NOT_YET);
	assert_true(res.p < 0.01 && res.ci_high > 1.1);
	/* and 20 % apart but under the absolute floor */
	const double c[] = { 1, 1.01, 1.02, 1.03, 1.04 }, d[] = { 1.2, 1.21, 1.22, 1.23, 1.24 };
	r.floor = 1;
	assert_int_equal(bisectrule_decide(&r, c, 5, d, 5, NULL), BISECTRULE_SAME);
	r.floor = 0;
	assert_int_equal(bisectrule_decide(&r, c, 5, d, 5, NULL), BISECTRULE_DIFFERENT);
}

static void test_same_and_not_yet(void **state)
{
	(void)state;
	struct bisectrule r = rule();
	/* interleaved values: p near 1, above the bar for 5 runs */
	const double a[] = { 10, 30, 50, 70, 90 }, b[] = { 20, 40, 60, 80, 85 };
	struct bisectrule_result res;
	assert_int_equal(bisectrule_decide(&r, a, 5, b, 5, &res), BISECTRULE_SAME);
	assert_true(res.p >= bisectrule_same_p(5));
	/* shifted by 12 % with wide spread: neither yet */
	const double c[] = { 100, 110, 120, 130, 140 }, d[] = { 115, 125, 135, 145, 155 };
	assert_int_equal(bisectrule_decide(&r, c, 5, d, 5, &res), BISECTRULE_NOT_YET);
	assert_true(res.p > 0.01 && res.p < bisectrule_same_p(5));
	/* tight and close: the CI of the ratio lies within ± 10 % */
	const double e[] = { 100, 101, 102, 103, 104, 105 }, f[] = { 101, 102, 103, 104, 105, 106 };
	assert_int_equal(bisectrule_decide(&r, e, 6, f, 6, &res), BISECTRULE_SAME);
	assert_true(res.ci_low >= 0.9 && res.ci_high <= 1.1);
}

static void test_same_p_falls(void **state)
{
	(void)state;
	assert_true(bisectrule_same_p(4) > 1);
	assert_float_equal(bisectrule_same_p(5), 0.6, 1e-12);
	assert_float_equal(bisectrule_same_p(10), 0.3, 1e-12);
	assert_true(bisectrule_same_p(30) < bisectrule_same_p(20));
	assert_float_equal(bisectrule_same_p(1000), 0.05, 1e-12);
}

static void test_combine(void **state)
{
	(void)state;
	enum bisectrule_verdict v[] = { BISECTRULE_SAME, BISECTRULE_NOT_YET, BISECTRULE_DIFFERENT };
	assert_int_equal(bisectrule_combine(v, 3), BISECTRULE_DIFFERENT);
	assert_int_equal(bisectrule_combine(v, 2), BISECTRULE_NOT_YET);
	assert_int_equal(bisectrule_combine(v, 1), BISECTRULE_SAME);
	assert_int_equal(bisectrule_combine(v, 0), BISECTRULE_NOT_YET);
	assert_string_equal(bisectrule_name(BISECTRULE_NOT_YET), "not yet");
	assert_string_equal(bisectrule_name(BISECTRULE_DIFFERENT), "different");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_too_few_runs),
		cmocka_unit_test(test_different),
		cmocka_unit_test(test_established_but_small),
		cmocka_unit_test(test_same_and_not_yet),
		cmocka_unit_test(test_same_p_falls),
		cmocka_unit_test(test_combine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
