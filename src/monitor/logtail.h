/* logtail: following a log file like `tail -F`, for probes a daemon writes to
 * its log instead of to a stream we own.
 *
 * Reading starts at the end of the file as it is when we begin (old lines are
 * not this run's), survives rotation (the path now names another inode: the
 * old file is drained, the new one read from its start) and truncation (the
 * file got shorter than our offset: read again from 0). A file that does not
 * exist yet is picked up when it appears.
 */
#ifndef PERFHUNT_LOGTAIL_H
#define PERFHUNT_LOGTAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct logtail {
	char *path;
	int fd;
	ino_t ino;
	dev_t dev;
	off_t pos;
	uint64_t rotations, truncations;
};

void logtail_init(struct logtail *t, const char *path);
void logtail_release(struct logtail *t);
/* Reads what was appended since the last call; fn gets each chunk. Returns
 * bytes read (0 when nothing new). */
size_t logtail_poll(struct logtail *t, void (*fn)(void *arg, const char *buf, size_t n), void *arg);

/* A leading timestamp on a log line, as loggers write them: RFC 3339
 * ("2026-11-30T08:12:31.123456Z", "+02:00" or journalctl's "+0200" offsets,
 * a space instead of T, "," before the fraction as Python's logging writes
 * it), glog's "I1130 08:12:31.123456", syslog's and journalctl's
 * "Nov 30 08:12:31[.123456]", or epoch seconds/milliseconds (10 or 13 digits,
 * optional fraction), optionally in [brackets] (env_logger's "[TIME LEVEL
 * module]" too). A time without a zone is local time (TZ); a year-less one
 * is the year of now_epoch_ms (the previous one when that would put it more
 * than a day ahead). Returns the bytes it spans (with the blanks after it),
 * *epoch_ms and, when res_ms is not NULL, the resolution its digits give
 * (1000 ms for whole seconds), or 0 if none. */
size_t logtail_leading_time(const char *line, size_t n, double now_epoch_ms, double *epoch_ms,
			    double *res_ms);

#endif
