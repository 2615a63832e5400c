/* perfhunt/probe.h: phase markers for programs measured by perfhunt.
 *
 * Header-only, no library to link. Under `perfhunt run`, $PERFHUNT_FD names a
 * file descriptor (one digit, 3 to 9, so shells can use it too); ph_begin("load") writes the line "PERFHUNT: begin=load"
 * there with a single write(), so the program's own output is untouched.
 * Where perfhunt also gives $PERFHUNT_ACK_FD, a marker (begin, end, a
 * duration) asks for an acknowledgement ("ping" after its line, in the same
 * write) and returns once perfhunt has sampled the tree ("ack" comes back),
 * so work that follows at once counts in its own phase, as perf stat's
 * --control fd:CTL,ACK does. The wait is bounded: after PH_ACK_TIMEOUT_MS
 * (1000 ms unless defined before the include) without an answer, or at EOF
 * (perfhunt gone), markers stop waiting for the rest of the run. Threads
 * wait one at a time; a forked child does not wait (it shares the
 * descriptors with its parent). The descriptors are looked up once, before
 * main (a constructor), so without $PERFHUNT_FD every call costs one branch
 * and never allocates. Lines stay under PIPE_BUF, so threads may call these
 * functions concurrently. errno is preserved. Names are sent as printable
 * ASCII (other bytes become '_').
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
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PH_NAME_MAX 128
#ifndef PH_ACK_TIMEOUT_MS
#define PH_ACK_TIMEOUT_MS 1000
#endif

/* -1: no $PERFHUNT_FD (or not an open descriptor): every call returns at once. */
static int ph__fd __attribute__((unused)) = -1;
/* -1: markers do not wait (no $PERFHUNT_ACK_FD, or perfhunt stopped answering). */
static int ph__ack_fd __attribute__((unused)) = -1;
/* The process that may wait: a forked child would take its parent's acks. */
static pid_t ph__ack_pid __attribute__((unused));
/* One marker waits at a time, across every file that includes this header
 * (a weak definition: the linker keeps one). */
extern pthread_mutex_t ph__ack_lock;
__attribute__((weak)) pthread_mutex_t ph__ack_lock = PTHREAD_MUTEX_INITIALIZER;

/* The descriptor named by the variable, or -1. */
static inline int ph__env_fd(const char *name)
{
	const char *s = getenv(name);
	char *end;
	long v;
	if (!s || *s < '0' || *s > '9')
		return -1;
	v = strtol(s, &end, 10);
	return !*end && v >= 0 && v <= INT_MAX && fcntl((int)v, F_GETFD) >= 0 ? (int)v : -1;
}

/* Reads $PERFHUNT_FD and $PERFHUNT_ACK_FD; runs before main, and again if
 * called (tests do). */
__attribute__((constructor, unused)) static void ph__init(void)
{
	int saved = errno;
	ph__fd = ph__env_fd("PERFHUNT_FD");
	ph__ack_fd = ph__fd >= 0 ? ph__env_fd("PERFHUNT_ACK_FD") : -1;
	ph__ack_pid = getpid();
	errno = saved;
}

/* Waits for one "ack\n" (perfhunt writes each whole, so a read of 4 takes
 * exactly one); a timeout or EOF ends the waiting for good. A signal
 * restarts the wait, at most three times. */
static inline void ph__wait_ack(void)
{
	char buf[4];
	int again = 3;
	for (;;) {
		struct pollfd p = { ph__ack_fd, POLLIN, 0 };
		int r = poll(&p, 1, PH_ACK_TIMEOUT_MS);
		ssize_t n = r > 0 ? read(ph__ack_fd, buf, sizeof(buf)) : -1;
		if (n > 0)
			return;
		if ((r < 0 || (r > 0 && n < 0)) && (errno == EINTR || errno == EAGAIN) && again-- > 0)
			continue;
		ph__ack_fd = -1;
		return;
	}
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

/* Writes "PERFHUNT: key=value[suffix] [lane_key=lane]\n" in one write();
 * with mark, a marker that waits for its sample where perfhunt answers. */
static inline void ph__line(const char *key, const char *suffix, const char *value,
			    const char *lane_key, long lane, int mark)
{
	char buf[4 * PH_NAME_MAX + 96];
	size_t len = 0;
	int saved = errno;
	int wait = mark && ph__ack_fd >= 0 && getpid() == ph__ack_pid;
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
	if (wait) {
		buf[len++] = 'p', buf[len++] = 'i', buf[len++] = 'n', buf[len++] = 'g', buf[len++] = '\n';
		pthread_mutex_lock(&ph__ack_lock);
	}
	while (write(ph__fd, buf, len) < 0 && errno == EINTR)
		;
	if (wait) {
		if (ph__ack_fd >= 0)
			ph__wait_ack();
		pthread_mutex_unlock(&ph__ack_lock);
	}
	errno = saved;
}

static inline void ph__number(const char *key, const char *suffix, double v, int mark)
{
	char num[40];
	snprintf(num, sizeof(num), "%.15g", v);
	ph__line(key, suffix, num, NULL, 0, mark);
}

/* Opens phase name (closed by ph_end with the same name). */
static inline void ph_begin(const char *name)
{
	if (ph__fd >= 0)
		ph__line("begin", "", name, NULL, 0, 1);
}

static inline void ph_end(const char *name)
{
	if (ph__fd >= 0)
		ph__line("end", "", name, NULL, 0, 1);
}

/* The same on a lane, e.g. ph_begin_lane("msm", "gpu_tid", 0). */
static inline void ph_begin_lane(const char *name, const char *lane_key, long lane)
{
	if (ph__fd >= 0)
		ph__line("begin", "", name, lane_key, lane, 1);
}

static inline void ph_end_lane(const char *name, const char *lane_key, long lane)
{
	if (ph__fd >= 0)
		ph__line("end", "", name, lane_key, lane, 1);
}

/* A value recorded with the probe: "PERFHUNT: key=v". */
static inline void ph_value(const char *key, double v)
{
	if (ph__fd >= 0)
		ph__number(key, "", v, 0);
}

/* A phase that just ended and lasted ms: "PERFHUNT: name_ms=ms". */
static inline void ph_duration_ms(const char *name, double ms)
{
	if (ph__fd >= 0)
		ph__number(name, "_ms", ms, 1);
}

#endif
