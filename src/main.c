/* perfhunt: entry point — finds the command in one table and runs it.
 *
 * Everything a command does lives in src/cmd/<name>.c; this file only
 * dispatches, prints the top-level help, and turns a command's return value
 * into the process exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "run", cmd_run, "run a command and record its whole process tree" },
	{ "watch", cmd_watch, "record a running process tree (a daemon); --detach for the background" },
	{ "stop", cmd_stop, "stop a background monitor and print its summary" },
	{ "ps", cmd_ps, "list background monitors" },
	{ "bench", cmd_bench, "repeated, interleaved runs of commands: statistics, outliers, exports" },
	{ "compare", cmd_compare, "compare runs: medians, CI, p-value, verdict, phase attribution" },
	{ "bisect", cmd_bisect, "every culprit between a good and a bad commit, each built in a worktree" },
	{ "bisect-check", cmd_bisect_check, "for git bisect run: exit 0 good, 1 regressed, 125 skip" },
	{ "show", cmd_show, "a recorded run on the terminal: summary, phases, RSS sparkline; its exports" },
	{ "peak", cmd_peak, "peak row of a timeline CSV, in one pass" },
	{ "report", cmd_report, "self-contained HTML report (inline SVG) of a run, bench or compare record" },
	{ "history", cmd_history, "stored runs: list, show, trends, change points over commits, a trend site" },
	{ "push", cmd_push, "push a record's figures to a Prometheus Pushgateway (OpenMetrics)" },
};

static void usage(FILE *f)
{
	fputs("usage: perfhunt COMMAND [OPTIONS] [ARGS]\n\n"
	      "Records a program's whole process tree (time, memory with exact peaks,\n"
	      "faults, CPU, phases) and compares runs.\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'perfhunt COMMAND --help' describes a command; 'man perfhunt' all of them.\n", f);
}

/* A closed stdin, stdout or stderr (`>&-`) stays unusable: /dev/null opened
 * the other way round takes its number, so reads or writes there still fail
 * with EBADF, and no file perfhunt opens (a CSV, the history) becomes fd 1,
 * where the command's output would be copied into it. */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int nul = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
			if (nul >= 0 && nul != fd) /* the lowest free number: fd itself */
				close(nul);
		}
}

int main(int argc, char **argv)
{
	hold_std_fds();
	/* A closed stdout must surface as a write error, not kill us silently. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return PH_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return cmd_finish_stdout(PH_EXIT_OK);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("perfhunt %s\n", PERFHUNT_VERSION);
		return cmd_finish_stdout(PH_EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "perfhunt: unknown command '%s' (see 'perfhunt --help')\n", name);
	return PH_EXIT_USAGE;
}
