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
	bool shell = false;
	const char *attach_name = NULL, *attach_pidfile = NULL;
	int64_t limit_mib = 0, attach = 0;
	struct parseopt shared[RECORD_OPTS_NROWS];
	record_opts_rows(&ro, RECORD_OPTS_FOR_RUN, shared);
	const struct parseopt table[] = {
		PARSEOPT_INCLUDE(shared),
		PARSEOPT_FLAG(0, "shell", &shell, "run CMD as a shell command: sh -c \"CMD ARG...\""),
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
	if (n == 0) {
		cmd_usage_error("run", "no command given");
		goto out;
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
