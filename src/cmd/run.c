/* run: perfhunt run [options] -- CMD [ARG...]
 *
 * Parses options, runs the monitor over the command, turns the result into
 * the run record, writes the record files and prints the summary. The exit
 * status is the command's own (128+N for signal N), or 126/127 when it could
 * not be started, or 2 for a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/record_opts.h"
#include "util/xalloc.h"

static const char usage_text[] =
	"usage: perfhunt run [options] [--] CMD [ARG...]\n"
	"\n"
	"Runs CMD (directly, no shell) and records its whole process tree: wall and\n"
	"CPU time, memory with exact peaks, page faults, phases. Prints a summary on\n"
	"stderr and exits with CMD's status (128+N if a signal N killed it).\n"
	"\n"
	RECORD_OPTS_HELP
	"      --shell            run CMD as a shell command: sh -c \"CMD ARG...\"\n"
	"      --memory-limit MIB with the cgroup: kill the tree past this size\n"
	"      --attach PID       also record this daemon's tree for exactly CMD's lifetime\n"
	"      --attach-name NAME the daemon by process name; --attach-pidfile FILE by pidfile\n"
	"      --idle-ms MS       sample the daemon this long before CMD starts (default 500)\n"
	"  -h, --help             show this help\n";

int cmd_run(int argc, char **argv)
{
	struct record_opts ro;
	record_opts_init(&ro);
	bool shell = false;
	const char *attach_name = NULL, *attach_pidfile = NULL;
	uint64_t limit_mib = 0;
	enum { OPT_SHELL = 1000, OPT_LIMIT, OPT_ATTACH, OPT_ATTACH_NAME, OPT_ATTACH_PIDFILE, OPT_IDLE };
	static const struct option extra[] = {
		{ "shell", no_argument, NULL, OPT_SHELL },
		{ "attach", required_argument, NULL, OPT_ATTACH },
		{ "attach-name", required_argument, NULL, OPT_ATTACH_NAME },
		{ "attach-pidfile", required_argument, NULL, OPT_ATTACH_PIDFILE },
		{ "idle-ms", required_argument, NULL, OPT_IDLE },
		{ "memory-limit", required_argument, NULL, OPT_LIMIT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct option *longopts = record_opts_longopts(extra);
	int status = PH_EXIT_USAGE;
	optind = 0;
	int c;
	int64_t v;
	while ((c = record_opts_getopt(&ro, "run", argc, argv, "+h", longopts)) > 0) {
		switch (c) {
		case OPT_SHELL:
			shell = true;
			break;
		case OPT_LIMIT:
			if (record_opts_number("run", "--memory-limit", optarg, 1, INT64_MAX >> 20, &v) < 0)
				goto out;
			limit_mib = (uint64_t)v;
			break;
		case OPT_ATTACH:
			if (record_opts_number("run", "--attach", optarg, 1, 0x7fffffff, &v) < 0)
				goto out;
			ro.daemon_pid = (pid_t)v;
			break;
		case OPT_ATTACH_NAME:
			attach_name = optarg;
			break;
		case OPT_ATTACH_PIDFILE:
			attach_pidfile = optarg;
			break;
		case OPT_IDLE:
			if (record_opts_number("run", "--idle-ms", optarg, 0, 3600000, &v) < 0)
				goto out;
			ro.idle_ms = (double)v;
			break;
		case 'h':
			fputs(usage_text, stdout);
			status = cmd_finish_stdout(PH_EXIT_OK);
			goto out;
		}
	}
	if (c == -2)
		goto out;
	if (optind >= argc) {
		cmd_usage_error("run", "no command given");
		goto out;
	}
	if ((ro.daemon_pid > 0) + (attach_name != NULL) + (attach_pidfile != NULL) > 1) {
		cmd_usage_error("run", "give one of --attach, --attach-name, --attach-pidfile");
		goto out;
	}
	{
		struct err e;
		if (cmd_find_daemon(attach_name, attach_pidfile, &ro.daemon_pid, &e) < 0) {
			status = cmd_fail(PH_EXIT_FAIL, &e);
			goto out;
		}
	}
	char **cmd = argv + optind;
	char *script = NULL;
	char *shell_argv[2] = { NULL, NULL };
	if (shell) {
		/* hyperfine style: the words after -- form one shell command */
		script = xjoin(cmd, (size_t)(argc - optind), " ");
		shell_argv[0] = script;
	}
	struct launch_opts lo = { .argv = shell ? shell_argv : cmd, .shell = shell,
				  .capture = ro.probes, .probe_fd = ro.probes };
	status = record_opts_execute(&ro, &lo, limit_mib << 20, shell ? shell_argv : cmd, NULL);
	free(script);
out:
	free(longopts);
	record_opts_release(&ro);
	return status;
}
