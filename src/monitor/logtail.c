/* logtail: tail -F for probe logs, and the leading-timestamp parser.
 *
 * Nothing here may block or run unbounded: the monitor calls it from its
 * poll loop, with signals waiting in a signalfd. So every open is
 * O_NONBLOCK (a FIFO without a writer opens at once and reads as empty until
 * one comes), and each call reads at most LOGTAIL_BUDGET_BYTES, from a
 * regular file, a FIFO or a character device alike (/dev/zero is endless).
 */
#include "monitor/logtail.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/units.h"
#include "util/xalloc.h"

/* Opens path for following; fills the identity and kind. -1 when absent. */
static int open_log(struct logtail *t, struct stat *st)
{
	int fd = open(t->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || S_ISDIR(st->st_mode)) {
		t->unusable = true; /* a directory: nothing to follow */
		close(fd);
		return -1;
	}
	t->unusable = false;
	t->fd = fd;
	t->ino = st->st_ino;
	t->dev = st->st_dev;
	t->mode = st->st_mode & S_IFMT;
	t->pos = 0;
	return fd;
}

void logtail_init(struct logtail *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->path = xstrdup(path);
	struct stat st;
	if (open_log(t, &st) >= 0 && S_ISREG(st.st_mode))
		t->pos = st.st_size; /* this run's lines only */
}

void logtail_release(struct logtail *t)
{
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

/* Passes buf to fn, first dropping what is left of a line cut by a skip. */
static void deliver(struct logtail *t, const char *buf, size_t n,
		    void (*fn)(void *, const char *, size_t), void *arg)
{
	if (t->resync) {
		const char *nl = memchr(buf, '\n', n);
		size_t drop = nl ? (size_t)(nl - buf) + 1 : n;
		t->skipped_bytes += drop;
		buf += drop;
		n -= drop;
		if (nl)
			t->resync = false;
	}
	if (n)
		fn(arg, buf, n);
}

/* Reads at most *budget bytes of what is there now; returns bytes read. */
static size_t drain(struct logtail *t, size_t *budget, void (*fn)(void *, const char *, size_t), void *arg)
{
	char buf[65536];
	size_t total = 0;
	bool regular = t->mode == S_IFREG;
	if (regular) {
		/* far behind a writer faster than we read: skip to the recent end */
		struct stat st;
		if (fstat(t->fd, &st) == 0 && st.st_size - t->pos > (off_t)LOGTAIL_BACKLOG_BYTES) {
			off_t to = st.st_size - (off_t)LOGTAIL_BUDGET_BYTES;
			t->skipped_bytes += (uint64_t)(to - t->pos);
			t->skips++;
			t->pos = to;
			t->resync = true;
			fn(arg, NULL, 0); /* the unfinished line is cut: drop it */
		}
	}
	while (*budget) {
		size_t want = *budget < sizeof(buf) ? *budget : sizeof(buf);
		ssize_t r = regular ? pread(t->fd, buf, want, t->pos) : read(t->fd, buf, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* end of file, no writer, EAGAIN or an error: next time */
		if (regular)
			t->pos += r;
		total += (size_t)r;
		*budget -= (size_t)r;
		t->read_bytes += (uint64_t)r;
		deliver(t, buf, (size_t)r, fn, arg);
	}
	if (!*budget)
		t->budget_hits++;
	return total;
}

size_t logtail_poll(struct logtail *t, void (*fn)(void *arg, const char *buf, size_t n), void *arg)
{
	size_t total = 0, budget = LOGTAIL_BUDGET_BYTES;
	struct stat st;
	if (t->fd >= 0) {
		if (t->mode == S_IFREG && fstat(t->fd, &st) == 0 && st.st_size < t->pos) {
			t->pos = 0; /* truncated (copytruncate rotation) */
			t->truncations++;
		}
		total += drain(t, &budget, fn, arg);
	}
	if (stat(t->path, &st) < 0)
		return total; /* rotated away and not yet recreated */
	if (t->fd >= 0 && st.st_ino == t->ino && st.st_dev == t->dev)
		return total;
	/* a new file at the path: the old one is drained above, read the new one whole */
	int old = t->fd;
	ino_t ino = t->ino;
	dev_t dev = t->dev;
	mode_t mode = t->mode;
	off_t pos = t->pos;
	t->fd = -1;
	if (open_log(t, &st) < 0) {
		t->fd = old, t->ino = ino, t->dev = dev, t->mode = mode, t->pos = pos;
		return total;
	}
	if (old >= 0) {
		close(old);
		t->rotations++;
	}
	t->resync = false;
	return total + drain(t, &budget, fn, arg);
}

bool logtail_report(const struct logtail *t, char *buf, size_t n)
{
	char a[32], b[32];
	if (t->skipped_bytes) {
		snprintf(buf, n, "probe log '%s': %s skipped unread in %llu jumps (written faster than read), %s read",
			 t->path, units_kb((double)t->skipped_bytes / 1024, a, sizeof(a)),
			 (unsigned long long)t->skips, units_kb((double)t->read_bytes / 1024, b, sizeof(b)));
		return true;
	}
	if (t->mode == S_IFCHR && t->budget_hits) {
		snprintf(buf, n, "probe log '%s' is a character device that never ran dry: "
			 "%s read, %llu KiB per wake-up at most", t->path,
			 units_kb((double)t->read_bytes / 1024, a, sizeof(a)),
			 (unsigned long long)(LOGTAIL_BUDGET_BYTES / 1024));
		return true;
	}
	if (t->budget_hits) {
		snprintf(buf, n, "probe log '%s': read at the budget's limit (%llu KiB) at %llu wake-ups, %s in all",
			 t->path, (unsigned long long)(LOGTAIL_BUDGET_BYTES / 1024),
			 (unsigned long long)t->budget_hits, units_kb((double)t->read_bytes / 1024, a, sizeof(a)));
		return true;
	}
	return false;
}

static int digits(const char *p, const char *end, int count, int *out)
{
	int v = 0;
	for (int i = 0; i < count; i++) {
		if (p + i >= end || !isdigit((unsigned char)p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return 0;
}

/* ".ffffff" or ",fff" after the seconds: *frac in seconds, *res_ms the
 * resolution the digits give (1000 ms with none). Returns the bytes read. */
static size_t fraction(const char *p, const char *end, double *frac, double *res_ms)
{
	const char *s = p;
	double scale = 0.1;
	*frac = 0;
	*res_ms = 1000;
	if (p >= end || (*p != '.' && *p != ','))
		return 0;
	p++;
	while (p < end && isdigit((unsigned char)*p)) {
		*frac += (*p - '0') * scale;
		if (*res_ms > 1e-6)
			*res_ms /= 10;
		scale /= 10;
		p++;
	}
	return p - s == 1 ? 0 : (size_t)(p - s);
}

/* Epoch seconds of a wall-clock time: in UTC shifted by offset_min, or, with
 * no zone written (local == true), in the local zone (TZ), as Python's
 * logging, glog and syslog write it. */
static double to_epoch_s(int Y, int M, int D, int h, int m, int sec, bool local, int offset_min)
{
	struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D,
			 .tm_hour = h, .tm_min = m, .tm_sec = sec, .tm_isdst = -1 };
	if (local)
		return (double)mktime(&tm);
	return (double)timegm(&tm) - offset_min * 60.0;
}

static bool clock_ok(int M, int D, int h, int m, int sec)
{
	return M >= 1 && M <= 12 && D >= 1 && D <= 31 && h <= 23 && m <= 59 && sec <= 60;
}

/* "hh:mm:ss" at p; returns 8 or 0. */
static size_t hms(const char *p, const char *end, int *h, int *m, int *sec)
{
	if (digits(p, end, 2, h) || p + 2 >= end || p[2] != ':' || digits(p + 3, end, 2, m) ||
	    p + 5 >= end || p[5] != ':' || digits(p + 6, end, 2, sec))
		return 0;
	return 8;
}

/* "YYYY-MM-DD[T ]hh:mm:ss[.frac][Z|±hh:mm|±hhmm|±hh]"; no zone: local time.
 * Returns length or 0. */
static size_t rfc3339(const char *s, const char *end, double *epoch_ms, double *res_ms)
{
	int Y, M, D, h, m, sec;
	const char *p = s;
	if (digits(p, end, 4, &Y) || p + 4 >= end || p[4] != '-' || digits(p + 5, end, 2, &M) ||
	    p + 7 >= end || p[7] != '-' || digits(p + 8, end, 2, &D) || p + 10 >= end ||
	    (p[10] != 'T' && p[10] != ' ' && p[10] != 't') || !hms(p + 11, end, &h, &m, &sec))
		return 0;
	if (!clock_ok(M, D, h, m, sec))
		return 0;
	p += 19;
	double frac;
	p += fraction(p, end, &frac, res_ms);
	int offset_min = 0;
	bool local = true;
	if (p < end && (*p == 'Z' || *p == 'z')) {
		p++;
		local = false;
	} else if (p < end && (*p == '+' || *p == '-')) {
		int oh, om = 0;
		int sign = *p == '-' ? -1 : 1;
		if (digits(p + 1, end, 2, &oh))
			return 0;
		size_t len = 3;
		if (p + 3 < end && p[3] == ':') { /* +02:00 */
			if (digits(p + 4, end, 2, &om))
				return 0;
			len = 6;
		} else if (!digits(p + 3, end, 2, &om)) { /* +0200, as journalctl writes it */
			len = 5;
		}
		if (oh > 23 || om > 59)
			return 0;
		offset_min = sign * (oh * 60 + om);
		local = false;
		p += len;
	}
	*epoch_ms = (to_epoch_s(Y, M, D, h, m, sec, local, offset_min) + frac) * 1000.0;
	return (size_t)(p - s);
}

/* A year-less stamp (glog, syslog) is this year's, or last year's when that
 * would put it more than a day ahead of now (December's lines read in January). */
static double yearless(int M, int D, int h, int m, int sec, double now_epoch_ms)
{
	time_t now = (time_t)(now_epoch_ms / 1000.0);
	struct tm lt;
	localtime_r(&now, &lt);
	double t = to_epoch_s(lt.tm_year + 1900, M, D, h, m, sec, true, 0);
	if (t > (double)now + 86400)
		t = to_epoch_s(lt.tm_year + 1900 - 1, M, D, h, m, sec, true, 0);
	return t;
}

/* glog: "I1201 10:00:00.123456" (level letter, MMDD, local time). */
static size_t glog(const char *s, const char *end, double now_epoch_ms, double *epoch_ms,
		   double *res_ms)
{
	int M, D, h, m, sec;
	if (s >= end || !*s || !strchr("IWEF", *s) || digits(s + 1, end, 2, &M) ||
	    digits(s + 3, end, 2, &D) || s + 5 >= end || s[5] != ' ' || !hms(s + 6, end, &h, &m, &sec) ||
	    !clock_ok(M, D, h, m, sec))
		return 0;
	const char *p = s + 14;
	double frac;
	p += fraction(p, end, &frac, res_ms);
	*epoch_ms = (yearless(M, D, h, m, sec, now_epoch_ms) + frac) * 1000.0;
	return (size_t)(p - s);
}

/* syslog and journalctl's default: "Dec  1 10:00:00" or "Dec 01 10:00:00.123456". */
static size_t syslog_time(const char *s, const char *end, double now_epoch_ms, double *epoch_ms,
			  double *res_ms)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	if (end - s < 15 || s[3] != ' ')
		return 0;
	int M = 0;
	for (int i = 0; i < 12 && !M; i++)
		if (!memcmp(s, months + 3 * i, 3))
			M = i + 1;
	int D, h, m, sec;
	if (!M)
		return 0;
	if (s[4] == ' ' && isdigit((unsigned char)s[5]))
		D = s[5] - '0';
	else if (digits(s + 4, end, 2, &D))
		return 0;
	if (s[6] != ' ' || !hms(s + 7, end, &h, &m, &sec) || !clock_ok(M, D, h, m, sec))
		return 0;
	const char *p = s + 15;
	double frac;
	p += fraction(p, end, &frac, res_ms);
	*epoch_ms = (yearless(M, D, h, m, sec, now_epoch_ms) + frac) * 1000.0;
	return (size_t)(p - s);
}

/* Epoch seconds (10 digits), milliseconds (13), microseconds (16) or
 * nanoseconds (19: pino and zap can write them), optional fraction. */
static size_t epoch_digits(const char *p, const char *end, double *epoch_ms, double *res_ms)
{
	const char *q = p;
	while (q < end && isdigit((unsigned char)*q))
		q++;
	size_t nd = (size_t)(q - p);
	if (nd != 10 && nd != 13 && nd != 16 && nd != 19)
		return 0;
	double v = 0;
	for (const char *r = p; r < q; r++)
		v = v * 10 + (*r - '0');
	double frac = 0;
	if (q < end && *q == '.')
		q += fraction(q, end, &frac, res_ms);
	else
		*res_ms = 1000;
	/* the digits' unit in ms: s, ms, us, ns */
	double unit_ms = nd == 10 ? 1000.0 : nd == 13 ? 1.0 : nd == 16 ? 1e-3 : 1e-6;
	*epoch_ms = (v + frac) * unit_ms;
	*res_ms = *res_ms / 1000.0 * unit_ms;
	return (size_t)(q - p);
}

size_t logtail_leading_time(const char *line, size_t n, double now_epoch_ms, double *epoch_ms,
			    double *res_ms)
{
	const char *p = line, *end = line + n;
	double res = 1000;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	bool bracket = p < end && *p == '[';
	if (bracket)
		p++;
	bool calendar = true;
	size_t len = rfc3339(p, end, epoch_ms, &res);
	if (!len)
		len = glog(p, end, now_epoch_ms, epoch_ms, &res);
	if (!len)
		len = syslog_time(p, end, now_epoch_ms, epoch_ms, &res);
	if (!len) {
		calendar = false;
		len = epoch_digits(p, end, epoch_ms, &res);
	}
	if (!len)
		return 0;
	p += len;
	if (bracket) {
		/* "[TIME]", or env_logger's "[TIME LEVEL module]" around a calendar time */
		if (p < end && *p == ']')
			p++;
		else if (!calendar || p >= end || (*p != ' ' && *p != '\t'))
			return 0;
	}
	/* a timestamp is a word of its own */
	if (p < end && *p != ' ' && *p != '\t' && *p != ':')
		return 0;
	while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	if (res_ms)
		*res_ms = res;
	return (size_t)(p - line);
}
