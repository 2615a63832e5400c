/* xalloc: allocation that aborts on exhaustion instead of returning NULL. */
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *check(void *p)
{
	if (!p) {
		fputs("perfhunt: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xcalloc(size_t count, size_t size) { return check(calloc(count ? count : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }
char *xstrndup(const char *s, size_t n) { return check(strndup(s, n)); }

void xgrow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	*p = xrealloc(*p, n * elem);
	*cap = n;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		check(NULL);
	return s;
}

char *xjoin(char *const *words, size_t n, const char *sep)
{
	size_t len = 1, slen = strlen(sep);
	for (size_t i = 0; i < n; i++)
		len += strlen(words[i]) + slen;
	char *s = xmalloc(len), *p = s;
	for (size_t i = 0; i < n; i++) {
		if (i) {
			memcpy(p, sep, slen);
			p += slen;
		}
		size_t w = strlen(words[i]);
		memcpy(p, words[i], w);
		p += w;
	}
	*p = 0;
	return s;
}

char **xstrv_dup(char *const *v)
{
	if (!v)
		return NULL;
	size_t n = 0;
	while (v[n])
		n++;
	char **out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

void xstrv_free(char **v)
{
	for (char **s = v; s && *s; s++)
		free(*s);
	free(v);
}
