/* linebuf: bounded line splitting over arbitrary chunks.
 *
 * memchr finds each '\n'; only the unfinished tail of a chunk is copied, and
 * the copy is capped at max_line bytes, so memory stays bounded whatever the
 * child writes (one endless line, binary data, NULs).
 */
#include "probe/linebuf.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void linebuf_init(struct linebuf *b, size_t max_line, linebuf_fn fn, void *ctx)
{
	memset(b, 0, sizeof(*b));
	b->fn = fn;
	b->ctx = ctx;
	b->max_line = max_line ? max_line : LINEBUF_DEFAULT_MAX;
}

void linebuf_release(struct linebuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

static void emit(struct linebuf *b, const char *line, size_t n, bool truncated)
{
	b->lines++;
	b->truncated += truncated;
	b->fn(b->ctx, line, n, truncated);
}

/* Adds the bytes of an unfinished line; passes it as truncated once it
 * would exceed max_line, then skips until its end. */
static void append(struct linebuf *b, const char *data, size_t n)
{
	if (b->skipping || !n)
		return;
	size_t room = b->max_line - b->len;
	size_t take = n < room ? n : room;
	if (take) {
		if (b->len + take > b->cap) { /* double, but never past max_line */
			size_t cap = b->cap ? 2 * b->cap : 256;
			if (cap < b->len + take)
				cap = b->len + take;
			if (cap > b->max_line)
				cap = b->max_line;
			b->buf = xrealloc(b->buf, cap);
			b->cap = cap;
		}
		memcpy(b->buf + b->len, data, take);
		b->len += take;
	}
	if (n > take) {
		emit(b, b->buf, b->len, true);
		b->len = 0;
		b->skipping = true;
	}
}

void linebuf_feed(struct linebuf *b, const char *data, size_t n)
{
	const char *end = data + n;
	while (data < end) {
		const char *nl = memchr(data, '\n', (size_t)(end - data));
		if (!nl) {
			append(b, data, (size_t)(end - data));
			return;
		}
		size_t part = (size_t)(nl - data);
		if (b->skipping) {
			b->skipping = false;
		} else if (b->len == 0 && part <= b->max_line) {
			emit(b, data, part, false);
		} else {
			append(b, data, part);
			if (b->skipping)
				b->skipping = false; /* the line ended right here */
			else
				emit(b, b->buf, b->len, false);
		}
		b->len = 0;
		data = nl + 1;
	}
}

void linebuf_discard(struct linebuf *b)
{
	b->len = 0;
	b->skipping = false;
}

void linebuf_flush(struct linebuf *b)
{
	if (b->len && !b->skipping)
		emit(b, b->buf, b->len, false);
	b->len = 0;
	b->skipping = false;
}
