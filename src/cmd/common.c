/* common: the few output conventions every command shares. */
#include "cmd/cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/lookup.h"

int cmd_fail(int status, const struct err *e)
{
	fprintf(stderr, "perfhunt: %s\n", e && e->msg[0] ? e->msg : "failed");
	return status;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "perfhunt %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see 'perfhunt %s --help')\n", cmd);
	va_end(ap);
	return PH_EXIT_USAGE;
}

int cmd_finish_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		/* A reader that went away (| head) is not worth a message. */
		if (errno != EPIPE)
			fprintf(stderr, "perfhunt: error writing output: %s\n", strerror(errno));
		return status ? status : PH_EXIT_FAIL;
	}
	return status;
}

int cmd_use_color(int fd)
{
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return 0;
	return isatty(fd);
}

int cmd_find_daemon(const char *name, const char *pidfile, pid_t *pid, struct err *e)
{
	if (name && lookup_by_name(name, pid, e) < 0)
		return -1;
	if (pidfile && lookup_pidfile(pidfile, pid, e) < 0)
		return -1;
	return *pid > 0 ? lookup_check_pid(*pid, e) : 0;
}
