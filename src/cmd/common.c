/* common: the few output conventions every command shares: the error line,
 * the usage error, --help from a command's option table, stdout's flush.
 */
#include "cmd/cmd.h"

#include "record/jsonio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/lookup.h"
#include "util/parse.h"
#include "util/quote.h"

int cmd_fail(int status, const struct err *e)
{
	/* A message can hold a file name or a record's text: quoted when it has escapes. */
	char *msg = quote_message(e && e->msg[0] ? e->msg : "failed");
	fprintf(stderr, "perfhunt: %s\n", msg);
	free(msg);
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

int cmd_parse_options(const struct cmd_options *o, int argc, char **argv, int *status)
{
	struct err e = { { 0 } };
	int n = 0;
	char *text;
	switch (parseopt_parse(o->table, argc, argv, o->flags, &n, &e)) {
	case PARSEOPT_OK:
		return n;
	case PARSEOPT_HELP:
		text = parseopt_help(o->table);
		fputs(o->usage, stdout);
		fputs(text, stdout);
		if (o->footer)
			printf("\n%s", o->footer);
		free(text);
		*status = cmd_finish_stdout(PH_EXIT_OK);
		return -1;
	case PARSEOPT_HELP_OPTIONS:
		text = parseopt_names(o->table);
		fputs(text, stdout);
		free(text);
		*status = cmd_finish_stdout(PH_EXIT_OK);
		return -1;
	case PARSEOPT_ERROR:
		break;
	}
	fprintf(stderr, "perfhunt %s: %s (see 'perfhunt %s --help'%s%s)\n", o->name, e.msg,
		o->help_name ? o->help_name : o->name, o->usage_note ? "; " : "", o->usage_note ? o->usage_note : "");
	*status = o->usage_status ? o->usage_status : PH_EXIT_USAGE;
	return -1;
}

int cmd_opt_threshold(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	double v;
	if (parse_double(arg, 0, 100, &v, "--threshold", e) < 0)
		return -1;
	*(double *)row->value = v / 100;
	return 0;
}

int cmd_opt_duration(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	double *ms = row->value;
	char name[64];
	snprintf(name, sizeof(name), "--%s", row->long_name ? row->long_name : "duration");
	if (parse_duration_ms(arg, 1000, ms, name, e) < 0)
		return -1;
	if (!(*ms > 0))
		return err_set(e, "%s must be positive, got '%s'", name, arg);
	return 0;
}

int cmd_opt_alpha(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	double v;
	if (parse_double(arg, 0, 1, &v, "--alpha", e) < 0 || v == 0)
		return err_set(e, "--alpha: expected a number in (0, 1], got '%s'", arg);
	*(double *)row->value = v;
	return 0;
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

int cmd_write_export(const char *path, int (*fn)(const json_t *, FILE *, struct err *), const json_t *rec,
		     struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return err_sys(e, "cannot write '%s'", path);
	int rc = fn(rec, f, e);
	if (fclose(f) != 0 && rc == 0)
		rc = err_sys(e, "cannot write '%s'", path);
	if (rc == 0)
		rc = jsonio_write_bytes(path, buf, len, e);
	else
		err_wrap(e, "cannot write '%s'", path);
	free(buf);
	return rc < 0 ? -1 : 0;
}

int cmd_write_exports(const struct cmd_export *ex, size_t n, const json_t *rec, int status)
{
	for (size_t i = 0; i < n; i++) {
		struct err e;
		if (ex[i].path && cmd_write_export(ex[i].path, ex[i].fn, rec, &e) < 0)
			status = cmd_fail(status ? status : PH_EXIT_FAIL, &e);
	}
	return status;
}

int cmd_check_outputs(const struct session_outputs *o)
{
	struct err e;
	return session_check_outputs(o, &e) < 0 ? cmd_fail(PH_EXIT_USAGE, &e) : 0;
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
	int rc = 0;
	if (name && lookup_by_name(name, pid, e) < 0)
		return PH_EXIT_FAIL;
	if (pidfile && (rc = lookup_pidfile(pidfile, pid, e)) < 0)
		return rc == LOOKUP_NOT_FILE ? PH_EXIT_USAGE : PH_EXIT_FAIL;
	return *pid > 0 && lookup_check_pid(*pid, e) < 0 ? PH_EXIT_FAIL : 0;
}
