/* svg: a growable markup buffer for the SVG and HTML that perfhunt writes.
 *
 * Every string that comes from a record (a command line, a phase name, a
 * hostname) goes through svg_text/svg_textf, which escape it for XML and
 * HTML, so a probe named "<script>" stays text. svg_raw/svg_printf are for
 * markup perfhunt itself builds. svg_save writes the buffer atomically.
 */
#ifndef PERFHUNT_SVG_H
#define PERFHUNT_SVG_H

#include <stddef.h>
#include "util/err.h"

struct svg {
	char *buf; /* owned, NUL-terminated */
	size_t len, cap;
};

void svg_init(struct svg *s);
void svg_release(struct svg *s);
/* Appends trusted markup as is. */
void svg_raw(struct svg *s, const char *markup);
void svg_printf(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends text escaped for XML/HTML (& < > " '); control characters become '?'. */
void svg_text(struct svg *s, const char *text);
void svg_textf(struct svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes the buffer to path ("-" = stdout) atomically (jsonio_write_bytes: a
 * temporary file and a rename), so no partial file is left under the final
 * name. A path that exists and is not a regular file (/dev/full, a FIFO) is
 * written in place, never replaced. */
int svg_save(const struct svg *s, const char *path, struct err *e);

#endif
