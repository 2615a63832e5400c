/* csvpeak: one pass over a timeline CSV, keeping only the best row so far.
 *
 * Whole lines in a chunk are scanned by scan_lines: separators come from a bitmap of
 * each 64-byte block, and a sampler's row (integer time and value) is judged inline,
 * its value compared with the peak before it is converted. Any other line, and every
 * line carried across two chunks, is judged by the general path (walk_line, then
 * line_done); the two must agree on every input. Nothing is allocated per line;
 * the peak row is copied once per chunk, and only when it changed.
 */
#include "record/csvpeak.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "util/xalloc.h"

#define INT64_MAX_U ((uint64_t)INT64_MAX)
/* Reads of non-mappable input: large enough to amortise the syscall, small enough for L2. */
#define CSVPEAK_READ_BYTES (1u << 20)

static const char *const seed_names[] = { "epoch_ms", "rss_kb", "rss_gib" };

static inline bool is_digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/* Eight bytes at a time (SWAR): a timeline field is mostly 9 to 13 digits. */
#define SWAR_ONES 0x0101010101010101u
#define SWAR_HIGH 0x8080808080808080u

static inline uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* High bit of each byte of w that is not an ASCII digit. */
static inline uint64_t swar_non_digits(uint64_t w)
{
	uint64_t t = w ^ (SWAR_ONES * '0'); /* digits become 0..9, nothing else does */
	return (((t & ~SWAR_HIGH) + SWAR_ONES * (0x80 - 10)) | t) & SWAR_HIGH;
}

/* High bit of each byte of w that equals c (exact: no false positives). */
static inline uint64_t swar_bytes_equal(uint64_t w, char c)
{
	uint64_t t = w ^ (SWAR_ONES * (unsigned char)c);
	return ~(((t & ~SWAR_HIGH) + ~SWAR_HIGH) | t) & SWAR_HIGH;
}

/* Bytes [end, limit) may be read but are not part of the field: reading whole words
 * past the end of a short last field avoids a byte loop that mispredicts every line. */
static inline const char *skip_digits_in(const char *p, const char *end, const char *limit)
{
	while (limit - p >= 8) {
		uint64_t m = swar_non_digits(load8(p));
		if (m) {
			p += __builtin_ctzll(m) >> 3;
			return p < end ? p : end;
		}
		p += 8;
		if (p >= end)
			return end;
	}
	while (p < end && is_digit(*p))
		p++;
	return p;
}

static inline const char *skip_digits(const char *p, const char *end)
{
	return skip_digits_in(p, end, end);
}

/* Digits [p, q) without overflow checks: callers bound their count first. */
static inline uint64_t digits_value(const char *p, const char *q)
{
	uint64_t v = 0;
	for (; p < q; p++)
		v = v * 10 + (unsigned)(*p - '0');
	return v;
}

/* The value of 8 ASCII digits, first digit in the lowest byte (three multiplies). */
static inline uint64_t swar_digits8(uint64_t w)
{
	w -= SWAR_ONES * '0';
	w = w * 10 + (w >> 8);
	return (((w & 0x000000FF000000FFu) * (100 + (1000000ull << 32))) +
		(((w >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32)))) >> 32;
}

/* The first k (1..8) digits at p, read as one word (p + 8 <= limit). */
static inline uint64_t swar_digits_k(const char *p, size_t k)
{
	uint64_t w = load8(p);
	if (k < 8)
		w = (w << ((8 - k) * 8)) | ((SWAR_ONES * '0') >> (k * 8));
	return swar_digits8(w);
}

/* digits_value for up to 16 digits when whole words may be read up to limit. */
static inline uint64_t digits_value_in(const char *p, const char *q, const char *limit)
{
	size_t n = (size_t)(q - p);
	if (n <= 16 && limit - p >= 8) {
		if (n <= 8)
			return swar_digits_k(p, n);
		return swar_digits_k(p, n - 8) * 100000000u + swar_digits8(load8(q - 8));
	}
	return digits_value(p, q);
}

/* Whether the digits [p, q) are at most INT64_MAX; leading zeros are skipped. */
static inline bool digits_fit(const char **p, const char *q)
{
	while (q - *p > 1 && **p == '0')
		(*p)++;
	size_t n = (size_t)(q - *p);
	return n < 19 || (n == 19 && memcmp(*p, "9223372036854775807", 19) <= 0);
}

/* Parses the longest number at p; *stop is the first byte after it. Overflow is not a
 * number. Counting digits first keeps the per-digit loop free of overflow checks. */
static inline __attribute__((always_inline)) bool num_prefix(const char *p, const char *end, const char *limit,
			      struct csvpeak_num *out, const char **stop)
{
	static const uint64_t pow10[19] = {
		1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
		1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
		100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
		1000000000000000000u,
	};
	struct csvpeak_num v = { 0 };
	if (p < end && *p == '-') {
		v.negative = true;
		p++;
	}
	const char *digits = p, *q = skip_digits_in(p, end, limit);
	*stop = q;
	if (q == digits)
		return false;
	bool ok = digits_fit(&digits, q);
	if (ok)
		v.int_part = digits_value_in(digits, q, limit);
	if (q < end && *q == '.') {
		const char *f = q + 1, *fe = skip_digits_in(f, end, limit);
		*stop = fe;
		if (fe == f)
			ok = false;
		size_t k = (size_t)(fe - f) < 18 ? (size_t)(fe - f) : 18;
		v.frac_e18 = digits_value(f, f + k) * pow10[18 - k];
	}
	if (v.int_part == 0 && v.frac_e18 == 0)
		v.negative = false;
	*out = v;
	return ok;
}

bool csvpeak_num_parse(const char *p, const char *end, struct csvpeak_num *out)
{
	const char *stop;
	return num_prefix(p, end, end, out, &stop) && stop == end;
}

int csvpeak_num_cmp(const struct csvpeak_num *a, const struct csvpeak_num *b)
{
	if (a->negative != b->negative)
		return a->negative ? -1 : 1;
	int mag = a->int_part != b->int_part ? (a->int_part < b->int_part ? -1 : 1)
		: a->frac_e18 != b->frac_e18 ? (a->frac_e18 < b->frac_e18 ? -1 : 1) : 0;
	return a->negative ? -mag : mag;
}

/* Checks the integer at p (epoch_ms) without converting it: only the first row and
 * new peaks need its value (int_value). *stop is the first byte after it. */
static inline bool int_prefix(const char *p, const char *end, const char *limit, const char **stop)
{
	if (p < end && *p == '-')
		p++;
	const char *q = skip_digits_in(p, end, limit);
	*stop = q;
	return q > p && digits_fit(&p, q);
}

/* The value of an integer that int_prefix accepted. */
static int64_t int_value(const char *p, const char *end)
{
	bool neg = *p == '-';
	p += neg;
	uint64_t v = digits_value(p, skip_digits(p, end));
	return neg ? -(int64_t)v : (int64_t)v;
}

static inline const char *field_end_in(const char *p, const char *end, const char *limit)
{
	while (limit - p >= 8) {
		uint64_t m = swar_bytes_equal(load8(p), ',');
		if (m) {
			p += __builtin_ctzll(m) >> 3;
			return p < end ? p : end;
		}
		p += 8;
		if (p >= end)
			return end;
	}
	while (p < end && *p != ',')
		p++;
	return p;
}

static inline const char *field_end(const char *p, const char *end)
{
	return field_end_in(p, end, end);
}

static void note_bad(struct csvpeak *s, enum csvpeak_bad_reason reason, size_t fields)
{
	if (s->bad < CSVPEAK_BAD_KEPT)
		s->bad_first[s->bad] = (struct csvpeak_bad){ s->lines, reason, fields };
	s->bad++;
}

static const char *quoted_end(const char *f, const char *end, const char **in, const char **in_end);

/* Line 1 decides the format: a header (it starts with neither a digit nor '-') or the seed's
 * three headerless columns; then the column to scan is resolved. */
static int setup(struct csvpeak *s, const char *p, const char *end, struct err *e)
{
	const char *f0 = field_end(p, end);
	s->header = f0 > p && !is_digit(*p) && *p != '-';
	const char *name = NULL;
	size_t name_len = 0;
	if (s->header) {
		s->has_time = f0 - p == 8 && !memcmp(p, "epoch_ms", 8);
		s->fields = 0;
		/* fields as rows count them: a quoted name may hold a ',' */
		for (const char *f = p;;) {
			const char *in = f, *in_end;
			const char *fe = f < end && *f == '"' ? quoted_end(f, end, &in, &in_end) : (in_end = field_end(f, end));
			size_t n = (size_t)(in_end - in);
			s->fields++;
			bool match = s->want_column ? s->fields == s->want_column
				: n == strlen(s->want_name) && !memcmp(in, s->want_name, n);
			/* the tree column comes after rss_kb: it takes column 2's place */
			bool tree = s->want_tree && n > 8 && !memcmp(in, "tree_", 5) && !memcmp(in_end - 3, "_kb", 3);
			if ((match && !s->column) || tree) {
				s->column = s->fields;
				name = in;
				name_len = n;
			}
			if (fe == end)
				break;
			f = fe + 1;
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

/* First ',' or '\n' in [p, end), or end; end may lie past the line (a whole buffer). */
static inline const char *next_sep(const char *p, const char *end)
{
	while (end - p >= 8) {
		uint64_t w = load8(p);
		uint64_t m = swar_bytes_equal(w, ',') | swar_bytes_equal(w, '\n');
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
	while (p < end && *p != ',' && *p != '\n')
		p++;
	return p;
}

/* Where one line's fields lie: only the two a row needs are remembered. */
struct line_walk {
	const char *eol;      /* the '\n', or end when none was found */
	size_t fields;
	const char *time, *time_end; /* field 1 */
	const char *col, *col_end;
};

/* The end of the quoted field that opens at f ('"'): the separator after its closing
 * quote ("" inside is a quote). *in, *in_end: its text between the quotes, or the raw
 * field when it is not closed right before a separator. A line break always ends the
 * row, quoted or not: timeline fields never hold one. */
static const char *quoted_end(const char *f, const char *end, const char **in, const char **in_end)
{
	const char *q = f + 1;
	while (q < end && *q != '\n') {
		if (*q != '"') {
			q++;
		} else if (q + 1 < end && q[1] == '"') {
			q += 2;
		} else {
			const char *sep = next_sep(q + 1, end);
			bool closed = sep == q + 1 || (sep == q + 2 && q[1] == '\r' && (sep == end || *sep == '\n'));
			*in = closed ? f + 1 : f;
			*in_end = closed ? q : sep;
			return sep;
		}
	}
	*in = f;
	*in_end = q;
	return q;
}

static inline void walk_line(const char *p, const char *end, size_t column, struct line_walk *w)
{
	const char *f = p, *sep;
	size_t idx = 1;
	w->col = w->col_end = NULL;
	for (;;) {
		const char *in = f, *in_end;
		sep = f < end && *f == '"' ? quoted_end(f, end, &in, &in_end) : (in_end = next_sep(f, end));
		if (idx == 1) {
			w->time = in;
			w->time_end = in_end;
		}
		if (idx == column) {
			w->col = in;
			w->col_end = in_end;
		}
		if (sep == end || *sep == '\n')
			break;
		f = sep + 1;
		idx++;
	}
	w->eol = sep;
	w->fields = idx;
}

/* Judges a walked line [p, w->eol) and keeps it when it is the new peak. */
static __attribute__((noinline)) void line_done(struct csvpeak *s, const char *p, struct line_walk *w)
{
	const char *end = w->eol;
	if ((size_t)(end - p) > CSVPEAK_MAX_LINE_BYTES) {
		note_bad(s, CSVPEAK_BAD_TOO_LONG, 0);
		return;
	}
	if (end > p && end[-1] == '\r') {
		end--;
		if (w->time_end > end)
			w->time_end = end;
		if (w->col_end > end)
			w->col_end = end;
	}
	if (p == end) {
		note_bad(s, CSVPEAK_BAD_EMPTY, 0);
		return;
	}
	if (w->fields != s->fields) {
		note_bad(s, CSVPEAK_BAD_FIELDS, w->fields);
		return;
	}
	const char *limit = s->read_end, *stop;
	if (s->has_time && !(int_prefix(w->time, w->time_end, limit, &stop) && stop == w->time_end)) {
		note_bad(s, CSVPEAK_BAD_TIME, 0);
		return;
	}
	struct csvpeak_num v;
	if (!(num_prefix(w->col, w->col_end, limit, &v, &stop) && stop == w->col_end)) {
		note_bad(s, CSVPEAK_BAD_VALUE, 0);
		return;
	}
	s->rows++;
	if (!s->found && s->has_time)
		s->first_epoch_ms = int_value(w->time, w->time_end);
	if (!s->found || csvpeak_num_cmp(&v, &s->peak) > 0) {
		s->found = true;
		s->peak = v;
		s->peak_epoch_ms = s->has_time ? int_value(w->time, w->time_end) : 0;
		s->peak_line = s->lines;
		s->pending = p;
		s->pending_len = (size_t)(end - p);
		s->value_off = (size_t)(w->col - p);
		s->value_len = (size_t)(w->col_end - w->col);
	}
}

/* One whole line [p, end) without its '\n': line 1 (which sets the format up) and
 * lines carried across two chunks. */
static int process_line(struct csvpeak *s, const char *p, const char *end, struct err *e)
{
	s->lines++;
	if (!s->column) {
		bool too_long = (size_t)(end - p) > CSVPEAK_MAX_LINE_BYTES;
		const char *e1 = end > p && end[-1] == '\r' ? end - 1 : end;
		if (setup(s, p, too_long ? p : e1, e) < 0)
			return -1;
		if (s->header && !too_long)
			return 0;
	}
	struct line_walk w;
	walk_line(p, end, s->column, &w);
	line_done(s, p, &w);
	return 0;
}

/* Bit i set when byte i of the 64 at p is ',' or '\n': one structural bitmap per
 * block, so finding the next separator is a bit-scan (after simdjson's stage 1).
 * *quoted says whether the block holds a '"': a quote only sends the lines around
 * it to the general path (which reads quoted fields), so separators need not test
 * for it. */
#ifdef __SSE2__
static inline uint64_t block_seps(const char *p, bool *quoted)
{
	const __m128i comma = _mm_set1_epi8(','), nl = _mm_set1_epi8('\n'), quote = _mm_set1_epi8('"');
	uint64_t m = 0;
	__m128i any = _mm_setzero_si128();
	for (int i = 0; i < 4; i++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
		__m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, nl));
		m |= (uint64_t)(uint32_t)_mm_movemask_epi8(hit) << (16 * i);
		any = _mm_or_si128(any, _mm_cmpeq_epi8(v, quote));
	}
	*quoted = _mm_movemask_epi8(any) != 0;
	return m;
}
#else
/* Gathers the high bit of each byte of w into one byte (no carries: the products do not overlap). */
static inline uint64_t gather8(uint64_t w)
{
	return ((w >> 7) * 0x0102040810204080u) >> 56;
}

static inline uint64_t block_seps(const char *p, bool *quoted)
{
	uint64_t m = 0, q = 0;
	for (int i = 0; i < 8; i++) {
		uint64_t w = load8(p + 8 * i);
		m |= gather8(swar_bytes_equal(w, ',') | swar_bytes_equal(w, '\n')) << (8 * i);
		q |= swar_bytes_equal(w, '"');
	}
	*quoted = q != 0;
	return m;
}
#endif

/* block_seps for the last n < 64 bytes: copied into a padded block (NUL is no separator). */
static uint64_t tail_seps(const char *p, size_t n, bool *quoted)
{
	char pad[64] = { 0 };
	memcpy(pad, p, n);
	return block_seps(pad, quoted);
}

/* Whether the n bytes at p are all ASCII digits, for 1 <= n <= 16; whole words are read,
 * up to limit when n < 8 (false, to take the general path, when the word does not fit). */
static inline bool all_digits16(const char *p, size_t n, const char *limit)
{
	if (n >= 8)
		return !(swar_non_digits(load8(p)) | swar_non_digits(load8(p + n - 8)));
	if (limit - p < 8)
		return false;
	return !(swar_non_digits(load8(p)) & ((1ull << (8 * n)) - 1));
}

/* The peak's integer part as a threshold that plain integers of up to 16 digits are
 * compared with before they are converted: v > peak exactly when v > int_part (a
 * fraction cannot lift the peak above an integer that exceeds its integer part), and
 * for canonical digit strings that is a longer string, or as long and greater byte by
 * byte. len 0: every value is a new peak (none yet, or the peak is negative); len 17:
 * none of up to 16 digits is. hi and lo are the digits as big-endian words (see
 * digit_words), which compare as the strings do for equal lengths. */
struct peak_bar {
	size_t len;
	uint64_t hi, lo;
};

/* The n (1..16) digits at p as two big-endian words: the first 8 (right-aligned when
 * n < 8, so that equal lengths compare as numbers) and the last 8, overlapping the first
 * when n < 16 (for equal lengths, the first differing byte decides in either word). */
static inline void digit_words(const char *p, size_t n, uint64_t *hi, uint64_t *lo)
{
	uint64_t h = __builtin_bswap64(load8(p));
	if (n < 8) {
		*hi = h >> (8 * (8 - n));
		*lo = 0;
	} else {
		*hi = h;
		*lo = __builtin_bswap64(load8(p + n - 8));
	}
}

static void peak_bar_set(const struct csvpeak *s, struct peak_bar *bar)
{
	*bar = (struct peak_bar){ 0 };
	if (!s->found || s->peak.negative)
		return;
	char digits[24] = { 0 };
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, s->peak.int_part);
	if (n > 16) {
		bar->len = 17;
		return;
	}
	bar->len = (size_t)n;
	digit_words(digits, bar->len, &bar->hi, &bar->lo);
}

/* Judges the line [p, eol) exactly as a carried line is judged: the general path. */
static __attribute__((noinline)) void line_general(struct csvpeak *s, const char *p, const char *end)
{
	struct line_walk w;
	walk_line(p, end, s->column, &w);
	line_done(s, p, &w);
}

/* Separators kept per line: rows with more fields take the general path. */
#define FAST_FIELDS 256

/* Every whole line in [p, end); returns where the unfinished last line starts.
 *
 * Separators come from the block bitmaps; their offsets in the line are kept, so the
 * two fields a row needs are found once the line ends. A row whose time is 1 to 16
 * digits and whose value is a plain unsigned integer of 1 to 16 digits without leading
 * zeros (what samplers write) is judged here, and its value converted only when it is a
 * new peak; anything else (CRLF, signs, fractions, leading zeros, bad lines) goes to
 * line_general, which judges it exactly as it judges a carried line. */
static inline __attribute__((always_inline)) const char *
scan_lines_as(struct csvpeak *s, const char *p, const char *end, size_t column, size_t fields, bool has_time)
{
	const size_t n = (size_t)(end - p);
	const bool fast = fields < FAST_FIELDS;
	const char *limit = s->read_end;
	struct peak_bar bar;
	peak_bar_set(s, &bar);
	/* at[0] is the offset before the line's first byte (wrapping for the first line),
	 * at[i] that of its i-th separator. */
	size_t at[FAST_FIELDS];
	at[0] = (size_t)-1;
	/* A line that may hold a '"' is never plain: its k is pushed past any field
	 * count the inline path takes (+ FAST_FIELDS, which keeps k's slot in at[]).
	 * A block holding a quote pushes the line in progress when it is read, and
	 * every line that starts in it, through k_start; at worst a line near a
	 * quoted one takes the general path too. */
	bool quoted;
	uint64_t bits = n >= 64 ? block_seps(p, &quoted) : tail_seps(p, n, &quoted);
	size_t k_start = quoted ? 1 + FAST_FIELDS : 1;
	size_t k = k_start, off = 0, ls = 0;
	uint64_t lines = s->lines;
	for (;;) {
		while (!bits) {
			off += 64;
			if (off >= n)
				goto out;
			bits = n - off >= 64 ? block_seps(p + off, &quoted) : tail_seps(p + off, n - off, &quoted);
			k_start = quoted ? 1 + FAST_FIELDS : 1;
			k += k_start - 1;
		}
		size_t pos = off + (unsigned)__builtin_ctzll(bits);
		bits &= bits - 1;
		at[k & (FAST_FIELDS - 1)] = pos;
		if (p[pos] != '\n') {
			k++;
			continue;
		}
		lines++;
		const char *row = p + ls, *v = row;
		size_t len = pos - ls, tn = 0, vs = 0, vn = 0;
		bool plain = k == fields && fast && len - 1 < CSVPEAK_MAX_LINE_BYTES && p[pos - 1] != '\r';
		if (__builtin_expect(plain, 1)) {
			/* Only now are at[1..fields] all this line's. */
			tn = at[1] - ls;
			vs = at[column - 1] + 1;
			vn = at[column] - vs;
			v = p + vs;
			plain = (!has_time || (tn - 1 < 16 && all_digits16(row, tn, limit))) &&
				vn - 1 < 16 && (*v != '0' || vn == 1) && all_digits16(v, vn, limit);
		}
		if (__builtin_expect(!plain, 0)) {
			s->lines = lines;
			line_general(s, row, end);
			if (s->peak_line == lines)
				peak_bar_set(s, &bar);
		} else {
			s->rows++;
			uint64_t hi, lo;
			digit_words(v, vn, &hi, &lo);
			if (__builtin_expect(!(vn < bar.len || (vn == bar.len && (hi < bar.hi || (hi == bar.hi && lo <= bar.lo)))), 0)) {
				s->lines = lines;
				if (!s->found && has_time)
					s->first_epoch_ms = int_value(row, p + at[1]);
				s->found = true;
				s->peak = (struct csvpeak_num){ .negative = false, .int_part = digits_value(v, v + vn) };
				s->peak_epoch_ms = has_time ? int_value(row, p + at[1]) : 0;
				s->peak_line = lines;
				s->pending = row;
				s->pending_len = len;
				s->value_off = vs - ls;
				s->value_len = vn;
				bar = (struct peak_bar){ vn, hi, lo };
			}
		}
		at[0] = pos;
		ls = pos + 1;
		k = k_start;
	}
out:
	s->lines = lines;
	return p + ls;
}

/* scan_lines_as with the seed format's layout known to the compiler, or read from s. */
static const char *scan_lines(struct csvpeak *s, const char *p, const char *end)
{
	if (p == end)
		return p;
	if (s->column == 2 && s->fields == 3 && s->has_time)
		return scan_lines_as(s, p, end, 2, 3, true);
	return scan_lines_as(s, p, end, s->column, s->fields, s->has_time);
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
		s->read_end = s->carry + s->carry_len;
		rc = process_line(s, s->carry, s->carry + s->carry_len, e);
	}
	s->carry_len = 0;
	s->carry_total = 0;
	return rc;
}

void csvpeak_init(struct csvpeak *s, size_t column, const char *name)
{
	memset(s, 0, sizeof(*s));
	if (!column && !name) {
		column = 2;
		s->want_tree = true;
	}
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
	s->read_end = end;
	if (rc == 0 && !s->column && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (nl) {
			rc = process_line(s, p, nl, e);
			p = nl + 1;
		}
	}
	if (rc == 0 && s->column)
		p = scan_lines(s, p, end);
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

/* A header name fit for an error line: a binary file's "header" would put
 * raw bytes (terminal escapes included) on the user's terminal. */
static bool printable_name(const char *name)
{
	size_t i = 0;
	for (; name[i]; i++)
		if (name[i] < 0x20 || name[i] > 0x7e || i >= 64)
			return false;
	return i > 0;
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
		if (s->column_name && printable_name(s->column_name))
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
