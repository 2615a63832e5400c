/* csvpeak: one pass over a timeline CSV, keeping only the best row so far.
 *
 * Lines are found with memchr (vectorised in libc) and each byte of a line is
 * looked at once: fields before the scanned column are skipped, the column is
 * parsed as it is walked, the rest only counted. Nothing is allocated per line;
 * the peak row is copied once per chunk, and only when it changed.
 */
#include "record/csvpeak.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

#define INT64_MAX_U ((uint64_t)INT64_MAX)
/* Reads of non-mappable input: large enough to amortise the syscall, small enough for L2. */
#define CSVPEAK_READ_BYTES (1u << 20)

static const char *const seed_names[] = { "epoch_ms", "rss_kb", "rss_gib" };

static inline bool is_digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/* Parses the longest number at p; *stop is the first byte after it. */
static bool num_prefix(const char *p, const char *end, struct csvpeak_num *out, const char **stop)
{
	struct csvpeak_num v = { 0 };
	bool ok = true;
	if (p < end && *p == '-') {
		v.negative = true;
		p++;
	}
	if (p >= end || !is_digit(*p)) {
		*stop = p;
		return false;
	}
	while (p < end && is_digit(*p)) {
		unsigned d = (unsigned)(*p - '0');
		if (v.int_part > (INT64_MAX_U - d) / 10)
			ok = false;
		else
			v.int_part = v.int_part * 10 + d;
		p++;
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !is_digit(*p))
			ok = false;
		uint64_t scale = 100000000000000000u; /* 1e17: weight of the first fraction digit */
		while (p < end && is_digit(*p)) {
			v.frac_e18 += (uint64_t)(*p - '0') * scale;
			scale /= 10;
			p++;
		}
	}
	if (v.int_part == 0 && v.frac_e18 == 0)
		v.negative = false;
	*stop = p;
	*out = v;
	return ok;
}

bool csvpeak_num_parse(const char *p, const char *end, struct csvpeak_num *out)
{
	const char *stop;
	return num_prefix(p, end, out, &stop) && stop == end;
}

int csvpeak_num_cmp(const struct csvpeak_num *a, const struct csvpeak_num *b)
{
	if (a->negative != b->negative)
		return a->negative ? -1 : 1;
	int mag = a->int_part != b->int_part ? (a->int_part < b->int_part ? -1 : 1)
		: a->frac_e18 != b->frac_e18 ? (a->frac_e18 < b->frac_e18 ? -1 : 1) : 0;
	return a->negative ? -mag : mag;
}

/* Parses an integer at p (epoch_ms); *stop is the first byte after it. */
static bool int_prefix(const char *p, const char *end, int64_t *out, const char **stop)
{
	bool neg = false, ok = true;
	uint64_t v = 0;
	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	ok = p < end && is_digit(*p);
	while (p < end && is_digit(*p)) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (INT64_MAX_U - d) / 10)
			ok = false;
		else
			v = v * 10 + d;
		p++;
	}
	*stop = p;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return ok;
}

static const char *field_end(const char *p, const char *end)
{
	while (p < end && *p != ',')
		p++;
	return p;
}

static void note_bad(struct csvpeak *s, enum csvpeak_bad_reason reason, size_t fields)
{
	if (s->bad < CSVPEAK_BAD_KEPT)
		s->bad_first[s->bad] = (struct csvpeak_bad){ s->lines, reason, fields };
	s->bad++;
}

/* Line 1 decides the format: a header (its first field is not a number) or the seed's
 * three headerless columns; then the column to scan is resolved. */
static int setup(struct csvpeak *s, const char *p, const char *end, struct err *e)
{
	const char *f0 = field_end(p, end);
	struct csvpeak_num tmp;
	s->header = f0 > p && !csvpeak_num_parse(p, f0, &tmp);
	const char *name = NULL;
	size_t name_len = 0;
	if (s->header) {
		s->has_time = f0 - p == 8 && !memcmp(p, "epoch_ms", 8);
		s->fields = 0;
		for (const char *f = p;; f++) {
			const char *fe = field_end(f, end);
			s->fields++;
			bool match = s->want_column ? s->fields == s->want_column
				: (size_t)(fe - f) == strlen(s->want_name) && !memcmp(f, s->want_name, (size_t)(fe - f));
			if (match && !s->column) {
				s->column = s->fields;
				name = f;
				name_len = (size_t)(fe - f);
			}
			if (fe == end)
				break;
			f = fe;
		}
	} else {
		s->has_time = true;
		s->fields = 3;
		for (size_t i = 0; i < 3; i++)
			if (s->want_column ? s->want_column == i + 1 : !strcmp(s->want_name, seed_names[i])) {
				s->column = i + 1;
				name = seed_names[i];
				name_len = strlen(name);
			}
	}
	if (!s->column) {
		s->failed = true;
		if (s->want_column)
			return err_set(e, "no column %zu: rows have %zu columns", s->want_column, s->fields);
		return err_set(e, "no column named '%s'%s", s->want_name,
			       s->header ? " in the header" : " (headerless seed format: epoch_ms,rss_kb,rss_gib)");
	}
	if (name_len)
		s->column_name = xstrndup(name, name_len);
	return 0;
}

/* One line, without its '\n'. */
static int process_line(struct csvpeak *s, const char *p, const char *end, struct err *e)
{
	s->lines++;
	if ((size_t)(end - p) > CSVPEAK_MAX_LINE_BYTES) {
		if (!s->column && setup(s, p, p, e) < 0)
			return -1;
		note_bad(s, CSVPEAK_BAD_TOO_LONG, 0);
		return 0;
	}
	if (end > p && end[-1] == '\r')
		end--;
	if (!s->column) {
		if (setup(s, p, end, e) < 0)
			return -1;
		if (s->header)
			return 0;
	}
	if (p == end) {
		note_bad(s, CSVPEAK_BAD_EMPTY, 0);
		return 0;
	}
	const size_t column = s->column;
	int64_t epoch_ms = 0;
	struct csvpeak_num v;
	const char *f = p, *stop, *vstart = NULL, *vend = NULL;
	bool time_ok = !s->has_time, value_ok = false;
	size_t idx = 1;
	for (;;) {
		const char *fe;
		if (idx == column) {
			value_ok = num_prefix(f, end, &v, &stop) && (stop == end || *stop == ',');
			fe = field_end(stop, end);
			vstart = f;
			vend = fe;
			if (idx == 1 && s->has_time)
				time_ok = value_ok && int_prefix(f, end, &epoch_ms, &stop) && stop == fe;
		} else if (idx == 1 && s->has_time) {
			time_ok = int_prefix(f, end, &epoch_ms, &stop) && (stop == end || *stop == ',');
			fe = field_end(stop, end);
		} else {
			fe = field_end(f, end);
		}
		if (fe == end)
			break;
		f = fe + 1;
		idx++;
	}
	if (idx != s->fields) {
		note_bad(s, CSVPEAK_BAD_FIELDS, idx);
		return 0;
	}
	if (!time_ok) {
		note_bad(s, CSVPEAK_BAD_TIME, 0);
		return 0;
	}
	if (!value_ok) {
		note_bad(s, CSVPEAK_BAD_VALUE, 0);
		return 0;
	}
	s->rows++;
	if (!s->found)
		s->first_epoch_ms = epoch_ms;
	if (!s->found || csvpeak_num_cmp(&v, &s->peak) > 0) {
		s->found = true;
		s->peak = v;
		s->peak_epoch_ms = epoch_ms;
		s->peak_line = s->lines;
		s->pending = p;
		s->pending_len = (size_t)(end - p);
		s->value_off = (size_t)(vstart - p);
		s->value_len = (size_t)(vend - vstart);
	}
	return 0;
}

/* Copies a new peak row out of bytes the caller is about to take back. */
static void keep_pending(struct csvpeak *s)
{
	if (!s->pending)
		return;
	if (s->pending_len + 1 > s->row_cap)
		xgrow((void **)&s->row, &s->row_cap, s->pending_len + 1, 1);
	memcpy(s->row, s->pending, s->pending_len);
	s->row[s->pending_len] = '\0';
	s->row_len = s->pending_len;
	s->pending = NULL;
}

static void carry_add(struct csvpeak *s, const char *p, size_t n)
{
	s->carry_total += n;
	size_t room = s->carry_len < CSVPEAK_MAX_LINE_BYTES ? CSVPEAK_MAX_LINE_BYTES - s->carry_len : 0;
	size_t keep = n < room ? n : room;
	if (!keep)
		return;
	if (s->carry_len + keep > s->carry_cap)
		xgrow((void **)&s->carry, &s->carry_cap, s->carry_len + keep, 1);
	memcpy(s->carry + s->carry_len, p, keep);
	s->carry_len += keep;
}

static int carry_line(struct csvpeak *s, struct err *e)
{
	int rc;
	if (s->carry_total > CSVPEAK_MAX_LINE_BYTES) {
		s->lines++;
		rc = !s->column ? setup(s, s->carry, s->carry, e) : 0;
		if (rc == 0)
			note_bad(s, CSVPEAK_BAD_TOO_LONG, 0);
	} else {
		rc = process_line(s, s->carry, s->carry + s->carry_len, e);
	}
	s->carry_len = 0;
	s->carry_total = 0;
	return rc;
}

void csvpeak_init(struct csvpeak *s, size_t column, const char *name)
{
	memset(s, 0, sizeof(*s));
	if (!column && !name)
		column = 2;
	s->want_column = column;
	s->want_name = column ? NULL : xstrdup(name);
}

int csvpeak_feed(struct csvpeak *s, const char *buf, size_t n, struct err *e)
{
	if (s->failed)
		return -1;
	const char *p = buf, *end = buf + n;
	int rc = 0;
	if (s->carry_total > 0) {
		const char *nl = memchr(p, '\n', n);
		carry_add(s, p, (size_t)((nl ? nl : end) - p));
		if (!nl)
			return 0;
		rc = carry_line(s, e);
		p = nl + 1;
	}
	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		rc = process_line(s, p, nl, e);
		p = nl + 1;
	}
	keep_pending(s);
	if (rc == 0 && p < end)
		carry_add(s, p, (size_t)(end - p));
	return rc;
}

int csvpeak_finish(struct csvpeak *s, struct err *e)
{
	if (s->failed)
		return -1;
	int rc = s->carry_total > 0 ? carry_line(s, e) : 0;
	keep_pending(s);
	return rc;
}

void csvpeak_release(struct csvpeak *s)
{
	free(s->want_name);
	free(s->column_name);
	free(s->row);
	free(s->carry);
	memset(s, 0, sizeof(*s));
}

int csvpeak_scan(const char *buf, size_t n, size_t column, const char *name,
		 struct csvpeak *s, struct err *e)
{
	csvpeak_init(s, column, name);
	if (csvpeak_feed(s, buf, n, e) < 0)
		return -1;
	return csvpeak_finish(s, e);
}

static int scan_stream(int fd, const char *name, struct csvpeak *s, struct err *e)
{
	char *buf = xmalloc(CSVPEAK_READ_BYTES);
	int rc = 0;
	for (;;) {
		ssize_t got = read(fd, buf, CSVPEAK_READ_BYTES);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = err_sys(e, "cannot read '%s'", name);
			break;
		}
		if (got == 0) {
			rc = csvpeak_finish(s, e);
			break;
		}
		if ((rc = csvpeak_feed(s, buf, (size_t)got, e)) < 0)
			break;
	}
	free(buf);
	return rc;
}

int csvpeak_scan_fd(int fd, const char *name, struct csvpeak *s, struct err *e)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_sys(e, "cannot read '%s'", name);
	/* Size 0 may still hold bytes (/proc files): stream those. */
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return scan_stream(fd, name, s, e);
	size_t n = (size_t)st.st_size;
	/* MAP_POPULATE maps every page in one call: first-touch faults would cost more than the scan. */
	void *map = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return scan_stream(fd, name, s, e);
	madvise(map, n, MADV_SEQUENTIAL);
	int rc = csvpeak_feed(s, map, n, e);
	if (rc == 0)
		rc = csvpeak_finish(s, e);
	munmap(map, n);
	return rc;
}

void csvpeak_bad_describe(const struct csvpeak *s, const struct csvpeak_bad *b, char *buf, size_t n)
{
	switch (b->reason) {
	case CSVPEAK_BAD_EMPTY:
		snprintf(buf, n, "empty");
		break;
	case CSVPEAK_BAD_FIELDS:
		snprintf(buf, n, "%zu field%s, expected %zu", b->fields, b->fields == 1 ? "" : "s", s->fields);
		break;
	case CSVPEAK_BAD_VALUE:
		if (s->column_name)
			snprintf(buf, n, "%s is not a number", s->column_name);
		else
			snprintf(buf, n, "column %zu is not a number", s->column);
		break;
	case CSVPEAK_BAD_TIME:
		snprintf(buf, n, "epoch_ms is not an integer");
		break;
	case CSVPEAK_BAD_TOO_LONG:
		snprintf(buf, n, "longer than %u bytes", CSVPEAK_MAX_LINE_BYTES);
		break;
	}
}
