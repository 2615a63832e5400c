/* Unit tests of src/record/csvpeak: the one-pass peak scanner.
 *
 * Every case is checked twice: over the whole byte range (as a mapped file is)
 * and fed one byte at a time (the worst chunking a pipe can give), because the
 * two paths must agree on every input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "record/csvpeak.h"

/* Scans text both ways, checks they agree, and leaves the whole-range result in s. */
static int scan2(const char *text, size_t n, size_t column, const char *name, struct csvpeak *s)
{
	struct err e1 = { 0 }, e2 = { 0 };
	int rc1 = csvpeak_scan(text, n, column, name, s, &e1);
	struct csvpeak b;
	csvpeak_init(&b, column, name);
	int rc2 = 0;
	for (size_t i = 0; i < n && rc2 == 0; i++)
		rc2 = csvpeak_feed(&b, text + i, 1, &e2);
	if (rc2 == 0)
		rc2 = csvpeak_finish(&b, &e2);
	assert_int_equal(rc1, rc2);
	assert_string_equal(e1.msg, e2.msg);
	assert_int_equal(s->found, b.found);
	assert_int_equal(s->lines, b.lines);
	assert_int_equal(s->rows, b.rows);
	assert_int_equal(s->bad, b.bad);
	assert_int_equal(s->peak_line, b.peak_line);
	assert_int_equal(s->row_len, b.row_len);
	if (s->found)
		assert_memory_equal(s->row, b.row, s->row_len);
	csvpeak_release(&b);
	return rc1;
}

static int scan(const char *text, size_t column, const char *name, struct csvpeak *s)
{
	return scan2(text, strlen(text), column, name, s);
}

static void assert_row(const struct csvpeak *s, const char *row)
{
	assert_true(s->found);
	assert_int_equal(s->row_len, strlen(row));
	assert_memory_equal(s->row, row, s->row_len);
}

static void test_seed_format(void **state)
{
	(void)state;
	struct csvpeak s;
	assert_int_equal(scan("1771368525552,212987468,203.12\n"
			      "1771368526647,212987492,203.12\n"
			      "1771368527742,212987636,203.12\n", 0, NULL, &s), 0);
	assert_false(s.header);
	assert_int_equal(s.column, 2);
	assert_string_equal(s.column_name, "rss_kb");
	assert_row(&s, "1771368527742,212987636,203.12");
	assert_int_equal(s.peak_line, 3);
	assert_int_equal(s.peak_epoch_ms, 1771368527742);
	assert_int_equal(s.first_epoch_ms, 1771368525552);
	assert_int_equal(s.peak.int_part, 212987636);
	assert_int_equal(s.value_off, 14);
	assert_int_equal(s.value_len, 9);
	assert_int_equal(s.rows, 3);
	assert_int_equal(s.bad, 0);
	csvpeak_release(&s);
}

static void test_header_and_columns(void **state)
{
	(void)state;
	const char *csv = "epoch_ms,rss_kb,rss_gib,t_ms,phase\n"
			  "1000,10,0.00,0,a\n"
			  "1100,30,0.00,100,b\n"
			  "1200,20,0.00,250,c+d\n";
	struct csvpeak s;
	assert_int_equal(scan(csv, 0, NULL, &s), 0);
	assert_true(s.header);
	assert_true(s.has_time);
	assert_int_equal(s.fields, 5);
	assert_row(&s, "1100,30,0.00,100,b");
	assert_int_equal(s.peak_line, 3);
	csvpeak_release(&s);

	assert_int_equal(scan(csv, 0, "t_ms", &s), 0);
	assert_int_equal(s.column, 4);
	assert_row(&s, "1200,20,0.00,250,c+d");
	csvpeak_release(&s);

	assert_int_equal(scan(csv, 4, NULL, &s), 0);
	assert_string_equal(s.column_name, "t_ms");
	assert_int_equal(s.peak_line, 4);
	csvpeak_release(&s);

	/* A text column has no valid row. */
	assert_int_equal(scan(csv, 0, "phase", &s), 0);
	assert_false(s.found);
	assert_int_equal(s.bad, 3);
	assert_int_equal(s.bad_first[0].reason, CSVPEAK_BAD_VALUE);
	csvpeak_release(&s);

	struct err e = { 0 };
	assert_int_equal(csvpeak_scan(csv, strlen(csv), 0, "nope", &s, &e), -1);
	assert_string_equal(e.msg, "no column named 'nope' in the header");
	csvpeak_release(&s);
	assert_int_equal(csvpeak_scan(csv, strlen(csv), 6, NULL, &s, &e), -1);
	assert_string_equal(e.msg, "no column 6: rows have 5 columns");
	csvpeak_release(&s);
	assert_int_equal(csvpeak_scan("1,2,3\n", 6, 0, "t_ms", &s, &e), -1);
	csvpeak_release(&s);
}

static void test_malformed_lines(void **state)
{
	(void)state;
	const char *csv = "1000,5,0.00\n"
			  "1100,7\n"            /* 2: too few fields */
			  "\n"                  /* 3: empty */
			  "1200,x9,0.00\n"      /* 4: not a number */
			  "12a0,90,0.00\n"      /* 5: bad time */
			  "1300,8,0.00,extra\n" /* 6: too many fields */
			  "1400,,0.00\n"        /* 7: empty value */
			  "1500,6,0.00\n";
	struct csvpeak s;
	assert_int_equal(scan(csv, 0, NULL, &s), 0);
	assert_row(&s, "1500,6,0.00");
	assert_int_equal(s.peak_line, 8);
	assert_int_equal(s.lines, 8);
	assert_int_equal(s.rows, 2);
	assert_int_equal(s.bad, 6);
	assert_int_equal(s.bad_first[0].line, 2);
	assert_int_equal(s.bad_first[0].reason, CSVPEAK_BAD_FIELDS);
	assert_int_equal(s.bad_first[0].fields, 2);
	assert_int_equal(s.bad_first[1].line, 3);
	assert_int_equal(s.bad_first[1].reason, CSVPEAK_BAD_EMPTY);
	assert_int_equal(s.bad_first[2].reason, CSVPEAK_BAD_VALUE);
	assert_int_equal(s.bad_first[3].reason, CSVPEAK_BAD_TIME);
	assert_int_equal(s.bad_first[4].line, 6);
	char why[96];
	csvpeak_bad_describe(&s, &s.bad_first[0], why, sizeof(why));
	assert_string_equal(why, "2 fields, expected 3");
	csvpeak_bad_describe(&s, &s.bad_first[2], why, sizeof(why));
	assert_string_equal(why, "rss_kb is not a number");
	csvpeak_release(&s);
}

static void test_crlf_and_no_trailing_newline(void **state)
{
	(void)state;
	struct csvpeak s;
	assert_int_equal(scan("epoch_ms,rss_kb,rss_gib\r\n1,5,0.1\r\n2,9,0.2\r\n3,7,0.3", 0, NULL, &s), 0);
	assert_true(s.header);
	assert_row(&s, "2,9,0.2");
	assert_int_equal(s.rows, 3);
	csvpeak_release(&s);
	assert_int_equal(scan("1,5,0.1\n2,9,0.2", 0, NULL, &s), 0);
	assert_row(&s, "2,9,0.2");
	assert_int_equal(s.lines, 2);
	csvpeak_release(&s);
	/* A last field ending in \r is still a number. */
	assert_int_equal(scan("1,5,0.1\r\n2,6,0.25\r\n", 3, NULL, &s), 0);
	assert_row(&s, "2,6,0.25");
	csvpeak_release(&s);
}

static void test_empty_input(void **state)
{
	(void)state;
	struct csvpeak s;
	assert_int_equal(scan("", 0, NULL, &s), 0);
	assert_false(s.found);
	assert_int_equal(s.lines, 0);
	csvpeak_release(&s);
	assert_int_equal(scan("epoch_ms,rss_kb,rss_gib\n", 0, NULL, &s), 0);
	assert_false(s.found);
	assert_int_equal(s.lines, 1);
	assert_int_equal(s.bad, 0);
	csvpeak_release(&s);
	assert_int_equal(scan("\n\n", 0, NULL, &s), 0);
	assert_false(s.found);
	assert_int_equal(s.bad, 2);
	csvpeak_release(&s);
}

static void test_negative_and_fractions(void **state)
{
	(void)state;
	struct csvpeak s;
	assert_int_equal(scan("1,-5,0\n2,-3,0\n3,-4,0\n", 0, NULL, &s), 0);
	assert_row(&s, "2,-3,0");
	csvpeak_release(&s);
	assert_int_equal(scan("1,0,-0.5\n2,0,-0.25\n3,0,-0.3\n", 3, NULL, &s), 0);
	assert_row(&s, "2,0,-0.25");
	csvpeak_release(&s);
	assert_int_equal(scan("1,0,1.5\n2,0,1.25\n3,0,1.50\n4,0,1.05\n", 3, NULL, &s), 0);
	assert_row(&s, "1,0,1.5"); /* 1.50 ties 1.5: the first one wins */
	csvpeak_release(&s);
	assert_int_equal(scan("1,-0,0\n2,0,0\n", 0, NULL, &s), 0);
	assert_int_equal(s.peak_line, 1); /* -0 equals 0 */
	csvpeak_release(&s);
	assert_int_equal(scan("-5,1,0\n", 0, NULL, &s), 0);
	assert_int_equal(s.peak_epoch_ms, -5);
	csvpeak_release(&s);
}

static void test_ties_first_wins(void **state)
{
	(void)state;
	struct csvpeak s;
	assert_int_equal(scan("1,9,a\n2,9,b\n3,8,c\n4,9,d\n", 0, NULL, &s), 0);
	assert_row(&s, "1,9,a");
	csvpeak_release(&s);
}

static void test_overflow(void **state)
{
	(void)state;
	struct csvpeak s;
	assert_int_equal(scan("1,9223372036854775807,0\n2,9223372036854775808,0\n3,5,0\n", 0, NULL, &s), 0);
	assert_row(&s, "1,9223372036854775807,0");
	assert_int_equal(s.bad, 1);
	assert_int_equal(s.bad_first[0].line, 2);
	csvpeak_release(&s);
	assert_int_equal(scan("99999999999999999999,1,0\n2,1,0\n", 0, NULL, &s), 0);
	assert_int_equal(s.bad_first[0].reason, CSVPEAK_BAD_TIME);
	assert_int_equal(s.peak_line, 2);
	csvpeak_release(&s);
	/* Leading zeros do not count towards overflow; 17 digits take the slow path. */
	assert_int_equal(scan("1,00000000000000000000000012,0\n2,12345678901234567,0\n", 0, NULL, &s), 0);
	assert_int_equal(s.peak.int_part, 12345678901234567u);
	csvpeak_release(&s);
}

static void test_huge_lines(void **state)
{
	(void)state;
	/* A 100 KiB phase column is a valid row; a line over the limit is malformed. */
	size_t big = 100 * 1024, huge = CSVPEAK_MAX_LINE_BYTES + 10;
	char *text = malloc(huge + 64);
	size_t n = (size_t)sprintf(text, "1,5,");
	memset(text + n, 'p', big);
	n += big;
	n += (size_t)sprintf(text + n, "\n2,6,x\n");
	struct csvpeak s;
	struct err e = { 0 };
	assert_int_equal(csvpeak_scan(text, n, 0, NULL, &s, &e), 0);
	assert_int_equal(s.rows, 2);
	assert_int_equal(s.peak_line, 2);
	csvpeak_release(&s);

	n = (size_t)sprintf(text, "1,5,a\n3,");
	memset(text + n, '7', huge);
	n += huge;
	n += (size_t)sprintf(text + n, ",0\n2,6,b\n");
	/* Fed in 64 KiB chunks: the long line is carried, but only up to the limit. */
	struct csvpeak b;
	csvpeak_init(&b, 0, NULL);
	for (size_t off = 0; off < n; off += 65536)
		assert_int_equal(csvpeak_feed(&b, text + off, n - off < 65536 ? n - off : 65536, &e), 0);
	assert_int_equal(csvpeak_finish(&b, &e), 0);
	assert_true(b.carry_cap <= CSVPEAK_MAX_LINE_BYTES);
	assert_int_equal(csvpeak_scan(text, n, 0, NULL, &s, &e), 0);
	assert_int_equal(s.bad, 1);
	assert_int_equal(s.bad_first[0].reason, CSVPEAK_BAD_TOO_LONG);
	assert_int_equal(s.bad_first[0].line, 2);
	assert_int_equal(s.peak_line, 3);
	assert_int_equal(b.bad, 1);
	assert_int_equal(b.peak_line, 3);
	assert_int_equal(b.lines, s.lines);
	csvpeak_release(&s);
	csvpeak_release(&b);
	free(text);
}

static bool num_of(const char *text, struct csvpeak_num *out)
{
	return csvpeak_num_parse(text, text + strlen(text), out);
}

static void test_num(void **state)
{
	(void)state;
	struct csvpeak_num a, b;
	const char *ok[] = { "0", "-1", "203.12", "00012", "-0.000000000000000001", "12345678" };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_true(csvpeak_num_parse(ok[i], ok[i] + strlen(ok[i]), &a));
	const char *bad[] = { "", "-", "1.", ".5", "1e5", " 1", "1 ", "+1", "0x10", "1.2.3", "nan" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(csvpeak_num_parse(bad[i], bad[i] + strlen(bad[i]), &a));
	assert_true(num_of("2.5", &a));
	assert_true(num_of("2.49999", &b));
	assert_true(csvpeak_num_cmp(&a, &b) > 0);
	assert_true(csvpeak_num_cmp(&b, &a) < 0);
	assert_true(num_of("-2.5", &a));
	assert_true(csvpeak_num_cmp(&a, &b) < 0);
	assert_true(num_of("-2.49999", &b));
	assert_true(csvpeak_num_cmp(&a, &b) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_format),
		cmocka_unit_test(test_header_and_columns),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_crlf_and_no_trailing_newline),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_negative_and_fractions),
		cmocka_unit_test(test_ties_first_wins),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_huge_lines),
		cmocka_unit_test(test_num),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
