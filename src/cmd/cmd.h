/* cmd: the command layer — option parsing, orchestration, output, exit status.
 *
 * To add a command: write src/cmd/<name>.c with `int cmd_<name>(int argc,
 * char **argv)` (argv[0] is the command name), declare it here, add one row to
 * the table in src/main.c, its source to src/cmd/meson.build, a section to
 * docs/perfhunt.1 and the README, and tests under tests/cli/.
 * Commands return an exit status from enum ph_exit (or a child's status);
 * they never call exit().
 */
#ifndef PERFHUNT_CMD_H
#define PERFHUNT_CMD_H

#include <sys/types.h>

#include <jansson.h>
#include <stdio.h>

#include "session/outputs.h"
#include "util/err.h"
#include "util/parseopt.h"

/* Exit statuses, documented in docs/perfhunt.1 "EXIT STATUS". */
enum ph_exit {
	PH_EXIT_OK = 0,
	PH_EXIT_FAIL = 1,       /* perfhunt itself failed (I/O, bad file), or compare found a regression */
	PH_EXIT_USAGE = 2,      /* bad command line */
	PH_EXIT_BISECT_SKIP = 125,
	PH_EXIT_NOEXEC = 126,   /* command found but not executable */
	PH_EXIT_NOTFOUND = 127, /* command not found */
	PH_EXIT_BISECT_ABORT = 128, /* bisect-check: bad usage or baseline; stops git bisect run */
};

/* Prints "perfhunt: <msg>" on stderr (the only error format), returns status. */
int cmd_fail(int status, const struct err *e);
/* Prints "perfhunt <cmd>: <formatted>" and a hint to --help, returns PH_EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A command's options: its table, and the help text around the option list
 * that parseopt writes from the table. */
struct cmd_options {
	const char *name;       /* in errors: "perfhunt NAME: ..." */
	const char *help_name;  /* in the hint "(see 'perfhunt HELP_NAME --help')"; NULL: name */
	const char *usage;      /* the help before the option list */
	const char *footer;     /* the help after it, after a blank line; NULL: none */
	const struct parseopt *table;
	unsigned flags;         /* PARSEOPT_STOP_AT_OPERAND for a command that runs a CMD */
	int usage_status;       /* exit status of a usage error; 0: PH_EXIT_USAGE */
	const char *usage_note; /* added to the hint: "exit 128 aborts git bisect run" */
};
/* Parses argv (argv[0] the command's name) with o->table. Returns the number
 * of operands, moved to argv[0..n); or -1 when the command is done and must
 * return *status: the help was printed (0), or a one-line usage error. */
int cmd_parse_options(const struct cmd_options *o, int argc, char **argv, int *status);
/* Option callbacks of compare and bisect-check: value is a double *.
 * --threshold PCT in [0, 100], stored as a fraction; --alpha A in (0, 1]. */
int cmd_opt_threshold(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e);
int cmd_opt_alpha(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e);
/* --duration, --timeout TIME: positive; a bare number is seconds; value is a double * (ms). */
int cmd_opt_duration(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e);
/* Flushes stdout and reports a write error (closed pipe, full disk); returns status or PH_EXIT_FAIL. */
int cmd_finish_stdout(int status);
/* Writes what fn renders of rec to path, whole (atomically); 0, or -1 with e
 * filled ("cannot write 'PATH': ..."). */
int cmd_write_export(const char *path, int (*fn)(const json_t *, FILE *, struct err *), const json_t *rec,
		     struct err *e);
/* One export of a record a command was asked for: the file (NULL: not asked)
 * and the exporter that renders it. */
struct cmd_export {
	const char *path;
	int (*fn)(const json_t *, FILE *, struct err *);
};
/* Writes each asked export of rec (cmd_write_export), a failure said on stderr
 * as cmd_fail says it; returns status, or PH_EXIT_FAIL where status was 0 and
 * an export failed. */
int cmd_write_exports(const struct cmd_export *ex, size_t n, const json_t *rec, int status);
/* Checks every output o names before anything runs or is computed
 * (session_check_outputs): 0, or the one-line error said on stderr and
 * PH_EXIT_USAGE. */
int cmd_check_outputs(const struct session_outputs *o);
/* True when colour may be used on the stream (a tty and NO_COLOR unset). */
int cmd_use_color(int fd);
/* The daemon of --attach PID (*pid > 0, checked), --attach-name NAME or
 * --attach-pidfile FILE (looked up into *pid); 0, or the exit status with e
 * filled: PH_EXIT_USAGE for a pidfile that is not a regular file, else
 * PH_EXIT_FAIL. */
int cmd_find_daemon(const char *name, const char *pidfile, pid_t *pid, struct err *e);

int cmd_run(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_peak(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bisect_check(int argc, char **argv);
int cmd_bisect(int argc, char **argv);

#endif
