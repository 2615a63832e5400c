/* perfhunt/probe.h: phase markers for programs measured by perfhunt.
 *
 * Header-only, no library to link. Under `perfhunt run`, $PERFHUNT_FD names a
 * file descriptor (one digit, 3 to 9, so shells can use it too); ph_begin("load") writes the line "PERFHUNT: begin=load"
 * there with a single write(), so the program's own output is untouched.
 * The descriptor is looked up once, before main (a constructor), so without
 * $PERFHUNT_FD every call costs one branch and never allocates. Lines stay
 * under PIPE_BUF, so threads may call these functions concurrently. errno
 * is preserved. Names are sent as printable ASCII (other bytes become '_').
 *
 *   #include <perfhunt/probe.h>          cc prog.c $(pkg-config --cflags perfhunt)
 *   ph_begin("load");  load();  ph_end("load");
 *   ph_value("num_circuits", 10);
 *   ph_begin_lane("msm", "gpu_tid", 0);  ...  ph_end_lane("msm", "gpu_tid", 0);
 *   ph_duration_ms("pin_abc", 5733.0);   phase pin_abc, ending now
 */
#ifndef PERFHUNT_PROBE_H
#define PERFHUNT_PROBE_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PH_NAME_MAX 128

/* -1: no $PERFHUNT_FD (or not an open descriptor): every call returns at once. */
static int ph__fd __attribute__((unused)) = -1;

/* Reads $PERFHUNT_FD; runs before main, and again if called (tests do). */
__attribute__((constructor, unused)) static void ph__init(void)
{
	const char *s = getenv("PERFHUNT_FD");
	int saved = errno;
	char *end;
	long v;
	ph__fd = -1;
	if (!s || *s < '0' || *s > '9')
		return;
	v = strtol(s, &end, 10);
	if (!*end && v >= 0 && v <= INT_MAX && fcntl((int)v, F_GETFD) >= 0)
		ph__fd = (int)v;
	errno = saved;
}

/* Appends s to buf as printable ASCII, at most PH_NAME_MAX bytes. */
static inline size_t ph__put(char *buf, size_t len, const char *s)
{
	size_t i;
	for (i = 0; s && s[i] && i < PH_NAME_MAX; i++) {
		unsigned char ch = (unsigned char)s[i];
		buf[len++] = (ch > 0x20 && ch < 0x7f && ch != '=') ? (char)ch : '_';
	}
	return len;
}

/* Writes "PERFHUNT: key=value[suffix] [lane_key=lane]\n" in one write(). */
static inline void ph__line(const char *key, const char *suffix, const char *value,
			    const char *lane_key, long lane)
{
	char buf[4 * PH_NAME_MAX + 96];
	size_t len = 0;
	int saved = errno;
	len = ph__put(buf, len, "PERFHUNT:");
	buf[len++] = ' ';
	len = ph__put(buf, len, key);
	len = ph__put(buf, len, suffix);
	buf[len++] = '=';
	len = ph__put(buf, len, value);
	if (lane_key) {
		char num[24];
		snprintf(num, sizeof(num), "%ld", lane);
		buf[len++] = ' ';
		len = ph__put(buf, len, lane_key);
		buf[len++] = '=';
		len = ph__put(buf, len, num);
	}
	buf[len++] = '\n';
	while (write(ph__fd, buf, len) < 0 && errno == EINTR)
		;
	errno = saved;
}

static inline void ph__number(const char *key, const char *suffix, double v)
{
	char num[40];
	snprintf(num, sizeof(num), "%.15g", v);
	ph__line(key, suffix, num, NULL, 0);
}

/* Opens phase name (closed by ph_end with the same name). */
static inline void ph_begin(const char *name)
{
	if (ph__fd >= 0)
		ph__line("begin", "", name, NULL, 0);
}

static inline void ph_end(const char *name)
{
	if (ph__fd >= 0)
		ph__line("end", "", name, NULL, 0);
}

/* The same on a lane, e.g. ph_begin_lane("msm", "gpu_tid", 0). */
static inline void ph_begin_lane(const char *name, const char *lane_key, long lane)
{
	if (ph__fd >= 0)
		ph__line("begin", "", name, lane_key, lane);
}

static inline void ph_end_lane(const char *name, const char *lane_key, long lane)
{
	if (ph__fd >= 0)
		ph__line("end", "", name, lane_key, lane);
}

/* A value recorded with the probe: "PERFHUNT: key=v". */
static inline void ph_value(const char *key, double v)
{
	if (ph__fd >= 0)
		ph__number(key, "", v);
}

/* A phase that just ended and lasted ms: "PERFHUNT: name_ms=ms". */
static inline void ph_duration_ms(const char *name, double ms)
{
	if (ph__fd >= 0)
		ph__number(name, "_ms", ms);
}

#endif
