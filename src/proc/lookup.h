/* lookup: finding the process a user names — by PID, name or pidfile — and
 * checking that we may measure it, with errors that say which it was.
 */
#ifndef PERFHUNT_LOOKUP_H
#define PERFHUNT_LOOKUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

/* Checks that PID exists and that its files are readable to us. */
int lookup_check_pid(pid_t pid, struct err *e);
/* Exact match on the process name (comm) or the basename of argv[0].
 * Exactly one match: 0 and *pid. None or several: -1, e names them. */
int lookup_by_name(const char *name, pid_t *pid, struct err *e);
/* lookup_pidfile's failure when the path is not a regular file (a FIFO, a
 * device, a directory): the user named the wrong thing, a usage error. */
enum { LOOKUP_NOT_FILE = -2 };
/* Reads a PID from a pidfile (one decimal number, optional newline); never
 * blocks. 0, LOOKUP_NOT_FILE, or -1 with e filled. */
int lookup_pidfile(const char *path, pid_t *pid, struct err *e);
/* Start time of a live process (clock ticks since boot, from /proc/PID/stat):
 * with the PID it names one process across PID reuse. -1 if it is gone or a
 * zombie. */
int lookup_starttime(pid_t pid, uint64_t *ticks);
/* The command line of PID as a NULL-terminated argv (one allocation; free() it). */
char **lookup_cmdline(pid_t pid);

#endif
