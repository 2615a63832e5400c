/* csvpeak: the peak row of a timeline CSV in one pass, without sorting.
 *
 * A timeline is our CSV (a header line starting "epoch_ms,rss_kb,rss_gib,")
 * or the seed sampler's headerless "epoch_ms,rss_kb,rss_gib". The scanner is
 * a pure function over bytes, fed either one whole mapping or any chunking of
 * a stream; both give the same answer, which is what the fuzz target checks.
 * Malformed lines are skipped and counted, never silently dropped. Fields may
 * be quoted as RFC 4180 says ("a,b" is one field, "" a quote in it); a line
 * break always ends a row, as timeline fields never hold one.
 */
#ifndef PERFHUNT_CSVPEAK_H
#define PERFHUNT_CSVPEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Lines longer than this (without the newline) are malformed: no timeline row is near it,
 * and it bounds the memory a stream needs to carry a line across two reads. */
#define CSVPEAK_MAX_LINE_BYTES (1u << 20)
/* How many malformed lines are remembered by number. */
#define CSVPEAK_BAD_KEPT 5

enum csvpeak_bad_reason {
	CSVPEAK_BAD_EMPTY,
	CSVPEAK_BAD_FIELDS,   /* wrong number of fields */
	CSVPEAK_BAD_VALUE,    /* the scanned column is empty, not a number, or out of range */
	CSVPEAK_BAD_TIME,     /* epoch_ms is not an integer */
	CSVPEAK_BAD_TOO_LONG, /* longer than CSVPEAK_MAX_LINE_BYTES */
};

struct csvpeak_bad {
	uint64_t line;        /* 1-based line number */
	enum csvpeak_bad_reason reason;
	size_t fields;        /* fields found, for CSVPEAK_BAD_FIELDS */
};

/* A decimal number compared exactly: sign, integer part, and up to 18 fraction digits. */
struct csvpeak_num {
	bool negative;        /* never set for zero */
	uint64_t int_part;    /* <= INT64_MAX */
	uint64_t frac_e18;    /* fraction scaled by 1e18 (digits beyond the 18th are ignored) */
};

struct csvpeak {
	/* What to scan, set by csvpeak_init. */
	size_t want_column;   /* 1-based index, or 0 to look want_name up */
	char *want_name;
	bool want_tree;       /* neither given: a header's tree_*_kb column, else column 2 */

	/* What the scan found. */
	bool header;          /* line 1 was a header */
	size_t fields;        /* fields per row: the header's count, or 3 without a header */
	size_t column;        /* 1-based column scanned, 0 until line 1 was seen */
	char *column_name;    /* its name from the header or the seed format; NULL if none */
	bool has_time;        /* column 1 is epoch_ms */
	bool found;           /* at least one valid row */
	struct csvpeak_num peak;
	int64_t peak_epoch_ms, first_epoch_ms; /* when has_time */
	uint64_t peak_line;
	char *row;            /* the peak row, without its line end; owned */
	size_t row_len, value_off, value_len; /* the peak value is row[value_off, +value_len) */
	uint64_t lines, rows, bad;
	struct csvpeak_bad bad_first[CSVPEAK_BAD_KEPT];

	/* Streaming state. */
	size_t row_cap;
	char *carry;          /* a line cut by the end of a chunk */
	size_t carry_len, carry_cap;
	uint64_t carry_total; /* its length so far, beyond what is kept when too long */
	const char *pending;  /* new peak row still pointing into the caller's bytes */
	const char *read_end; /* end of the bytes the line being scanned lies in */
	size_t pending_len;
	bool failed;
};

/* Scans column `column` (1-based; 0 = the one named `name`; both unset = the
 * tree's memory column of perfhunt's CSV, tree_*_kb, where the header has one
 * (a shared page counted once, as the run's sampled peak), else column 2, rss_kb). */
void csvpeak_init(struct csvpeak *s, size_t column, const char *name);
/* Feeds the next n bytes of the input, cut anywhere. -1 when the column cannot be
 * resolved (no such name, index beyond the header); the scan is then over. */
int csvpeak_feed(struct csvpeak *s, const char *buf, size_t n, struct err *e);
/* Ends the input (a last line without a newline counts). */
int csvpeak_finish(struct csvpeak *s, struct err *e);
void csvpeak_release(struct csvpeak *s);

/* init + feed + finish over one byte range; release s afterwards in every case. */
int csvpeak_scan(const char *buf, size_t n, size_t column, const char *name,
		 struct csvpeak *s, struct err *e);
/* Scans an open file: mapped when it is a regular file, read in large blocks otherwise
 * (pipes, stdin). name is only for messages. s is initialised by the caller. */
int csvpeak_scan_fd(int fd, const char *name, struct csvpeak *s, struct err *e);

/* <0, 0, >0 as a is below, equal to, above b. */
int csvpeak_num_cmp(const struct csvpeak_num *a, const struct csvpeak_num *b);
/* Parses a whole field as a decimal number ("-12", "203.12"); false when it is not one. */
bool csvpeak_num_parse(const char *p, const char *end, struct csvpeak_num *out);
/* A short phrase for a malformed line ("3 fields, expected 24"). */
void csvpeak_bad_describe(const struct csvpeak *s, const struct csvpeak_bad *b, char *buf, size_t n);

#endif
