/* run: perfhunt run [options] -- CMD [ARG...]
 *
 * Parses options, runs the monitor over the command, turns the result into
 * the run record, writes the record files and prints the summary. The exit
 * status is the command's own (128+N for signal N), or 126/127 when it could
 * not be started, or 2 for a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/record_opts.h"
#include "export/time_format.h"
#include "proc/cgroup.h"
#include "util/xalloc.h"

static const char usage_text[] =
	"usage: perfhunt run [options] [--] CMD [ARG...]\n"
	"\n"
	"Runs CMD (directly, no shell) and records its whole process tree: wall and\n"
	"CPU time, memory with exact peaks, page faults, phases. Prints a summary on\n"
	"stderr and exits with CMD's status (128+N if a signal N killed it).\n"
	"\n";

int cmd_run(int argc, char **argv)
{
	struct record_opts ro;
	record_opts_init(&ro);
	bool shell = false, verbose = false, portable = false;
	const char *repeat = NULL;
	const char *attach_name = NULL, *attach_pidfile = NULL;
	int64_t limit_mib = 0, attach = 0;
	struct parseopt shared[RECORD_OPTS_NROWS];
	record_opts_rows(&ro, RECORD_OPTS_FOR_RUN, shared);
	const struct parseopt table[] = {
		PARSEOPT_INCLUDE(shared),
		PARSEOPT_FLAG(0, "shell", &shell, "run CMD as a shell command: sh -c \"CMD ARG...\""),
		PARSEOPT_STRING('f', "format", &ro.time_format, "FORMAT",
				"print GNU time's FORMAT (%e %U %S %M %x %C ...)\ninstead of the summary; with -o, into FILE"),
		PARSEOPT_FLAG('v', "verbose", &verbose, "print GNU time's -v listing instead of the summary"),
		PARSEOPT_FLAG('p', "portability", &portable, "print real, user and sys as POSIX time -p does"),
		PARSEOPT_FLAG('a', "append", &ro.time_append, "with -f, -v or -p: append to -o FILE"),
		{ .type = PARSEOPT_TYPE_STRING, .short_name = 'x', .long_name = "field-separator", .value = &ro.counter_sep,
		  .argh = "SEP", .help = "count perf events (--counters) and print them as\nperf stat -x SEP does, instead of the summary",
		  .flags = PARSEOPT_NONEMPTY },
		{ .type = PARSEOPT_TYPE_STRING, .short_name = 'r', .long_name = "repeat", .value = &repeat, .argh = "N",
		  .flags = PARSEOPT_HIDDEN },
		PARSEOPT_I64(0, "memory-limit", &limit_mib, "MIB", "with the cgroup: kill the tree past this size\n(refused where it cannot be enforced)",
			     1, INT64_MAX >> 20),
		PARSEOPT_I64(0, "attach", &attach, "PID", "also record this daemon's tree for exactly\nCMD's lifetime",
			     1, 0x7fffffff),
		PARSEOPT_STRING(0, "attach-name", &attach_name, "NAME", "the daemon by process name"),
		PARSEOPT_STRING(0, "attach-pidfile", &attach_pidfile, "FILE", "the daemon by pidfile"),
		PARSEOPT_DURATION(0, "idle-ms", &ro.idle_ms, "TIME", "sample the daemon this long before CMD starts\n(default 500 ms)",
				  1, 0, 3600000),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "run", .usage = usage_text, .table = table,
					  .flags = PARSEOPT_STOP_AT_OPERAND };
	int status = PH_EXIT_USAGE;
	int n = cmd_parse_options(&opts, argc, argv, &status);
	if (n < 0)
		goto out;
	ro.daemon_pid = (pid_t)attach;
	if (repeat) { /* perf stat -r N: the repeated runs and their statistics are bench's */
		cmd_usage_error("run", "-r %s: runs are repeated by 'perfhunt bench -r %s -- CMD' (statistics over the runs)",
				repeat, repeat);
		goto out;
	}
	if (n == 0) {
		cmd_usage_error("run", "no command given");
		goto out;
	}
	if (verbose + portable + (ro.time_format != NULL) > 1) {
		cmd_usage_error("run", "give one of -f, -v, -p");
		goto out;
	}
	if (ro.counter_sep)
		ro.counters = true;
	if (verbose)
		ro.time_format = time_format_verbose;
	if (portable)
		ro.time_format = "real %e\nuser %U\nsys %S";
	if (ro.time_append && !(ro.time_format && ro.json_path)) {
		cmd_usage_error("run", "-a appends GNU time's lines (-f, -v, -p) to -o FILE");
		goto out;
	}
	if (ro.time_format) { /* as GNU time's -o: the file takes the lines, not the record */
		ro.time_path = ro.json_path;
		ro.json_path = NULL;
	}
	if ((ro.daemon_pid > 0) + (attach_name != NULL) + (attach_pidfile != NULL) > 1) {
		cmd_usage_error("run", "give one of --attach, --attach-name, --attach-pidfile");
		goto out;
	}
	if (limit_mib && !ro.cgroup) {
		cmd_usage_error("run", "--memory-limit needs the memory cgroup, which --cgroup off turns off");
		goto out;
	}
	if ((status = record_opts_check_outputs(&ro, NULL, 0)) != 0)
		goto out;
	ro.target = (struct record_opts_target){ shell, ro.daemon_pid, attach_name, attach_pidfile };
	{
		struct err e;
		/* refused before the command runs: a limit not enforced is no limit */
		if (limit_mib && cgroup_check_limit((uint64_t)limit_mib << 20, &e) < 0) {
			err_wrap(&e, "--memory-limit cannot be enforced here");
			status = cmd_fail(PH_EXIT_USAGE, &e);
			goto out;
		}
		int rc = cmd_find_daemon(attach_name, attach_pidfile, &ro.daemon_pid, &e);
		if (rc) {
			status = cmd_fail(rc, &e);
			goto out;
		}
	}
	char **cmd = argv;
	char *script = NULL;
	char *shell_argv[2] = { NULL, NULL };
	if (shell) {
		/* hyperfine style: the words after -- form one shell command */
		script = xjoin(cmd, (size_t)n, " ");
		shell_argv[0] = script;
	}
	struct launch_opts lo = { .argv = shell ? shell_argv : cmd, .shell = shell,
				  .capture = ro.probes, .probe_fd = ro.probes };
	status = record_opts_execute(&ro, &lo, (uint64_t)limit_mib << 20, shell ? shell_argv : cmd, NULL);
	free(script);
out:
	record_opts_release(&ro);
	return status;
}
