/* logtail: tail -F for probe logs, and the leading-timestamp parser. */
#include "monitor/logtail.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"

void logtail_init(struct logtail *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd >= 0) {
		struct stat st;
		fstat(t->fd, &st);
		t->ino = st.st_ino;
		t->dev = st.st_dev;
		t->pos = lseek(t->fd, 0, SEEK_END); /* this run's lines only */
	}
}

void logtail_release(struct logtail *t)
{
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

static size_t drain(struct logtail *t, void (*fn)(void *, const char *, size_t), void *arg)
{
	char buf[65536];
	size_t total = 0;
	for (;;) {
		ssize_t r = pread(t->fd, buf, sizeof(buf), t->pos);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		t->pos += r;
		total += (size_t)r;
		fn(arg, buf, (size_t)r);
	}
	return total;
}

size_t logtail_poll(struct logtail *t, void (*fn)(void *arg, const char *buf, size_t n), void *arg)
{
	size_t total = 0;
	struct stat st;
	if (t->fd >= 0) {
		if (fstat(t->fd, &st) == 0 && st.st_size < t->pos) {
			t->pos = 0; /* truncated (copytruncate rotation) */
			t->truncations++;
		}
		total += drain(t, fn, arg);
	}
	if (stat(t->path, &st) < 0)
		return total; /* rotated away and not yet recreated */
	if (t->fd >= 0 && st.st_ino == t->ino && st.st_dev == t->dev)
		return total;
	/* a new file at the path: the old one is drained above, read the new one whole */
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return total;
	if (t->fd >= 0) {
		close(t->fd);
		t->rotations++;
	}
	fstat(fd, &st);
	t->fd = fd;
	t->ino = st.st_ino;
	t->dev = st.st_dev;
	t->pos = 0;
	return total + drain(t, fn, arg);
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

/* "YYYY-MM-DD[T ]hh:mm:ss[.frac][Z|±hh:mm]"; returns length or 0. */
static size_t rfc3339(const char *s, const char *end, double *epoch_ms)
{
	int Y, M, D, h, m, sec;
	const char *p = s;
	if (digits(p, end, 4, &Y) || p + 4 >= end || p[4] != '-' || digits(p + 5, end, 2, &M) ||
	    p + 7 >= end || p[7] != '-' || digits(p + 8, end, 2, &D) || p + 10 >= end ||
	    (p[10] != 'T' && p[10] != ' ' && p[10] != 't') || digits(p + 11, end, 2, &h) ||
	    p + 13 >= end || p[13] != ':' || digits(p + 14, end, 2, &m) || p + 16 >= end ||
	    p[16] != ':' || digits(p + 17, end, 2, &sec))
		return 0;
	if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
		return 0;
	p += 19;
	double frac = 0, scale = 0.1;
	if (p < end && (*p == '.' || *p == ',')) {
		p++;
		while (p < end && isdigit((unsigned char)*p)) {
			frac += (*p - '0') * scale;
			scale /= 10;
			p++;
		}
	}
	int offset_min = 0;
	if (p < end && (*p == 'Z' || *p == 'z')) {
		p++;
	} else if (p < end && (*p == '+' || *p == '-')) {
		int oh, om;
		int sign = *p == '-' ? -1 : 1;
		if (digits(p + 1, end, 2, &oh) || p + 3 >= end || p[3] != ':' || digits(p + 4, end, 2, &om))
			return 0;
		offset_min = sign * (oh * 60 + om);
		p += 6;
	}
	/* no zone: read as UTC, like most daemons' ISO stamps */
	struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D,
			 .tm_hour = h, .tm_min = m, .tm_sec = sec };
	time_t t = timegm(&tm);
	*epoch_ms = ((double)t - offset_min * 60.0 + frac) * 1000.0;
	return (size_t)(p - s);
}

size_t logtail_leading_time(const char *line, size_t n, double *epoch_ms)
{
	const char *p = line, *end = line + n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	bool bracket = p < end && *p == '[';
	if (bracket)
		p++;
	size_t len = rfc3339(p, end, epoch_ms);
	if (!len) {
		/* epoch seconds (10 digits) or milliseconds (13), optional fraction */
		const char *q = p;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		size_t nd = (size_t)(q - p);
		if (nd != 10 && nd != 13)
			return 0;
		double v = 0;
		for (const char *r = p; r < q; r++)
			v = v * 10 + (*r - '0');
		double scale = 0.1, frac = 0;
		if (q < end && *q == '.') {
			q++;
			while (q < end && isdigit((unsigned char)*q)) {
				frac += (*q - '0') * scale;
				scale /= 10;
				q++;
			}
		}
		*epoch_ms = nd == 10 ? (v + frac) * 1000.0 : v + frac;
		len = (size_t)(q - p);
	}
	p += len;
	if (bracket) {
		if (p >= end || *p != ']')
			return 0;
		p++;
	}
	/* a timestamp is a word of its own */
	if (p < end && *p != ' ' && *p != '\t' && *p != ':')
		return 0;
	while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	return (size_t)(p - line);
}
