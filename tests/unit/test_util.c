/* Unit tests of src/util: strict parsing, durations, human units, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "util/err.h"
#include "util/parse.h"
#include "util/units.h"

static void test_parse_i64(void **state)
{
	(void)state;
	struct err e = { 0 };
	int64_t v;
	assert_int_equal(parse_i64("100", 1, 1000, &v, "--interval", &e), 0);
	assert_int_equal(v, 100);
	assert_int_equal(parse_i64("0", 1, 1000, &v, "--interval", &e), -1);
	assert_string_equal(e.msg, "--interval: 0 is out of range [1, 1000]");
	assert_int_equal(parse_i64("12abc", 1, 1000, &v, "--interval", &e), -1);
	assert_string_equal(e.msg, "--interval: expected an integer, got '12abc'");
	assert_int_equal(parse_i64("", 1, 1000, &v, "-n", &e), -1);
	assert_int_equal(parse_i64(" 5", 1, 1000, &v, "-n", &e), -1);
	assert_int_equal(parse_i64("99999999999999999999", 1, INT64_MAX, &v, "-n", &e), -1);
	assert_int_equal(parse_i64("-5", -10, 10, &v, "x", &e), 0);
	assert_int_equal(v, -5);
}

static void test_parse_double(void **state)
{
	(void)state;
	double d;
	struct err e = { 0 };
	assert_int_equal(parse_double("2.5", 0, 100, &d, "--threshold", &e), 0);
	assert_true(d == 2.5);
	assert_int_equal(parse_double("nan", 0, 100, &d, "--threshold", &e), -1);
	assert_int_equal(parse_double("inf", 0, 1e300, &d, "--threshold", &e), -1);
	assert_int_equal(parse_double("-1", 0, 100, &d, "--threshold", &e), -1);
}

static void test_parse_duration(void **state)
{
	(void)state;
	double ms;
	struct err e = { 0 };
	assert_int_equal(parse_duration_ms("250ms", 1000, &ms, "--duration", &e), 0);
	assert_true(ms == 250);
	assert_int_equal(parse_duration_ms("1.5", 1000, &ms, "--duration", &e), 0);
	assert_true(ms == 1500);
	assert_int_equal(parse_duration_ms("2m", 1000, &ms, "--duration", &e), 0);
	assert_true(ms == 120000);
	assert_int_equal(parse_duration_ms("1h", 1000, &ms, "--duration", &e), 0);
	assert_true(ms == 3600000);
	assert_int_equal(parse_duration_ms("3 parsecs", 1000, &ms, "--duration", &e), -1);
	assert_int_equal(parse_duration_ms("-1s", 1000, &ms, "--duration", &e), -1);
	assert_int_equal(parse_duration_ms("", 1000, &ms, "--duration", &e), -1);
}

static void test_parse_u64_at(void **state)
{
	(void)state;
	const char *s = "12345 rest";
	const char *p = s;
	uint64_t v;
	assert_true(parse_u64_at(&p, s + strlen(s), &v));
	assert_int_equal(v, 12345);
	assert_ptr_equal(p, s + 5);
	assert_false(parse_u64_at(&p, s + strlen(s), &v));
	const char *big = "999999999999999999999999";
	p = big;
	assert_true(parse_u64_at(&p, big + strlen(big), &v));
	assert_true(v == UINT64_MAX);
}

static void test_units(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(units_kb(512, b, sizeof b), "512 KiB");
	assert_string_equal(units_kb(1536, b, sizeof b), "1.50 MiB");
	assert_string_equal(units_kb(212987468, b, sizeof b), "203.12 GiB");
	assert_string_equal(units_ms(0.5, b, sizeof b), "500 µs");
	assert_string_equal(units_ms(12.34, b, sizeof b), "12.3 ms");
	assert_string_equal(units_ms(5733, b, sizeof b), "5.733 s");
	assert_string_equal(units_ms(94400, b, sizeof b), "1 min 34 s");
	assert_string_equal(units_ms(3720000, b, sizeof b), "1 h 02 min");
	assert_string_equal(units_ms(1e300, b, sizeof b), "2.78e+293 h"); /* no int overflow */
}

static void test_err(void **state)
{
	(void)state;
	struct err e = { 0 };
	errno = ENOENT;
	assert_int_equal(err_sys(&e, "cannot open '%s'", "x.csv"), -1);
	assert_string_equal(e.msg, "cannot open 'x.csv': No such file or directory");
	assert_int_equal(err_wrap(&e, "reading history"), -1);
	assert_string_equal(e.msg, "reading history: cannot open 'x.csv': No such file or directory");
	assert_int_equal(err_set(NULL, "ignored %d", 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_i64),
		cmocka_unit_test(test_parse_double),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_u64_at),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_err),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
