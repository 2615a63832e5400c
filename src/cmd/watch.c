/* watch: perfhunt watch [options] PID | --name NAME | --pidfile FILE
 *
 * Attaches to a running process tree (a daemon) and records it like `run`
 * until the tree exits, --duration passes, SIGINT/SIGTERM arrives, or
 * `perfhunt stop` ends a --detach'ed monitor.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
	"\n"
	"      --name NAME        the one process whose name (or argv[0] basename) is NAME\n"
	"      --pidfile FILE     the process whose PID is in FILE\n"
	"      --duration TIME    stop after TIME (e.g. 30s, 5m; a bare number is seconds)\n"
	"      --detach           run in the background; prints the monitor's ID for 'perfhunt stop'\n"
	"      --push-every TIME  with --push: push the latest sample to the gateway this often\n"
	RECORD_OPTS_HELP
	"  -h, --help             show this help\n";

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
	enum { OPT_NAME = 1000, OPT_PIDFILE, OPT_DURATION, OPT_DETACH, OPT_PUSH_EVERY };
	static const struct option extra[] = {
		{ "name", required_argument, NULL, OPT_NAME },
		{ "pidfile", required_argument, NULL, OPT_PIDFILE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "detach", no_argument, NULL, OPT_DETACH },
		{ "push-every", required_argument, NULL, OPT_PUSH_EVERY },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct option *longopts = record_opts_longopts(extra);
	int status = PH_EXIT_USAGE;
	char **target_argv = NULL;
	struct err e;
	optind = 0;
	int c;
	while ((c = record_opts_getopt(&ro, "watch", argc, argv, "h", longopts)) > 0) {
		switch (c) {
		case OPT_NAME:
			name = optarg;
			break;
		case OPT_PIDFILE:
			pidfile = optarg;
			break;
		case OPT_DURATION:
			if (parse_duration_ms(optarg, 1000, &ro.duration_ms, "--duration", &e) < 0) {
				cmd_usage_error("watch", "%s", e.msg);
				goto out;
			}
			if (ro.duration_ms <= 0) {
				cmd_usage_error("watch", "--duration must be positive, got '%s'", optarg);
				goto out;
			}
			break;
		case OPT_DETACH:
			background = true;
			break;
		case OPT_PUSH_EVERY:
			if (parse_duration_ms(optarg, 1000, &ro.push_every_ms, "--push-every", &e) < 0 ||
			    ro.push_every_ms < 100) {
				cmd_usage_error("watch", "--push-every: expected a period of at least 100ms, got '%s'",
						optarg);
				goto out;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			status = cmd_finish_stdout(PH_EXIT_OK);
			goto out;
		}
	}
	if (c == -2)
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
	int given = (optind < argc) + (name != NULL) + (pidfile != NULL);
	if (given != 1 || optind + 1 < argc) {
		cmd_usage_error("watch", given ? "give one target: PID, --name or --pidfile"
					       : "no process given (PID, --name NAME or --pidfile FILE)");
		goto out;
	}
	pid_t pid = 0;
	if (optind < argc) {
		int64_t v;
		if (parse_i64(argv[optind], 1, 0x7fffffff, &v, "PID", &e) < 0) {
			cmd_usage_error("watch", "%s", e.msg);
			goto out;
		}
		pid = (pid_t)v;
	} else if (name && lookup_by_name(name, &pid, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	} else if (pidfile && lookup_pidfile(pidfile, &pid, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	if (lookup_check_pid(pid, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
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
	free(longopts);
	record_opts_release(&ro);
	return status;
}
