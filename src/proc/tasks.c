/* tasks: per-thread schedstat and status of a member, through kept fds.
 *
 * A thread's alive time runs from its start (stat's starttime, once, when it
 * is first listed) or its previous reading to this one; run-queue wait and
 * on-CPU time come from schedstat in nanoseconds. A thread that vanished is
 * alive until the end its taskstats exit record gives (root), else until the
 * reading that found it gone (at most one interval too long).
 */
#include "proc/tasks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "util/xalloc.h"

enum { T_SCHED, T_STATUS, T_STAT, T_NFILES };
/* Up to this many threads, each one's status is read whenever its process's
 * is (if it ran since); beyond, each in turn once in TASKS_STATUS_EVERY. */
enum { TASKS_STATUS_ALL = 16, TASKS_STATUS_EVERY = 8 };
static const char *const task_files[T_NFILES] = { "schedstat", "status", "stat" };

struct task {
	pid_t tid;
	int fd[T_NFILES];
	struct procfs_schedstat sch, base; /* latest reading; the history before it was measured */
	uint64_t vcsw, ivcsw, base_vcsw, base_ivcsw;
	uint64_t blkio_ticks, base_blkio_ticks; /* stat's delayacct_blkio_ticks (tasks.blkio) */
	uint64_t status_runs;      /* schedstat's runs at its latest status reading */
	uint64_t blkio_runs;       /* schedstat's runs at its latest stat reading */
	int64_t born_ns;           /* alive from (CLOCK_MONOTONIC) */
	int64_t read_ns;           /* its latest reading (0: none) */
	int64_t exit_ns;           /* its end, from its exit record (0: none heard) */
	uint64_t alive_ns;         /* since measured */
};

int tasks_delayacct(int procfs_fd)
{
	char c = 0;
	int fd = openat(procfs_fd, "sys/kernel/task_delayacct", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, &c, 1);
	close(fd);
	return r == 1 && (c == '0' || c == '1') ? c - '0' : -1;
}

DIR *tasks_opendir(int dirfd)
{
	int tfd = openat(dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return NULL;
	DIR *d = fdopendir(tfd);
	if (!d)
		close(tfd);
	return d;
}

void tasks_clock_init(struct tasks_clock *c)
{
	struct timespec b, m;
	long hz = sysconf(_SC_CLK_TCK);
	c->tick_ns = hz > 0 ? 1000000000LL / hz : 10000000LL;
	c->boot_minus_mono_ns = 0;
	if (clock_gettime(CLOCK_BOOTTIME, &b) == 0 && clock_gettime(CLOCK_MONOTONIC, &m) == 0)
		c->boot_minus_mono_ns = (b.tv_sec - m.tv_sec) * 1000000000LL + (b.tv_nsec - m.tv_nsec);
}

int64_t tasks_born_ns(const struct tasks_clock *c, uint64_t starttime_ticks)
{
	/* starttime is the start truncated to a tick: the middle of that tick */
	return (int64_t)starttime_ticks * c->tick_ns + c->tick_ns / 2 - c->boot_minus_mono_ns;
}

static void task_close(struct task *k, struct tasks_fds *fds)
{
	for (int i = 0; i < T_NFILES; i++)
		if (k->fd[i] >= 0) {
			close(k->fd[i]);
			fds->kept--;
			k->fd[i] = -1;
		}
}

void tasks_release(struct tasks *ts, struct tasks_fds *fds)
{
	for (size_t i = 0; i < ts->n; i++)
		task_close(&ts->v[i], fds);
	free(ts->v);
	memset(ts, 0, sizeof(*ts));
}

ssize_t tasks_pread(int dirfd, pid_t tid, const char *name, int *fdp, struct tasks_fds *fds, char *buf,
		    size_t n)
{
	int fd = *fdp;
	bool keep = true;
	if (fd < 0) {
		char path[64];
		if (tid > 0)
			snprintf(path, sizeof(path), "task/%d/%s", (int)tid, name);
		fd = openat(dirfd, tid > 0 ? path : name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT || errno == ESRCH ? 0 : -1;
		keep = fds->kept < fds->budget;
		if (keep) {
			*fdp = fd;
			fds->kept++;
		}
	}
	ssize_t r = pread(fd, buf, n - 1, 0);
	int saved = errno;
	if (!keep)
		close(fd);
	if (r < 0)
		return saved == ESRCH || saved == ENOENT ? 0 : -1;
	buf[r] = 0;
	return r;
}

static uint64_t since(uint64_t now, uint64_t base)
{
	return now > base ? now - base : 0;
}

/* Alive time from the later of its start and its previous reading up to end_ns. */
static void accrue(struct task *k, int64_t alive_from_ns, int64_t end_ns)
{
	int64_t from = k->read_ns ? k->read_ns : alive_from_ns;
	if (k->born_ns > from)
		from = k->born_ns;
	if (end_ns > from)
		k->alive_ns += (uint64_t)(end_ns - from);
	if (end_ns > k->read_ns)
		k->read_ns = end_ns;
}

/* Reads a thread; returns 1 ok, 0 gone. Its status (5-10 us, schedstat's
 * ten times over) only when due and it has run since that was last read:
 * a thread that has not been on a CPU has not switched. */
/* Its block-I/O wait (stat's delayacct_blkio_ticks) when it ran since the
 * last reading: a wait is added to the counter when it ends, and the thread
 * then runs. Returns 1 ok, 0 gone. */
static int task_blkio(struct task *k, int dirfd, struct tasks_fds *fds)
{
	if (k->read_ns && k->sch.runs == k->blkio_runs)
		return 1;
	char buf[1024];
	k->blkio_runs = k->sch.runs;
	ssize_t r = tasks_pread(dirfd, k->tid, task_files[T_STAT], &k->fd[T_STAT], fds, buf, sizeof(buf));
	if (r == 0)
		return 0;
	struct procfs_stat st;
	if (r > 0 && procfs_parse_stat_blkio(buf, (size_t)r, &st) == 0 && st.blkio_ticks >= k->blkio_ticks)
		k->blkio_ticks = st.blkio_ticks;
	return 1;
}

static int task_sample(struct task *k, int dirfd, bool status_due, bool blkio, int64_t alive_from_ns,
		       int64_t now_ns, struct tasks_fds *fds)
{
	char buf[2048];
	ssize_t r = tasks_pread(dirfd, k->tid, task_files[T_SCHED], &k->fd[T_SCHED], fds, buf, sizeof(buf));
	if (r == 0)
		return 0;
	struct procfs_schedstat s;
	if (r > 0 && procfs_parse_schedstat(buf, (size_t)r, &s) == 0 && s.oncpu_ns >= k->sch.oncpu_ns)
		k->sch = s;
	if (!k->read_ns || (status_due && k->sch.runs != k->status_runs)) {
		struct procfs_status ss;
		k->status_runs = k->sch.runs;
		r = tasks_pread(dirfd, k->tid, task_files[T_STATUS], &k->fd[T_STATUS], fds, buf, sizeof(buf));
		if (r == 0)
			return 0;
		if (r > 0 && procfs_parse_status(buf, (size_t)r, &ss) == 0 && ss.vcsw >= k->vcsw) {
			k->vcsw = ss.vcsw;
			k->ivcsw = ss.ivcsw;
		}
	}
	if (blkio && !task_blkio(k, dirfd, fds))
		return 0;
	accrue(k, alive_from_ns, now_ns);
	return 1;
}

static void task_time(const struct task *k, struct tasks_time *out)
{
	out->oncpu_ns += since(k->sch.oncpu_ns, k->base.oncpu_ns);
	out->runnable_ns += since(k->sch.wait_ns, k->base.wait_ns);
	out->alive_ns += k->alive_ns;
	out->vcsw += since(k->vcsw, k->base_vcsw);
	out->ivcsw += since(k->ivcsw, k->base_ivcsw);
	out->iowait_ticks += since(k->blkio_ticks, k->base_blkio_ticks);
}

/* A thread gone: alive until its exit record's end, else until now; its last figures stay. */
static void task_retire(struct tasks *ts, size_t i, int64_t alive_from_ns, int64_t now_ns, struct tasks_fds *fds)
{
	struct task *k = &ts->v[i];
	accrue(k, alive_from_ns, k->exit_ns && k->exit_ns < now_ns ? k->exit_ns : now_ns);
	task_time(k, &ts->gone);
	task_close(k, fds);
	ts->v[i] = ts->v[--ts->n];
}

static struct task *task_find(struct tasks *ts, pid_t tid)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->v[i].tid == tid)
			return &ts->v[i];
	return NULL;
}

/* A thread first listed: its start; true when it predates the recording
 * (or its start cannot be read): it counts from now. */
static bool task_first(struct task *k, int dirfd, uint64_t history_ticks, int64_t now_ns,
		       const struct tasks_clock *clk)
{
	char buf[1024], path[48];
	snprintf(path, sizeof(path), "task/%d/stat", (int)k->tid);
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	struct procfs_stat st;
	bool ok = false;
	if (fd >= 0) {
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		ok = r > 0 && procfs_parse_stat(buf, (size_t)r, &st) == 0;
	}
	if (!ok || st.starttime_ticks < history_ticks) {
		k->born_ns = now_ns; /* its past is not the recording's */
		return true;
	}
	k->born_ns = tasks_born_ns(clk, st.starttime_ticks);
	return false;
}

/* Lists task/ and adds the threads not known yet (the leader is the member's own). */
static void tasks_list(struct tasks *ts, int dirfd, pid_t pid, uint64_t history_ticks, int64_t now_ns,
		       const struct tasks_clock *clk, struct tasks_fds *fds, bool status_due,
		       int64_t alive_from_ns)
{
	DIR *d = tasks_opendir(dirfd);
	if (!d)
		return;
	ts->listings++;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0 || tid == pid || task_find(ts, (pid_t)tid))
			continue;
		xgrow((void **)&ts->v, &ts->cap, ts->n + 1, sizeof(*ts->v));
		struct task *k = &ts->v[ts->n];
		memset(k, 0, sizeof(*k));
		k->tid = (pid_t)tid;
		k->fd[T_SCHED] = k->fd[T_STATUS] = k->fd[T_STAT] = -1;
		bool history = task_first(k, dirfd, history_ticks, now_ns, clk);
		if (!task_sample(k, dirfd, status_due, ts->blkio, alive_from_ns, now_ns, fds)) {
			task_close(k, fds);
			continue;
		}
		if (history) {
			k->base = k->sch;
			k->base_vcsw = k->vcsw;
			k->base_ivcsw = k->ivcsw;
			k->base_blkio_ticks = k->blkio_ticks;
		}
		ts->n++;
	}
	closedir(d);
}

void tasks_read(struct tasks *ts, int dirfd, pid_t pid, uint64_t nthreads, bool status_due, bool status_all,
		uint64_t history_ticks, int64_t alive_from_ns, int64_t now_ns,
		const struct tasks_clock *clk, struct tasks_fds *fds)
{
	bool vanished = false;
	/* a process of many threads reads their status in turn: TASKS_STATUS_EVERY readings */
	ts->rr++;
	for (size_t i = 0; i < ts->n;) {
		bool due = status_all ||
			   (status_due && (ts->n <= TASKS_STATUS_ALL || (i + ts->rr) % TASKS_STATUS_EVERY == 0));
		if (!task_sample(&ts->v[i], dirfd, due, ts->blkio, alive_from_ns, now_ns, fds)) {
			task_retire(ts, i, alive_from_ns, now_ns, fds);
			vanished = true;
			continue;
		}
		i++;
	}
	/* nthreads counts the leader; a leader that exited first stays counted
	 * in stat while its threads run on */
	if (nthreads > ts->n + 1 || (vanished && nthreads > 1))
		tasks_list(ts, dirfd, pid, history_ticks, now_ns, clk, fds, status_due, alive_from_ns);
}

void tasks_sum(const struct tasks *ts, struct tasks_time *out)
{
	for (size_t i = 0; i < ts->n; i++)
		task_time(&ts->v[i], out);
	out->oncpu_ns += ts->gone.oncpu_ns;
	out->runnable_ns += ts->gone.runnable_ns;
	out->alive_ns += ts->gone.alive_ns;
	out->vcsw += ts->gone.vcsw;
	out->ivcsw += ts->gone.ivcsw;
	out->iowait_ticks += ts->gone.iowait_ticks;
}

bool tasks_exited(struct tasks *ts, pid_t tid, uint64_t nvcsw, uint64_t nivcsw, uint64_t elapsed_us, uint64_t run_ns,
		  uint64_t run_delay_ns)
{
	struct task *k = task_find(ts, tid);
	if (!k)
		return false;
	if (nvcsw >= k->vcsw && nivcsw >= k->ivcsw) {
		k->vcsw = nvcsw;
		k->ivcsw = nivcsw;
	}
	/* its start is known to half a tick: never before its latest reading */
	int64_t at_ns = k->born_ns + (int64_t)elapsed_us * 1000;
	k->exit_ns = at_ns > k->read_ns ? at_ns : k->read_ns;
	/* the tail since its last reading: on a CPU or waiting for one, not blocked */
	/* (its exit is dated from its start, known to half a clock tick: 20 ms
	 * of slack keep any tick rate's error in, and a figure of another kind,
	 * such as a time since boot, out) */
	uint64_t tail = (uint64_t)(k->exit_ns - k->read_ns) + 20000000;
	if (k->read_ns && run_ns >= k->sch.oncpu_ns && run_delay_ns >= k->sch.wait_ns &&
	    (run_ns - k->sch.oncpu_ns) + (run_delay_ns - k->sch.wait_ns) <= tail) {
		k->sch.oncpu_ns = run_ns;
		k->sch.wait_ns = run_delay_ns;
	}
	return true;
}
