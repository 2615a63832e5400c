/* Unit tests of src/probe/linebuf.c: lines split at every byte position,
 * lines longer than the cap, binary bytes, and the final unterminated line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probe/linebuf.h"

#define MAX_SEEN 16

struct seen {
	size_t n;
	char line[MAX_SEEN][128];
	size_t len[MAX_SEEN];
	bool truncated[MAX_SEEN];
};

static void collect(void *ctx, const char *line, size_t n, bool truncated)
{
	struct seen *s = ctx;
	assert_true(s->n < MAX_SEEN);
	assert_true(n < sizeof(s->line[0]));
	memcpy(s->line[s->n], line, n);
	s->line[s->n][n] = '\0';
	s->len[s->n] = n;
	s->truncated[s->n] = truncated;
	s->n++;
}

/* Feeds data in the chunks cut at the given positions, then flushes. */
static void feed_cut(struct seen *s, size_t max_line, const char *data, size_t n,
		     const size_t *cuts, size_t n_cuts)
{
	struct linebuf b;
	memset(s, 0, sizeof(*s));
	linebuf_init(&b, max_line, collect, s);
	size_t at = 0;
	for (size_t i = 0; i <= n_cuts; i++) {
		size_t to = i < n_cuts ? cuts[i] : n;
		linebuf_feed(&b, data + at, to - at);
		at = to;
	}
	linebuf_flush(&b);
	assert_int_equal(b.lines, s->n);
	assert_true(b.cap <= b.max_line);
	linebuf_release(&b);
}

static void expect_lines(const struct seen *s, const char *const *want, size_t n)
{
	assert_int_equal(s->n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(s->line[i], want[i]);
}

static void test_every_split(void **state)
{
	(void)state;
	static const char data[] = "a\nbb\n\nCUZK_TIMING: x_ms=1\r\nccc";
	const char *want[] = { "a", "bb", "", "CUZK_TIMING: x_ms=1\r", "ccc" };
	size_t n = sizeof(data) - 1;
	struct seen s;
	for (size_t i = 0; i <= n; i++) {
		feed_cut(&s, 0, data, n, &i, 1);
		expect_lines(&s, want, 5);
		for (size_t j = i; j <= n; j++) { /* two cuts */
			size_t cuts[2] = { i, j };
			feed_cut(&s, 0, data, n, cuts, 2);
			expect_lines(&s, want, 5);
		}
	}
	/* one byte at a time */
	size_t cuts[sizeof(data)];
	for (size_t i = 0; i < n; i++)
		cuts[i] = i + 1;
	feed_cut(&s, 0, data, n, cuts, n - 1);
	expect_lines(&s, want, 5);
	for (size_t i = 0; i < s.n; i++)
		assert_false(s.truncated[i]);
}

static void test_long_lines(void **state)
{
	(void)state;
	static const char data[] = "0123456789ABCDEF\nxy\n01234567\n012345678";
	const char *want[] = { "01234567", "xy", "01234567", "01234567" };
	const bool trunc[] = { true, false, false, true };
	size_t n = sizeof(data) - 1;
	struct seen s;
	for (size_t i = 0; i <= n; i++) {
		for (size_t j = i; j <= n; j++) {
			size_t cuts[2] = { i, j };
			feed_cut(&s, 8, data, n, cuts, 2);
			expect_lines(&s, want, 4);
			for (size_t k = 0; k < 4; k++)
				assert_int_equal(s.truncated[k], trunc[k]);
		}
	}
}

static void test_endless_line_is_bounded(void **state)
{
	(void)state;
	struct seen s;
	struct linebuf b;
	char chunk[4096];
	memset(chunk, 'z', sizeof(chunk));
	memset(&s, 0, sizeof(s));
	linebuf_init(&b, 100, collect, &s);
	for (int i = 0; i < 256; i++) /* 1 MiB without a newline */
		linebuf_feed(&b, chunk, sizeof(chunk));
	assert_int_equal(s.n, 1);
	assert_true(s.truncated[0]);
	assert_int_equal(s.len[0], 100);
	assert_true(b.cap <= 100);
	linebuf_feed(&b, "\nok\n", 4);
	linebuf_flush(&b);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.line[1], "ok");
	assert_int_equal(b.truncated, 1);
	linebuf_release(&b);
}

static void test_binary(void **state)
{
	(void)state;
	static const char data[] = "a\0b\n\xff\xfe\n\0\n";
	struct seen s;
	for (size_t i = 0; i <= sizeof(data) - 1; i++) {
		feed_cut(&s, 0, data, sizeof(data) - 1, &i, 1);
		assert_int_equal(s.n, 3);
		assert_int_equal(s.len[0], 3);
		assert_memory_equal(s.line[0], "a\0b", 3);
		assert_int_equal(s.len[1], 2);
		assert_memory_equal(s.line[1], "\xff\xfe", 2);
		assert_int_equal(s.len[2], 1);
		assert_int_equal(s.line[2][0], '\0');
	}
}

static void test_flush(void **state)
{
	(void)state;
	struct seen s;
	struct linebuf b;
	memset(&s, 0, sizeof(s));
	linebuf_init(&b, 4, collect, &s);
	linebuf_flush(&b); /* nothing pending: nothing passed */
	assert_int_equal(s.n, 0);
	linebuf_feed(&b, "abcdefgh", 8); /* truncated line, no newline at EOF */
	linebuf_flush(&b);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.line[0], "abcd");
	linebuf_feed(&b, "xy", 2); /* after a flush the stream starts afresh */
	linebuf_flush(&b);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.line[1], "xy");
	assert_false(s.truncated[1]);
	linebuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_split),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_endless_line_is_bounded),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
