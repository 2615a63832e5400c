/* logtail: following a log file like `tail -F`, for probes a daemon writes to
 * its log instead of to a stream we own.
 *
 * Reading starts at the end of the file as it is when we begin (old lines are
 * not this run's), survives rotation (the path now names another inode: the
 * old file is drained, the new one read from its start) and truncation (the
 * file got shorter than our offset: read again from 0). A file that does not
 * exist yet is picked up when it appears.
 *
 * It never blocks and never runs long: a FIFO opens without waiting for a
 * writer, and each poll reads at most LOGTAIL_BUDGET_BYTES, so an endless
 * device (/dev/zero) or a log growing faster than we read costs a bounded
 * slice per wake-up; a regular file more than LOGTAIL_BACKLOG_BYTES behind
 * is skipped ahead to its recent end, and the bytes skipped are counted.
 */
#ifndef PERFHUNT_LOGTAIL_H
#define PERFHUNT_LOGTAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read per poll (per wake-up of the monitor), and the most a regular file
 * may lag behind its writer before the reader skips ahead. */
#define LOGTAIL_BUDGET_BYTES (256u * 1024)
#define LOGTAIL_BACKLOG_BYTES (64u << 20)

struct logtail {
	char *path;
	int fd;
	ino_t ino;
	dev_t dev;
	mode_t mode;               /* S_IFREG, S_IFIFO, S_IFCHR... of the open file */
	off_t pos;                 /* regular files: the next byte to read */
	bool resync;               /* after a skip: drop bytes up to the next newline */
	bool unusable;             /* the path names a directory */
	uint64_t rotations, truncations;
	uint64_t read_bytes, skipped_bytes, skips;
	uint64_t budget_hits;      /* polls that stopped at the budget with more to read */
};

void logtail_init(struct logtail *t, const char *path);
void logtail_release(struct logtail *t);
/* Reads what was appended since the last call, at most LOGTAIL_BUDGET_BYTES;
 * fn gets each chunk, and (NULL, 0) when bytes were skipped (an unfinished
 * line must be dropped). Returns bytes read (0 when nothing new). */
size_t logtail_poll(struct logtail *t, void (*fn)(void *arg, const char *buf, size_t n), void *arg);

/* One line for the run's notes when the follower had to cut corners (bytes
 * skipped, an endless device, reads at the budget's limit); false when not. */
bool logtail_report(const struct logtail *t, char *buf, size_t n);

/* A leading timestamp on a log line, as loggers write them: RFC 3339
 * ("2026-11-30T08:12:31.123456Z", "+02:00" or journalctl's "+0200" offsets,
 * a space instead of T, "," before the fraction as Python's logging writes
 * it), glog's "I1130 08:12:31.123456", syslog's and journalctl's
 * "Nov 30 08:12:31[.123456]", or epoch seconds, milliseconds, microseconds
 * or nanoseconds (10, 13, 16 or 19 digits, optional fraction), optionally in [brackets] (env_logger's "[TIME LEVEL
 * module]" too). A time without a zone is local time (TZ); a year-less one
 * is the year of now_epoch_ms (the previous one when that would put it more
 * than a day ahead). Returns the bytes it spans (with the blanks after it),
 * *epoch_ms and, when res_ms is not NULL, the resolution its digits give
 * (1000 ms for whole seconds), or 0 if none. */
size_t logtail_leading_time(const char *line, size_t n, double now_epoch_ms, double *epoch_ms,
			    double *res_ms);

#endif
