/* quote: terminal-safe text and shell quoting (see quote.h).
 *
 * One scanner decides, byte by byte, what a terminal could act on; the C
 * style and the $'...' shell style only differ in how they write it.
 */
#include "util/quote.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Length of the unsafe sequence at p (0 when p starts safe text): a control
 * byte, DEL, a byte that starts no valid UTF-8 sequence, or the encoding of a
 * C1 control or a bidirectional override (U+202A..U+202E, U+2066..U+2069). */
static size_t quote_unsafe_len(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c < 0x20 || c == 0x7f)
		return 1;
	if (c < 0x80)
		return 0;
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (!n)
		return 1;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 1;
	/* overlong, surrogate and out-of-range forms */
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) || (c == 0xf0 && p[1] < 0x90) ||
	    (c == 0xf4 && p[1] > 0x8f))
		return 1;
	if (c == 0xc2 && p[1] < 0xa0)
		return 2; /* U+0080..U+009F */
	if (c == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) || (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
		return 3;
	return 0;
}

/* Length of the valid, safe multi-byte character or plain byte at p. */
static size_t quote_char_len(const unsigned char *p)
{
	unsigned char c = p[0];
	return c < 0x80 ? 1 : c <= 0xdf ? 2 : c <= 0xef ? 3 : 4;
}

bool quote_needed(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p += quote_char_len(p))
		if (quote_unsafe_len(p))
			return true;
	return false;
}

/* Appends the escaped form of s between open and close; shell selects \e and \' over \033 and \". */
/* The style of an escaped string: C's "...", the shell's $'...', or bare
 * (a message: only the unsafe bytes escaped, its own quotes kept). */
enum quote_style { QUOTE_C, QUOTE_SHELL, QUOTE_BARE };

static char *quote_escaped(char *out, size_t *len, size_t *cap, const char *s, enum quote_style style)
{
	bool shell = style == QUOTE_SHELL, bare = style == QUOTE_BARE;
	const char *open = bare ? "" : shell ? "$'" : "\"";
	xgrow((void **)&out, cap, *len + 4 * strlen(s) + 4, 1);
	char *o = out + *len;
	o = stpcpy(o, open);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t bad = quote_unsafe_len(p);
		if (!bad) {
			unsigned char c = *p;
			size_t n = quote_char_len(p);
			if (!bare && (c == '\\' || c == (shell ? '\'' : '"')))
				*o++ = '\\';
			memcpy(o, p, n);
			o += n;
			p += n;
			continue;
		}
		for (size_t i = 0; i < bad; i++, p++) {
			static const char named[] = "\a\b\t\n\v\f\r";
			const char *k = *p ? strchr(named, *p) : NULL;
			if (k) {
				*o++ = '\\';
				*o++ = "abtnvfr"[k - named];
			} else if (shell && *p == 0x1b) {
				o = stpcpy(o, "\\e");
			} else {
				o += sprintf(o, "\\%03o", *p);
			}
		}
	}
	if (!bare)
		*o++ = shell ? '\'' : '"';
	*o = '\0';
	*len = (size_t)(o - out);
	return out;
}

char *quote_c(const char *s)
{
	if (!quote_needed(s))
		return xstrdup(s);
	size_t len = 0, cap = 0;
	return quote_escaped(NULL, &len, &cap, s, QUOTE_C);
}

char *quote_message(const char *s)
{
	if (!quote_needed(s))
		return xstrdup(s);
	size_t len = 0, cap = 0;
	return quote_escaped(NULL, &len, &cap, s, QUOTE_BARE);
}

int quote_fputs(const char *s, FILE *f)
{
	if (!quote_needed(s))
		return fputs(s, f);
	char *q = quote_c(s);
	int rc = fputs(q, f);
	free(q);
	return rc;
}

const char *quote_pool_c(struct quote_pool *p, const char *s)
{
	if (!s || !quote_needed(s))
		return s;
	xgrow((void **)&p->held, &p->cap, p->n + 1, sizeof(*p->held));
	return p->held[p->n++] = quote_c(s);
}

void quote_pool_release(struct quote_pool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->held[i]);
	free(p->held);
	p->held = NULL;
	p->n = p->cap = 0;
}

void quote_shell(struct quote_line *l, const char *word, bool term)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";
	size_t wl = strlen(word);
	xgrow((void **)&l->s, &l->cap, l->len + 4 * wl + 5, 1);
	if (l->len)
		l->s[l->len++] = ' ';
	l->s[l->len] = '\0';
	if (term && quote_needed(word)) {
		l->s = quote_escaped(l->s, &l->len, &l->cap, word, QUOTE_SHELL);
		return;
	}
	char *o = l->s + l->len;
	if (wl > 0 && strspn(word, safe) == wl) {
		o = stpcpy(o, word);
	} else {
		*o++ = '\'';
		for (const char *p = word; *p; p++) {
			if (*p == '\'')
				o = stpcpy(o, "'\\''");
			else
				*o++ = *p;
		}
		*o++ = '\'';
		*o = '\0';
	}
	l->len = (size_t)(o - l->s);
}
