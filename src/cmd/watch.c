/* watch: perfhunt watch [options] PID | --name NAME | --pidfile FILE
 *
 * Attaches to a running process tree (a daemon) and records it like `run`
 * until the tree exits, --duration passes, SIGINT/SIGTERM arrives, or
 * `perfhunt stop` ends a --detach'ed monitor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/record_opts.h"
#include "proc/lookup.h"
#include "record/statefile.h"

static const char usage_text[] =
	"usage: perfhunt watch [options] PID\n"
	"       perfhunt watch [options] --name NAME | --pidfile FILE\n"
	"\n"
	"Records a running process and its descendants until they exit, --duration\n"
	"passes, SIGINT/SIGTERM arrives, or 'perfhunt stop' ends a detached monitor.\n"
	"\n";

/* --push-every TIME: at least 100 ms. */
static int push_every_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	double *ms = row->value;
	if (parse_duration_ms(arg, 1000, ms, "--push-every", e) < 0 || *ms < 100)
		return err_set(e, "--push-every: expected a period of at least 100ms, got '%s'", arg);
	return 0;
}

/* Puts the monitor in the background; returns 1 in the parent (done), 0 in
 * the monitor. The parent returns once the monitor samples (or says why it
 * cannot), so a client started right after `watch --detach` is seen whole. */
static int detach(struct monitor_state *st, char *dir, size_t dirlen, int *ready_fd, int *status)
{
	struct err e;
	if (statefile_dir(dir, dirlen, &e) < 0) {
		*status = cmd_fail(PH_EXIT_FAIL, &e);
		return 1;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		perror("perfhunt: pipe");
		*status = PH_EXIT_FAIL;
		return 1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("perfhunt: fork");
		*status = PH_EXIT_FAIL;
		return 1;
	}
	if (pid > 0) {
		close(p[1]);
		char msg[512];
		ssize_t n = read(p[0], msg, sizeof(msg) - 1);
		close(p[0]);
		if (n <= 0 || msg[0] != 'K') {
			/* the monitor could not register: it sent its error */
			msg[n > 0 ? n : 0] = 0;
			fprintf(stderr, "perfhunt: %s\n", n > 1 ? msg + 1 : "the monitor did not start");
			*status = PH_EXIT_FAIL;
			return 1;
		}
		msg[n] = 0;
		printf("%s\n", msg + 1);
		*status = cmd_finish_stdout(PH_EXIT_OK);
		return 1;
	}
	close(p[0]);
	setsid();
	if (statefile_register(dir, st, &e) < 0) {
		dprintf(p[1], "E%s", e.msg);
		_exit(PH_EXIT_FAIL);
	}
	int log = open(st->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (log < 0 || nul < 0) {
		dprintf(p[1], "Ecannot create '%s': %s", st->log_path, strerror(errno));
		_exit(PH_EXIT_FAIL);
	}
	dup2(nul, STDIN_FILENO);
	dup2(nul, STDOUT_FILENO);
	dup2(log, STDERR_FILENO);
	close(log);
	close(nul);
	*ready_fd = p[1];
	return 0;
}

/* The detached monitor tells its waiting parent "K<id>" once it samples, or
 * "E<why>" when it cannot start. */
struct ready {
	int fd;
	const char *id;
};

static void ready_started(void *arg)
{
	struct ready *r = arg;
	if (r->fd < 0)
		return;
	dprintf(r->fd, "K%s", r->id);
	close(r->fd);
	r->fd = -1;
}

static void ready_failed(void *arg, const char *msg)
{
	struct ready *r = arg;
	if (r->fd < 0)
		return;
	dprintf(r->fd, "E%s", msg);
	close(r->fd);
	r->fd = -1;
}

int cmd_watch(int argc, char **argv)
{
	struct record_opts ro;
	record_opts_init(&ro);
	ro.kind = "watch";
	ro.probes = false;
	const char *name = NULL, *pidfile = NULL;
	bool background = false;
	struct parseopt shared[RECORD_OPTS_NROWS];
	record_opts_rows(&ro, RECORD_OPTS_FOR_WATCH, shared);
	const struct parseopt table[] = {
		PARSEOPT_STRING(0, "name", &name, "NAME", "the one process whose name (or argv[0] basename)\nis NAME"),
		PARSEOPT_STRING(0, "pidfile", &pidfile, "FILE", "the process whose PID is in FILE"),
		PARSEOPT_CALLBACK(0, "duration", &ro.duration_ms, "TIME",
				  "stop after TIME (e.g. 30s, 5m; a bare number\nis seconds)", cmd_opt_duration),
		PARSEOPT_FLAG(0, "detach", &background, "run in the background; prints the monitor's ID\n"
			      "for 'perfhunt stop'"),
		PARSEOPT_CALLBACK(0, "push-every", &ro.push_every_ms, "TIME",
				  "with --push: push the latest sample to the gateway\nthis often", push_every_opt),
		PARSEOPT_GROUP("recording options, as for 'perfhunt run':"),
		PARSEOPT_INCLUDE(shared),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "watch", .usage = usage_text, .table = table };
	int status = PH_EXIT_USAGE;
	char **target_argv = NULL;
	struct err e;
	int n = cmd_parse_options(&opts, argc, argv, &status);
	if (n < 0)
		goto out;
	if (ro.push_every_ms > 0 && !ro.fleet.push_url) {
		cmd_usage_error("watch", "--push-every needs --push URL");
		goto out;
	}
	if (ro.push_every_ms > 0) {
		/* a live push must never stall the sampler for long */
		long budget = (long)ro.push_every_ms < 2000 ? (long)ro.push_every_ms : 2000;
		ro.fleet.push.total_timeout_ms = budget;
		ro.fleet.push.connect_timeout_ms = budget;
		ro.fleet.push.retries = 0;
	}
	int given = (n > 0) + (name != NULL) + (pidfile != NULL);
	if (given != 1 || n > 1) {
		cmd_usage_error("watch", given ? "give one target: PID, --name or --pidfile"
					       : "no process given (PID, --name NAME or --pidfile FILE)");
		goto out;
	}
	pid_t pid = 0;
	if (n > 0) {
		int64_t v;
		if (parse_i64(argv[0], 1, 0x7fffffff, &v, "PID", &e) < 0) {
			cmd_usage_error("watch", "%s", e.msg);
			goto out;
		}
		pid = (pid_t)v;
	} else if (name && lookup_by_name(name, &pid, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	} else if (pidfile && (status = lookup_pidfile(pidfile, &pid, &e)) < 0) {
		status = cmd_fail(status == LOOKUP_NOT_FILE ? PH_EXIT_USAGE : PH_EXIT_FAIL, &e);
		goto out;
	}
	if (lookup_check_pid(pid, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	if ((status = record_opts_check_outputs(&ro, NULL, 0)) != 0)
		goto out;
	ro.attach_pid = pid;
	target_argv = lookup_cmdline(pid);

	struct monitor_state st;
	memset(&st, 0, sizeof(st));
	char dir[4096];
	struct ready ready = { .fd = -1 };
	struct record_watch w = { .arg = &ready, .started = ready_started, .failed = ready_failed };
	if (background) {
		st.target_pid = pid;
		snprintf(st.target, sizeof(st.target), "%s", target_argv[0] ? target_argv[0] : "");
		if (detach(&st, dir, sizeof(dir), &ready.fd, &status))
			goto out;
		ready.id = st.id;
	}
	status = record_opts_execute(&ro, NULL, 0, target_argv, &w);
	if (background) {
		fflush(stderr);
		statefile_mark_done(dir, st.id);
	}
out:
	free(target_argv);
	record_opts_release(&ro);
	return status;
}
