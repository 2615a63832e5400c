/* profiler: perf record under a keeper, enabled through its control pipe;
 * perf script read through a pipe, line by line, into perfscript.
 */
#include "profile/profiler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>


/* The name of the off-CPU event that samples 1 in PROFILER_OFFCPU_PERIOD. */
#define OFFCPU_SAMPLED PROFILER_OFFCPU_EVENT "-sampled"

/* perf's start-up (reading the targets' maps) before it acks "enable". */
enum { PROFILER_START_TIMEOUT_MS = 20000, PROFILER_LINE_MAX = 8192 };

struct profiler {
	pid_t keeper;                 /* perf's parent, in its own process group */
	int pids_fd, ctl_fd, ack_fd, done_fd;
	bool attached, stopped;
	bool bound_hit;               /* perf said it reached --max-size */
	bool offcpu;                  /* perf records the two off-CPU events */
	bool sampled;                 /* the sampled one is the one enabled */
	uint64_t pace_switches;       /* the tree's switches since the last decision */
	double pace_ms;
	int unacked;                  /* control commands perf has not acknowledged yet */
	int dir_fd;                   /* the directory, flock'ed while it is ours */
	char dir[PATH_MAX];
	char data[PATH_MAX + 16], log[PATH_MAX + 16], script_log[PATH_MAX + 16];
};

static int read_int_file(const char *path, int *v)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* The effective capability bit, from /proc/self/status. */
static bool has_cap(int bit)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	char line[256];
	unsigned long long caps = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return (caps >> bit) & 1;
}

static bool perf_in_path(void)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		const char *c = strchr(path, ':');
		size_t n = c ? (size_t)(c - path) : strlen(path);
		char buf[PATH_MAX];
		if (n && n + 6 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/perf", (int)n, path);
			if (access(buf, X_OK) == 0)
				return true;
		}
		path += n + (c ? 1 : 0);
	}
	return false;
}

/* Hardware cycles can be sampled here (a VM often has no PMU). */
static bool have_cycles(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				     .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Whether perf may sample the context-switch event here as it will: on
 * this thread, with its switch records, user registers and stack and the
 * kernel's call chain (the same as the on-CPU stacks need: the caller has
 * checked kernel.perf_event_paranoid; a seccomp filter or a kernel without
 * software events still says no). */
static void check_offcpu(struct profiler_info *info)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_CONTEXT_SWITCHES, .disabled = 1,
				     .sample_period = PROFILER_OFFCPU_PERIOD, .context_switch = 1,
				     .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
						    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
				     .sample_regs_user = 0xff, .sample_stack_user = 8192 };
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		info->offcpu = true;
		return;
	}
	snprintf(info->offcpu_note, sizeof(info->offcpu_note),
		 "off-CPU stacks not recorded: the " PROFILER_OFFCPU_EVENT " event cannot be sampled here (%s)",
		 strerror(errno));
}

int profiler_check(int hz, struct profiler_info *info, struct err *e)
{
	memset(info, 0, sizeof(*info));
	info->hz = hz;
	if (!perf_in_path())
		return err_set(e, "profile not recorded: the perf tool is not installed "
			       "(Debian: apt-get install linux-perf)");
	const bool admin = geteuid() == 0 || has_cap(38 /* CAP_PERFMON */) || has_cap(21 /* CAP_SYS_ADMIN */);
	int paranoid = 2, kptr = 0;
	if (read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid) < 0)
		return err_set(e, "profile not recorded: no perf events in this kernel "
			       "(/proc/sys/kernel/perf_event_paranoid is absent)");
	if (!admin && paranoid > 1)
		return err_set(e, "profile not recorded: kernel.perf_event_paranoid is %d; user and kernel "
			       "stacks need 1 or lower (sysctl -w kernel.perf_event_paranoid=1) or CAP_PERFMON",
			       paranoid);
	read_int_file("/proc/sys/kernel/kptr_restrict", &kptr);
	if (kptr >= 2 || (kptr == 1 && geteuid() != 0 && !has_cap(34 /* CAP_SYSLOG */)))
		snprintf(info->kernel_note, sizeof(info->kernel_note),
			 "kernel frames are not named: kernel.kptr_restrict is %d (0 names them)", kptr);
	info->software = !have_cycles();
	snprintf(info->event, sizeof(info->event), "%s", info->software ? "cpu-clock" : "cycles");
	check_offcpu(info);
	return 0;
}

/* The keeper's child: perf record, its control pipe at fds 4 and 5. */
static void exec_perf(const struct profiler *p, const char *pids, const struct profiler_info *info)
{
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int log = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (devnull < 0 || log < 0)
		_exit(126);
	dup2(devnull, STDIN_FILENO);
	dup2(log, STDOUT_FILENO);
	dup2(log, STDERR_FILENO);
	fcntl(3, F_SETFD, FD_CLOEXEC); /* the pid list is the keeper's */
	char hz[16], ev[64], off_every[64], off_sampled[80];
	snprintf(hz, sizeof(hz), "%d", info->hz);
	/* --no-bpf-event: perf's side-band thread for BPF programs polls with a
	 * 1 s timeout and is joined at exit: SIGINT took 0.66-0.76 s to end perf
	 * with it, 10 ms without. --no-buildid: no pass over every sample at exit
	 * to find the binaries hit (249 ms for 20 MB, 20 ms without); perf script
	 * reads the same files by path right after. */
	char *const argv[] = { "perf", "record", "-q", "--no-buildid", "--no-buildid-cache", "--no-bpf-event", "-k", "mono", "-e", (char *)info->event, "-F", hz,
			       "--call-graph", "dwarf", "-D", "-1", "--control", "fd:4,5", "--max-size", PROFILER_DATA_BOUND,
			       "-o", (char *)p->data, "-p", (char *)pids, NULL };
	/* with off-CPU stacks: each event with its own term, the on-CPU one its
	 * frequency, the switch-outs' their period and the name the control
	 * pipe enables them by (and perf script prints) */
	snprintf(ev, sizeof(ev), "%s/freq=%d/", info->event, info->hz);
	snprintf(off_every, sizeof(off_every), "%s/period=1,name=%s/", PROFILER_OFFCPU_EVENT, PROFILER_OFFCPU_EVENT);
	snprintf(off_sampled, sizeof(off_sampled), "%s/period=%d,name=%s/", PROFILER_OFFCPU_EVENT, PROFILER_OFFCPU_PERIOD,
		 OFFCPU_SAMPLED);
	char *const offcpu[] = { "perf", "record", "-q", "--no-buildid", "--no-buildid-cache", "--no-bpf-event", "-k", "mono", "-e", ev, "-e",
				 off_every, "-e", off_sampled, "--switch-events", "--call-graph", "dwarf", "-D", "-1",
				 "--control", "fd:4,5", "--max-size", PROFILER_DATA_BOUND, "-o", (char *)p->data, "-p",
				 (char *)pids, NULL };
	execvp("perf", info->offcpu ? offcpu : argv);
	_exit(127);
}

/* The keeper: in its own process group (a terminal's ^C reaches perfhunt,
 * which decides), holding only fds 3 (the pid list to read), 4 and 5 (perf's
 * control pipe) and 6 (closed at its exit: perfhunt's "done"). It reads the
 * pids, starts perf on them and on itself, and waits for perf. */
static void run_keeper(const struct profiler *p, const struct profiler_info *info, const int fds[4])
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	setpgid(0, 0);
	int hi[4];
	for (int i = 0; i < 4; i++)
		hi[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 100);
	for (int i = 0; i < 4; i++)
		if (hi[i] < 0 || dup2(hi[i], 3 + i) < 0) /* dup2 clears CLOEXEC: perf inherits 4 and 5 */
			_exit(126);
	/* the keeper never execs: close what it inherited (the launch gate's
	 * write end among them, or the command would wait at the gate forever) */
	close_range(7, ~0u, 0);
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0)
		for (int fd = 0; fd < 3; fd++)
			dup2(devnull, fd);
	char list[512];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof(list) - 24 && (r = read(3, list + len, sizeof(list) - 24 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			_exit(0);
		len += (size_t)r;
		if (memchr(list, '\n', len))
			break;
	}
	char *nl = memchr(list, '\n', len);
	if (!nl)
		_exit(0); /* no targets: perfhunt gave up */
	snprintf(nl, sizeof(list) - (size_t)(nl - list), ",%d", (int)getpid()); /* keeps perf alive */
	pid_t perf = fork();
	if (perf < 0)
		_exit(126);
	if (perf == 0)
		exec_perf(p, list, info);
	signal(SIGINT, SIG_IGN); /* the group's SIGINT is for perf */
	close(3);
	close(4);
	close(5);
	int st;
	while (waitpid(perf, &st, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* Calls fn on each line of a log of perf's (without its newline) until fn
 * returns false; a log that cannot be read has no lines. */
static void each_log_line(const char *path, bool (*fn)(const char *line, void *arg), void *arg)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char line[400];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!fn(line, arg))
			break;
	}
	fclose(f);
}

struct reason_buf {
	char *buf;
	size_t n;
};

static bool reason_line(const char *line, void *arg)
{
	const struct reason_buf *r = arg;
	if (!line[0] || !strncmp(line, "Events ", 7))
		return true;
	snprintf(r->buf, r->n, "perf record: %.200s", line);
	return false;
}

/* perf's own words for why it stopped: the first line of its log that says. */
static void log_reason(const char *path, char *buf, size_t n)
{
	snprintf(buf, n, "perf record ended before sampling started");
	struct reason_buf r = { buf, n };
	each_log_line(path, reason_line, &r);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Every file perf and perfhunt put in a profile's directory. */
static const char *const profile_files[] = { "perf.data", "perf.data.old", "record.log", "script.log" };

/* Removes the directory name in the one open as dir_fd (files first). */
static void remove_dir(int parent_fd, const char *name, int dir_fd)
{
	for (size_t i = 0; i < sizeof(profile_files) / sizeof(profile_files[0]); i++)
		unlinkat(dir_fd, profile_files[i], 0);
	unlinkat(parent_fd, name, AT_REMOVEDIR);
}

static void remove_files(struct profiler *p)
{
	if (p->dir_fd >= 0)
		remove_dir(AT_FDCWD, p->dir, p->dir_fd);
	close_fd(&p->dir_fd);
}

/* Stale profiles: a perfhunt killed (SIGKILL) during --profile leaves its
 * directory and perf.data (megabytes a second) behind. As with stale
 * cgroups (proc/cgroup.c), the next start removes them: a directory named
 * for a PID that no longer exists, whose lock nobody holds, and that is
 * ours. The PID spares one being made (locked a moment later); the lock
 * spares one of a perfhunt in another PID namespace sharing the directory;
 * a reused PID only keeps a stale one until that process ends. */
int profiler_reap_stale(const char *tmp)
{
	static const char prefix[] = "perfhunt-profile-";
	DIR *d = opendir(tmp);
	if (!d)
		return 0;
	int removed = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		if (strncmp(de->d_name, prefix, sizeof(prefix) - 1))
			continue;
		long pid = strtol(de->d_name + sizeof(prefix) - 1, &end, 10);
		if (pid <= 0 || *end != '-' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0) {
			remove_dir(dirfd(d), de->d_name, fd);
			removed++;
		}
		close(fd);
	}
	closedir(d);
	return removed;
}

/* The keeper ends after perf: its "done" pipe reads EOF. It is not our child
 * (unless a subreaper adopted it): waitpid only where it is. */
static void wait_keeper(struct profiler *p)
{
	char b[64];
	ssize_t r;
	while (p->done_fd >= 0 && ((r = read(p->done_fd, b, sizeof(b))) > 0 || (r < 0 && errno == EINTR)))
		;
	close_fd(&p->done_fd);
	int st;
	while (p->keeper > 0 && waitpid(p->keeper, &st, 0) < 0 && errno == EINTR)
		;
	p->keeper = -1;
}

/* Forks twice so the keeper is nobody's child here: the monitor counts
 * perfhunt's children (and what they fork) as the measured tree, and reaps
 * them; the subreaper flag is lifted meanwhile so init adopts it. */
int profiler_prepare(struct profiler **out, struct profiler_info *info, struct err *e)
{
	*out = NULL;
	struct profiler *p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(e, "profile not recorded: out of memory");
	p->keeper = -1;
	p->pids_fd = p->ctl_fd = p->ack_fd = p->done_fd = p->dir_fd = -1;
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	profiler_reap_stale(tmp);
	snprintf(p->dir, sizeof(p->dir), "%s/perfhunt-profile-%d-XXXXXX", tmp, (int)getpid());
	if (!mkdtemp(p->dir) ||
	    (p->dir_fd = open(p->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    flock(p->dir_fd, LOCK_EX) < 0) {
		err_sys(e, "profile not recorded: cannot make a directory in %s", tmp);
		if (p->dir_fd >= 0)
			remove_files(p);
		else
			rmdir(p->dir);
		free(p);
		return -1;
	}
	snprintf(p->data, sizeof(p->data), "%s/perf.data", p->dir);
	snprintf(p->log, sizeof(p->log), "%s/record.log", p->dir);
	snprintf(p->script_log, sizeof(p->script_log), "%s/script.log", p->dir);
	int pids[2] = { -1, -1 }, ctl[2] = { -1, -1 }, ack[2] = { -1, -1 }, done[2] = { -1, -1 }, kp[2] = { -1, -1 };
	if (pipe2(pids, O_CLOEXEC) < 0 || pipe2(ctl, O_CLOEXEC) < 0 || pipe2(ack, O_CLOEXEC) < 0 ||
	    pipe2(done, O_CLOEXEC) < 0 || pipe2(kp, O_CLOEXEC) < 0) {
		err_sys(e, "profile not recorded: pipe");
		goto fail;
	}
	int was_reaper = 0;
	prctl(PR_GET_CHILD_SUBREAPER, &was_reaper);
	if (was_reaper)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	pid_t mid = fork();
	if (mid == 0) {
		pid_t k = fork();
		if (k == 0) {
			const int fds[4] = { pids[0], ctl[0], ack[1], done[1] };
			run_keeper(p, info, fds);
		}
		ssize_t w = write(kp[1], &k, sizeof(k));
		_exit(w == sizeof(k) && k > 0 ? 0 : 1);
	}
	pid_t keeper = -1;
	if (mid > 0) {
		int st;
		while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
			;
		if (read(kp[0], &keeper, sizeof(keeper)) != sizeof(keeper))
			keeper = -1;
	}
	if (was_reaper)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (keeper <= 0) {
		err_sys(e, "profile not recorded: fork");
		goto fail;
	}
	p->keeper = keeper;
	info->keeper = keeper;
	p->offcpu = info->offcpu;
	p->pids_fd = pids[1], pids[1] = -1;
	p->ctl_fd = ctl[1], ctl[1] = -1;
	p->ack_fd = ack[0], ack[0] = -1;
	p->done_fd = done[0], done[0] = -1;
	for (int i = 0; i < 2; i++) {
		close_fd(&pids[i]);
		close_fd(&ctl[i]);
		close_fd(&ack[i]);
		close_fd(&done[i]);
		close_fd(&kp[i]);
	}
	*out = p;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		close_fd(&pids[i]);
		close_fd(&ctl[i]);
		close_fd(&ack[i]);
		close_fd(&done[i]);
		close_fd(&kp[i]);
	}
	remove_files(p);
	free(p);
	return -1;
}

/* Writes a line to one of perf's pipes; false when perf is gone. */
static bool send_line(int fd, const char *line, size_t len)
{
	struct sigaction old, ign = { .sa_handler = SIG_IGN };
	sigaction(SIGPIPE, &ign, &old); /* perf may be gone already: EPIPE, then its log */
	bool sent = write(fd, line, len) == (ssize_t)len;
	sigaction(SIGPIPE, &old, NULL);
	return sent;
}

/* Sends perf a control command; its "ack" is awaited by sync. */
static bool control(struct profiler *p, const char *cmd)
{
	if (!send_line(p->ctl_fd, cmd, strlen(cmd)))
		return false;
	p->unacked++;
	return true;
}

/* Waits for an "ack" line of perf's for every command sent; false when perf
 * does not answer in time (gone, or stuck). */
static bool sync_acks(struct profiler *p)
{
	char buf[64];
	while (p->unacked > 0) {
		struct pollfd pf = { .fd = p->ack_fd, .events = POLLIN };
		int pr;
		while ((pr = poll(&pf, 1, PROFILER_START_TIMEOUT_MS)) < 0 && errno == EINTR)
			;
		ssize_t r = pr > 0 ? read(p->ack_fd, buf, sizeof(buf)) : -1;
		if (r <= 0)
			return false;
		for (ssize_t i = 0; i < r; i++) /* "ack\n" each; a line may come in pieces */
			if (buf[i] == '\n' && p->unacked > 0)
				p->unacked--;
	}
	return true;
}

/* After perf's "enable" (every event): the off-CPU event not in use off again. */
static bool offcpu_one(struct profiler *p)
{
	if (!p->offcpu)
		return true;
	return control(p, p->sampled ? "disable " PROFILER_OFFCPU_EVENT "\n" : "disable " OFFCPU_SAMPLED "\n");
}

/* perf did not answer: stop it, and say why from its log. */
static int control_failed(struct profiler *p, struct err *e)
{
	kill(-p->keeper, SIGINT);
	wait_keeper(p);
	p->stopped = true;
	char why[300];
	log_reason(p->log, why, sizeof(why));
	return err_set(e, "profile not recorded: %s", why);
}

int profiler_attach(struct profiler *p, const pid_t *pids, size_t n, struct err *e)
{
	char list[512];
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof(list) - 32; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", i ? "," : "", (int)pids[i]);
	len += (size_t)snprintf(list + len, sizeof(list) - len, "\n");
	bool sent = send_line(p->pids_fd, list, len);
	close_fd(&p->pids_fd);
	if (!sent || !control(p, "enable\n") || !offcpu_one(p) || !sync_acks(p))
		return control_failed(p, e);
	p->attached = true;
	return 0;
}

int profiler_enable(struct profiler *p, bool on, struct err *e)
{
	if (!p->attached || p->stopped)
		return err_set(e, "profile not recorded: perf is not running");
	return control(p, on ? "enable\n" : "disable\n") && (!on || offcpu_one(p)) ? 0 : control_failed(p, e);
}

void profiler_offcpu_pace(struct profiler *p, uint64_t switches, double span_ms)
{
	if (!p->offcpu || !p->attached || p->stopped)
		return;
	p->pace_switches += switches;
	p->pace_ms += span_ms;
	if (p->pace_ms < 200) /* status, where the switches are read, is read every few samples */
		return;
	double per_s = (double)p->pace_switches * 1e3 / p->pace_ms;
	p->pace_switches = 0;
	p->pace_ms = 0;
	bool sampled = p->sampled ? per_s >= PROFILER_OFFCPU_EVERY_BELOW : per_s > PROFILER_OFFCPU_SAMPLED_ABOVE;
	if (sampled == p->sampled)
		return;
	p->sampled = sampled;
	static const char every[] = PROFILER_OFFCPU_EVENT "\n", some[] = OFFCPU_SAMPLED "\n";
	char on[80], off[80];
	snprintf(on, sizeof(on), "enable %s", sampled ? some : every);
	snprintf(off, sizeof(off), "disable %s", sampled ? every : some);
	if (!control(p, on) || !control(p, off))
		p->offcpu = false; /* perf is gone: nothing more to switch */
}

int profiler_sync(struct profiler *p, struct err *e)
{
	if (!p->attached || p->stopped)
		return err_set(e, "profile not recorded: perf is not running");
	return sync_acks(p) ? 0 : control_failed(p, e);
}

static bool bound_line(const char *line, void *arg)
{
	if (!strstr(line, "size limit reached"))
		return true;
	*(bool *)arg = true;
	return false;
}

int profiler_stop(struct profiler *p, struct err *e)
{
	if (p->stopped)
		return p->attached ? 0 : err_set(e, "profile not recorded: perf was not started");
	p->stopped = true;
	if (!p->attached) { /* the keeper still waits for its pids: EOF ends it */
		close_fd(&p->pids_fd);
		wait_keeper(p);
		return err_set(e, "profile not recorded: no process was started");
	}
	kill(-p->keeper, SIGINT);
	wait_keeper(p);
	close_fd(&p->ctl_fd);
	close_fd(&p->ack_fd);
	each_log_line(p->log, bound_line, &p->bound_hit);
	struct stat sb;
	if (stat(p->data, &sb) < 0) {
		char why[300];
		log_reason(p->log, why, sizeof(why));
		return err_set(e, "profile not recorded: %s", why);
	}
	return 0;
}

static bool script_log_line(const char *line, void *arg)
{
	struct profiler_info *info = arg;
	const char *l = strstr(line, " and lost ");
	unsigned long long v;
	if (l && sscanf(l, " and lost %llu chunks", &v) == 1)
		info->lost_chunks += v;
	else if (line[0] && !info->script_warning[0] && strncmp(line, "Warning:", 8))
		snprintf(info->script_warning, sizeof(info->script_warning), "%.190s", line);
	return true;
}

/* perf script's summary of what it could not read: "lost N chunks". */
static void scan_script_log(const char *path, struct profiler_info *info)
{
	each_log_line(path, script_log_line, info);
}

int profiler_script(struct profiler *p, struct perfscript *ps, struct profiler_info *info, struct err *e)
{
	int out[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		return err_sys(e, "profile: pipe");
	pid_t pid = fork();
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		return err_sys(e, "profile: fork");
	}
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int log = open(p->script_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (log < 0 || devnull < 0)
			_exit(126);
		dup2(devnull, STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(log, STDERR_FILENO);
		char *const argv[] = { "perf", "script", "-i", p->data, "-F", PERFSCRIPT_FIELDS, "--ns",
				       "--show-switch-events", "--show-task-events", NULL };
		execvp("perf", argv);
		_exit(127);
	}
	close(out[1]);
	char *line = malloc(PROFILER_LINE_MAX);
	char buf[65536];
	size_t len = 0;
	bool too_long = false;
	ssize_t r;
	while (line && ((r = read(out[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))) {
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] == '\n') {
				if (too_long)
					ps->bad_lines++;
				else
					perfscript_line(ps, line, len);
				len = 0;
				too_long = false;
			} else if (len < PROFILER_LINE_MAX) {
				line[len++] = buf[i];
			} else {
				too_long = true;
			}
		}
	}
	if (line && len && !too_long)
		perfscript_line(ps, line, len);
	perfscript_finish(ps);
	free(line);
	close(out[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	info->bad_lines = ps->bad_lines;
	info->data_bound_hit = p->bound_hit;
	scan_script_log(p->script_log, info);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return err_set(e, "profile not recorded: perf script failed%s%s",
			       info->script_warning[0] ? ": " : "", info->script_warning);
	return 0;
}

void profiler_free(struct profiler *p)
{
	if (!p)
		return;
	if (!p->stopped) {
		struct err e;
		profiler_stop(p, &e);
	}
	close_fd(&p->pids_fd);
	close_fd(&p->ctl_fd);
	close_fd(&p->ack_fd);
	close_fd(&p->done_fd);
	remove_files(p);
	free(p);
}
