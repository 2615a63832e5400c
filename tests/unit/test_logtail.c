/* Unit tests of src/monitor/logtail: leading timestamps of log lines, and
 * following a real file through appends, truncation, rotation and creation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/logtail.h"

static void expect_time(const char *line, double want_ms, const char *rest)
{
	double ms = 0;
	size_t n = logtail_leading_time(line, strlen(line), &ms);
	assert_true(n > 0);
	assert_true(fabs(ms - want_ms) < 0.5);
	assert_string_equal(line + n, rest);
}

static void test_leading_time(void **state)
{
	(void)state;
	/* 2026-11-30T08:12:31Z is 1796026351 s since the epoch */
	expect_time("2026-11-30T08:12:31.123Z CUZK_TIMING: a_ms=1", 1796026351123.0, "CUZK_TIMING: a_ms=1");
	expect_time("2026-11-30 08:12:31Z x", 1796026351000.0, "x");
	expect_time("2026-11-30T10:12:31.5+02:00 x", 1796026351500.0, "x");
	expect_time("[2026-11-30T08:12:31Z] x", 1796026351000.0, "x");
	expect_time("2026-11-30T08:12:31,250Z: x", 1796026351250.0, "x");
	expect_time("1796026351 x", 1796026351000.0, "x");
	expect_time("1796026351.25 x", 1796026351250.0, "x");
	expect_time("1796026351123 x", 1796026351123.0, "x");
	expect_time("  [1796026351123] x", 1796026351123.0, "x");
	double ms;
	/* not timestamps: a probe line, too few digits, glued text, a bad month, an open bracket */
	const char *no[] = { "CUZK_TIMING: a_ms=1", "12345 x", "1796026351x", "2026-13-30T08:12:31Z x",
			     "[1796026351 x", "2026-11-30T08:12 x", "", "2026-11-30T08:12:31Zx" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(logtail_leading_time(no[i], strlen(no[i]), &ms), 0);
}

struct got {
	char buf[4096];
	size_t n;
};

static void collect(void *arg, const char *buf, size_t n)
{
	struct got *g = arg;
	memcpy(g->buf + g->n, buf, n);
	g->n += n;
	g->buf[g->n] = 0;
}

static void append(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_follow(void **state)
{
	(void)state;
	char dir[] = "/tmp/perfhunt-logtail.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256], old[256];
	snprintf(path, sizeof(path), "%s/d.log", dir);
	snprintf(old, sizeof(old), "%s/d.log.1", dir);

	append(path, "before we started\n", "w");
	struct logtail t;
	logtail_init(&t, path);
	struct got g = { .n = 0 };
	assert_int_equal(logtail_poll(&t, collect, &g), 0); /* starts at the end */

	append(path, "one\n", "a");
	logtail_poll(&t, collect, &g);
	assert_string_equal(g.buf, "one\n");

	/* copytruncate: the file shrinks, reading starts over */
	append(path, "two\n", "w");
	g.n = 0;
	logtail_poll(&t, collect, &g);
	assert_string_equal(g.buf, "two\n");
	assert_int_equal(t.truncations, 1);

	/* rename and recreate: the rest of the old file, then the new one whole */
	append(path, "three\n", "a");
	assert_int_equal(rename(path, old), 0);
	append(old, "four\n", "a");
	append(path, "five\n", "w");
	g.n = 0;
	logtail_poll(&t, collect, &g);
	assert_string_equal(g.buf, "three\nfour\nfive\n");
	assert_int_equal(t.rotations, 1);
	logtail_release(&t);

	/* a log that does not exist yet is picked up when it appears, from its start */
	char later[256];
	snprintf(later, sizeof(later), "%s/later.log", dir);
	logtail_init(&t, later);
	g.n = 0;
	assert_int_equal(logtail_poll(&t, collect, &g), 0);
	append(later, "hello\n", "w");
	logtail_poll(&t, collect, &g);
	assert_string_equal(g.buf, "hello\n");
	logtail_release(&t);

	unlink(path);
	unlink(old);
	unlink(later);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leading_time),
		cmocka_unit_test(test_follow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
