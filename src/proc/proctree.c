/* proctree: member table, kept-open /proc fds, pull discovery, summing.
 *
 * Reads are pread(fd, buf, n, 0) into a stack buffer, parsed by procfs.c.
 * ESRCH/ENOENT/empty reads mean the process is gone: it is retired, its fds
 * closed, its last counters added to t->exited. PID reuse cannot fool us: a
 * kept fd refers to one process instance and fails once that instance exits.
 */
#include "proc/proctree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/xalloc.h"

enum { F_STAT, F_STATM, F_SCHEDSTAT, F_STATUS, F_IO, F_SMAPS, NFILES };
static const char *const file_names[NFILES] = { "stat", "statm", "schedstat", "status", "io", "smaps_rollup" };

/* The per-sample memory of a member: from statm (tiered) or status. */
struct proc_mem {
	uint64_t rss_kb, anon_kb, file_kb, shmem_kb, swap_kb;
};

struct proctree_proc {
	pid_t pid;
	int dirfd;
	int fd[NFILES];
	bool seen;                 /* read successfully at least once */
	struct procfs_stat st;
	struct procfs_status ss;   /* the latest status reading */
	struct procfs_io io;       /* the latest io reading */
	struct proc_mem mem;
	struct procfs_statm sm;    /* the latest statm reading */
	char sched[80];            /* the latest schedstat text: unchanged = has not run since */
	size_t sched_len;
	struct procfs_schedstat sch, sch_base; /* the leader's latest; its history */
	struct tasks tasks;        /* its other threads */
	uint64_t cpu_ns, cpu_base_ns; /* its process CPU clock (every thread, exited ones too); its history */
	int64_t born_ns;           /* the leader's start (CLOCK_MONOTONIC) */
	int64_t read_ns;           /* its latest thread reading (0: none) */
	int64_t exit_ns;           /* the leader's end, from its exit record (0: none heard) */
	uint64_t alive_ns;         /* the leader's alive time since measured */
	int64_t slow_ns, prev_slow_ns; /* the latest two status readings (CLOCK_MONOTONIC) */
	uint64_t first_hwm_kb;     /* VmHWM at its first status reading */
	uint64_t pss_kb;
	bool pss_read;             /* pss_kb was read (smaps_rollup) at least once */
	uint64_t pss_changes;      /* t->mem_changes when pss_kb was read */
	bool pss_unreadable;       /* smaps_rollup refused: its RSS stands in */
	uint32_t idle_turns;       /* its turns on the cadence found it asleep (read_proc) */
	uint64_t scan_cpu_ns;      /* its CPU clock when its children were last listed */
	bool scan_clocked;         /* scan_cpu_ns was read */
	struct proctree_counts base; /* its history at its first reading (zero for a new process) */
};

/* ---- PID index: open addressing, -1 empty, -2 deleted ---- */

static size_t hash_pid(pid_t pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static void index_rebuild(struct proctree *t, size_t cap)
{
	free(t->index);
	t->index_cap = cap;
	t->index = xmalloc(cap * sizeof(int));
	for (size_t i = 0; i < cap; i++)
		t->index[i] = -1;
	for (size_t k = 0; k < t->nprocs; k++) {
		size_t h = hash_pid(t->procs[k]->pid, cap);
		while (t->index[h] != -1)
			h = (h + 1) & (cap - 1);
		t->index[h] = (int)k;
	}
}

static int index_find(const struct proctree *t, pid_t pid)
{
	size_t h = hash_pid(pid, t->index_cap);
	for (size_t n = 0; n < t->index_cap; n++) {
		int k = t->index[h];
		if (k == -1)
			return -1;
		if (k >= 0 && t->procs[k]->pid == pid)
			return k;
		h = (h + 1) & (t->index_cap - 1);
	}
	return -1;
}

/* schedstat counts a task's runs (its third field) only with CONFIG_SCHED_INFO:
 * our own count is never 0 where it does. */
static bool schedstat_works(int procfs_fd)
{
	char buf[128];
	int fd = openat(procfs_fd, "self/schedstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return false;
	buf[r] = 0;
	const char *p = strrchr(buf, ' ');
	uint64_t runs;
	return p && (p++, parse_u64_at(&p, buf + r, &runs)) && runs > 0;
}

int proctree_init(struct proctree *t, const char *procfs_root, struct err *e)
{
	memset(t, 0, sizeof(*t));
	t->loadavg_fd = -1;
	t->procfs_fd = open(procfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->procfs_fd < 0)
		return err_sys(e, "cannot open '%s'", procfs_root);
	t->anchor = 0;
	t->pss_budget_ns = 20 * 1000000LL;
	/* Keep per-process files open within half of the fd limit; raise the soft limit first. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		t->fd_budget = rl.rlim_cur == RLIM_INFINITY ? 1 << 20 : rl.rlim_cur / 2;
	} else {
		t->fd_budget = 512;
	}
	index_rebuild(t, 64);
	t->tiered = true;
	t->slow_every = 8;
	long page = sysconf(_SC_PAGESIZE);
	t->page_kb = page >= 1024 ? (uint64_t)page / 1024 : 4;
	t->schedstat = schedstat_works(t->procfs_fd);
	t->clocks = !strcmp(procfs_root, "/proc");
	t->loadavg_fd = openat(t->procfs_fd, "loadavg", O_RDONLY | O_CLOEXEC);
	tasks_clock_init(&t->clk);
	t->delayacct = tasks_delayacct(t->procfs_fd);
	return 0;
}

static void proc_close(struct proctree *t, struct proctree_proc *p)
{
	struct tasks_fds fds = { t->fds_kept, t->fd_budget };
	t->task_listings += p->tasks.listings;
	tasks_release(&p->tasks, &fds);
	t->fds_kept = fds.kept;
	for (int i = 0; i < NFILES; i++)
		if (p->fd[i] >= 0) {
			close(p->fd[i]);
			t->fds_kept--;
		}
	if (p->dirfd >= 0)
		close(p->dirfd);
	free(p);
}

void proctree_release(struct proctree *t)
{
	for (size_t k = 0; k < t->nprocs; k++)
		proc_close(t, t->procs[k]);
	free(t->procs);
	free(t->index);
	free(t->gone);
	if (t->loadavg_fd >= 0)
		close(t->loadavg_fd);
	if (t->procfs_fd >= 0)
		close(t->procfs_fd);
	memset(t, 0, sizeof(*t));
	t->procfs_fd = -1;
	t->loadavg_fd = -1;
}

bool proctree_has(const struct proctree *t, pid_t pid)
{
	return index_find(t, pid) >= 0;
}

int proctree_add(struct proctree *t, pid_t pid, struct err *e)
{
	if (pid <= 0)
		return err_set(e, "invalid PID %d", (int)pid);
	if (index_find(t, pid) >= 0)
		return 0;
	char name[16];
	snprintf(name, sizeof(name), "%d", (int)pid);
	int dfd = openat(t->procfs_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return err_sys(e, "cannot open /proc/%d", (int)pid);
	struct proctree_proc *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->dirfd = dfd;
	for (int i = 0; i < NFILES; i++)
		p->fd[i] = -1;
	xgrow((void **)&t->procs, &t->cap, t->nprocs + 1, sizeof(*t->procs));
	t->procs[t->nprocs++] = p;
	t->seen++;
	t->mem_changes++;
	if (t->nprocs * 2 > t->index_cap)
		index_rebuild(t, t->index_cap * 2);
	else {
		size_t h = hash_pid(pid, t->index_cap);
		while (t->index[h] >= 0)
			h = (h + 1) & (t->index_cap - 1);
		t->index[h] = (int)(t->nprocs - 1);
	}
	return 1;
}

/* Reads one of the member's files into buf. Returns bytes, 0 if gone, -1 if unreadable. */
static ssize_t read_file(struct proctree *t, struct proctree_proc *p, int which, char *buf, size_t n)
{
	struct tasks_fds fds = { t->fds_kept, t->fd_budget };
	ssize_t r = tasks_pread(p->dirfd, 0, file_names[which], &p->fd[which], &fds, buf, n);
	t->fds_kept = fds.kept;
	return r;
}

/* A process's CPU clock in ns (every thread's, those gone included): one
 * clock_gettime. False if it cannot be read (the process is gone). */
static bool cpu_clock_ns(pid_t pid, uint64_t *ns)
{
	struct timespec ts;
	/* MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED): the kernel's encoding */
	clockid_t id = (clockid_t)((~(unsigned)pid) << 3) | 2;
	if (clock_gettime(id, &ts) != 0)
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return true;
}

/* Whether a member may have forked since its children were last listed: a
 * fork runs in the parent, so a single-threaded member asleep at its last
 * reading whose CPU clock has not moved since that listing has no new child
 * (one clock_gettime against an open, read and close of its children file;
 * 5 000 members were 40 ms a scan, run at nearly every sample on a machine
 * where anything forks). One woken and forking on another CPU since less
 * than a tick shows in its clock only at the tick or when it stops: that
 * child is found at the next scan. Its clock is kept apart from cpu_ns,
 * which says whether it ran since its last sample (has_run). */
static bool may_have_forked(const struct proctree *t, struct proctree_proc *p)
{
	uint64_t ns;
	if (!t->clocks || !p->seen || p->st.num_threads > 1 || p->st.state == 'R' || !cpu_clock_ns(p->pid, &ns))
		return true;
	bool same = p->scan_clocked && ns == p->scan_cpu_ns;
	p->scan_cpu_ns = ns;
	p->scan_clocked = true;
	return !same;
}

struct scan_ctx {
	struct proctree *t;
	int added;
};

static void scan_add(pid_t pid, void *arg)
{
	struct scan_ctx *c = arg;
	if (proctree_add(c->t, pid, NULL) == 1)
		c->added++;
}

/* Adds the children listed in one children file, read to its end: a parent
 * of 5 000 processes lists ~30 KB, and one read stops at a page (683 of
 * them were once all a watch saw). */
static void add_children(struct scan_ctx *c, int at, const char *path)
{
	int fd = openat(at, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (cap - n < 1024)
			xgrow((void **)&buf, &cap, cap * 2, 1);
		ssize_t r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	procfs_parse_children(buf, n, scan_add, c);
	free(buf);
}

/* Reads task/TID/children of every thread of the process at dirfd. */
static void scan_children_of(struct scan_ctx *c, int pdfd, pid_t pid, uint64_t nthreads)
{
	char path[48];
	if (nthreads <= 1) {
		snprintf(path, sizeof(path), "task/%d/children", (int)pid);
		add_children(c, pdfd, path);
		return;
	}
	DIR *d = tasks_opendir(pdfd);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%.16s/children", de->d_name);
		add_children(c, dirfd(d), path);
	}
	closedir(d);
}

/* The most recently created PID, last field of /proc/loadavg; 0 if unknown.
 * Every fork and thread creation allocates a new PID, so an unchanged value
 * means nothing was created: a scan would find nothing new. */
static uint64_t last_pid(struct proctree *t)
{
	char buf[128];
	if (t->loadavg_fd < 0)
		return 0;
	ssize_t r = pread(t->loadavg_fd, buf, sizeof(buf) - 1, 0);
	if (r <= 0)
		return 0;
	buf[r] = 0;
	const char *sp = strrchr(buf, ' ');
	uint64_t v;
	const char *p = sp ? sp + 1 : buf;
	return parse_u64_at(&p, buf + r, &v) ? v : 0;
}

int proctree_scan(struct proctree *t)
{
	struct scan_ctx c = { t, 0 };
	/* read before scanning: a fork during the scan makes the next one run */
	uint64_t lp = last_pid(t);
	if (lp && lp == t->last_pid_seen) {
		t->scans_skipped++;
		return 0;
	}
	t->last_pid_seen = lp;
	t->scans++;
	if (t->anchor > 0) {
		char name[16];
		snprintf(name, sizeof(name), "%d", (int)t->anchor);
		int dfd = openat(t->procfs_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			/* The anchor is perfhunt itself: one thread forks the command. */
			scan_children_of(&c, dfd, t->anchor, 1);
			close(dfd);
		}
	}
	/* New members are appended, so this loop also descends into them. */
	for (size_t k = 0; k < t->nprocs; k++) {
		struct proctree_proc *p = t->procs[k];
		if (may_have_forked(t, p))
			scan_children_of(&c, p->dirfd, p->pid, p->seen ? p->st.num_threads : 1);
		else
			t->listings_skipped++;
	}
	return c.added;
}

void proctree_mark_gone(struct proctree *t, pid_t pid)
{
	xgrow((void **)&t->gone, &t->gone_cap, t->ngone + 1, sizeof(*t->gone));
	t->gone[t->ngone++] = pid;
}

bool proctree_task_exited(struct proctree *t, pid_t tgid, pid_t tid, uint64_t nvcsw, uint64_t nivcsw,
			  uint64_t elapsed_us, uint64_t run_ns, uint64_t run_delay_ns)
{
	int k = index_find(t, tgid);
	if (k < 0)
		return false;
	struct proctree_proc *p = t->procs[k];
	if (tid != tgid)
		return tasks_exited(&p->tasks, tid, nvcsw, nivcsw, elapsed_us, run_ns, run_delay_ns);
	/* the leader: alive until then (its start is known to half a tick) */
	int64_t at_ns = p->born_ns + (int64_t)elapsed_us * 1000;
	p->exit_ns = at_ns > p->read_ns ? at_ns : p->read_ns;
	return true;
}

void proctree_add_exited(struct proctree *t, pid_t pid)
{
	proctree_mark_gone(t, pid);
	t->seen++;
}

void proctree_history_from_now(struct proctree *t)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);
	if (clock_gettime(CLOCK_BOOTTIME, &ts) == 0 && hz > 0)
		t->history_before_ticks = (uint64_t)ts.tv_sec * (uint64_t)hz +
					  (uint64_t)ts.tv_nsec / (1000000000ull / (uint64_t)hz);
}

static uint64_t since(uint64_t now, uint64_t base)
{
	return now > base ? now - base : 0;
}

/* The member's counters since its first reading (or its start). */
static struct proctree_counts counts_of(const struct proctree_proc *p)
{
	/* the leader's own, then every other thread's (status and schedstat are per thread) */
	struct tasks_time tt = {
		.oncpu_ns = since(p->sch.oncpu_ns, p->sch_base.oncpu_ns),
		.runnable_ns = since(p->sch.wait_ns, p->sch_base.wait_ns),
		.alive_ns = p->alive_ns,
		.vcsw = since(p->ss.vcsw, p->base.vcsw),
		.ivcsw = since(p->ss.ivcsw, p->base.ivcsw),
		.iowait_ticks = since(p->st.blkio_ticks, p->base.iowait_ticks),
	};
	tasks_sum(&p->tasks, &tt);
	/* the process clock also holds what threads ran after their last reading */
	uint64_t clock_ns = since(p->cpu_ns, p->cpu_base_ns);
	return (struct proctree_counts){
		.utime_ticks = since(p->st.utime_ticks, p->base.utime_ticks),
		.stime_ticks = since(p->st.stime_ticks, p->base.stime_ticks),
		.minflt = since(p->st.minflt, p->base.minflt),
		.majflt = since(p->st.majflt, p->base.majflt),
		.vcsw = tt.vcsw,
		.ivcsw = tt.ivcsw,
		.rchar = since(p->io.rchar, p->base.rchar),
		.wchar = since(p->io.wchar, p->base.wchar),
		.oncpu_ns = clock_ns > tt.oncpu_ns ? clock_ns : tt.oncpu_ns,
		.runnable_ns = tt.runnable_ns,
		.alive_ns = tt.alive_ns,
		.iowait_ticks = tt.iowait_ticks,
	};
}

static void counts_add(struct proctree_counts *to, const struct proctree_counts *c)
{
	to->utime_ticks += c->utime_ticks;
	to->stime_ticks += c->stime_ticks;
	to->minflt += c->minflt;
	to->majflt += c->majflt;
	to->vcsw += c->vcsw;
	to->ivcsw += c->ivcsw;
	to->rchar += c->rchar;
	to->wchar += c->wchar;
	to->oncpu_ns += c->oncpu_ns;
	to->runnable_ns += c->runnable_ns;
	to->alive_ns += c->alive_ns;
	to->iowait_ticks += c->iowait_ticks;
}

static void totals_add(struct proctree_totals *to, const struct proctree_counts *c, int64_t tick_ns)
{
	to->utime_ticks += c->utime_ticks;
	to->stime_ticks += c->stime_ticks;
	to->minflt += c->minflt;
	to->majflt += c->majflt;
	to->vcsw += c->vcsw;
	to->ivcsw += c->ivcsw;
	to->rchar += c->rchar;
	to->wchar += c->wchar;
	to->oncpu_ns += c->oncpu_ns;
	to->runnable_ns += c->runnable_ns;
	to->alive_ns += c->alive_ns;
	to->iowait_ns += c->iowait_ticks * (uint64_t)tick_ns;
}

/* The first reading of a member that started before the recording is its
 * baseline: a lifetime of CPU and faults is not one interval's. */
static void first_reading(struct proctree *t, struct proctree_proc *p, int64_t now_ns)
{
	if (p->seen)
		return;
	if (p->st.starttime_ticks >= t->history_before_ticks) {
		p->born_ns = tasks_born_ns(&t->clk, p->st.starttime_ticks);
		return;
	}
	p->born_ns = now_ns; /* alive from now: its past is not the recording's */
	p->sch_base = p->sch;
	p->cpu_base_ns = p->cpu_ns;
	p->base = (struct proctree_counts){
		.utime_ticks = p->st.utime_ticks, .stime_ticks = p->st.stime_ticks,
		.minflt = p->st.minflt, .majflt = p->st.majflt, .vcsw = p->ss.vcsw,
		.ivcsw = p->ss.ivcsw, .rchar = p->io.rchar, .wchar = p->io.wchar,
		.oncpu_ns = p->cpu_ns > p->sch.oncpu_ns ? p->cpu_ns : p->sch.oncpu_ns,
		.runnable_ns = p->sch.wait_ns, .iowait_ticks = p->st.blkio_ticks,
	};
	counts_add(&t->history, &p->base);
}

/* Its VmHWM has not grown since its first reading, and it started before the
 * recording: that mark was set before perfhunt measured it. */
static bool hwm_before(const struct proctree *t, const struct proctree_proc *p)
{
	return p->st.starttime_ticks < t->history_before_ticks && p->ss.hwm_kb <= p->first_hwm_kb;
}

static void read_threads(struct proctree *t, struct proctree_proc *p, bool status_due, bool gone, int64_t now_ns);

/* A member gone: its threads alive until its exit record's end, else until now (the
 * reading that found it gone); its last counters move into the exited ones. */
static void retire(struct proctree *t, size_t k, int64_t now_ns)
{
	struct proctree_proc *p = t->procs[k];
	proctree_mark_gone(t, p->pid);
	if (p->seen) {
		read_threads(t, p, false, true, p->exit_ns && p->exit_ns < now_ns ? p->exit_ns : now_ns);
		struct proctree_counts c = counts_of(p);
		counts_add(&t->exited, &c);
		if (p->ss.hwm_kb > t->exited_hwm_kb) {
			t->exited_hwm_kb = p->ss.hwm_kb;
			t->exited_hwm_after_ns = p->prev_slow_ns;
			t->exited_hwm_pid = p->pid;
			t->exited_hwm_before = hwm_before(t, p);
			memcpy(t->exited_hwm_comm, p->st.comm, sizeof(t->exited_hwm_comm));
		}
	}
	t->vanished++;
	t->mem_changes++;
	proc_close(t, p);
	t->procs[k] = t->procs[--t->nprocs];
}

/* A member has exited (a zombie, or past exit_mm): its last context switches
 * and I/O, so that the tiered reading loses nothing the full one keeps. Its
 * VmHWM is gone with its memory; the latest reading stands (taskstats and
 * wait4 give the exact figure). */
static void read_final(struct proctree *t, struct proctree_proc *p)
{
	char buf[4096];
	struct procfs_status ss;
	ssize_t r = read_file(t, p, F_STATUS, buf, sizeof(buf));
	if (r > 0 && procfs_parse_status(buf, (size_t)r, &ss) == 0 && ss.vcsw + ss.ivcsw >= p->ss.vcsw + p->ss.ivcsw) {
		p->ss.vcsw = ss.vcsw;
		p->ss.ivcsw = ss.ivcsw;
	}
	struct procfs_io io;
	r = read_file(t, p, F_IO, buf, sizeof(buf));
	if (r > 0 && procfs_parse_io(buf, (size_t)r, &io) == 0 && io.rchar >= p->io.rchar && io.wchar >= p->io.wchar)
		p->io = io;
}

/* The status and io readings (the dear files); returns 1 ok, 0 gone. */
static int read_slow(struct proctree *t, struct proctree_proc *p, int64_t now_ns)
{
	char buf[4096];
	ssize_t r = read_file(t, p, F_STATUS, buf, sizeof(buf));
	if (r == 0)
		return 0;
	if (r > 0) {
		procfs_parse_status(buf, (size_t)r, &p->ss);
		if (!p->slow_ns)
			p->first_hwm_kb = p->ss.hwm_kb;
		p->prev_slow_ns = p->slow_ns;
		p->slow_ns = now_ns;
	} else {
		t->unreadable++;
	}
	r = read_file(t, p, F_IO, buf, sizeof(buf));
	if (r > 0)
		procfs_parse_io(buf, (size_t)r, &p->io);
	return 1;
}

/* The member's process CPU clock: every thread's time on a CPU in ns, those
 * that exited included, and a running thread's up to this instant (schedstat
 * lags it by up to a tick): one clock_gettime. False if it cannot be read
 * (the process is gone). */
static bool read_cpu_clock(struct proctree_proc *p)
{
	uint64_t ns;
	if (!cpu_clock_ns(p->pid, &ns))
		return false;
	if (ns > p->cpu_ns)
		p->cpu_ns = ns;
	return true;
}

/* Whether a member has run since its last reading, asked of its process CPU
 * clock, which moves whenever any of its threads runs (an exit too): one
 * clock_gettime, 0.7 us here against 2 us for a pread of schedstat. Asked
 * only of a single-threaded member that was asleep at its last reading:
 * one woken since but still waiting for a CPU has not run, and its
 * schedstat has not moved either (the wait is added when it runs). One
 * woken and running on another CPU since less than a tick shows in
 * schedstat's count of runs at once, but in its clock only at the tick or
 * when it stops: its reading waits for the next sample, where it holds
 * everything. A marker's sample (runs_exact) and the last look cannot wait:
 * they ask schedstat. */
static bool has_run(const struct proctree *t, struct proctree_proc *p, bool *clocked)
{
	*clocked = false;
	if (!t->tiered || !t->clocks || !p->seen || p->st.num_threads > 1 || p->st.state == 'R' ||
	    t->runs_exact || t->slow_all_next)
		return true;
	uint64_t before = p->cpu_ns;
	*clocked = read_cpu_clock(p);
	return !*clocked || p->cpu_ns != before;
}

/* The leader's schedstat, every sample that it may have run: its
 * nanoseconds on a CPU and waiting for one. Tiered, a single-threaded
 * member asleep at its last reading whose CPU clock has not moved is not
 * read at all (has_run), and one whose schedstat text is unchanged has not
 * run either: nothing stat shows can have moved. Returns 1 it has not, 0 it
 * may have, -1 gone. */
static int read_sched(struct proctree *t, struct proctree_proc *p, bool *clocked)
{
	if (!has_run(t, p, clocked))
		return 1;
	char buf[sizeof(p->sched)];
	ssize_t r = read_file(t, p, F_SCHEDSTAT, buf, sizeof(buf));
	if (r == 0)
		return -1;
	struct procfs_schedstat s;
	if (r > 0 && procfs_parse_schedstat(buf, (size_t)r, &s) == 0 && s.oncpu_ns >= p->sch.oncpu_ns)
		p->sch = s;
	bool same = r > 0 && (size_t)r == p->sched_len && !memcmp(buf, p->sched, (size_t)r);
	p->sched_len = r > 0 && (size_t)r < sizeof(p->sched) ? (size_t)r : 0;
	memcpy(p->sched, buf, p->sched_len);
	return same && t->tiered && t->schedstat && p->seen && p->st.num_threads <= 1 && p->st.state != 'R';
}

/* Thread time since the member's previous reading: the leader's alive time,
 * and every other thread's schedstat (and status when its own was read). */
static void read_threads(struct proctree *t, struct proctree_proc *p, bool status_due, bool gone, int64_t now_ns)
{
	/* a leader that called pthread_exit shows 'Z' while its threads run on */
	bool leader_alive = gone || (p->st.state != 'Z' && p->st.state != 'X');
	int64_t from = p->read_ns > p->born_ns ? p->read_ns : p->born_ns;
	if (leader_alive && now_ns > from)
		p->alive_ns += (uint64_t)(now_ns - from);
	p->tasks.blkio = t->delayacct == 1;
	if (p->st.num_threads > 1 || p->tasks.n) {
		struct tasks_fds fds = { t->fds_kept, t->fd_budget };
		tasks_read(&p->tasks, p->dirfd, p->pid, p->st.num_threads, status_due, t->slow_all_next,
			   t->history_before_ticks,
			   p->read_ns, now_ns, &t->clk, &fds);
		t->fds_kept = fds.kept;
	}
	if (now_ns > p->read_ns)
		p->read_ns = now_ns;
}

/* A member asleep since its last reading: its pages move only by the
 * kernel's hand (reclaim, swap-out, khugepaged), so its statm is read on
 * every IDLE_TURNS-th of its turns on the cadence (~1 s at the default;
 * 5 000 sleeping members cost 500 statm reads a sample at 10 ms otherwise). */
#define IDLE_TURNS 10

/* Reads stat every sample (unless the member has not run since: tiered),
 * statm (tiered) or status and io (full, or when due); returns 1 ok, 0 gone. */
static int read_proc(struct proctree *t, struct proctree_proc *p, bool due, int64_t now_ns)
{
	char buf[4096];
	bool clocked;
	int idle = read_sched(t, p, &clocked);
	if (idle < 0)
		return 0;
	/* Not run since and not its turn: nothing it holds can have moved (most
	 * members of a wide tree, most samples); only the kernel moves its pages
	 * now, and those are read on the cadence with status and io. */
	if (idle && t->tiered && p->sm.size_pages && !t->slow_all_next &&
	    (!due || ++p->idle_turns % IDLE_TURNS)) {
		t->stat_skips++;
		t->statm_skips++;
		return 1;
	}
	struct procfs_stat st;
	if (idle) {
		st = p->st;
		t->stat_skips++;
	} else {
		ssize_t r = read_file(t, p, F_STAT, buf, sizeof(buf));
		int parsed = r <= 0 ? -1
			     : t->delayacct == 1 ? procfs_parse_stat_blkio(buf, (size_t)r, &st)
						 : procfs_parse_stat(buf, (size_t)r, &st);
		if (parsed < 0)
			return 0;
		/* A zombie has exited, and so has a process whose memory is already torn
		 * down: its stat holds the final counters, and it is retired with them. (A leader that called pthread_exit also shows 'Z'
		 * while its other threads run on: that process stays a member.) */
		bool exiting = st.vsize_bytes == 0 && p->seen && p->st.vsize_bytes != 0; /* past exit_mm */
		if (((st.state == 'Z' || st.state == 'X') && st.num_threads <= 1) || exiting) {
			if (p->seen)
				read_final(t, p);
			p->st = st;
			memset(&p->mem, 0, sizeof(p->mem));
			if (!clocked)
				read_cpu_clock(p);
			first_reading(t, p, now_ns);
			p->seen = true;
			return 0;
		}
	}
	ssize_t r;
	bool slow = !t->tiered || due || !p->seen;
	uint64_t rss_before = p->mem.rss_kb;
	struct procfs_statm sm;
	bool have_statm = false;
	if (t->tiered) {
		r = read_file(t, p, F_STATM, buf, sizeof(buf));
		if (r == 0)
			return 0;
		have_statm = r > 0 && procfs_parse_statm(buf, (size_t)r, &sm) == 0;
		if (!have_statm) {
			slow = true;
		} else if (idle && p->seen && !t->slow_all_next && sm.resident_pages == p->sm.resident_pages &&
			   sm.shared_pages == p->sm.shared_pages) {
			/* not run and the same pages: status and io cannot have moved either */
			slow = false;
		} else if (!slow && sm.resident_pages * t->page_kb > p->ss.hwm_kb) {
			/* above its last VmHWM: the peak moved, read it now */
			slow = true;
			t->rise_reads++;
		}
	}
	if (slow) {
		if (!read_slow(t, p, now_ns))
			return 0;
		t->slow_reads++;
	}
	if (have_statm) {
		p->sm = sm;
		uint64_t shared = sm.shared_pages < sm.resident_pages ? sm.shared_pages : sm.resident_pages;
		p->mem.rss_kb = sm.resident_pages * t->page_kb;
		p->mem.anon_kb = (sm.resident_pages - shared) * t->page_kb;
		/* the file/shmem split from the latest status, within today's shared total */
		uint64_t shared_kb = shared * t->page_kb;
		p->mem.shmem_kb = p->ss.shmem_kb < shared_kb ? p->ss.shmem_kb : shared_kb;
		p->mem.file_kb = shared_kb - p->mem.shmem_kb;
	} else {
		p->mem.rss_kb = p->ss.rss_kb;
		p->mem.anon_kb = p->ss.anon_kb;
		p->mem.file_kb = p->ss.file_kb;
		p->mem.shmem_kb = p->ss.shmem_kb;
	}
	p->mem.swap_kb = p->ss.swap_kb;
	/* a fault (a page touched, or copied on write: its sharers' PSS moves
	 * with it) or pages gone: the tree's PSS may have moved */
	if (!p->seen || st.minflt != p->st.minflt || st.majflt != p->st.majflt || p->mem.rss_kb != rss_before)
		t->mem_changes++;
	if (!idle && !clocked) /* not run since: its clock has not moved */
		read_cpu_clock(p);
	p->st = st;
	first_reading(t, p, now_ns);
	p->seen = true;
	return 1;
}

void proctree_refresh_all(struct proctree *t)
{
	t->slow_all_next = true;
}

bool proctree_was_member(const struct proctree *t, pid_t pid)
{
	for (size_t i = 0; i < t->ngone; i++)
		if (t->gone[i] == pid)
			return true;
	return false;
}

/* A sample reads this many members' smaps_rollup whatever the budget: a sum
 * that mixes readings from before and after a fork (a child's share beside
 * its parent's stale whole) is off by the shared pages, so a small tree is
 * always read whole. */
#define PSS_MIN_READS 8

/* One member's smaps_rollup. */
/* A member whose memory is its parent's (a vfork child before its exec, a
 * CLONE_VM task such as LeakSanitizer's tracer at exit): smaps_rollup would
 * read that one mm for both, counting it twice. kcmp says (a few µs); where
 * it cannot (no CONFIG_KCMP), the member counts. */
static bool shares_parent_mm(const struct proctree *t, const struct proctree_proc *p)
{
	pid_t parent = p->st.ppid;
	return parent > 0 && index_find(t, parent) >= 0 &&
	       syscall(SYS_kcmp, (pid_t)p->pid, parent, KCMP_VM, 0UL, 0UL) == 0;
}

static void read_pss(struct proctree *t, struct proctree_proc *p)
{
	char buf[2048];
	ssize_t r = 0;
	bool shared = shares_parent_mm(t, p);
	if (shared) /* its parent's PSS holds it */
		p->pss_kb = 0;
	else
		r = read_file(t, p, F_SMAPS, buf, sizeof(buf));
	if (shared || (r > 0 && procfs_parse_smaps_rollup(buf, (size_t)r, &p->pss_kb) == 0)) {
		p->pss_read = true;
		p->pss_unreadable = false;
		p->pss_changes = t->mem_changes;
	} else if (r != 0 && !p->pss_read) {
		p->pss_unreadable = true; /* refused, or a kernel without smaps_rollup */
	}
}

static bool pss_go_on(const struct proctree *t, int64_t t0_ns, size_t reads)
{
	return reads < PSS_MIN_READS || clock_mono_ns() - t0_ns <= t->pss_budget_ns;
}

/* PSS within a time budget: smaps_rollup walks every mapping (35 ms on 10
 * GiB, 0.1 ms on 32 MiB here). Only when the tree's memory may have moved
 * since a member's reading (a fault, pages gone, a member come or gone: a
 * sharer's exit raises the others' PSS); a tree at rest costs none. Members
 * never read go first (a child just forked shares its parent's pages, and
 * adds nothing until it is read: 0, never its RSS); then the rest in turn
 * from where the last sample stopped, each keeping its last reading
 * meanwhile. */
static void sample_pss(struct proctree *t, struct proctree_totals *out)
{
	int64_t t0 = clock_mono_ns();
	size_t n = t->nprocs, done = 0, reads = 0;
	for (size_t k = 0; k < n && pss_go_on(t, t0, reads); k++)
		if (!t->procs[k]->pss_read && !t->procs[k]->pss_unreadable) {
			read_pss(t, t->procs[k]);
			reads++;
		}
	for (; done < n && pss_go_on(t, t0, reads); done++) {
		struct proctree_proc *p = t->procs[(t->pss_rr + done) % n];
		if (p->pss_changes != t->mem_changes || !p->pss_read) {
			read_pss(t, p);
			reads++;
		}
	}
	t->pss_rr = (t->pss_rr + done) % n;
	for (size_t k = 0; k < n; k++) {
		const struct proctree_proc *p = t->procs[k];
		out->pss_kb += p->pss_unreadable ? p->mem.rss_kb : p->pss_kb;
	}
	out->pss_valid = true;
}

void proctree_sample(struct proctree *t, struct proctree_totals *out)
{
	memset(out, 0, sizeof(*out));
	bool retired = false;
	int64_t now_ns = clock_mono_ns();
	t->ngone = 0;
	/* the members due for status and io: a window of ceil(n / slow_every) slots */
	size_t n0 = t->nprocs, every = t->slow_every ? t->slow_every : 1;
	size_t quota = t->slow_all_next ? n0 : (n0 + every - 1) / every;
	size_t rr = n0 ? t->slow_rr % n0 : 0;
	for (size_t k = 0; k < t->nprocs;) {
		struct proctree_proc *p = t->procs[k];
		bool due = n0 && (k + n0 - rr) % n0 < quota;
		if (!read_proc(t, p, due, now_ns)) {
			retire(t, k, now_ns);
			retired = true;
			continue;
		}
		read_threads(t, p, p->slow_ns == now_ns, false, now_ns);
		out->rss_kb += p->mem.rss_kb;
		out->anon_kb += p->mem.anon_kb;
		out->file_kb += p->mem.file_kb;
		out->shmem_kb += p->mem.shmem_kb;
		out->swap_kb += p->mem.swap_kb;
		out->procs++;
		out->threads += (uint32_t)p->st.num_threads;
		struct proctree_counts c = counts_of(p);
		totals_add(out, &c, t->clk.tick_ns);
		if (p->ss.hwm_kb > out->hwm_kb) {
			out->hwm_kb = p->ss.hwm_kb;
			out->hwm_after_ns = p->prev_slow_ns;
			out->hwm_pid = p->pid;
			memcpy(out->hwm_comm, p->st.comm, sizeof(out->hwm_comm));
			out->hwm_final = p->slow_ns == now_ns; /* read now, alive */
			out->hwm_before = hwm_before(t, p);
		}
		k++;
	}
	t->slow_rr = t->nprocs ? (rr + quota) % t->nprocs : 0;
	t->slow_all_next = false;
	if (retired) /* slots moved: the index must point at their new places */
		index_rebuild(t, t->index_cap);

	if (t->pss && t->nprocs)
		sample_pss(t, out);

	totals_add(out, &t->exited, t->clk.tick_ns);
	out->iowait_valid = t->delayacct == 1;
	if (t->exited_hwm_kb > out->hwm_kb) {
		out->hwm_kb = t->exited_hwm_kb;
		out->hwm_after_ns = t->exited_hwm_after_ns;
		out->hwm_pid = t->exited_hwm_pid;
		memcpy(out->hwm_comm, t->exited_hwm_comm, sizeof(out->hwm_comm));
		out->hwm_final = false;
		out->hwm_before = t->exited_hwm_before;
	}
}

const char *proctree_comm(const struct proctree *t, pid_t pid)
{
	int k = index_find(t, pid);
	return k >= 0 && t->procs[k]->seen ? t->procs[k]->st.comm : NULL;
}

size_t proctree_pids(const struct proctree *t, pid_t *out, size_t n)
{
	size_t k = 0;
	for (; k < t->nprocs && k < n; k++)
		out[k] = t->procs[k]->pid;
	return k;
}
