/* err: one-line error messages filled by libraries, printed by commands. */
#include "util/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Appends ": tail" to the message, cut to fit (a cut message beats none). */
static void append(struct err *e, size_t used, const char *tail)
{
	size_t left = sizeof(e->msg) - used;
	if (used >= sizeof(e->msg) || left < 3)
		return;
	memcpy(e->msg + used, ": ", 2);
	size_t k = strnlen(tail, left - 3);
	memcpy(e->msg + used + 2, tail, k);
	e->msg[used + 2 + k] = 0;
}

int err_set(struct err *e, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

int err_sys(struct err *e, const char *fmt, ...)
{
	int saved = errno;
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		if (n >= 0)
			append(e, (size_t)n, strerror(saved));
	}
	errno = saved;
	return -1;
}

int err_wrap(struct err *e, const char *fmt, ...)
{
	if (e) {
		char old[sizeof(e->msg)];
		memcpy(old, e->msg, sizeof(old));
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		if (n >= 0)
			append(e, (size_t)n, old);
	}
	return -1;
}
