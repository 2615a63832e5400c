/* Unit tests of src/probe/probe.c (probe-line parsing) and of the
 * header-only include/perfhunt/probe.h, whose lines must parse back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <cmocka.h>

#include "probe/probe.h"
/* the acknowledgement's bound, short for the test of a perfhunt that does not answer */
#define PH_ACK_TIMEOUT_MS 100
#include "perfhunt/probe.h"

/* The six lines of the proving engine's seed-timing.log. */
static const char *const seed[] = {
	"CUZK_TIMING: pin_abc_ms=5733 num_circuits=10 abc_bytes_each=4168923808",
	"CUZK_TIMING: prep_msm_ms=1722",
	"CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=21417",
	"CUZK_TIMING: gpu_tid=0 batch_add_ms=1446",
	"CUZK_TIMING: gpu_tid=0 tail_msm_ms=1259 gpu_total_ms=24123",
	"CUZK_TIMING: b_g2_msm_ms=22849 num_circuits=10",
};

static struct probe_config cfg;

static int setup(void **state)
{
	(void)state;
	probe_config_init(&cfg);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	probe_config_release(&cfg);
	return 0;
}

static int parse(const char *line, struct probe *p)
{
	return probe_parse_line(&cfg, line, strlen(line), p);
}

static void test_seed_lines(void **state)
{
	(void)state;
	struct probe p;
	assert_int_equal(parse(seed[0], &p), 1);
	assert_string_equal(p.prefix, "CUZK_TIMING");
	assert_int_equal(p.n_fields, 3);
	assert_int_equal(p.ignored, 0);
	assert_int_equal(p.lane, -1);
	assert_string_equal(p.fields[0].key, "pin_abc_ms");
	assert_int_equal(p.fields[0].kind, PROBE_DURATION);
	assert_true(p.fields[0].scaled == 5733);
	assert_int_equal(p.fields[0].unit_len, 3);
	assert_string_equal(p.fields[1].key, "num_circuits");
	assert_int_equal(p.fields[1].kind, PROBE_VALUE);
	assert_true(p.fields[1].numeric);
	assert_true(p.fields[1].value == 10);
	/* abc_bytes_each ends in _each: a value, not a size */
	assert_int_equal(p.fields[2].kind, PROBE_VALUE);
	assert_true(p.fields[2].value == 4168923808.0);
	assert_string_equal(p.fields[2].text, "4168923808");
	probe_release(&p);

	assert_int_equal(parse(seed[2], &p), 1);
	assert_int_equal(p.lane, 0);
	assert_string_equal(p.fields[0].key, "gpu_tid");
	assert_string_equal(p.fields[0].text, "0");
	assert_int_equal(p.fields[0].kind, PROBE_VALUE);
	assert_int_equal(p.fields[1].kind, PROBE_DURATION);
	assert_true(p.fields[1].scaled == 21417);
	probe_release(&p);

	assert_int_equal(parse(seed[4], &p), 1);
	assert_int_equal(p.n_fields, 3);
	assert_int_equal(p.fields[1].kind, PROBE_DURATION);
	assert_int_equal(p.fields[2].kind, PROBE_DURATION);
	assert_true(p.fields[2].scaled == 24123);
	probe_release(&p);

	for (size_t i = 0; i < sizeof(seed) / sizeof(*seed); i++) {
		assert_int_equal(parse(seed[i], &p), 1);
		assert_int_equal(p.ignored, 0);
		probe_release(&p);
	}
}

static void test_units(void **state)
{
	(void)state;
	struct probe p;
	assert_int_equal(parse("PERFHUNT: a_ns=2500000 b_us=1500 c_s=1.5 d_kb=2 e_mib=1 f_gib=0.5 g_bytes=7", &p), 1);
	assert_int_equal(p.n_fields, 7);
	const double want[] = { 2.5, 1.5, 1500, 2048, 1048576, 536870912, 7 };
	const enum probe_kind kinds[] = { PROBE_DURATION, PROBE_DURATION, PROBE_DURATION,
		PROBE_SIZE, PROBE_SIZE, PROBE_SIZE, PROBE_SIZE };
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(p.fields[i].kind, kinds[i]);
		assert_true(fabs(p.fields[i].scaled - want[i]) <= 1e-9 * want[i]);
	}
	probe_release(&p);

	/* a suffix alone is no unit; capitals are not units; "ms" has no '_' */
	size_t unit;
	double scale;
	assert_int_equal(probe_key_kind("_ms", 3, &unit, &scale), PROBE_VALUE);
	assert_int_equal(probe_key_kind("x_MS", 4, &unit, &scale), PROBE_VALUE);
	assert_int_equal(probe_key_kind("ms", 2, &unit, &scale), PROBE_VALUE);
	assert_int_equal(probe_key_kind("x_s", 3, &unit, &scale), PROBE_DURATION);
	assert_int_equal(unit, 2);
	assert_true(scale == 1000);
	assert_int_equal(probe_key_kind("rss_kb", 6, &unit, &scale), PROBE_SIZE);
	assert_true(scale == 1024);
}

static void test_values(void **state)
{
	(void)state;
	struct probe p;
	assert_int_equal(parse("PERFHUNT: a=1e3 b=-2.5 c=0x10 d=nan e=1e999 f=.5 g=5. h=word i=1e", &p), 1);
	assert_int_equal(p.n_fields, 9);
	assert_true(p.fields[0].numeric && p.fields[0].value == 1000);
	assert_true(p.fields[1].numeric && p.fields[1].value == -2.5);
	assert_false(p.fields[2].numeric);
	assert_string_equal(p.fields[2].text, "0x10");
	assert_false(p.fields[3].numeric);
	assert_false(p.fields[4].numeric);
	assert_true(p.fields[5].numeric && p.fields[5].value == 0.5);
	assert_true(p.fields[6].numeric && p.fields[6].value == 5);
	assert_false(p.fields[7].numeric);
	assert_string_equal(p.fields[7].text, "word");
	assert_false(p.fields[8].numeric);
	assert_int_equal(probe_find(&p, "h"), 7);
	assert_int_equal(probe_find(&p, "zz"), -1);
	probe_release(&p);
}

static void test_not_probes(void **state)
{
	(void)state;
	struct probe p;
	const char *no[] = {
		"", "hello world", "PERFHUNT", "PERFHUNT a=1", "perfhunt: a=1",
		"PERFHUNTX: a=1", "XPERFHUNT: a=1", "my_PERFHUNT: a=1", "x.CUZK_TIMING: a=1",
		"PERFHUNT_TIMING: a=1",
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++) {
		if (parse(no[i], &p) != 0)
			fail_msg("'%s' is not a probe line", no[i]);
		assert_null(p.fields);
		assert_null(p.buf);
		probe_release(&p); /* harmless on an empty probe */
	}
	/* the prefix is there, but no pair is usable: counted by the caller */
	const char *unparsed[] = {
		"PERFHUNT:", "PERFHUNT: just words", "PERFHUNT: =1 a= ==", "PERFHUNT: pin_ms=abc",
		"PERFHUNT: pin_ms=-5", "CUZK_TIMING:", "PERFHUNT: age_s=1e10", "PERFHUNT: x_ns=1e400",
		"2026-12-01T10:00:00Z INFO cuzk: CUZK_TIMING: pin took 5733 ms",
	};
	for (size_t i = 0; i < sizeof(unparsed) / sizeof(*unparsed); i++) {
		if (parse(unparsed[i], &p) != PROBE_UNPARSED)
			fail_msg("'%s' should be PROBE_UNPARSED", unparsed[i]);
		assert_null(p.fields);
		assert_null(p.buf);
	}
	assert_int_equal(probe_parse_line(&cfg, NULL, 0, &p), 0);
	assert_int_equal(probe_parse_fd_line(&cfg, "  ", 2, &p), 0);
	assert_int_equal(probe_parse_fd_line(&cfg, "hello", 5, &p), PROBE_UNPARSED);
}

/* Probe lines as real loggers write them: the prefix after a timestamp,
 * level and module path, with or without colour. */
static void test_logger_lines(void **state)
{
	(void)state;
	static const char *const lines[] = {
		/* Rust tracing, plain and as it colours a terminal */
		"2026-12-01T10:00:00.123456Z  INFO cuzk_core::prover: CUZK_TIMING: pin_abc_ms=5733",
		("\x1b[2m2026-12-01T10:00:00.123456Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mcuzk_core::prover\x1b[0m"
		 "\x1b[2m:\x1b[0m CUZK_TIMING: pin_abc_ms=5733"),
		/* colour inside the prefix and the pair, an OSC title, a charset switch */
		"\x1b[1;33mCUZK_TIMING\x1b[0m: \x1b[36mpin_abc_ms\x1b[0m=5733\x1b]0;title\x07\x1b(B",
		/* env_logger, a bare level, Python logging, glog, journalctl */
		"[2026-12-01T10:00:00Z INFO  cuzk] CUZK_TIMING: pin_abc_ms=5733",
		"INFO CUZK_TIMING: pin_abc_ms=5733",
		"2026-12-01 10:00:00,123 - prover - INFO - CUZK_TIMING: pin_abc_ms=5733",
		"I1201 10:00:00.123456  1234 prover.cc:42] CUZK_TIMING: pin_abc_ms=5733",
		"2026-12-01T10:00:00.123456+0100 host cuzk-daemon[4242]: CUZK_TIMING: pin_abc_ms=5733",
		"Dec 01 10:00:00 host cuzk-daemon[4242]: CUZK_TIMING: pin_abc_ms=5733\r",
		"[log] CUZK_TIMING:pin_abc_ms=5733",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++) {
		struct probe p;
		if (parse(lines[i], &p) != 1)
			fail_msg("line %zu not parsed: '%s'", i, lines[i]);
		assert_string_equal(p.prefix, "CUZK_TIMING");
		assert_int_equal(p.n_fields, 1);
		assert_int_equal(p.ignored, 0);
		assert_string_equal(p.fields[0].key, "pin_abc_ms");
		assert_true(p.fields[0].scaled == 5733);
		probe_release(&p);
	}
	/* the first anchor wins; the text before it is not parsed */
	struct probe p;
	assert_int_equal(parse("warn x=1: PERFHUNT: a=1 b=PERFHUNT:2", &p), 1);
	assert_int_equal(p.n_fields, 2);
	assert_string_equal(p.fields[0].key, "a");
	assert_string_equal(p.fields[1].text, "PERFHUNT:2");
	probe_release(&p);
	/* a $PERFHUNT_FD line keeps its prefix at the start */
	assert_int_equal(probe_parse_fd_line(&cfg, "\x1b[0mPERFHUNT: begin=x", 21, &p), 1);
	assert_string_equal(p.fields[0].text, "x");
	probe_release(&p);

	char out[64];
	const char esc[] = "a\x1b[31mb\x1b]8;;http://x\x1b\\c\x1b" "7d\x1b[";
	size_t n = probe_strip_ansi(esc, sizeof(esc) - 1, out);
	assert_int_equal(n, 4);
	assert_memory_equal(out, "abcd", 4);
}

static void test_tolerance(void **state)
{
	(void)state;
	struct probe p;
	/* leading blanks, tabs between tokens, trailing CR */
	assert_int_equal(parse(" \tPERFHUNT: \ta=1\t b_ms=2 \r", &p), 1);
	assert_int_equal(p.n_fields, 2);
	assert_string_equal(p.fields[1].text, "2");
	probe_release(&p);
	/* no blank after the colon */
	assert_int_equal(parse("PERFHUNT:begin=load", &p), 1);
	assert_string_equal(p.fields[0].text, "load");
	probe_release(&p);
	/* unusable tokens are ignored and counted */
	assert_int_equal(parse("PERFHUNT: a=1 junk =x y= dur_ms=abc neg_ms=-5 b\x01=1 k=v\xff c=3", &p), 1);
	assert_int_equal(p.n_fields, 2);
	assert_string_equal(p.fields[1].key, "c");
	assert_int_equal(p.ignored, 7);
	probe_release(&p);
	/* a value may hold '=' */
	assert_int_equal(parse("PERFHUNT: url=a=b", &p), 1);
	assert_string_equal(p.fields[0].text, "a=b");
	probe_release(&p);
	/* an embedded NUL spoils only its token */
	static const char nul[] = "PERFHUNT: a=1\0b=2 c=3";
	assert_int_equal(probe_parse_line(&cfg, nul, sizeof(nul) - 1, &p), 1);
	assert_int_equal(p.n_fields, 1);
	assert_string_equal(p.fields[0].key, "c");
	assert_int_equal(p.ignored, 1);
	probe_release(&p);
	/* n bounds the line: bytes after it are not read */
	assert_int_equal(probe_parse_line(&cfg, "PERFHUNT: a=1 b=2", 13, &p), 1);
	assert_int_equal(p.n_fields, 1);
	probe_release(&p);
}

static void test_config(void **state)
{
	(void)state;
	struct probe_config c;
	struct err e = { 0 };
	struct probe p;
	probe_config_init(&c);
	assert_int_equal(c.n_prefixes, 2);
	assert_int_equal(c.n_lane_keys, 3);
	assert_int_equal(probe_config_add_prefix(&c, "MYAPP", &e), 0);
	assert_int_equal(probe_config_add_prefix(&c, "MYAPP", &e), 0);
	assert_int_equal(c.n_prefixes, 3);
	assert_int_equal(probe_config_add_prefix(&c, "MY APP", &e), -1);
	assert_string_equal(e.msg, "probe prefix 'MY APP': use 1 to 64 letters, digits, '_', '.' or '-'");
	assert_int_equal(probe_config_add_prefix(&c, "", &e), -1);
	assert_int_equal(probe_config_add_prefix(&c, "A:B", &e), -1);
	assert_int_equal(probe_config_add_lane_key(&c, "stream", &e), 0);
	assert_int_equal(probe_config_add_lane_key(&c, "x=y", &e), -1);
	assert_string_equal(e.msg, "lane key 'x=y': use 1 to 64 letters, digits, '_', '.' or '-'");

	const char *line = "MYAPP: load_ms=3 stream=7 tid=2";
	assert_int_equal(probe_parse_line(&c, line, strlen(line), &p), 1);
	assert_int_equal(p.lane, 1); /* the first lane key on the line */
	probe_release(&p);
	assert_int_equal(probe_parse_line(&cfg, line, strlen(line), &p), 0);

	/* a lane key with a unit suffix is a lane, not a duration */
	assert_int_equal(probe_config_add_lane_key(&c, "slot_s", &e), 0);
	line = "PERFHUNT: slot_s=4 x_ms=1";
	assert_int_equal(probe_parse_line(&c, line, strlen(line), &p), 1);
	assert_int_equal(p.lane, 0);
	assert_int_equal(p.fields[0].kind, PROBE_VALUE);
	probe_release(&p);
	probe_config_release(&c);
}

static void test_fd_line_and_copy(void **state)
{
	(void)state;
	struct probe p, q;
	const char *bare = "begin=load worker=3";
	assert_int_equal(probe_parse_line(&cfg, bare, strlen(bare), &p), 0);
	assert_int_equal(probe_parse_fd_line(&cfg, bare, strlen(bare), &p), 1);
	assert_string_equal(p.prefix, "PERFHUNT");
	assert_int_equal(p.lane, 1);
	probe_copy(&q, &p);
	probe_release(&p);
	assert_string_equal(q.prefix, "PERFHUNT");
	assert_string_equal(q.fields[0].key, "begin");
	assert_string_equal(q.fields[0].text, "load");
	assert_string_equal(q.fields[1].text, "3");
	probe_release(&q);
	assert_int_equal(probe_parse_fd_line(&cfg, "CUZK_TIMING: x_ms=1", 19, &p), 1);
	assert_string_equal(p.prefix, "CUZK_TIMING");
	probe_release(&p);
}

/* Reads what probe.h wrote into the pipe. */
static size_t drain(int fd, char *buf, size_t n)
{
	ssize_t r = read(fd, buf, n - 1);
	buf[r > 0 ? r : 0] = '\0';
	return r > 0 ? (size_t)r : 0;
}

static void test_probe_h(void **state)
{
	(void)state;
	int fds[2];
	char buf[1024], num[16];
	assert_int_equal(pipe2(fds, O_NONBLOCK), 0);

	/* unset: nothing written */
	unsetenv("PERFHUNT_FD");
	ph__init();
	assert_int_equal(ph__fd, -1);
	ph_begin("load");
	assert_int_equal(drain(fds[0], buf, sizeof(buf)), 0);
	/* not a number, or not an open descriptor: off */
	setenv("PERFHUNT_FD", "3x", 1);
	ph__init();
	assert_int_equal(ph__fd, -1);
	setenv("PERFHUNT_FD", "999999", 1);
	ph__init();
	assert_int_equal(ph__fd, -1);

	snprintf(num, sizeof(num), "%d", fds[1]);
	setenv("PERFHUNT_FD", num, 1);
	ph__init();
	assert_int_equal(ph__fd, fds[1]);
	errno = 42;
	ph_begin("load");
	assert_int_equal(errno, 42);
	ph_end("load");
	ph_begin_lane("msm", "gpu_tid", 1);
	ph_value("num_circuits", 10);
	ph_value("abc_bytes_each", 4168923808.0);
	ph_duration_ms("pin_abc", 5733.5);
	ph_begin("two words\n=x");
	drain(fds[0], buf, sizeof(buf));
	assert_string_equal(buf,
		"PERFHUNT: begin=load\n"
		"PERFHUNT: end=load\n"
		"PERFHUNT: begin=msm gpu_tid=1\n"
		"PERFHUNT: num_circuits=10\n"
		"PERFHUNT: abc_bytes_each=4168923808\n"
		"PERFHUNT: pin_abc_ms=5733.5\n"
		"PERFHUNT: begin=two_words__x\n");

	/* every line parses back */
	struct probe p;
	size_t lines = 0;
	for (char *s = buf, *nl; (nl = strchr(s, '\n')); s = nl + 1, lines++) {
		assert_int_equal(probe_parse_fd_line(&cfg, s, (size_t)(nl - s), &p), 1);
		assert_int_equal(p.ignored, 0);
		probe_release(&p);
	}
	assert_int_equal(lines, 7);
	assert_int_equal(probe_parse_fd_line(&cfg, "PERFHUNT: begin=msm gpu_tid=1", 29, &p), 1);
	assert_int_equal(p.lane, 1);
	probe_release(&p);

	/* a name longer than PH_NAME_MAX is cut, the line stays one line */
	char longname[300];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ph_begin(longname);
	size_t got = drain(fds[0], buf, sizeof(buf));
	assert_int_equal(got, strlen("PERFHUNT: begin=") + PH_NAME_MAX + 1);

	unsetenv("PERFHUNT_FD");
	ph__init();
	close(fds[0]);
	close(fds[1]);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* With $PERFHUNT_ACK_FD a marker asks for its sample ("ping" in the same
 * write) and returns once "ack" comes; a value does not wait. Without an
 * answer it waits PH_ACK_TIMEOUT_MS once, and at EOF not at all: then no
 * marker waits again. */
static void test_probe_h_ack(void **state)
{
	(void)state;
	int lines[2], acks[2];
	char buf[1024], num[16];
	assert_int_equal(pipe2(lines, O_NONBLOCK), 0);
	assert_int_equal(pipe(acks), 0);
	snprintf(num, sizeof(num), "%d", lines[1]);
	setenv("PERFHUNT_FD", num, 1);
	snprintf(num, sizeof(num), "%d", acks[0]);
	setenv("PERFHUNT_ACK_FD", num, 1);
	ph__init();
	assert_int_equal(ph__ack_fd, acks[0]);

	assert_int_equal(write(acks[1], "ack\n", 4), 4);
	ph_begin("load");
	ph_value("n", 3);
	drain(lines[0], buf, sizeof(buf));
	assert_string_equal(buf, "PERFHUNT: begin=load\nping\nPERFHUNT: n=3\n");
	assert_int_equal(ph__ack_fd, acks[0]); /* its ack taken, the next waits as well */

	/* no answer: one bounded wait, then markers no longer ask */
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ph_end("load");
	long waited = ms_since(&t0);
	assert_true(waited >= PH_ACK_TIMEOUT_MS - 1);
	assert_int_equal(ph__ack_fd, -1);
	ph_begin("next");
	drain(lines[0], buf, sizeof(buf));
	assert_string_equal(buf, "PERFHUNT: end=load\nping\nPERFHUNT: begin=next\n");

	/* perfhunt gone (EOF): no wait at all */
	ph__init();
	close(acks[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ph_duration_ms("pin", 5);
	assert_true(ms_since(&t0) < PH_ACK_TIMEOUT_MS);
	assert_int_equal(ph__ack_fd, -1);

	unsetenv("PERFHUNT_FD");
	unsetenv("PERFHUNT_ACK_FD");
	ph__init();
	close(lines[0]);
	close(lines[1]);
	close(acks[0]);
}

/* Probe lines as structured loggers write them: the message field is the
 * probe line, the record's time field is kept, plain fields are values. */
static void test_structured_logs(void **state)
{
	(void)state;
	struct probe p;
	/* Rust tracing-subscriber's fmt().json() with thread ids, inside a span */
	assert_int_equal(parse("{\"timestamp\":\"2026-12-03T10:00:00.123456Z\",\"level\":\"INFO\","
			       "\"fields\":{\"message\":\"CUZK_TIMING: synth_ms=812\",\"circuits\":4},"
			       "\"target\":\"cuzk::prover\",\"threadId\":\"ThreadId(2)\","
			       "\"span\":{\"name\":\"prove\"},\"spans\":[{\"name\":\"prove\"}]}", &p), 1);
	assert_string_equal(p.prefix, "CUZK_TIMING");
	assert_int_equal(p.ignored, 0);
	assert_int_equal(p.n_fields, 4);
	assert_string_equal(p.fields[0].key, "synth_ms");
	assert_int_equal(p.fields[0].kind, PROBE_DURATION);
	assert_true(p.fields[0].scaled == 812);
	assert_string_equal(p.fields[1].key, "circuits");
	assert_true(p.fields[1].numeric && p.fields[1].value == 4);
	assert_int_equal(probe_find(&p, "level"), -1);
	assert_int_equal(probe_find(&p, "target"), -1);
	assert_string_equal(p.fields[probe_find(&p, "threadId")].text, "ThreadId(2)");
	assert_string_equal(p.fields[probe_find(&p, "span")].text, "prove");
	assert_string_equal(p.time, "2026-12-03T10:00:00.123456Z");
	probe_release(&p);

	/* Go slog's JSON handler; zap's production encoder (epoch seconds) */
	assert_int_equal(parse("{\"time\":\"2026-12-03T10:00:00.123456789Z\",\"level\":\"INFO\","
			       "\"msg\":\"CUZK_TIMING: gpu_tid=1 ntt_ms=21.5\",\"worker\":3}", &p), 1);
	assert_int_equal(p.n_fields, 3);
	assert_int_equal(p.lane, 0);
	assert_true(p.fields[1].scaled == 21.5);
	assert_string_equal(p.fields[2].key, "worker");
	assert_string_equal(p.time, "2026-12-03T10:00:00.123456789Z");
	probe_release(&p);
	assert_int_equal(parse("{\"level\":\"info\",\"ts\":1764756000.123456,\"caller\":\"prover/main.go:42\","
			       "\"msg\":\"PERFHUNT: load_ms=5\"}", &p), 1);
	assert_int_equal(p.n_fields, 1);
	assert_string_equal(p.time, "1764756000.123456");
	probe_release(&p);

	/* pino (epoch ms), bunyan (ISO time, its name/hostname/pid/v left out) */
	assert_int_equal(parse("{\"level\":30,\"time\":1764756000123,\"pid\":4242,\"hostname\":\"node1\","
			       "\"msg\":\"PERFHUNT: begin=load\"}", &p), 1);
	assert_int_equal(p.n_fields, 1);
	assert_string_equal(p.fields[0].text, "load");
	assert_string_equal(p.time, "1764756000123");
	probe_release(&p);
	assert_int_equal(parse("{\"name\":\"api\",\"hostname\":\"node1\",\"pid\":4242,\"level\":30,"
			       "\"msg\":\"PERFHUNT: end=load\",\"time\":\"2026-12-03T10:00:00.123Z\",\"v\":0}", &p), 1);
	assert_int_equal(p.n_fields, 1);
	assert_string_equal(p.time, "2026-12-03T10:00:00.123Z");
	probe_release(&p);

	/* Python json-logger: asctime with logging's comma, escapes undone */
	assert_int_equal(parse("{\"asctime\": \"2026-12-03 10:00:00,123\", \"levelname\": \"INFO\", "
			       "\"message\": \"PERFHUNT:\\tread_ms=7\\nphase=\\u0061b\", \"thread\": 1400}", &p), 1);
	assert_int_equal(p.n_fields, 3);
	assert_true(p.fields[0].scaled == 7);
	assert_string_equal(p.fields[1].text, "ab");
	assert_string_equal(p.fields[2].key, "thread");
	assert_string_equal(p.time, "2026-12-03 10:00:00,123");
	probe_release(&p);

	/* Go slog's text handler and logrus: logfmt, a duration ending the quoted msg */
	assert_int_equal(parse("time=2026-12-03T10:00:00.123+00:00 level=INFO "
			       "msg=\"CUZK_TIMING: synth_ms=812\" worker=3", &p), 1);
	assert_int_equal(p.n_fields, 2);
	assert_int_equal(p.ignored, 0);
	assert_int_equal(p.fields[0].kind, PROBE_DURATION);
	assert_true(p.fields[0].scaled == 812);
	assert_string_equal(p.fields[1].text, "3");
	assert_string_equal(p.time, "2026-12-03T10:00:00.123+00:00");
	probe_release(&p);
	assert_int_equal(parse("time=\"2026-12-03T10:00:00Z\" level=info msg=\"PERFHUNT: note=\\\"x\\\" b_ms=2\" "
			       "component=\"two words\"", &p), 1);
	assert_int_equal(p.n_fields, 2);
	assert_string_equal(p.fields[0].text, "\"x\"");
	assert_true(p.fields[1].scaled == 2);
	assert_int_equal(probe_find(&p, "component"), -1); /* blanks: not one word */
	assert_string_equal(p.time, "2026-12-03T10:00:00Z");
	probe_release(&p);

	/* the prefix only outside the message: not a probe */
	assert_int_equal(parse("{\"msg\":\"started\",\"note\":\"PERFHUNT: a_ms=1\"}", &p), 0);
	assert_int_equal(parse("level=info msg=started note=PERFHUNT:x", &p), 0);
	/* a record cut short reads as a text line; the prefix still anchors */
	assert_int_equal(parse("{\"msg\":\"PERFHUNT: a_ms=1 b_ms=2\",\"lev", &p), 1);
	assert_true(p.fields[0].scaled == 1);
	assert_int_equal(p.time[0], '\0');
	probe_release(&p);
	/* a text line that merely holds '=' words is not logfmt */
	assert_int_equal(parse("x=1 PERFHUNT: a_ms=3", &p), 1);
	assert_int_equal(p.n_fields, 1);
	probe_release(&p);
	/* copies keep the time */
	struct probe q;
	assert_int_equal(parse("{\"ts\":1764756000,\"msg\":\"PERFHUNT: a_ms=1\"}", &p), 1);
	probe_copy(&q, &p);
	probe_release(&p);
	assert_string_equal(q.time, "1764756000");
	probe_release(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_lines),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_logger_lines),
		cmocka_unit_test(test_not_probes),
		cmocka_unit_test(test_tolerance),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_fd_line_and_copy),
		cmocka_unit_test(test_probe_h),
		cmocka_unit_test(test_probe_h_ack),
		cmocka_unit_test(test_structured_logs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
