/* err: how libraries report failure without printing.
 *
 * Every fallible function returns 0 (or a count) on success and a negative
 * value on failure, and fills an optional struct err with one line that says
 * what is wrong first ("cannot open 'x.csv': No such file or directory").
 * Only src/cmd/ and src/main.c turn an err into output and an exit status.
 */
#ifndef PERFHUNT_ERR_H
#define PERFHUNT_ERR_H

#include <stddef.h>

struct err {
	char msg[512];
};

/* Formats the message into e (if non-NULL) and returns -1. */
int err_set(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like err_set, appending ": strerror(errno)"; returns -1. errno is kept. */
int err_sys(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefixes an existing message: "context: old message"; returns -1. */
int err_wrap(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
