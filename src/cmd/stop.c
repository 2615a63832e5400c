/* stop, ps: perfhunt stop [ID] and perfhunt ps — the background monitors.
 *
 * stop signals exactly the monitor it names, after checking that the PID in
 * the state file is alive with the recorded start time; it then waits for
 * the monitor to flush and exit, and prints its summary.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "record/statefile.h"
#include "util/clock.h"

static const char *const liveness_names[] = { "running", "finished", "stale" };

static void print_log(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(f);
}

/* Waits until the process is gone (pidfd where the kernel has it, else polling). */
static int wait_gone(const struct monitor_state *s, int timeout_ms)
{
	int fd = (int)syscall(SYS_pidfd_open, s->pid, 0);
	int64_t deadline = clock_mono_ns() + (int64_t)timeout_ms * 1000000;
	while (clock_mono_ns() < deadline) {
		uint64_t t;
		if (statefile_proc_starttime(s->pid, &t) < 0 || t != s->starttime_ticks) {
			if (fd >= 0)
				close(fd);
			return 0;
		}
		if (fd >= 0) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			poll(&p, 1, 100);
		} else {
			usleep(10000);
		}
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

static const struct parseopt no_options[] = { PARSEOPT_END() };

int cmd_stop(int argc, char **argv)
{
	const struct cmd_options opts = {
		.name = "stop", .table = no_options,
		.usage = "usage: perfhunt stop [ID]\n\n"
			 "Stops a monitor started with 'perfhunt watch --detach', waits until it has\n"
			 "written its records, and prints its summary. Without ID: the only running\n"
			 "monitor; with several, lists them. A state file whose PID now belongs to\n"
			 "another process (PID reuse) is removed and nothing is signalled. A second\n"
			 "stop of the same monitor at once waits for the first and exits 1.\n\n",
	};
	int status;
	int nargs = cmd_parse_options(&opts, argc, argv, &status);
	if (nargs < 0)
		return status;
	if (nargs > 1)
		return cmd_usage_error("stop", "expected at most one monitor ID");
	const char *id = nargs ? argv[0] : NULL;
	struct err e;
	char dir[4096];
	struct monitor_state *all = NULL;
	size_t n = 0;
	if (statefile_dir(dir, sizeof(dir), &e) < 0 || statefile_list(dir, &all, &n, &e) < 0)
		return cmd_fail(PH_EXIT_FAIL, &e);
	status = PH_EXIT_FAIL;
	struct monitor_state *m = NULL;
	int claim_fd = -1;
	if (id) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(all[i].id, id))
				m = &all[i];
		if (!m) {
			fprintf(stderr, "perfhunt: no monitor with ID %s (see 'perfhunt ps')\n", id);
			goto out;
		}
	} else {
		size_t live = 0;
		for (size_t i = 0; i < n; i++)
			if (statefile_liveness(dir, &all[i]) != MONITOR_STALE) {
				m = &all[i];
				live++;
			}
		if (live == 0) {
			fprintf(stderr, "perfhunt: no monitor is running\n");
			goto out;
		}
		if (live > 1) {
			fprintf(stderr, "perfhunt: %zu monitors; give an ID:\n", live);
			for (size_t i = 0; i < n; i++)
				if (statefile_liveness(dir, &all[i]) != MONITOR_STALE)
					fprintf(stderr, "  %-8s watching %d (%s) since %s\n", all[i].id,
						(int)all[i].target_pid, all[i].target, all[i].started_at);
			status = PH_EXIT_USAGE;
			goto out;
		}
	}
	/* one stop per monitor: two at once would both signal it, and the one
	 * that finished first would remove the summary the other prints */
	int rc = statefile_claim(dir, m->id, &claim_fd, &e);
	if (rc < 0) {
		cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	if (rc == STATEFILE_CLAIMED_ELSEWHERE) {
		fprintf(stderr, "perfhunt: monitor %s is already being stopped by another 'perfhunt stop'; "
				"waiting for it to finish\n", m->id);
		if (wait_gone(m, 60000) < 0)
			fprintf(stderr, "perfhunt: monitor %s did not stop within 60 s\n", m->id);
		goto out;
	}
	switch (statefile_liveness(dir, m)) {
	case MONITOR_STALE:
		fprintf(stderr, "perfhunt: monitor %s is not running (PID %d has exited or belongs to "
				"another process); removed its stale state\n", m->id, (int)m->pid);
		statefile_remove(dir, m->id);
		goto out;
	case MONITOR_RUNNING:
		if (kill(m->pid, SIGTERM) < 0) {
			fprintf(stderr, "perfhunt: cannot signal monitor %s: %s\n", m->id, strerror(errno));
			goto out;
		}
		if (wait_gone(m, 60000) < 0) {
			fprintf(stderr, "perfhunt: monitor %s did not stop within 60 s\n", m->id);
			goto out;
		}
		break;
	case MONITOR_FINISHED:
		break;
	}
	print_log(m->log_path);
	statefile_remove(dir, m->id);
	status = PH_EXIT_OK;
out:
	if (claim_fd >= 0)
		close(claim_fd);
	free(all);
	return status;
}

int cmd_ps(int argc, char **argv)
{
	const struct cmd_options opts = {
		.name = "ps", .table = no_options,
		.usage = "usage: perfhunt ps\n\nLists background monitors: ID, state, PID, target, start.\n\n",
	};
	int status;
	int nargs = cmd_parse_options(&opts, argc, argv, &status);
	if (nargs < 0)
		return status;
	if (nargs > 0)
		return cmd_usage_error("ps", "unexpected argument '%s'", argv[0]);
	struct err e;
	char dir[4096];
	struct monitor_state *all = NULL;
	size_t n = 0;
	if (statefile_dir(dir, sizeof(dir), &e) < 0 || statefile_list(dir, &all, &n, &e) < 0)
		return cmd_fail(PH_EXIT_FAIL, &e);
	if (n)
		printf("%-8s %-9s %-8s %-8s %-24s %s\n", "ID", "STATE", "PID", "TARGET", "STARTED", "COMMAND");
	for (size_t i = 0; i < n; i++)
		printf("%-8s %-9s %-8d %-8d %-24s %s\n", all[i].id,
		       liveness_names[statefile_liveness(dir, &all[i])], (int)all[i].pid,
		       (int)all[i].target_pid, all[i].started_at, all[i].target);
	free(all);
	return cmd_finish_stdout(PH_EXIT_OK);
}
