/* escape: CSV fields, markdown cells and folded-stack frames (see escape.h).
 *
 * Byte by byte and allocation-free where a caller writes rows in a loop (the
 * timeline CSV writes one per sample into a fixed buffer); the FILE writers
 * serve the exports that stream.
 */
#include "util/escape.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* [+-]?[0-9]+(\.[0-9]+)?: what a spreadsheet reads as a number, not a formula. */
static bool plain_number(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	size_t n = strspn(s, "0123456789");
	if (!n)
		return false;
	s += n;
	if (*s == '.') {
		n = strspn(++s, "0123456789");
		if (!n)
			return false;
		s += n;
	}
	return !*s;
}

size_t escape_csv(char *out, const char *s)
{
	bool formula = s[0] && strchr("=+-@\t\r", s[0]) && !plain_number(s);
	if (!formula && !s[strcspn(s, ",\"\r\n")]) {
		size_t n = strlen(s);
		memcpy(out, s, n + 1);
		return n;
	}
	char *o = out;
	*o++ = '"';
	if (formula)
		*o++ = '\'';
	for (; *s; s++) {
		if (*s == '"')
			*o++ = '"';
		*o++ = *s;
	}
	*o++ = '"';
	*o = '\0';
	return (size_t)(o - out);
}

int escape_csv_fputs(const char *s, FILE *f)
{
	char small[256];
	size_t need = ESCAPE_CSV_BYTES(strlen(s));
	char *buf = need <= sizeof(small) ? small : xmalloc(need);
	escape_csv(buf, s);
	int rc = fputs(buf, f);
	if (buf != small)
		free(buf);
	return rc;
}

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void escape_markdown(const char *s, FILE *f)
{
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == 0x7f) {
			fputc(' ', f);
		} else if (c == '<') {
			fputs("&lt;", f);
		} else if (c == '>') {
			fputs("&gt;", f);
		} else if (c == '&') {
			fputs("&amp;", f);
		} else if (strchr("\\|`*[]~", c) ||
			   /* "wall_s": an underscore inside a word opens no emphasis */
			   (c == '_' && !(p > s && is_alnum(p[-1]) && is_alnum(p[1])))) {
			fputc('\\', f);
			fputc(c, f);
		} else {
			fputc(c, f);
		}
	}
}

void escape_markdown_code(const char *s, FILE *f)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '|')
			fputs("\\|", f);
		else
			fputc(c < 0x20 || c == 0x7f ? ' ' : c == '`' ? '\'' : c, f);
	}
}

size_t escape_frame(char *out, const char *name)
{
	static const char hex[] = "0123456789ABCDEF";
	char *o = out;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == '%' || *p == ';' || *p < 0x20 || *p == 0x7f) {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		} else {
			*o++ = (char)*p;
		}
	}
	*o = '\0';
	return (size_t)(o - out);
}

static int hex_value(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

size_t escape_frame_decode(char *out, const char *s, size_t n)
{
	char *o = out;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n && (hi = hex_value(s[i + 1])) >= 0 &&
		    (lo = hex_value(s[i + 2])) >= 0) {
			*o++ = (char)(hi << 4 | lo);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return (size_t)(o - out);
}
