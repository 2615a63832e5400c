/* csv: the timeline CSV writer (format in docs/FORMATS.md).
 *
 * Each row is formatted into one buffer and written with a single write(2),
 * unbuffered: a monitor killed with SIGKILL leaves only whole rows behind,
 * and a full disk is noticed at the row that did not fit.
 */
#ifndef PERFHUNT_CSV_H
#define PERFHUNT_CSV_H

#include <stdbool.h>

#include "monitor/sample.h"
#include "util/err.h"

enum csv_format { CSV_FULL, CSV_SEED };

struct csv_writer {
	int fd;
	enum csv_format format;
	bool with_client;    /* a daemon is attached: the command's tree in client_* columns */
	long long whole_bytes; /* bytes of whole rows written: a failed write is cut back to it */
	char path[4096];
};

/* Opens path as fsafe_open_stream does (never through another user's link or
 * directory), takes an exclusive flock on a regular file, which a second
 * writer is refused (before anything is cut), then truncates it and writes
 * the header. */
int csv_open(struct csv_writer *w, const char *path, enum csv_format format, bool with_client,
	     struct err *e);
/* Returns 0, or -1 with errno set when the row could not be written whole.
 * client: the command's tree when a daemon is attached (s is the daemon's). */
int csv_write(struct csv_writer *w, const struct sample *s, const struct sample *client);
/* Closes; returns -1 (e filled) if the data could not be committed. */
int csv_close(struct csv_writer *w, struct err *e);
/* Formats one row into buf (with newline); returns its length. Exposed for tests. */
size_t csv_format_row(enum csv_format format, const struct sample *s, const struct sample *client,
		      char *buf, size_t n);
extern const char csv_header[];
extern const char csv_client_header[];

#endif
