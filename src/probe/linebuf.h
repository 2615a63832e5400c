/* linebuf: splits a byte stream (pipe reads) into lines for the probe parser.
 *
 * It only observes: the caller copies the bytes to the terminal itself. Lines
 * split across reads are joined in a buffer that never grows past max_line;
 * a longer line is passed once, cut at max_line and marked truncated, and the
 * rest of it is skipped. Complete lines inside one chunk are passed straight
 * from the caller's bytes, without a copy.
 */
#ifndef PERFHUNT_LINEBUF_H
#define PERFHUNT_LINEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINEBUF_DEFAULT_MAX 65536

/* Called once per line, without its '\n'; line is not NUL-terminated and may
 * hold any bytes, NUL included; it is valid only during the call. */
typedef void (*linebuf_fn)(void *ctx, const char *line, size_t n, bool truncated);

struct linebuf {
	linebuf_fn fn;
	void *ctx;
	size_t max_line;
	char *buf;          /* the start of an unfinished line */
	size_t len, cap;
	bool skipping;      /* inside a line already passed as truncated */
	uint64_t lines;     /* lines passed to fn */
	uint64_t truncated; /* of which cut at max_line */
};

/* max_line 0 means LINEBUF_DEFAULT_MAX. */
void linebuf_init(struct linebuf *b, size_t max_line, linebuf_fn fn, void *ctx);
void linebuf_feed(struct linebuf *b, const char *data, size_t n);
/* The stream skipped bytes: the unfinished line, if any, is dropped (not
 * passed), and the bytes up to the next '\n' belong to no line we know. */
void linebuf_discard(struct linebuf *b);
/* At end of stream: passes a final line that had no '\n'. */
void linebuf_flush(struct linebuf *b);
void linebuf_release(struct linebuf *b);

#endif
