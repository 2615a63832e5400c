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
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "monitor/logtail.h"

/* 2026-12-01T10:00:00Z, the "now" of the year-less stamps */
#define NOW_MS 1796119200000.0

static void expect_time_res(const char *line, double want_ms, double want_res_ms, const char *rest)
{
	double ms = 0, res = -1;
	size_t n = logtail_leading_time(line, strlen(line), NOW_MS, &ms, &res);
	if (!n || fabs(ms - want_ms) >= 0.0005 || strcmp(line + n, rest))
		fail_msg("'%s': %zu bytes, %.3f ms (want %.3f), rest '%s'", line, n, ms, want_ms, line + n);
	if (want_res_ms >= 0 && fabs(res - want_res_ms) > want_res_ms * 1e-6)
		fail_msg("'%s': resolution %g ms, want %g", line, res, want_res_ms);
}

static void expect_time(const char *line, double want_ms, const char *rest)
{
	expect_time_res(line, want_ms, -1, rest);
}

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void test_leading_time(void **state)
{
	(void)state;
	set_tz("UTC0");
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
	/* pino's and zap's finer epochs: microseconds and nanoseconds */
	expect_time_res("1796026351123456 x", 1796026351123.456, 0.001, "x");
	expect_time_res("1796026351123456789", 1796026351123.456789, 1e-6, "");
	expect_time_res("1796026351.123456", 1796026351123.456, 0.001, "");
	double ms;
	/* not timestamps: a probe line, too few digits, glued text, a bad month, an open bracket */
	const char *no[] = { "CUZK_TIMING: a_ms=1", "12345 x", "1796026351x", "2026-13-30T08:12:31Z x",
			     "[1796026351 x", "2026-11-30T08:12 x", "", "2026-11-30T08:12:31Zx",
			     "I1301 10:00:00.1 x", "X1201 10:00:00.1 x", "Foo  1 10:00:00 x",
			     "Dec 32 10:00:00 x", "2026-11-30T08:12:31+2a x", "[2026-11-30T08:12:31Z" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (logtail_leading_time(no[i], strlen(no[i]), NOW_MS, &ms, NULL))
			fail_msg("'%s' read as a timestamp", no[i]);
}

/* The loggers of issue 14, each with its zone rule and resolution. */
static void test_logger_formats(void **state)
{
	(void)state;
	set_tz("UTC0");
	/* Rust tracing (fmt layer): UTC with Z, microseconds */
	expect_time_res("2026-12-01T10:00:00.123456Z  INFO cuzk_core::prover: CUZK_TIMING: pin_abc_ms=5733",
			1796119200123.456, 0.001, "INFO cuzk_core::prover: CUZK_TIMING: pin_abc_ms=5733");
	/* env_logger: "[TIME LEVEL module]", whole seconds */
	expect_time_res("[2026-12-01T10:00:00Z INFO  cuzk] CUZK_TIMING: a_ms=1", 1796119200000.0, 1000,
			"INFO  cuzk] CUZK_TIMING: a_ms=1");
	/* journalctl -o short-iso-precise: offsets with or without the colon */
	expect_time_res("2026-12-01T11:00:00.123456+0100 host cuzk[77]: CUZK_TIMING: a_ms=1",
			1796119200123.456, 0.001, "host cuzk[77]: CUZK_TIMING: a_ms=1");
	expect_time("2026-12-01T05:00:00-05:00 host x", 1796119200000.0, "host x");
	expect_time("2026-12-01T12:00:00+02 x", 1796119200000.0, "x");
	/* syslog / journalctl -o short and short-precise: local time, this year */
	expect_time_res("Dec  1 10:00:00 host cuzk[77]: CUZK_TIMING: a_ms=1", 1796119200000.0, 1000,
			"host cuzk[77]: CUZK_TIMING: a_ms=1");
	expect_time_res("Dec 01 10:00:00.500000 host x", 1796119200500.0, 0.001, "host x");

	/* zone-less stamps are local time: Python's logging and glog write them so */
	set_tz("CET-1");
	expect_time_res("2026-12-01 11:00:00,123 - prover - INFO - CUZK_TIMING: a_ms=1", 1796119200123.0, 1,
			"- prover - INFO - CUZK_TIMING: a_ms=1");
	expect_time_res("I1201 11:00:00.123456  1234 prover.cc:42] CUZK_TIMING: a_ms=1", 1796119200123.456,
			0.001, "1234 prover.cc:42] CUZK_TIMING: a_ms=1");
	expect_time("W1201 11:00:00.000000 1 x.cc:1] x", 1796119200000.0, "1 x.cc:1] x");
	/* an explicit zone is not moved by TZ */
	expect_time("2026-12-01T10:00:00Z x", 1796119200000.0, "x");
	/* December's glog line read on 2 January 2027 is from 2026 */
	double ms = 0;
	const char *dec = "I1231 23:00:00.000000 1 x.cc:1] x";
	assert_true(logtail_leading_time(dec, strlen(dec), 1798848000000.0, &ms, NULL) > 0);
	assert_true(fabs(ms - 1798754400000.0) < 0.5);
	set_tz("UTC0");
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

/* Counts the bytes passed, and the skips signalled with (NULL, 0). */
struct count {
	size_t bytes, gaps;
};

static void count_chunk(void *arg, const char *buf, size_t n)
{
	struct count *c = arg;
	if (!buf)
		c->gaps++;
	c->bytes += n;
}

/* A FIFO opens at once without a writer, reads empty, then what a writer sends;
 * an endless device gives one budget per poll. */
static void test_fifo_and_device(void **state)
{
	(void)state;
	char dir[] = "/tmp/logtail-fifo.XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ff", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	struct logtail t;
	logtail_init(&t, path); /* would block here if opened without O_NONBLOCK */
	assert_true(t.fd >= 0);
	assert_true(t.mode == S_IFIFO);
	struct count c = { 0, 0 };
	assert_int_equal(logtail_poll(&t, count_chunk, &c), 0);
	int w = open(path, O_WRONLY | O_NONBLOCK);
	assert_true(w >= 0);
	assert_int_equal(write(w, "PERFHUNT: a=1\n", 14), 14);
	assert_int_equal(logtail_poll(&t, count_chunk, &c), 14);
	close(w);
	assert_int_equal(logtail_poll(&t, count_chunk, &c), 0); /* writer gone: empty, not an error */
	logtail_release(&t);
	unlink(path);
	rmdir(dir);

	logtail_init(&t, "/dev/zero");
	assert_true(t.mode == S_IFCHR);
	c.bytes = 0;
	assert_int_equal(logtail_poll(&t, count_chunk, &c), LOGTAIL_BUDGET_BYTES);
	assert_int_equal(logtail_poll(&t, count_chunk, &c), LOGTAIL_BUDGET_BYTES);
	assert_int_equal(t.budget_hits, 2);
	char line[200];
	assert_true(logtail_report(&t, line, sizeof(line)));
	assert_non_null(strstr(line, "character device that never ran dry"));
	logtail_release(&t);

	logtail_init(&t, "/tmp");
	assert_true(t.fd < 0 && t.unusable);
	logtail_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leading_time),
		cmocka_unit_test(test_logger_formats),
		cmocka_unit_test(test_fifo_and_device),
		cmocka_unit_test(test_follow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
