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

/* perfhunt's CSV: by default the tree's memory column (a page shared after
 * fork once), not the per-process rss_kb sum that three forked sharers triple */
static void test_tree_column_by_default(void **state)
{
	(void)state;
	const char *csv = "epoch_ms,rss_kb,rss_gib,t_ms,phase,tree_pss_kb\n"
			  "1000,30000,0.03,0,fork,10100\n"
			  "1100,10200,0.01,100,grow,12000\n";
	struct csvpeak s;
	assert_int_equal(scan(csv, 0, NULL, &s), 0);
	assert_int_equal(s.column, 6);
	assert_string_equal(s.column_name, "tree_pss_kb");
	assert_row(&s, "1100,10200,0.01,100,grow,12000");
	csvpeak_release(&s);
	assert_int_equal(scan(csv, 0, "rss_kb", &s), 0); /* asked for by name: that one */
	assert_row(&s, "1000,30000,0.03,0,fork,10100");
	csvpeak_release(&s);
	assert_int_equal(scan(csv, 2, NULL, &s), 0);
	assert_string_equal(s.column_name, "rss_kb");
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

/* Rows the scanner judges inline against the general path (the byte-by-byte feed
 * carries every line, so scan2 compares the two): a field straddling a 64-byte
 * block at every offset. */
static void test_block_boundaries(void **state)
{
	(void)state;
	char text[4096];
	for (size_t pad = 0; pad < 130; pad++) {
		size_t n = (size_t)sprintf(text, "1,1,");
		memset(text + n, 'x', pad);
		n += pad;
		n += (size_t)sprintf(text + n, "\n1771368525552,212987468,203.12\n"
				     "1771368526647,9,0\n1771368527742,212987469,203.12\n"
				     "1771368528742,1212987469,1\n17,1212987469,2\n");
		struct csvpeak s;
		assert_int_equal(scan2(text, n, 0, NULL, &s), 0);
		assert_row(&s, "1771368528742,1212987469,1");
		assert_int_equal(s.peak_line, 5);
		assert_int_equal(s.peak_epoch_ms, 1771368528742);
		assert_int_equal(s.peak.int_part, 1212987469);
		assert_int_equal(s.rows, 6);
		csvpeak_release(&s);
		/* The same without the last newline: the last row ends the input mid-block. */
		assert_int_equal(scan2(text, n - 1, 0, NULL, &s), 0);
		assert_int_equal(s.peak_line, 5);
		csvpeak_release(&s);
	}
}

static void test_value_forms(void **state)
{
	(void)state;
	struct csvpeak s;
	/* Equal to the peak with more leading zeros: a tie, the first wins. */
	assert_int_equal(scan("1,9,a\n2,0009,b\n3,10,c\n4,00010,d\n5,09,e\n", 0, NULL, &s), 0);
	assert_row(&s, "3,10,c");
	assert_int_equal(s.peak.int_part, 10);
	csvpeak_release(&s);
	/* A fractional peak: an integer beats it only above its integer part. */
	assert_int_equal(scan("1,1.5,a\n2,1,b\n3,2,c\n", 0, NULL, &s), 0);
	assert_row(&s, "3,2,c");
	csvpeak_release(&s);
	assert_int_equal(scan("1,7.25,a\n2,7,b\n", 0, NULL, &s), 0);
	assert_row(&s, "1,7.25,a");
	csvpeak_release(&s);
	/* A negative peak, then zero and a positive value. */
	assert_int_equal(scan("1,-5,a\n2,0,b\n3,-1,c\n4,3,d\n", 0, NULL, &s), 0);
	assert_row(&s, "4,3,d");
	csvpeak_release(&s);
	/* 16 digits are judged inline, 17 and more by the general path. */
	assert_int_equal(scan("1,9999999999999999,a\n2,10000000000000000,b\n3,9999999999999999,c\n"
			      "4,10000000000000001,d\n5,10000000000000000,e\n", 0, NULL, &s), 0);
	assert_row(&s, "4,10000000000000001,d");
	assert_int_equal(s.peak.int_part, 10000000000000001u);
	csvpeak_release(&s);
	/* Digit counts from 1 to 16 in both orders, equal lengths compared byte by byte. */
	char text[2048];
	size_t n = 0;
	for (int i = 1; i <= 16; i++)
		n += (size_t)sprintf(text + n, "%d,%.*s,x\n%d,%.*s,y\n", i, i, "1234567899999999", i, i,
				     "1234567889999999");
	assert_int_equal(scan2(text, n, 0, NULL, &s), 0);
	assert_row(&s, "16,1234567899999999,x");
	csvpeak_release(&s);
	n = 0;
	for (int i = 16; i >= 1; i--)
		n += (size_t)sprintf(text + n, "%d,%.*s,x\n", i, i, "9999999999999999");
	assert_int_equal(scan2(text, n, 0, NULL, &s), 0);
	assert_int_equal(s.peak_line, 1);
	csvpeak_release(&s);
	/* Not numbers: inside the first 8 bytes, past them, and at the very end of the input. */
	assert_int_equal(scan("1,12a4,a\n2,1234567a9,b\n3,123456789a,c\n4,5,d\n5,1x", 0, NULL, &s), 0);
	assert_row(&s, "4,5,d");
	assert_int_equal(s.bad, 4);
	csvpeak_release(&s);
	/* Times: a sign, 17 digits, a letter past the eighth digit. */
	assert_int_equal(scan("-1,5,a\n12345678901234567,6,b\n123456789x,7,c\n", 0, NULL, &s), 0);
	assert_row(&s, "12345678901234567,6,b");
	assert_int_equal(s.peak_epoch_ms, 12345678901234567);
	assert_int_equal(s.bad, 1);
	assert_int_equal(s.bad_first[0].reason, CSVPEAK_BAD_TIME);
	csvpeak_release(&s);
}

static void test_crlf_mixed(void **state)
{
	(void)state;
	struct csvpeak s;
	assert_int_equal(scan("1,5,a\r\n2,9,b\n3,9,c\r\n4,10\r,d\n5,11,e\r\n\r\n", 0, NULL, &s), 0);
	assert_row(&s, "5,11,e");
	assert_int_equal(s.bad, 2);
	assert_int_equal(s.bad_first[0].line, 4);
	assert_int_equal(s.bad_first[1].reason, CSVPEAK_BAD_EMPTY);
	csvpeak_release(&s);
	/* The value is the last field: its \r is not part of it. */
	assert_int_equal(scan("1,0,5\r\n2,0,12\r\n3,0,7\n", 3, NULL, &s), 0);
	assert_row(&s, "2,0,12");
	csvpeak_release(&s);
}

/* RFC 4180 quoting: a ',' inside quotes is no separator, "" is a quote, and a quoted
 * number is a number. The timeline's phase column is quoted when a name needs it. */
static void test_quoted_fields(void **state)
{
	(void)state;
	struct csvpeak s;
	const char *text = "epoch_ms,rss_kb,phase\n"
			   "1,100,\"a,b\"\n"
			   "2,300,\"x \"\"y\"\", z\"\n"
			   "3,200,\"'=HYPERLINK(\"\"http://e/?x\"\",A1)\"\n"
			   "4,250,plain\n";
	assert_int_equal(scan(text, 0, NULL, &s), 0);
	assert_int_equal(s.rows, 4);
	assert_int_equal(s.bad, 0);
	assert_row(&s, "2,300,\"x \"\"y\"\", z\"");
	csvpeak_release(&s);
	/* the peak row's quote lies in the same 64-byte block as plain rows after it */
	assert_int_equal(scan("t,v\n1,\"7\"\n2,5\n3,6\n", 2, NULL, &s), 0);
	assert_row(&s, "1,\"7\"");
	assert_int_equal(s.value_off, 3);
	assert_int_equal(s.value_len, 1);
	assert_int_equal(s.rows, 3);
	csvpeak_release(&s);
	/* quoted time and value, CRLF after a closing quote */
	assert_int_equal(scan("\"10\",\"4\"\r\n\"11\",\"9\"\r\n", 0, NULL, &s), 0);
	csvpeak_release(&s);
	assert_int_equal(scan("epoch_ms,v,p\n\"10\",\"4\"\r\n\"11\",\"9\",x\r\n12,3,\"q\"\r\n", 2, NULL, &s), 0);
	assert_int_equal(s.rows, 2);
	assert_int_equal(s.peak_epoch_ms, 11);
	assert_row(&s, "\"11\",\"9\",x");
	csvpeak_release(&s);
	/* a quoted ',' in a later 64-byte block than its line's start, plain rows around it */
	char text2[512];
	snprintf(text2, sizeof(text2), "t,v,p\n0,4,a\n1,5,\"%.*s,y\"\n2,6,z\n3,2,\"%.*s\"\n4,3,w\n", 90,
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 61,
		 "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
	assert_int_equal(scan(text2, 2, NULL, &s), 0);
	assert_int_equal(s.rows, 5);
	assert_int_equal(s.bad, 0);
	assert_row(&s, "2,6,z");
	csvpeak_release(&s);
	/* a quoted header name holding a ',' is one column, found by its name */
	assert_int_equal(scan("command,\"phase:a,b\",wall_s\nx,3,1\n\"y,z\",9,2\nw,4,3\n", 0, "phase:a,b", &s), 0);
	assert_int_equal(s.fields, 3);
	assert_int_equal(s.column, 2);
	assert_string_equal(s.column_name, "phase:a,b");
	assert_int_equal(s.rows, 3);
	assert_row(&s, "\"y,z\",9,2");
	csvpeak_release(&s);
	/* malformed quoting: no closing quote before the line break (one field to the end),
	 * a quote inside an unquoted field (kept as text), text after a closing quote (not
	 * a number) */
	assert_int_equal(scan("epoch_ms,v,p\n1,5,\"a,b\n2,6,x\"y\n3,\"7\"z,c\n4,2,\"ok\"\n", 2, NULL, &s), 0);
	assert_int_equal(s.rows, 3);
	assert_int_equal(s.bad, 1);
	assert_int_equal(s.bad_first[0].line, 4);
	assert_int_equal(s.bad_first[0].reason, CSVPEAK_BAD_VALUE);
	assert_row(&s, "2,6,x\"y");
	csvpeak_release(&s);
}

static void test_wide_rows(void **state)
{
	(void)state;
	/* 300 columns: more than the inline path keeps. */
	char *text = malloc(64 * 1024);
	size_t n = 0;
	for (int i = 1; i <= 300; i++)
		n += (size_t)sprintf(text + n, "%sc%d", i > 1 ? "," : "", i);
	text[n++] = '\n';
	for (int r = 0; r < 4; r++) {
		n += (size_t)sprintf(text + n, "%d", 1000 + r);
		for (int i = 2; i <= 300; i++)
			n += (size_t)sprintf(text + n, ",%d", i == 299 ? (r * 7) % 5 : i);
		text[n++] = '\n';
	}
	struct csvpeak s;
	assert_int_equal(scan2(text, n, 0, "c299", &s), 0);
	assert_int_equal(s.peak_line, 4); /* 0, 2, 4, 1 */
	assert_int_equal(s.rows, 4);
	csvpeak_release(&s);
	free(text);
}

/* Random rows of a few shapes, scanned whole and byte by byte. */
static void test_random_rows(void **state)
{
	(void)state;
	static const char *const parts[] = { "0", "7", "00", "12", "-3", "1.5", "99999999", "123456789",
					     "1234567890123456", "12345678901234567", "x", "", "0.0", "-0" };
	size_t cap = 1 << 16;
	char *text = malloc(cap);
	uint64_t x = 88172645463325252u;
	for (int round = 0; round < 200; round++) {
		size_t n = 0;
		while (n < cap - 200) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			int fields = (x & 7) == 0 ? 2 : 3;
			for (int f = 0; f < fields; f++) {
				const char *part = parts[(x >> (8 + 4 * f)) % (sizeof(parts) / sizeof(parts[0]))];
				if ((x >> 40) % 4 && f < 2)
					part = parts[(x >> (8 + 4 * f)) % 10 == 0 ? 10 : 1 + (x >> (8 + 4 * f)) % 9];
				n += (size_t)sprintf(text + n, "%s%s", f ? "," : "", part);
			}
			if ((x >> 50) % 16 == 0)
				text[n++] = '\r';
			text[n++] = '\n';
		}
		struct csvpeak s;
		assert_int_equal(scan2(text, n, (size_t)round % 4, NULL, &s), 0);
		csvpeak_release(&s);
	}
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
		cmocka_unit_test(test_tree_column_by_default),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_crlf_and_no_trailing_newline),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_negative_and_fractions),
		cmocka_unit_test(test_ties_first_wins),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_huge_lines),
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_block_boundaries),
		cmocka_unit_test(test_value_forms),
		cmocka_unit_test(test_crlf_mixed),
		cmocka_unit_test(test_quoted_fields),
		cmocka_unit_test(test_wide_rows),
		cmocka_unit_test(test_random_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
