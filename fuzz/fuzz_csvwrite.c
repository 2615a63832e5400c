/* fuzz_csvwrite: libFuzzer target for the CSV field writer (util/escape) and csvpeak.
 *
 * NUL-separated texts are written as one row after the numbers "1,5" and read
 * back by a small RFC 4180 reader here (every text again; a neutralised formula
 * with its one leading "'") and, when no text holds a line break (timeline
 * fields never do), by csvpeak: one valid row, the header's number of fields,
 * the peak 5. Any difference aborts.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/csvpeak.h"
#include "util/escape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FIELDS 64

static void check(bool ok)
{
	if (!ok)
		abort();
}

/* Reads the RFC 4180 field at *p (quoted or not) into out; *p moves past its separator.
 * Returns false at the end of the record (after its last field). */
static bool read_field(const char **p, const char *end, char *out, size_t *n)
{
	const char *q = *p;
	*n = 0;
	if (q < end && *q == '"') {
		for (q++;; q++) {
			check(q < end); /* a quoted field always closes */
			if (*q == '"') {
				if (q + 1 < end && q[1] == '"') {
					out[(*n)++] = '"';
					q++;
					continue;
				}
				q++;
				break;
			}
			out[(*n)++] = *q;
		}
	} else {
		while (q < end && *q != ',' && *q != '\n') {
			check(*q != '"' && *q != '\r'); /* never bare in an unquoted field */
			out[(*n)++] = *q++;
		}
	}
	check(q < end && (*q == ',' || *q == '\n')); /* a field ends at a separator */
	*p = q + 1;
	return *q == ',';
}

/* What a text reads back as: itself, or "'" + itself when it is a formula. */
static bool same_text(const char *orig, size_t olen, const char *got, size_t glen)
{
	if (glen == olen && !memcmp(orig, got, olen))
		return true;
	return olen && strchr("=+-@\t\r", orig[0]) && glen == olen + 1 && got[0] == '\'' &&
	       !memcmp(orig, got + 1, olen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *texts[MAX_FIELDS];
	size_t lens[MAX_FIELDS], n = 0;
	char *copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	bool line_break = false;
	for (size_t off = 0; off <= size && n < MAX_FIELDS;) {
		texts[n] = copy + off;
		lens[n] = strlen(copy + off);
		line_break |= memchr(texts[n], '\n', lens[n]) != NULL;
		off += lens[n++] + 1;
	}

	/* header t,v,f1..fn, then the row 1,5,<texts> */
	char *csv = malloc(64 + 8 * MAX_FIELDS + 2 * size + 4 * n);
	size_t len = (size_t)sprintf(csv, "t,v");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(csv + len, ",f%zu", i);
	size_t row = ++len;
	csv[row - 1] = '\n';
	len += (size_t)sprintf(csv + len, "1,5");
	for (size_t i = 0; i < n; i++) {
		csv[len++] = ',';
		len += escape_csv(csv + len, texts[i]);
	}
	csv[len++] = '\n';

	/* read back: the numeric columns as written, then each text */
	char *field = malloc(2 * size + 8);
	const char *p = csv + row, *end = csv + len;
	size_t flen;
	check(read_field(&p, end, field, &flen) && flen == 1 && field[0] == '1');
	check(read_field(&p, end, field, &flen) == (n > 0) && flen == 1 && field[0] == '5');
	for (size_t i = 0; i < n; i++) {
		bool more = read_field(&p, end, field, &flen);
		check(more == (i + 1 < n));
		check(same_text(texts[i], lens[i], field, flen));
	}
	check(p == end);

	if (!line_break) {
		struct csvpeak s;
		struct err e;
		check(csvpeak_scan(csv, len, 0, "v", &s, &e) == 0);
		check(s.rows == 1 && s.bad == 0 && s.fields == n + 2 && s.found);
		check(s.peak.int_part == 5 && !s.peak.negative && s.peak.frac_e18 == 0);
		csvpeak_release(&s);
	}
	free(field);
	free(csv);
	free(copy);
	return 0;
}
