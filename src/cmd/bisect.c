/* bisect: perfhunt bisect --good REF --bad REF [--build CMD] -- CMD [ARG...]
 *
 * Every culprit between two commits, with as many runs as each decision
 * needs. Each tested commit gets a git worktree of its own under the
 * history's directory (never the user's tree), is built there, and CMD runs
 * in it as full run records stored in the history with that commit, so a
 * second invocation finds them and only adds runs. Adjacent tested commits
 * are judged by stats/bisectrule.c; intervals whose ends differ are split
 * until each difference sits between two adjacent buildable commits. The
 * result is a perfhunt.bisect/1 record, rendered by export/bisect_text.c.
 * With --daemon, a commit's runs attach to a daemon started fresh in its
 * worktree for each batch of them and stopped after: one daemon per commit
 * at a time, so the runs are batched by commit rather than interleaved.
 */
#include "cmd/cmd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/record_opts.h"
#include "export/bisect_text.h"
#include "export/compare_text.h"
#include "export/report.h"
#include "export/svg.h"
#include "monitor/monitor.h"
#include "proc/procfs.h"
#include "record/command.h"
#include "record/git.h"
#include "record/jsonio.h"
#include "stats/bisectpair.h"
#include "stats/bisectrule.h"
#include "stats/comparison.h"
#include "stats/metrics.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/xalloc.h"

static const char usage_text[] =
	"usage: perfhunt bisect --good REF --bad REF [options] [--] CMD [ARG...]\n"
	"       perfhunt bisect --clean\n"
	"\n"
	"Finds every commit between GOOD and BAD that changed CMD's wall time or a\n"
	"phase's duration. Each tested commit is checked out in a git worktree of\n"
	"its own under the history's directory (your work tree is never touched),\n"
	"built there with --build, and CMD runs there, each run a full record\n"
	"stored in the history with that commit: running the same bisect again\n"
	"reuses them and only adds runs. Adjacent tested commits are compared\n"
	"(Mann–Whitney): different when p < 0.01 and the medians differ by the\n"
	"threshold; same when p rises above a bar that falls as runs accumulate,\n"
	"or the CI of the ratio lies within the threshold; else more runs, up to\n"
	"--max-runs, and a pair still open is reported undecided.\n"
	"\n"
	"With --daemon CMD, CMD is started (sh -c, in the commit's worktree, after\n"
	"its build) before each batch of that commit's runs and stopped after them\n"
	"(SIGTERM, SIGKILL 5 s later, with whatever it detached); the runs record\n"
	"it as 'bench --attach' does. It is ready when its log shows a line\n"
	"matching --ready (within 60 s), or --idle-ms after it started. A command\n"
	"that goes to the background and exits 0 is followed, the daemon found by\n"
	"--attach-name or --attach-pidfile; one that exits otherwise or is not\n"
	"ready in time skips the commit. Relative paths of --daemon-log,\n"
	"--attach-pidfile and --probe-log are in the commit's worktree.\n"
	"\n"
	"options:\n";

static const char usage_footer[] =
	"Exit status: 0 when the hunt finished (culprits or none); 1 when GOOD and\n"
	"BAD are not different (same or undecided), or a commit end cannot be\n"
	"built or run; 2 on a usage error; 128+N when signal N stopped it (the runs\n"
	"taken are stored: run it again to resume).\n";

enum { ID_SHORT = 12 };

enum build_state { BUILD_UNKNOWN, BUILD_OK, BUILD_BROKEN };

struct commit {
	char id[64];
	char subject[256], author[128];
	enum build_state build;
	char *why;          /* a broken commit: why it was skipped */
	char path[PATH_MAX + 32]; /* its worktree */
	json_t **runs;      /* records, oldest first (owned) */
	size_t nruns, cap;
	size_t reused;      /* found in the history */
	size_t want;        /* runs it should have */
	bool tested;
};

struct bisect_cli {
	struct record_opts ro;
	const char *good, *bad, *build, *json_path, *report_path;
	const char *daemon, *daemon_log, *ready; /* --daemon CMD, --daemon-log FILE, --ready REGEX */
	const char *attach_name, *attach_pidfile;
	regex_t ready_re;
	struct parseopt_list metrics;
	int64_t max_runs, min_runs;
	double threshold;
	bool clean, shell;
};

struct hunt {
	const struct bisect_cli *cli;
	char top[PATH_MAX];   /* the user's repository */
	char dir[PATH_MAX];   /* <history's directory>/bisect */
	int home_fd;          /* the directory perfhunt was started in */
	struct store *store;
	struct commit *c;     /* good, then the first-parent commits up to bad */
	size_t n;
	char *const *argv;    /* CMD as recorded */
	char *command;        /* CMD as the history's command column holds it */
	size_t added;
	int64_t last_batch;   /* the ID of the latest batch of runs */
	pid_t daemon;         /* the --daemon CMD running now (leads its process group), or 0 */
	pid_t daemon_pid;     /* the process the runs attach to */
	int signal;
	int64_t start_ns;
};

/* A stop signal that came between runs (during a run the session hears it
 * and says so through record_opts_capture): the hunt stops at the next step,
 * every run taken already stored. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* on: the handler in place (the actions before kept); off: those back. */
static void catch_stops(bool on)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	static struct sigaction old[3];
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 3; i++)
		sigaction(sigs[i], on ? &sa : &old[i], on ? &old[i] : NULL);
}

/* True (with h->signal set) once a stop signal came. */
static bool stopped(struct hunt *h)
{
	if (stop_signal && !h->signal)
		h->signal = stop_signal;
	return h->signal != 0;
}

/* Where the worktrees live: beside the history database; a PostgreSQL
 * history has no directory here, so the repository's .perfhunt/ is used. */
static int hunt_dir(char *out, size_t n, const char *top, struct err *e)
{
	char db[PATH_MAX];
	int len;
	if (store_default_path(NULL, db, sizeof(db), e) < 0)
		return -1;
	if (store_is_url(db) || !strcmp(db, ":memory:")) {
		len = snprintf(out, n, "%s/.perfhunt/bisect", top);
	} else {
		char *slash = strrchr(db, '/');
		if (slash)
			*slash = 0;
		len = snprintf(out, n, "%s/bisect", slash ? (*db ? db : "/") : ".");
	}
	return len < 0 || (size_t)len >= n ? err_set(e, "the history's directory is too long a path") : 0;
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0700) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

/* --clean: every worktree under dir removed (git worktree remove), with its
 * build log and marker. */
static int clean(const struct hunt *h)
{
	DIR *d = opendir(h->dir);
	if (!d) {
		printf("bisect: nothing to clean in %s\n", h->dir);
		return PH_EXIT_OK;
	}
	size_t removed = 0;
	int status = PH_EXIT_OK;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[PATH_MAX + 256];
		snprintf(path, sizeof(path), "%s/%s", h->dir, de->d_name);
		struct stat st;
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (git_worktree_remove(h->top, path) < 0) {
				fprintf(stderr, "perfhunt bisect: cannot remove the worktree %s\n", path);
				status = PH_EXIT_FAIL;
				continue;
			}
			removed++;
		} else {
			unlink(path);
		}
	}
	closedir(d);
	rmdir(h->dir);
	printf("bisect: %zu worktree%s removed from %s\n", removed, removed == 1 ? "" : "s", h->dir);
	return status;
}

static void commit_add_run(struct commit *c, json_t *rec)
{
	xgrow((void **)&c->runs, &c->cap, c->nruns + 1, sizeof(*c->runs));
	c->runs[c->nruns++] = rec;
}

/* The runs of CMD the history holds at this commit: the same command line,
 * exit status 0, recorded at this commit. */
static int load_stored(struct hunt *h, struct commit *c, struct err *e)
{
	struct store_filter f = { .command = h->command, .commit = c->id };
	struct store_row *rows;
	size_t n;
	if (store_list(h->store, &f, &rows, &n, e) < 0)
		return -1;
	for (size_t i = n; i-- > 0;) { /* oldest first */
		if (strcmp(rows[i].command, h->command) || strcmp(rows[i].kind, "run") || rows[i].exit_status != 0 ||
		    !rows[i].git_commit || strcmp(rows[i].git_commit, c->id))
			continue;
		json_t *rec;
		if (store_get_run(h->store, rows[i].id, &rec, e) < 0) {
			store_rows_free(rows, n);
			return -1;
		}
		commit_add_run(c, rec);
		c->reused++;
	}
	store_rows_free(rows, n);
	return 0;
}

/* Runs the --build command in the worktree, its output into log; returns its
 * exit status (128+N when killed), or -1 when it could not start. */
static int run_build(const char *script, const char *cwd, const char *log)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || in < 0 || chdir(cwd) < 0)
			_exit(126);
		dup2(in, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The build's outcome kept beside its log ("STATUS\tCMD"), so a second
 * invocation with the same --build does not build again. */
static bool build_known(const char *marker, const char *script, int *status)
{
	FILE *f = fopen(marker, "r");
	if (!f)
		return false;
	char line[8192];
	bool known = false;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *tab = strchr(line, '\t');
		if (tab && !strcmp(tab + 1, script)) {
			*status = atoi(line);
			known = true;
		}
	}
	fclose(f);
	return known;
}

static void build_remember(const char *marker, const char *script, int status)
{
	FILE *f = fopen(marker, "w");
	if (f) {
		fprintf(f, "%d\t%s\n", status, script);
		fclose(f);
	}
}

/* Checks a commit out (or finds its worktree), builds it and loads its
 * stored runs; c->build says how it went. -1 only when perfhunt failed. */
static int prepare(struct hunt *h, struct commit *c, struct err *e)
{
	if (c->build != BUILD_UNKNOWN)
		return 0;
	char name[ID_SHORT + 1];
	snprintf(name, sizeof(name), "%.*s", ID_SHORT, c->id);
	snprintf(c->path, sizeof(c->path), "%s/%s", h->dir, name);
	struct stat st;
	char gitfile[sizeof(c->path) + 8];
	snprintf(gitfile, sizeof(gitfile), "%s/.git", c->path);
	if (stat(gitfile, &st) < 0 && git_worktree_add(h->top, c->path, c->id) < 0)
		return err_set(e, "cannot check %s out into %s (git worktree add)", name, c->path);
	c->build = BUILD_OK;
	if (h->cli->build) {
		char log[PATH_MAX + 32], marker[PATH_MAX + 32];
		snprintf(log, sizeof(log), "%s/%s.build.log", h->dir, name);
		snprintf(marker, sizeof(marker), "%s/%s.build", h->dir, name);
		int bst;
		bool reused = build_known(marker, h->cli->build, &bst);
		if (!reused) {
			fprintf(stderr, "bisect: %s building ...\n", name);
			bst = run_build(h->cli->build, c->path, log);
			if (stopped(h)) { /* the build was interrupted, not failed */
				c->build = BUILD_UNKNOWN;
				return -1;
			}
			if (bst >= 0 && bst < 128)
				build_remember(marker, h->cli->build, bst);
		}
		if (bst != 0) {
			c->build = BUILD_BROKEN;
			c->why = xasprintf("the build failed (status %d), log: %s", bst, log);
			fprintf(stderr, "bisect: %s skipped: %s\n", name, c->why);
			return 0;
		}
	}
	if (load_stored(h, c, e) < 0)
		return -1;
	return 0;
}

/* One run of CMD in c's worktree, stored in the history. 0, or -1 with the
 * hunt stopped (h->signal) or the commit marked broken (CMD failed there). */
static int run_once(struct hunt *h, struct commit *c, int64_t batch, struct err *e)
{
	struct launch_opts lo = { .argv = h->argv, .shell = h->cli->shell, .capture = true,
				  .probe_fd = h->cli->ro.probes };
	json_t *rec = NULL;
	int sig = 0;
	struct record_opts ro = h->cli->ro;
	ro.daemon_pid = h->daemon_pid;
	if (chdir(c->path) < 0)
		return err_set(e, "cannot enter %s: %s", c->path, strerror(errno));
	int st = record_opts_capture(&ro, &lo, h->argv, false, &rec, &sig);
	if (fchdir(h->home_fd) < 0)
		return err_set(e, "cannot return to the starting directory: %s", strerror(errno));
	if (sig) {
		h->signal = sig;
		json_decref(rec);
		return -1;
	}
	if (!rec || st != 0) {
		json_decref(rec);
		c->build = BUILD_BROKEN;
		c->why = xasprintf("CMD %s (status %d) in %s", rec ? "exited non-zero" : "could not run", st, c->path);
		fprintf(stderr, "bisect: %.*s skipped: %s\n", ID_SHORT, c->id, c->why);
		return 0;
	}
	const char *rc = json_string_value(json_object_get(json_object_get(rec, "git"), "commit"));
	if (!rc || strcmp(rc, c->id)) {
		json_decref(rec);
		return err_set(e, "a run in %s was recorded at commit %s, not %s", c->path, rc ? rc : "(none)", c->id);
	}
	json_object_set_new(rec, "bisect_batch", json_integer((json_int_t)batch));
	if (store_add_run(h->store, rec, h->cli->ro.tags, 0, NULL, e) < 0) {
		json_decref(rec);
		return -1;
	}
	commit_add_run(c, rec);
	h->added++;
	return 0;
}

static void say_progress(const struct hunt *h, const struct commit *c)
{
	if (c->build == BUILD_OK)
		fprintf(stderr, "bisect: %.*s run %zu of %zu%s  [%zu runs added, %.0f s]\n", ID_SHORT, c->id, c->nruns,
			c->want, c->reused ? " (some stored)" : "", h->added,
			(double)(clock_mono_ns() - h->start_ns) / 1e9);
}

/* --- the daemon of --daemon CMD --- */

enum { DAEMON_READY_MS = 60000, DAEMON_STOP_MS = 5000, DAEMON_POLL_US = 20000 };

enum { KIDS_MAX = 256 };

/* The processes bisect signalled in this step of the stop: each gets the
 * step's signal once (a daemon may read a second SIGTERM as "now") */
struct kids {
	int sig;
	size_t alive, n;
	pid_t sent[KIDS_MAX];
};

static void signal_kid(pid_t pid, void *arg)
{
	struct kids *k = arg;
	bool sent = false;
	for (size_t i = 0; i < k->n && !sent; i++)
		sent = k->sent[i] == pid;
	if (kill(pid, sent ? 0 : k->sig) < 0)
		return;
	k->alive++;
	if (!sent && k->n < KIDS_MAX)
		k->sent[k->n++] = pid;
}

/* Sends k->sig to each child of ours not yet sent it: between batches those
 * are the daemon's processes that left its group (a daemon that detaches
 * into a session of its own is reparented to bisect, its subreaper).
 * Returns how many are alive. */
static size_t signal_children(struct kids *k)
{
	char path[64], buf[8192];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	k->alive = 0;
	if (r > 0)
		procfs_parse_children(buf, (size_t)r, signal_kid, k);
	return k->alive;
}

/* SIGTERM to the daemon's process group and to what it detached, once
 * each, SIGKILL when any of it is left DAEMON_STOP_MS later; every one
 * reaped. */
static void daemon_stop(struct hunt *h)
{
	pid_t pg = h->daemon;
	if (pg <= 0)
		return;
	h->daemon = h->daemon_pid = 0;
	struct kids k = { .sig = SIGTERM };
	kill(-pg, SIGTERM);
	int64_t end = clock_mono_ns() + (int64_t)DAEMON_STOP_MS * 1000000;
	for (;;) {
		size_t kids = signal_children(&k);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (kill(-pg, 0) < 0 && kids == 0)
			return;
		if (k.sig == SIGTERM && clock_mono_ns() > end) {
			fprintf(stderr, "bisect: the daemon (pid %d) outlived SIGTERM by %d s: SIGKILL\n", (int)pg,
				DAEMON_STOP_MS / 1000);
			k.sig = SIGKILL;
			k.n = 0;
			kill(-pg, SIGKILL);
		}
		usleep(DAEMON_POLL_US);
	}
}

/* A path as the commit's worktree sees it. */
static void in_worktree(const struct commit *c, const char *path, char *out, size_t n)
{
	snprintf(out, n, path[0] == '/' ? "%s" : "%s/%s", path[0] == '/' ? path : c->path, path);
}

static off_t size_of(const char *path)
{
	struct stat st;
	return stat(path, &st) < 0 ? 0 : st.st_size;
}

/* True once a whole line of path after *from matches re; *from moves past
 * the lines read (a line longer than the buffer is read in pieces). */
static bool log_matches(const char *path, off_t *from, const regex_t *re)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	if (size_of(path) < *from) /* truncated or replaced: read it again */
		*from = 0;
	bool hit = false;
	char line[8192];
	if (fseeko(f, *from, SEEK_SET) == 0)
		while (!hit && fgets(line, sizeof(line), f)) {
			size_t len = strlen(line);
			if (line[len - 1] != '\n' && len < sizeof(line) - 1)
				break; /* still being written */
			*from += (off_t)len;
			line[strcspn(line, "\n")] = 0;
			hit = regexec(re, line, 0, NULL, 0) == 0;
		}
	fclose(f);
	return hit;
}

/* The commit skipped for its daemon, which is stopped. */
static int daemon_failed(struct hunt *h, struct commit *c, char *why)
{
	daemon_stop(h);
	c->build = BUILD_BROKEN;
	c->why = why;
	fprintf(stderr, "bisect: %.*s skipped: %s\n", ID_SHORT, c->id, c->why);
	return 1;
}

/* Starts --daemon CMD in c's worktree, its output appended to a log in the
 * bisect directory, and waits until it is ready: 0, 1 with the commit
 * skipped (it exited, was not ready in time or was not found), -1 when
 * stopped or perfhunt failed. */
static int daemon_start(struct hunt *h, struct commit *c, struct err *e)
{
	const struct bisect_cli *cli = h->cli;
	char out[PATH_MAX + 64], watched[2 * PATH_MAX + 64];
	snprintf(out, sizeof(out), "%s/%.*s.daemon.log", h->dir, ID_SHORT, c->id);
	if (cli->daemon_log)
		in_worktree(c, cli->daemon_log, watched, sizeof(watched));
	else
		snprintf(watched, sizeof(watched), "%s", out);
	off_t from = size_of(watched);
	/* what the daemon detaches (a new session, a double fork) is reparented
	 * to bisect, which can then stop it */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid_t pid = fork();
	if (pid < 0)
		return err_set(e, "cannot start the daemon: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0); /* its own group: stopped whole, and out of the terminal's SIGINT */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || in < 0 || chdir(c->path) < 0)
			_exit(126);
		dup2(in, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execl("/bin/sh", "sh", "-c", cli->daemon, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	h->daemon = h->daemon_pid = pid;
	fprintf(stderr, "bisect: %.*s daemon started (pid %d), log: %s\n", ID_SHORT, c->id, (int)pid, watched);
	int64_t t0 = clock_mono_ns();
	for (;;) {
		if (stopped(h)) {
			daemon_stop(h);
			return -1;
		}
		int st;
		if (h->daemon_pid == pid && waitpid(pid, &st, WNOHANG) == pid) {
			h->daemon_pid = 0;
			/* a daemon that forks into the background and exits 0 is found by
			 * its pidfile or name; any other exit skips the commit */
			if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0 && (cli->attach_name || cli->attach_pidfile)))
				return daemon_failed(h, c,
						     xasprintf("the daemon exited (status %d) before it was ready, log: %s",
							       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), out));
			fprintf(stderr, "bisect: %.*s daemon's command exited 0: it went to the background\n", ID_SHORT,
				c->id);
		}
		double ms = (double)(clock_mono_ns() - t0) / 1e6;
		if (cli->ready ? log_matches(watched, &from, &cli->ready_re) : ms >= cli->ro.idle_ms)
			break;
		if (ms >= DAEMON_READY_MS)
			return daemon_failed(h, c, xasprintf("the daemon printed no line matching '%s' in %d s, log: %s",
							     cli->ready, DAEMON_READY_MS / 1000, watched));
		usleep(DAEMON_POLL_US);
	}
	if (cli->attach_name || cli->attach_pidfile) { /* the process the runs attach to, found in the worktree */
		if (chdir(c->path) < 0)
			return err_set(e, "cannot enter %s: %s", c->path, strerror(errno));
		struct err fe;
		pid_t found = 0;
		int rc = cmd_find_daemon(cli->attach_name, cli->attach_pidfile, &found, &fe);
		if (fchdir(h->home_fd) < 0)
			return err_set(e, "cannot return to the starting directory: %s", strerror(errno));
		if (rc != 0)
			return daemon_failed(h, c, xasprintf("the daemon is ready but not found: %s", fe.msg));
		h->daemon_pid = found;
	}
	fprintf(stderr, "bisect: %.*s daemon ready after %.1f s; the runs attach to pid %d\n", ID_SHORT, c->id,
		(double)(clock_mono_ns() - t0) / 1e9, (int)h->daemon_pid);
	return 0;
}

/* With --daemon: each commit's runs in one batch beside a daemon of its own. */
static int run_batches(struct hunt *h, int64_t batch, struct err *e)
{
	for (size_t i = 0; i < h->n; i++) {
		struct commit *c = &h->c[i];
		if (!c->tested || c->build != BUILD_OK || c->nruns >= c->want)
			continue;
		int rc = daemon_start(h, c, e);
		if (rc < 0) {
			daemon_stop(h);
			return -1;
		}
		while (rc == 0 && c->build == BUILD_OK && c->nruns < c->want)
			if ((rc = stopped(h) ? -1 : run_once(h, c, batch, e)) == 0)
				say_progress(h, c);
		daemon_stop(h);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Runs every tested commit up to what it wants, one run each in turn, so
 * drift hits every commit alike. -1 when stopped or perfhunt failed. */
static int run_rounds(struct hunt *h, struct err *e)
{
	/* the batch's ID: when it started, so batches of later invocations differ */
	int64_t batch = clock_epoch_ms();
	if (batch <= h->last_batch)
		batch = h->last_batch + 1;
	h->last_batch = batch;
	if (h->cli->daemon)
		return run_batches(h, batch, e);
	for (;;) {
		bool any = false;
		for (size_t i = 0; i < h->n; i++) {
			struct commit *c = &h->c[i];
			if (!c->tested || c->build != BUILD_OK || c->nruns >= c->want)
				continue;
			any = true;
			if (stopped(h) || run_once(h, c, batch, e) < 0)
				return -1;
			say_progress(h, c);
		}
		if (!any)
			return 0;
	}
}

/* The batch a run was taken in (its "bisect_batch"); 0 for a run taken
 * outside a bisect. */
static int64_t batch_of(const json_t *rec)
{
	return (int64_t)json_integer_value(json_object_get(rec, "bisect_batch"));
}

static bool ran_in(const struct commit *c, int64_t batch)
{
	for (size_t i = 0; i < c->nruns; i++)
		if (batch_of(c->runs[i]) == batch)
			return true;
	return false;
}

/* The runs of c taken in a batch where other also ran, into out (borrowed). */
static size_t shared_runs(const struct commit *c, const struct commit *other, json_t **out)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nruns; i++)
		if (ran_in(other, batch_of(c->runs[i])))
			out[n++] = c->runs[i];
	return n;
}

/* A pair is judged on its contemporaneous runs: those taken in the batches
 * (rounds of interleaved runs) where both commits ran. Runs of one commit
 * taken minutes apart, under another load, would otherwise read as a change
 * between commits; so a new middle commit is run interleaved with fresh runs
 * of both ends of its interval. */
static int pair_sets(const struct commit *a, const struct commit *b, struct metrics_set *sa, struct metrics_set *sb,
		     struct err *e)
{
	json_t **ra = xcalloc(a->nruns + 1, sizeof(*ra)), **rb = xcalloc(b->nruns + 1, sizeof(*rb));
	size_t na = shared_runs(a, b, ra), nb = shared_runs(b, a, rb);
	int rc = metrics_from_records(ra, na, sa, e);
	if (rc == 0 && (rc = metrics_from_records(rb, nb, sb, e)) < 0)
		metrics_set_release(sa);
	free(ra);
	free(rb);
	return rc;
}

static int decide(const struct hunt *h, const struct commit *a, const struct commit *b, struct bisectpair *p,
		  struct err *e)
{
	struct metrics_set sa, sb;
	memset(p, 0, sizeof(*p));
	if (pair_sets(a, b, &sa, &sb, e) < 0)
		return -1;
	struct bisectrule r;
	bisectrule_init(&r);
	r.threshold = h->cli->threshold;
	r.min_runs = (size_t)h->cli->min_runs;
	bisectpair_judge(&r, &sa, &sb, h->cli->metrics.items, h->cli->metrics.n, p);
	metrics_set_release(&sa);
	metrics_set_release(&sb);
	return 0;
}

/* The next tested, buildable commit after i, or n. */
static size_t next_tested(const struct hunt *h, size_t i)
{
	for (size_t j = i + 1; j < h->n; j++)
		if (h->c[j].tested && h->c[j].build == BUILD_OK)
			return j;
	return h->n;
}

/* An untested commit strictly between a and b not known to be broken,
 * nearest the middle; or h->n. */
static size_t pick_middle(const struct hunt *h, size_t a, size_t b)
{
	size_t mid = a + (b - a) / 2, best = h->n;
	for (size_t j = a + 1; j < b; j++) {
		if (h->c[j].tested || h->c[j].build == BUILD_BROKEN)
			continue;
		size_t d = j > mid ? j - mid : mid - j;
		size_t bd = best == h->n ? SIZE_MAX : (best > mid ? best - mid : mid - best);
		if (d < bd)
			best = j;
	}
	return best;
}

/* Adds runs to both commits of a pair not yet decided, in the next batch;
 * false when the pair already has --max-runs contemporaneous runs a side. */
static bool more_runs(struct hunt *h, struct commit *a, struct commit *b)
{
	json_t **scratch = xcalloc(a->nruns + b->nruns + 1, sizeof(*scratch));
	size_t na = shared_runs(a, b, scratch), nb = shared_runs(b, a, scratch);
	free(scratch);
	size_t have = na < nb ? na : nb, max = (size_t)h->cli->max_runs;
	if (have >= max)
		return false;
	size_t step = have / 2 > 3 ? have / 2 : 3;
	if (step > max - have)
		step = max - have;
	if (a->want < a->nruns + step)
		a->want = a->nruns + step;
	if (b->want < b->nruns + step)
		b->want = b->nruns + step;
	return true;
}

static int start_testing(struct hunt *h, struct commit *c, struct err *e)
{
	if (prepare(h, c, e) < 0)
		return -1;
	c->tested = true;
	if (c->build == BUILD_OK) {
		c->want = (size_t)h->cli->min_runs > c->nruns ? (size_t)h->cli->min_runs : c->nruns;
		fprintf(stderr, "bisect: testing %.*s %s (%zu stored run%s)\n", ID_SHORT, c->id, c->subject, c->nruns,
			c->nruns == 1 ? "" : "s");
	}
	return 0;
}

/* One pass over the adjacent tested pairs: splits the different ones, adds
 * runs to the undecided ones. Returns 1 when something is left to do, 0 when
 * the hunt is over, -1 on failure. */
static int step(struct hunt *h, struct err *e)
{
	bool work = false;
	for (size_t a = next_tested(h, (size_t)-1); a < h->n;) {
		size_t b = next_tested(h, a);
		if (b >= h->n)
			break;
		struct bisectpair p;
		if (decide(h, &h->c[a], &h->c[b], &p, e) < 0)
			return -1;
		char why[160];
		bisectpair_why(&p, why, sizeof(why));
		if (p.verdict == BISECTRULE_DIFFERENT) {
			size_t m = pick_middle(h, a, b);
			if (m < h->n) {
				fprintf(stderr, "bisect: %.*s..%.*s different%s: splitting\n", ID_SHORT, h->c[a].id, ID_SHORT,
					h->c[b].id, why);
				bisectpair_release(&p);
				if (start_testing(h, &h->c[m], e) < 0)
					return -1;
				/* both ends run again beside it: its comparisons are contemporaneous */
				if (h->c[m].build == BUILD_OK && h->c[m].want > h->c[m].nruns) {
					size_t k = h->c[m].want - h->c[m].nruns;
					h->c[a].want = h->c[a].nruns + k;
					h->c[b].want = h->c[b].nruns + k;
				}
				return 1;
			}
		} else if (p.verdict == BISECTRULE_NOT_YET && more_runs(h, &h->c[a], &h->c[b])) {
			work = true;
		}
		bisectpair_release(&p);
		a = b;
	}
	return work ? 1 : 0;
}

/* --- the perfhunt.bisect/1 record --- */

static json_t *pair_json(const struct bisectpair *p)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < p->n; i++) {
		const struct bisectrule_result *r = &p->res[i];
		json_t *m = json_pack("{s:s, s:s, s:I}", "name", p->names[i], "verdict", bisectrule_name(r->verdict),
				      "runs", (json_int_t)r->n);
		if (isfinite(r->p))
			json_object_set_new(m, "p", json_real(r->p));
		json_array_append_new(arr, m);
	}
	return arr;
}

static double median_of(const struct commit *c, const char *metric)
{
	struct metrics_set s;
	struct err e;
	double v = NAN;
	if (metrics_from_records(c->runs, c->nruns, &s, &e) < 0)
		return NAN;
	const struct metrics_series *x = metrics_find(&s, metric);
	if (x && x->n)
		v = stats_median(x->values, x->n);
	else if (!strncmp(metric, "phase:", 6))
		v = 0;
	metrics_set_release(&s);
	return v;
}

/* The comparison of a culprit's two sides, for its phases' reasons. */
static const struct comparison_phase *find_phase(const struct comparison *c, const char *metric)
{
	if (strncmp(metric, "phase:", 6))
		return NULL;
	for (size_t i = 0; i < c->n_phases; i++)
		if (!strcmp(c->phases[i].name, metric + 6))
			return &c->phases[i];
	return NULL;
}

static json_t *culprit_json(const struct hunt *h, size_t a, size_t b, const struct bisectpair *p, const char *headline,
			    double total)
{
	const struct commit *ca = &h->c[a], *cb = &h->c[b];
	json_t *cj = json_pack("{s:s, s:s, s:s, s:s}", "commit", cb->id, "subject", cb->subject, "author", cb->author,
			       "after", ca->id);
	json_t *range = json_array();
	for (size_t j = a + 1; j <= b; j++)
		json_array_append_new(range, json_string(h->c[j].id));
	json_object_set_new(cj, "range", range);
	struct metrics_set sa, sb;
	struct comparison cmp;
	struct comparison_opts co;
	struct err e;
	comparison_opts_init(&co);
	memset(&cmp, 0, sizeof(cmp));
	bool have_cmp = metrics_from_records(ca->runs, ca->nruns, &sa, &e) == 0;
	if (have_cmp) {
		if (metrics_from_records(cb->runs, cb->nruns, &sb, &e) == 0) {
			have_cmp = comparison_run(&sa, &sb, &co, &cmp, &e) == 0;
			metrics_set_release(&sb);
		} else {
			have_cmp = false;
		}
		metrics_set_release(&sa);
	}
	json_t *phases = json_array();
	for (size_t i = 0; i < p->n; i++) {
		const struct bisectrule_result *r = &p->res[i];
		if (r->verdict != BISECTRULE_DIFFERENT)
			continue;
		json_t *ph = json_pack("{s:s, s:[f,f], s:f, s:[f,f], s:f}", "name", p->names[i], "medians", r->base_median,
				       r->new_median, "delta", r->new_median - r->base_median, "interval",
				       isfinite(r->ci_low) ? r->ci_low : 0.0, isfinite(r->ci_high) ? r->ci_high : 0.0, "p",
				       r->p);
		const struct comparison_phase *cp = have_cmp ? find_phase(&cmp, p->names[i]) : NULL;
		char why[512] = "";
		if (cp)
			compare_text_reasons(cp, why, sizeof(why));
		json_object_set_new(ph, "reason", json_string(why));
		double whole = median_of(&h->c[h->n - 1], p->names[i]) - median_of(&h->c[0], p->names[i]);
		if (isfinite(whole) && whole != 0) /* of this metric's whole good→bad change */
			json_object_set_new(ph, "share_pct", json_real(100 * (r->new_median - r->base_median) / whole));
		if (cp && cp->profile) {
			char code[512];
			compare_text_code(cp->profile, code, sizeof(code));
			if (*code)
				json_object_set_new(ph, "code", json_string(code));
		}
		json_array_append_new(phases, ph);
	}
	if (have_cmp)
		comparison_release(&cmp);
	json_object_set_new(cj, "phases", phases);
	/* what it explains of the headline's change: its leading phase's time
	 * (a phase runs within the wall time), else its own headline change */
	long lead = bisectpair_leading(p);
	double d = median_of(cb, headline) - median_of(ca, headline);
	if (lead >= 0 && strcmp(p->names[lead], headline) && metrics_unit(p->names[lead]) == METRICS_MS &&
	    metrics_unit(headline) == METRICS_S)
		d = (p->res[lead].new_median - p->res[lead].base_median) / 1000;
	if (lead >= 0)
		json_object_set_new(cj, "leading", json_string(p->names[lead]));
	json_object_set_new(cj, "headline_delta", json_real(isfinite(d) ? d : 0));
	if (isfinite(d) && isfinite(total) && total != 0)
		json_object_set_new(cj, "share_pct", json_real(100 * d / total));
	return cj;
}

static json_t *commit_json(const struct commit *c)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:I}", "commit", c->id, "subject", c->subject, "author", c->author,
			 "runs", (json_int_t)c->nruns, "reused", (json_int_t)c->reused);
}

/* The record of the hunt as it stands (finished or stopped). */
static int build_record(const struct hunt *h, enum bisectrule_verdict ends, json_t **out, struct err *e)
{
	const struct bisect_cli *cli = h->cli;
	json_t *rec = json_object();
	json_t *argv = json_array();
	for (char *const *a = h->argv; *a; a++)
		json_array_append_new(argv, json_string(*a));
	json_object_set_new(rec, "schema", json_string("perfhunt.bisect/1"));
	json_object_set_new(rec, "command", argv);
	json_object_set_new(rec, "good", json_string(h->c[0].id));
	json_object_set_new(rec, "bad", json_string(h->c[h->n - 1].id));
	json_object_set_new(rec, "build", cli->build ? json_string(cli->build) : json_null());
	/* the daemon every commit's runs attached to, started fresh in its worktree */
	json_object_set_new(rec, "daemon", !cli->daemon ? json_null()
					 : json_pack("{s:s, s:o, s:o}", "command", cli->daemon, "ready",
						     cli->ready ? json_string(cli->ready) : json_null(), "log",
						     cli->daemon_log ? json_string(cli->daemon_log) : json_null()));
	json_object_set_new(rec, "rule", json_pack("{s:f, s:f, s:I, s:I}", "p_different", 0.01, "threshold_pct",
						     cli->threshold * 100, "min_runs", (json_int_t)cli->min_runs,
						     "max_runs", (json_int_t)cli->max_runs));
	json_object_set_new(rec, "ends", json_string(bisectrule_name(ends)));
	json_object_set_new(rec, "finished", json_boolean(h->signal == 0));
	/* wall time is what a user waits for, and every record has it */
	const char *headline = "wall_s";
	double total = median_of(&h->c[h->n - 1], headline) - median_of(&h->c[0], headline);
	json_object_set_new(rec, "headline", json_pack("{s:s, s:f}", "metric", headline, "delta",
						       isfinite(total) ? total : 0.0));
	/* the judged metrics (those of good against bad), with each tested commit's median */
	struct bisectpair ends_pair;
	if (decide(h, &h->c[0], &h->c[h->n - 1], &ends_pair, e) < 0) {
		json_decref(rec);
		return -1;
	}
	json_t *judged = json_array();
	for (size_t i = 0; i < ends_pair.n; i++)
		json_array_append_new(judged, json_string(ends_pair.names[i]));
	json_object_set_new(rec, "metrics", judged);
	json_t *tested = json_array(), *skipped = json_array(), *culprits = json_array(), *undecided = json_array();
	size_t runs = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct commit *c = &h->c[i];
		runs += c->nruns;
		if (c->tested && c->build == BUILD_BROKEN)
			json_array_append_new(skipped, json_pack("{s:s, s:s, s:s}", "commit", c->id, "subject", c->subject,
								 "why", c->why ? c->why : ""));
		if (!c->tested || c->build != BUILD_OK)
			continue;
		json_t *cj = commit_json(c), *medians = json_object();
		for (size_t k = 0; k < ends_pair.n; k++) {
			double v = median_of(c, ends_pair.names[k]);
			json_object_set_new(medians, ends_pair.names[k], isfinite(v) ? json_real(v) : json_null());
		}
		json_object_set_new(cj, "medians", medians);
		size_t b = next_tested(h, i);
		if (b < h->n) {
			struct bisectpair p;
			if (decide(h, c, &h->c[b], &p, e) < 0) {
				bisectpair_release(&ends_pair);
				json_decref(cj);
				json_decref(rec);
				json_decref(tested);
				json_decref(skipped);
				json_decref(culprits);
				json_decref(undecided);
				return -1;
			}
			json_object_set_new(cj, "next", json_string(h->c[b].id));
			json_object_set_new(cj, "verdict", json_string(bisectrule_name(p.verdict)));
			json_object_set_new(cj, "metrics", pair_json(&p));
			if (ends != BISECTRULE_DIFFERENT) /* nothing hunted: the ends' verdict only */
				;
			else if (p.verdict == BISECTRULE_DIFFERENT && pick_middle(h, i, b) == h->n)
				json_array_append_new(culprits, culprit_json(h, i, b, &p, headline, total));
			else if (p.verdict == BISECTRULE_NOT_YET)
				json_array_append_new(undecided, json_pack("{s:s, s:s}", "from", c->id, "to", h->c[b].id));
			bisectpair_release(&p);
		}
		json_array_append_new(tested, cj);
	}
	bisectpair_release(&ends_pair);
	json_object_set_new(rec, "tested", tested);
	json_object_set_new(rec, "skipped", skipped);
	json_object_set_new(rec, "culprits", culprits);
	json_object_set_new(rec, "undecided", undecided);
	json_object_set_new(rec, "runs", json_integer((json_int_t)runs));
	json_object_set_new(rec, "runs_added", json_integer((json_int_t)h->added));
	*out = rec;
	return 0;
}

static int report_fn(const json_t *rec, FILE *f, struct err *e)
{
	struct svg page;
	svg_init(&page);
	int rc = report_html(rec, &page, e);
	if (rc == 0 && fwrite(page.buf, 1, page.len, f) != page.len)
		rc = err_set(e, "write error");
	svg_release(&page);
	return rc;
}

static int json_fn(const json_t *rec, FILE *f, struct err *e)
{
	if (json_dumpf(rec, f, JSON_INDENT(2)) < 0 || fputc('\n', f) == EOF)
		return err_set(e, "write error");
	return 0;
}

/* Good, then every first-parent commit up to bad, with subject and author. */
static int list_commits(struct hunt *h, struct err *e)
{
	char good[64], bad[64];
	if (git_resolve_commit(h->top, h->cli->good, good, sizeof(good)) < 0)
		return err_set(e, "--good %s: not a commit of %s", h->cli->good, h->top);
	if (git_resolve_commit(h->top, h->cli->bad, bad, sizeof(bad)) < 0)
		return err_set(e, "--bad %s: not a commit of %s", h->cli->bad, h->top);
	char **ids;
	size_t n;
	if (git_range(h->top, good, bad, &ids, &n) < 0 || n == 0) {
		for (size_t i = 0; i < n; i++)
			free(ids[i]);
		free(ids);
		return err_set(e, "no commits from %s to %s (is the good commit an ancestor of the bad one?)",
			       h->cli->good, h->cli->bad);
	}
	h->n = n + 1;
	h->c = xcalloc(h->n, sizeof(*h->c));
	snprintf(h->c[0].id, sizeof(h->c[0].id), "%s", good);
	for (size_t i = 0; i < n; i++) {
		snprintf(h->c[i + 1].id, sizeof(h->c[i + 1].id), "%s", ids[i]);
		free(ids[i]);
	}
	free(ids);
	for (size_t i = 0; i < h->n; i++)
		git_commit_about(h->top, h->c[i].id, h->c[i].subject, sizeof(h->c[i].subject), h->c[i].author,
				 sizeof(h->c[i].author));
	return 0;
}

/* Runs the ends until they are decided; the verdict. */
static int decide_ends(struct hunt *h, enum bisectrule_verdict *ends, struct err *e)
{
	struct commit *g = &h->c[0], *b = &h->c[h->n - 1];
	for (;;) {
		if (run_rounds(h, e) < 0)
			return -1;
		if (g->build != BUILD_OK || b->build != BUILD_OK)
			return err_set(e, "the %s commit %.*s cannot be used: %s", g->build != BUILD_OK ? "good" : "bad",
				       ID_SHORT, (g->build != BUILD_OK ? g : b)->id, (g->build != BUILD_OK ? g : b)->why);
		struct bisectpair p;
		if (decide(h, g, b, &p, e) < 0)
			return -1;
		char why[160];
		bisectpair_why(&p, why, sizeof(why));
		*ends = p.verdict;
		bisectpair_release(&p);
		fprintf(stderr, "bisect: good..bad %s%s\n", bisectrule_name(*ends), why);
		if (*ends != BISECTRULE_NOT_YET || !more_runs(h, g, b))
			return 0;
	}
}

static int hunt(struct hunt *h, json_t **rec, struct err *e)
{
	enum bisectrule_verdict ends = BISECTRULE_NOT_YET;
	if (start_testing(h, &h->c[0], e) < 0 || start_testing(h, &h->c[h->n - 1], e) < 0)
		return h->signal ? build_record(h, ends, rec, e) : -1;
	if (h->c[0].build != BUILD_OK || h->c[h->n - 1].build != BUILD_OK)
		return err_set(e, "the %s commit cannot be built: %s", h->c[0].build != BUILD_OK ? "good" : "bad",
			       h->c[0].build != BUILD_OK ? h->c[0].why : h->c[h->n - 1].why);
	if (decide_ends(h, &ends, e) < 0)
		return h->signal ? build_record(h, ends, rec, e) : -1;
	while (ends == BISECTRULE_DIFFERENT) {
		int more = step(h, e);
		if (more > 0)
			more = run_rounds(h, e) < 0 ? -1 : 1;
		if (more < 0 && !h->signal)
			return -1;
		if (more <= 0)
			break;
	}
	return build_record(h, ends, rec, e);
}

static int parse(struct bisect_cli *b, int argc, char **argv, int *status)
{
	struct parseopt shared[RECORD_OPTS_NROWS], attach_rows[RECORD_OPTS_ATTACH_NROWS];
	int64_t attach = 0;
	record_opts_rows(&b->ro, RECORD_OPTS_FOR_HUNT, shared);
	record_opts_attach_rows(&b->ro, &attach, &b->attach_name, &b->attach_pidfile, attach_rows);
	const struct parseopt table[] = {
		PARSEOPT_STRING(0, "good", &b->good, "REF", "a commit CMD was fast at (required)"),
		PARSEOPT_STRING(0, "bad", &b->bad, "REF", "a later commit it was slow at (required)"),
		PARSEOPT_STRING(0, "build", &b->build, "CMD", "shell command that builds a commit, run in its\n"
				"worktree (output in a log per commit); a commit\nwhose build fails is skipped"),
		PARSEOPT_LIST(0, "metric", &b->metrics, "NAME", "judge on this metric (repeatable; default: wall_s\n"
			      "and every phase's duration, phase:NAME)"),
		PARSEOPT_CALLBACK(0, "threshold", &b->threshold, "PCT",
				  "smallest change that counts, in percent (default 10)", cmd_opt_threshold),
		PARSEOPT_I64(0, "min-runs", &b->min_runs, "N", "runs of a commit before any decision (default 5)", 2,
			     1000),
		PARSEOPT_I64(0, "max-runs", &b->max_runs, "N", "runs a side a pair of commits is judged on at\n"
			     "most (default 30); a pair still open there is\n"
			     "reported undecided", 2, 100000),
		PARSEOPT_FLAG(0, "shell", &b->shell, "CMD is a shell command: sh -c \"CMD ARG...\""),
		PARSEOPT_STRING(0, "export-json", &b->json_path, "FILE", "the perfhunt.bisect/1 record of the hunt"),
		PARSEOPT_STRING(0, "report", &b->report_path, "FILE",
				"the HTML report: each judged metric's median along\nthe tested commits, the culprits marked"),
		PARSEOPT_FLAG(0, "clean", &b->clean, "remove the worktrees bisect made, and exit"),
		PARSEOPT_GROUP("a daemon the runs attach to:"),
		PARSEOPT_STRING(0, "daemon", &b->daemon, "CMD", "shell command that starts it in the commit's\n"
				"worktree before each batch of its runs (stopped\nafter); a commit whose daemon fails is skipped"),
		PARSEOPT_STRING(0, "daemon-log", &b->daemon_log, "FILE", "the log --ready reads (default: the daemon's\n"
				"output, kept in the bisect directory)"),
		PARSEOPT_STRING(0, "ready", &b->ready, "REGEX", "the daemon is ready at a log line matching REGEX\n"
				"(extended; default: --idle-ms after it started)"),
		PARSEOPT_INCLUDE(attach_rows),
		PARSEOPT_GROUP("recording options, as for 'perfhunt run':"),
		PARSEOPT_INCLUDE(shared),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "bisect", .usage = usage_text, .footer = usage_footer,
					  .table = table, .flags = PARSEOPT_STOP_AT_OPERAND };
	int n = cmd_parse_options(&opts, argc, argv, status);
	if (n < 0)
		return -1;
	if (b->clean)
		return n;
	if (!b->good || !b->bad) {
		*status = cmd_usage_error("bisect", "--good REF and --bad REF are required");
		return -1;
	}
	if (n == 0) {
		*status = cmd_usage_error("bisect", "no command given");
		return -1;
	}
	if (b->ro.json_path || b->ro.csv_path) {
		*status = cmd_usage_error("bisect", "%s is per run; use --export-json",
					  b->ro.json_path ? "--output" : "--csv");
		return -1;
	}
	if ((b->daemon_log || b->ready) && !b->daemon) {
		*status = cmd_usage_error("bisect", "%s needs --daemon", b->ready ? "--ready" : "--daemon-log");
		return -1;
	}
	b->ro.daemon_pid = (pid_t)attach;
	if ((attach > 0) + (b->attach_name != NULL) + (b->attach_pidfile != NULL) > 1 || (attach > 0 && b->daemon)) {
		*status = cmd_usage_error("bisect", b->daemon ? "with --daemon, give --attach-name or --attach-pidfile"
						       : "give one of --attach, --attach-name, --attach-pidfile");
		return -1;
	}
	if (b->ready && regcomp(&b->ready_re, b->ready, REG_EXTENDED | REG_NOSUB) != 0) {
		*status = cmd_usage_error("bisect", "--ready '%s' is not an extended regular expression", b->ready);
		b->ready = NULL;
		return -1;
	}
	b->ro.target = (struct record_opts_target){ b->shell, b->ro.daemon_pid, b->attach_name, b->attach_pidfile };
	if (b->min_runs > b->max_runs) {
		*status = cmd_usage_error("bisect", "--min-runs %lld is above --max-runs %lld", (long long)b->min_runs,
					  (long long)b->max_runs);
		return -1;
	}
	return n;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_cli cli = { .max_runs = 30, .min_runs = 5, .threshold = 0.10 };
	struct hunt h = { .cli = &cli, .home_fd = -1 };
	struct err e;
	json_t *rec = NULL;
	char *script = NULL;
	int status = PH_EXIT_USAGE;
	record_opts_init(&cli.ro);
	cli.ro.discard_output = true;
	cli.ro.quiet = true;
	int n = parse(&cli, argc, argv, &status);
	if (n < 0)
		goto out;
	status = PH_EXIT_FAIL;
	if (git_toplevel(h.top, sizeof(h.top)) < 0) {
		fprintf(stderr, "perfhunt bisect: not inside a git work tree\n");
		goto out;
	}
	if (hunt_dir(h.dir, sizeof(h.dir), h.top, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	if (cli.clean) {
		status = cmd_finish_stdout(clean(&h));
		goto out;
	}
	const char *more[] = { cli.json_path, cli.report_path };
	if ((status = record_opts_check_outputs(&cli.ro, more, 2)) != 0)
		goto out;
	status = PH_EXIT_FAIL;
	char *shell_argv[2] = { NULL, NULL };
	if (cli.shell)
		shell_argv[0] = script = xjoin(argv, (size_t)n, " ");
	h.argv = cli.shell ? shell_argv : argv;
	json_t *jargv = json_array();
	for (char *const *a = h.argv; *a; a++)
		json_array_append_new(jargv, json_string(*a));
	if (cli.shell) {
		json_decref(jargv);
		jargv = json_string(script);
	}
	h.command = command_text(jargv);
	json_decref(jargv);
	h.home_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!h.command || h.home_fd < 0 || mkdir_p(h.dir) < 0) {
		fprintf(stderr, "perfhunt bisect: cannot use %s: %s\n", h.dir, strerror(errno));
		goto out;
	}
	if (!cli.daemon && (status = cmd_find_daemon(cli.attach_name, cli.attach_pidfile, &cli.ro.daemon_pid, &e)) != 0) {
		cmd_fail(status, &e);
		goto out;
	}
	h.daemon_pid = cli.ro.daemon_pid;
	status = PH_EXIT_FAIL;
	if (list_commits(&h, &e) < 0 || store_open(&h.store, NULL, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	fprintf(stderr, "bisect: %zu commits from %.*s to %.*s; worktrees in %s\n", h.n, ID_SHORT, h.c[0].id, ID_SHORT,
		h.c[h.n - 1].id, h.dir);
	h.start_ns = clock_mono_ns();
	monitor_keep_sockets(true);
	catch_stops(true);
	int rc = hunt(&h, &rec, &e);
	catch_stops(false);
	monitor_keep_sockets(false);
	if (rc < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	status = h.signal ? 128 + h.signal : PH_EXIT_OK;
	const char *ends = json_string_value(json_object_get(rec, "ends"));
	if (!h.signal && strcmp(ends, "different"))
		status = PH_EXIT_FAIL;
	bisect_text_write(rec, stdout);
	if (h.signal)
		printf("bisect: stopped by SIG%s: %zu runs added and stored; run the same command again to resume\n",
		       sigabbrev_np(h.signal), h.added);
	struct cmd_export ex[] = { { cli.json_path, json_fn }, { cli.report_path, report_fn } };
	status = cmd_write_exports(ex, 2, rec, status);
	status = cmd_finish_stdout(status);
out:
	if (h.store)
		store_close_detached(h.store);
	for (size_t i = 0; i < h.n; i++) {
		for (size_t j = 0; j < h.c[i].nruns; j++)
			json_decref(h.c[i].runs[j]);
		free(h.c[i].runs);
		free(h.c[i].why);
	}
	free(h.c);
	free(h.command);
	if (h.home_fd >= 0)
		close(h.home_fd);
	json_decref(rec);
	free(script);
	parseopt_list_release(&cli.metrics);
	if (cli.ready)
		regfree(&cli.ready_re);
	record_opts_release(&cli.ro);
	return status;
}
