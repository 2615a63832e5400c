/* svg: markup buffer, XML escaping and atomic saving (see svg.h). */
#include "export/svg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/jsonio.h"
#include "util/xalloc.h"

void svg_init(struct svg *s)
{
	s->cap = 4096;
	s->buf = xmalloc(s->cap);
	s->buf[0] = '\0';
	s->len = 0;
}

void svg_release(struct svg *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

static void svg_append(struct svg *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap;
		void *b = s->buf;
		xgrow(&b, &cap, s->len + n + 1, 1);
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

void svg_raw(struct svg *s, const char *markup)
{
	svg_append(s, markup, strlen(markup));
}

/* Formats into the buffer, escaped for XML when escape is set. */
static void svg_vappend(struct svg *s, int escape, const char *fmt, va_list ap)
{
	char *t = NULL;
	if (vasprintf(&t, fmt, ap) < 0)
		return;
	if (escape)
		svg_text(s, t);
	else
		svg_raw(s, t);
	free(t);
}

void svg_printf(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	svg_vappend(s, 0, fmt, ap);
	va_end(ap);
}

void svg_text(struct svg *s, const char *text)
{
	const char *run = text;
	for (const char *p = text; *p; p++) {
		const char *rep;
		unsigned char c = (unsigned char)*p;
		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if (c >= 0x20 || c == '\n' || c == '\t')
				continue;
			rep = "?"; /* not allowed in XML 1.0 */
		}
		svg_append(s, run, (size_t)(p - run));
		svg_raw(s, rep);
		run = p + 1;
	}
	svg_raw(s, run);
}

void svg_textf(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	svg_vappend(s, 1, fmt, ap);
	va_end(ap);
}

int svg_save(const struct svg *s, const char *path, struct err *e)
{
	return jsonio_write_bytes(path, s->buf, s->len, e);
}
