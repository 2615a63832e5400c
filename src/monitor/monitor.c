/* monitor: the poll loop that samples a process tree.
 *
 * One poll(): a timerfd paces the samples on the monotonic clock, a signalfd
 * delivers SIGCHLD (reap with wait4, per child) and the signals we forward,
 * the child's stdout/stderr pipes are copied through as bytes arrive, and
 * netlink sockets push forks (discovery) and exits (taskstats hiwater).
 * Nothing here sleeps in a way that could delay the child's output or exit;
 * the one call that can block, NVML's, runs on its own thread (gpupoll.c).
 */
#include "monitor/monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/nvml.h"
#include "monitor/gpupoll.h"
#include "monitor/logtail.h"
#include "monitor/relay.h"
#include "proc/cgroup.h"
#include "proc/netlink.h"
#include "proc/selfsched.h"
#include "util/clock.h"

/* One sampled tree: the command's (or the watched one) and an attached daemon's. */
struct side {
	struct proctree tree;
	struct proctree_totals prev;
	bool have_prev;
	enum sample_mem mem;        /* how mem_kb is read (choose_mem) */
	int usage_fd;               /* SAMPLE_MEM_CGROUP: the cgroup's usage file */
	uint64_t mem_kb;            /* the latest sample's */
	struct tree_result *res;
	bool active;
	double cpu_carry_ms;        /* on-CPU time beyond what an interval could hold, moved to the next */
	double cpu_given_ms, user_given_ms; /* CPU and user time in its samples so far */
	double prev_t_ms;           /* its previous sample */
};

struct loop {
	const struct monitor_opts *o;
	struct monitor_result *r;
	struct side main, daemon;
	struct logtail *logs;
	size_t nlogs;
	int inotify_fd;
	int64_t t0_ns;
	long ticks_per_s;
	long ncpus;                 /* online CPUs: no interval holds more than ncpus x its length */
	pid_t root;                 /* run mode: the command */
	bool root_done;
	pid_t self;
	int stream_fd[4];           /* index by enum monitor_stream */
	struct relay relay[3];      /* the command's stdout/stderr on their way to ours */
	struct exitstats xs;
	int events_fd;
	bool drain_at_sample;       /* the event sockets are read when a sample is taken, not polled */
	bool events_unfiltered;     /* the fork filter is still to be attached */
	bool rescan;                /* events were lost or unavailable: pull discovery */
	struct gpupoll gpu;         /* GPU memory, read on its own thread */
	bool gpu_on;
	pid_t *pids;                /* scratch for GPU attribution */
	struct sample_gpu_proc gpu_procs[SAMPLE_GPU_PROCS]; /* the latest sample's, per process */
	size_t pids_cap;
	int sfd, tfd;               /* signalfd, sampling timerfd */
	sigset_t oldmask;
	struct cgroup cg;
	int64_t cpu0_ns;            /* perfhunt's own CPU time at the start */
	bool launched;              /* run mode: the command was started */
	bool stop;
	uint64_t root_maxrss_kb;    /* the command's wait4 ru_maxrss, image included */
	char root_comm[64];
	uint64_t root_exit_hwm_kb;  /* the command's own high-water mark, from its exit record */
	int was_subreaper;          /* run mode: the flag as it was before the recording (-1: not set by us) */
	double last_marker_sample_ms; /* marker samples: at most one per millisecond */
	double last_marker_read_ms; /* when the latest marker sample's reading began */
	int ack_fd;                 /* write end of $PERFHUNT_ACK_FD, or -1 */
	int sched_fd;               /* our own schedstat (selfsched), or -1 */
	double empty_ms[4];         /* by stream: when it was last seen with nothing to read */
	double woke_ms;             /* the latest blocking poll: when we were woken (-1: it did not block) */
	double read_since_ms;       /* this step: the earliest the bytes read can have been written */
	bool acked_sample;          /* the sample being taken answers pings */
	uint64_t idle[4096];        /* with a daemon: its RSS over the settle period */
	size_t nidle;
	double budget;              /* the share of a core a timer sample may take (stretch_timer) */
	uint64_t ticks;             /* samples taken on the timer (the first one included) */
	double first_tick_ms, last_tick_ms;
};

static void note(struct monitor_result *r, const char *fmt, ...)
{
	if (r->nnotes >= (int)(sizeof(r->notes) / sizeof(r->notes[0])))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes++], sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
}

static double now_ms(const struct loop *l)
{
	return (double)(clock_mono_ns() - l->t0_ns) / 1e6;
}

static uint64_t delta(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

_Static_assert(SAMPLE_GPU_PROCS >= GPU_MAX_TREE_PROCS, "a sample keeps every process NVML's sample does");

static void sample_gpu(struct loop *l, const struct proctree *tree, struct sample *s)
{
	if (tree->nprocs > l->pids_cap) {
		l->pids_cap = tree->nprocs * 2;
		free(l->pids);
		l->pids = malloc(l->pids_cap * sizeof(*l->pids));
		if (!l->pids) {
			l->pids_cap = 0;
			return;
		}
	}
	size_t n = proctree_pids(tree, l->pids, l->pids_cap);
	struct gpu_sample g;
	if (!gpupoll_exchange(&l->gpu, l->pids, n, &g))
		return;
	s->gpu_valid = true;
	s->gpu_mib = g.tree_used_mib;
	s->gpu_util_pct = g.util_pct < 0 ? 0 : g.util_pct;
	/* device totals tell no process apart: no per-process figure then */
	s->ngpu_procs = 0;
	for (size_t i = 0; i < g.ntree && !g.device_totals; i++)
		l->gpu_procs[s->ngpu_procs++] = (struct sample_gpu_proc){
			.pid = g.tree[i].pid, .mib = (double)g.tree[i].used_bytes / (1024.0 * 1024.0) };
	s->gpu_procs = l->gpu_procs;
}

/* ms rounded to a whole microsecond (a residue of -1e-16 is 0, never -0) */
static double ms_whole_us(double ms)
{
	return round(ms * 1000.0) / 1000.0 + 0.0;
}

/* The interval's CPU time: the tree's on-CPU nanoseconds (every process's
 * CPU clock, exact at any interval; stat's utime and stime move in whole
 * 10 ms ticks: 10 ms of them in a 6 ms interval drew 330 % on 2 cores).
 * User time follows the kernel's own split (stat's utime / (utime + stime),
 * the cumulative ratio getrusage also gives), never going back: the samples'
 * user time so far is that share of their CPU time so far, as far as this
 * interval's CPU allows. What the interval could not hold (cores x its
 * length, or threads x it; the reads of one sample are microseconds apart)
 * moves to the next, so no total is lost. */
static void cpu_split(const struct loop *l, struct side *sd, const struct proctree_totals *t,
		      const struct proctree_totals *p, double t_ms, struct sample *s)
{
	double dt_ms = sd->have_prev ? t_ms - sd->prev_t_ms : t_ms;
	s->span_ms = dt_ms;
	uint32_t threads = t->threads > p->threads ? t->threads : p->threads;
	s->threads_max = threads;
	double cap_ms = dt_ms * (double)(threads < (uint32_t)l->ncpus ? threads : (uint32_t)l->ncpus);
	double oncpu_ms = (double)delta(t->oncpu_ns, p->oncpu_ns) / 1e6 + sd->cpu_carry_ms;
	sd->cpu_carry_ms = 0;
	if (threads && oncpu_ms > cap_ms) {
		sd->cpu_carry_ms = oncpu_ms - (cap_ms > 0 ? cap_ms : 0);
		oncpu_ms -= sd->cpu_carry_ms;
	}
	/* whole microseconds, the rest carried: a figure of k/1000 ms reads back
	 * from the record's 10 digits as the same double, and a split leaves no
	 * 1e-16 residue where there was no time */
	double kept_ms = oncpu_ms > 0 ? ms_whole_us(oncpu_ms) : 0; /* a carried -0.5 µs rounds to -1 */
	if (threads && kept_ms > cap_ms) /* nor over the bound by its rounding */
		kept_ms = floor(cap_ms * 1000.0) / 1000.0 + 0.0;
	sd->cpu_carry_ms += oncpu_ms - kept_ms;
	oncpu_ms = kept_ms;
	s->oncpu_ms = oncpu_ms;
	s->runnable_ms = ms_whole_us((double)delta(t->runnable_ns, p->runnable_ns) / 1e6);
	s->alive_ms = ms_whole_us((double)delta(t->alive_ns, p->alive_ns) / 1e6);
	s->iowait_ms = (double)delta(t->iowait_ns, p->iowait_ns) / 1e6; /* whole ticks */
	s->iowait_valid = t->iowait_valid;
	uint64_t ut = t->utime_ticks, st = t->stime_ticks;
	double share = ut + st ? (double)ut / (double)(ut + st) : 1.0;
	double user = ms_whole_us((sd->cpu_given_ms + oncpu_ms) * share - sd->user_given_ms);
	user = user < 0 ? 0 : user > oncpu_ms ? oncpu_ms : user;
	sd->cpu_given_ms += oncpu_ms;
	sd->user_given_ms += user;
	s->user_ms = user;
	s->sys_ms = ms_whole_us(oncpu_ms - user);
}

/* Reads one tree into s: sums now, deltas since its previous sample. */
static void read_side(struct loop *l, struct side *sd, struct sample *s, double t_ms)
{
	struct proctree_totals t;
	proctree_sample(&sd->tree, &t);
	memset(s, 0, sizeof(*s));
	s->t_ms = t_ms;
	s->epoch_ms = l->r->start_epoch_ms + (int64_t)t_ms;
	s->mem_method = sd->mem;
	if (sd->mem == SAMPLE_MEM_PSS)
		sd->mem_kb = t.pss_kb;
	else if (sd->mem == SAMPLE_MEM_RSS)
		sd->mem_kb = t.rss_kb;
	else if (cgroup_usage_kb(sd->usage_fd, &s->mem_kb) == 0)
		sd->mem_kb = s->mem_kb; /* unreadable for once: the last reading stands */
	s->mem_kb = sd->mem_kb;
	s->rss_kb = t.rss_kb;
	s->anon_kb = t.anon_kb;
	s->file_kb = t.file_kb;
	s->shmem_kb = t.shmem_kb;
	s->swap_kb = t.swap_kb;
	s->pss_kb = t.pss_kb;
	s->pss_valid = t.pss_valid;
	s->procs = t.procs;
	s->threads = t.threads;
	s->minflt_total = t.minflt;
	s->majflt_total = t.majflt;
	const struct proctree_totals *p = &sd->prev;
	struct proctree_totals zero;
	if (!sd->have_prev) {
		memset(&zero, 0, sizeof(zero));
		p = &zero;
	}
	cpu_split(l, sd, &t, p, t_ms, s);
	s->minflt = delta(t.minflt, p->minflt);
	s->majflt = delta(t.majflt, p->majflt);
	s->vcsw = delta(t.vcsw, p->vcsw);
	s->ivcsw = delta(t.ivcsw, p->ivcsw);
	s->read_bytes = delta(t.rchar, p->rchar);
	s->write_bytes = delta(t.wchar, p->wchar);
	sd->prev = t;
	sd->prev_t_ms = t_ms;
	sd->have_prev = true;
}

/* Folds a labelled sample into its tree's figures. */
static void account(const struct loop *l, struct side *sd, const struct sample *s)
{
	struct tree_result *res = sd->res;
	const struct proctree_totals *t = &sd->prev;
	if (res->samples == 0) {
		res->first = *t;
		res->at_attach = sd->tree.history;
	}
	res->last = *t;
	const struct proctree_counts *h = &sd->tree.history, *a = &res->at_attach;
	res->joined_history = (struct proctree_counts){
		h->utime_ticks - a->utime_ticks, h->stime_ticks - a->stime_ticks, h->minflt - a->minflt,
		h->majflt - a->majflt, h->vcsw - a->vcsw, h->ivcsw - a->ivcsw, h->rchar - a->rchar,
		h->wchar - a->wchar,
	};
	res->samples++;
	if (t->hwm_kb > res->hwm_kb) {
		if (t->hwm_pid != res->hwm_pid)
			res->hwm_exit_kb = 0;
		res->hwm_kb = t->hwm_kb;
		res->hwm_pid = t->hwm_pid;
		memcpy(res->hwm_comm, t->hwm_comm, sizeof(res->hwm_comm));
		/* an exact peak has no time of its own: it lies between this sample and
		 * the member's previous status reading (the previous sample, or earlier
		 * when status is read on a cadence) */
		double after_ms = t->hwm_after_ns ? (double)(t->hwm_after_ns - l->t0_ns) / 1e6 : res->last_t_ms;
		res->hwm_from_ms = res->samples > 1 ? (after_ms < res->last_t_ms ? after_ms : res->last_t_ms) : 0;
		if (res->hwm_from_ms < 0)
			res->hwm_from_ms = 0;
		res->hwm_to_ms = s->t_ms;
		res->hwm_before_attach = t->hwm_before;
	}
	/* the last sample's reading of the member that holds it covers its whole life */
	res->hwm_final = t->hwm_final && t->hwm_kb >= res->hwm_kb;
	res->last_t_ms = s->t_ms;
	if (s->mem_kb > res->peak_mem_kb || res->samples == 1) {
		res->peak_mem_kb = s->mem_kb;
		res->peak_at_ms = s->t_ms;
		res->peak_at_marker = s->at_marker;
		memcpy(res->peak_phase, s->phase, sizeof(res->peak_phase));
	}
	if (t->procs > res->max_procs)
		res->max_procs = t->procs;
	if (t->threads > res->max_threads)
		res->max_threads = t->threads;
	timeline_push(&res->tl, s);
}

static void poll_logs(struct loop *l);

static void take_sample_marked(struct loop *l, double marker_ms);

static void take_sample(struct loop *l)
{
	take_sample_marked(l, 0);
}

/* Answers n pings on the acknowledgement pipe, each "ack\n" in one write;
 * a command that does not read them fills the pipe, and the rest are dropped. */
static void send_acks(struct loop *l, unsigned n)
{
	for (; n && l->ack_fd >= 0; n--)
		if (write(l->ack_fd, "ack\n", 4) != 4 && errno != EINTR)
			break;
}

/* A marker arrived: sample now, unless one was just taken. A marker that
 * waits for its acknowledgement (a ping after it) is always sampled, then
 * answered: the command does nothing meanwhile, so the sample is its
 * phase's end, however late. */
static void marker_sample(struct loop *l)
{
	const struct monitor_hooks *h = &l->o->hooks;
	unsigned acks = h->acks_due ? h->acks_due(h->arg) : 0;
	bool marker = h->sample_now && h->sample_now(h->arg);
	if ((marker || acks) && l->t0_ns && l->tfd >= 0) {
		double t = now_ms(l);
		/* the last one serves lines written after its reading only */
		if (acks || !l->last_marker_sample_ms || t - l->last_marker_sample_ms >= 1.0 ||
		    l->read_since_ms < l->last_marker_read_ms) {
			l->last_marker_sample_ms = t;
			l->acked_sample = acks > 0;
			take_sample_marked(l, t);
			l->acked_sample = false;
		}
	}
	send_acks(l, acks);
}

static void read_forks(struct loop *l);
static void on_exit_record(const struct exit_record *x, void *arg);

/* marker_ms > 0: a marker sample, asked for at that time; the drains and
 * the scan before the reading do not make its markers' ends inexact. */
static void take_sample_marked(struct loop *l, double marker_ms)
{
	struct monitor_result *r = l->r;
	poll_logs(l); /* probes that arrived before this instant label it */
	if (l->drain_at_sample) {
		/* forks first: their children are members before the exit records are matched */
		if (l->events_fd >= 0)
			read_forks(l);
		if (l->xs.fd >= 0)
			exitstats_read(&l->xs, on_exit_record, l);
	}
	if (l->rescan) {
		proctree_scan(&l->main.tree);
		if (r->daemon_attached)
			proctree_scan(&l->daemon.tree);
	}
	double t_ms = now_ms(l);
	struct sample sm, sc;
	memset(&sc, 0, sizeof(sc));
	bool daemon = r->daemon_attached;
	/* a phase's end is exact: every member that ran by now is read */
	l->main.tree.runs_exact = l->daemon.tree.runs_exact = marker_ms > 0;
	if (daemon) {
		if (l->daemon.active) {
			read_side(l, &l->daemon, &sm, t_ms);
			if (l->daemon.tree.nprocs == 0 && !r->daemon_exited) {
				r->daemon_exited = true;
				r->daemon_exit_ms = t_ms;
				note(r, "the attached daemon exited at %.0f ms, during the run", t_ms);
			}
		} else {
			memset(&sm, 0, sizeof(sm));
			sm.t_ms = t_ms;
			sm.epoch_ms = r->start_epoch_ms + (int64_t)t_ms;
		}
		if (l->main.active)
			read_side(l, &l->main, &sc, t_ms);
		sc.t_ms = t_ms;
		sc.epoch_ms = sm.epoch_ms;
	} else {
		read_side(l, &l->main, &sm, t_ms);
	}
	if (l->gpu_on)
		sample_gpu(l, daemon ? &l->daemon.tree : &l->main.tree, &sm);
	if (marker_ms > 0)
		l->last_marker_read_ms = t_ms;
	sm.marker_read_end_ms = sc.marker_read_end_ms = marker_ms > 0 ? now_ms(l) : 0;
	sm.at_marker = sc.at_marker = marker_ms > 0;
	sm.marker_ms = sc.marker_ms = marker_ms;
	sm.acked = sc.acked = l->acked_sample;
	sm.marker_since_ms = sc.marker_since_ms = l->read_since_ms < marker_ms ? l->read_since_ms : marker_ms;
	if (l->o->hooks.label) {
		l->o->hooks.label(l->o->hooks.arg, &sm);
		memcpy(sc.phase, sm.phase, sizeof(sc.phase));
	}
	if (daemon) {
		account(l, &l->daemon, &sm);
		if (l->main.active)
			account(l, &l->main, &sc);
		if (sm.mem_kb + sc.mem_kb > r->combined_peak_kb) {
			r->combined_peak_kb = sm.mem_kb + sc.mem_kb;
			r->combined_peak_at_ms = t_ms;
		}
	} else {
		account(l, &l->main, &sm);
	}
	r->samples++;
	if (sm.pss_valid && sm.pss_kb > r->peak_pss_kb)
		r->peak_pss_kb = sm.pss_kb;
	if (sm.gpu_valid && sm.gpu_mib > r->peak_gpu_mib)
		r->peak_gpu_mib = sm.gpu_mib;
	if (l->o->hooks.on_sample && !r->write_errno &&
	    l->o->hooks.on_sample(l->o->hooks.arg, &sm, daemon ? &sc : NULL) < 0)
		r->write_errno = errno ? errno : EIO;
}

/* ---- probe logs ---- */

struct log_ctx {
	struct loop *l;
	int stream;
};

static void log_chunk(void *arg, const char *buf, size_t n)
{
	struct log_ctx *c = arg;
	if (c->l->o->hooks.on_output)
		c->l->o->hooks.on_output(c->l->o->hooks.arg, c->stream, buf, n, now_ms(c->l));
}

static void poll_logs(struct loop *l)
{
	for (size_t i = 0; i < l->nlogs; i++) {
		struct log_ctx c = { l, MONITOR_LOG + (int)i };
		logtail_poll(&l->logs[i], log_chunk, &c);
	}
}

/* ---- kernel events ---- */

/* Events are read in order, so a child that exited before its fork event was
 * read is marked gone: its own children (next in the queue) and its exit
 * record still count as the tree's. */
static void on_fork(pid_t parent, pid_t child, void *arg)
{
	struct loop *l = arg;
	struct proctree *t = NULL;
	if (parent == l->self || proctree_has(&l->main.tree, parent) || proctree_was_member(&l->main.tree, parent))
		t = &l->main.tree;
	else if (l->r->daemon_attached &&
		 (proctree_has(&l->daemon.tree, parent) || proctree_was_member(&l->daemon.tree, parent)))
		t = &l->daemon.tree;
	if (t && proctree_add(t, child, NULL) < 0)
		proctree_add_exited(t, child);
}

static void on_exit_record(const struct exit_record *x, void *arg)
{
	struct loop *l = arg;
	/* a task of a member: when it ended, a thread's last switches (its status is gone with it) */
	if (!x->whole_group &&
	    !proctree_task_exited(&l->main.tree, x->tgid, x->pid, x->nvcsw, x->nivcsw, x->elapsed_us, x->run_ns,
				  x->run_delay_ns) &&
	    l->r->daemon_attached)
		proctree_task_exited(&l->daemon.tree, x->tgid, x->pid, x->nvcsw, x->nivcsw, x->elapsed_us, x->run_ns,
				     x->run_delay_ns);
	/* A task of the tree: still a member (retired only at the next read),
	 * or a child of one that lived too briefly to be seen. */
	const struct proctree *t = &l->main.tree;
	if (!proctree_has(t, x->tgid) && !proctree_was_member(t, x->tgid) && !proctree_has(t, x->ppid) &&
	    !proctree_was_member(t, x->ppid) && x->ppid != l->self &&
	    !(l->root > 0 && (x->tgid == l->root || x->ppid == l->root)))
		return;
	if (l->root > 0 && x->tgid == l->root && x->hiwater_rss_kb > l->root_exit_hwm_kb)
		l->root_exit_hwm_kb = x->hiwater_rss_kb;
	if (x->tgid == l->r->tree.hwm_pid && x->hiwater_rss_kb > l->r->tree.hwm_exit_kb)
		l->r->tree.hwm_exit_kb = x->hiwater_rss_kb;
	if (x->hiwater_rss_kb > l->r->taskstats_kb) {
		l->r->taskstats_kb = x->hiwater_rss_kb;
		l->r->taskstats_pid = x->tgid ? x->tgid : x->pid;
		memcpy(l->r->taskstats_comm, x->comm, sizeof(l->r->taskstats_comm));
	}
}

/* ---- children ---- */

static void add_rusage(struct rusage *a, const struct rusage *b)
{
	timeradd(&a->ru_utime, &b->ru_utime, &a->ru_utime);
	timeradd(&a->ru_stime, &b->ru_stime, &a->ru_stime);
	a->ru_minflt += b->ru_minflt;
	a->ru_majflt += b->ru_majflt;
	a->ru_nvcsw += b->ru_nvcsw;
	a->ru_nivcsw += b->ru_nivcsw;
	a->ru_inblock += b->ru_inblock;
	a->ru_oublock += b->ru_oublock;
	if (b->ru_maxrss > a->ru_maxrss)
		a->ru_maxrss = b->ru_maxrss;
}

/* Whose the process wait4 just gave us is: the measured tree's (the command,
 * a member, or one retired by the latest sample), or perfhunt's own (what a
 * tool perfhunt ran left behind while it was the subreaper), which no figure
 * of the tree may hold. */
static bool in_measured_tree(const struct loop *l, pid_t pid)
{
	return pid == l->root || proctree_has(&l->main.tree, pid) || proctree_was_member(&l->main.tree, pid);
}

/* The name of a process of the tree that wait4 gave us: its latest stat,
 * else what an exit record or a VmHWM reading said of it. */
static const char *reaped_comm(const struct loop *l, pid_t pid)
{
	const char *comm = proctree_comm(&l->main.tree, pid);
	if (comm)
		return comm;
	if (pid == l->r->taskstats_pid)
		return l->r->taskstats_comm;
	return pid == l->r->tree.hwm_pid ? l->r->tree.hwm_comm : "";
}

static void reap(struct loop *l)
{
	for (;;) {
		int st;
		struct rusage ru;
		pid_t pid = wait4(-1, &st, WNOHANG, &ru);
		if (pid <= 0)
			break;
		if (!in_measured_tree(l, pid)) {
			l->r->own_reaped++;
			continue;
		}
		add_rusage(&l->r->ru, &ru);
		if (pid == l->root) { /* weighed at the end, against its exit record */
			l->root_maxrss_kb = (uint64_t)ru.ru_maxrss;
			snprintf(l->root_comm, sizeof(l->root_comm), "%s", reaped_comm(l, pid));
		} else if (pid == l->r->tree.hwm_pid && (uint64_t)ru.ru_maxrss > l->r->tree.hwm_exit_kb) {
			l->r->tree.hwm_exit_kb = (uint64_t)ru.ru_maxrss;
		}
		if (pid != l->root && (uint64_t)ru.ru_maxrss > l->r->maxrss_kb) {
			l->r->maxrss_kb = (uint64_t)ru.ru_maxrss;
			l->r->maxrss_pid = pid;
			snprintf(l->r->maxrss_comm, sizeof(l->r->maxrss_comm), "%s", reaped_comm(l, pid));
		}
		if (pid == l->root) {
			l->r->wall_ms = now_ms(l) - l->r->client_start_ms;
			l->root_done = true;
			if (WIFEXITED(st))
				l->r->exit_code = WEXITSTATUS(st);
			else if (WIFSIGNALED(st)) {
				l->r->exit_signal = WTERMSIG(st);
				l->r->core_dumped = WCOREDUMP(st);
			}
		}
	}
}

/* ---- output passthrough ---- */

/* Reads what is available on one stream (at most what its relay can hold);
 * returns false at EOF. */
static bool pump(struct loop *l, int stream)
{
	char buf[RELAY_BUF];
	/* written after the stream was last seen empty, and after we were
	 * woken when a poll slept until then */
	double since = l->empty_ms[stream] > l->woke_ms ? l->empty_ms[stream] : l->woke_ms;
	ssize_t n = read(l->stream_fd[stream], buf, sizeof(buf));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	/* the bytes arrived now, whatever copying them out takes after */
	double t_ms = now_ms(l);
	if (since < l->read_since_ms)
		l->read_since_ms = since;
	if ((size_t)n < sizeof(buf))
		l->empty_ms[stream] = t_ms;
	if (stream != MONITOR_PROBE_FD)
		relay_put(&l->relay[stream], buf, (size_t)n);
	if (l->o->hooks.on_output)
		l->o->hooks.on_output(l->o->hooks.arg, stream, buf, (size_t)n, t_ms);
	return true;
}

static void close_stream(struct loop *l, int stream)
{
	if (l->stream_fd[stream] >= 0)
		close(l->stream_fd[stream]);
	l->stream_fd[stream] = -1;
}

/* Our stdout or stderr failed (its reader left, a full disk): the command's
 * pipe is closed, so its next write there fails (EPIPE, and SIGPIPE unless
 * it ignores it) as it would have without perfhunt, and it stops instead of
 * writing into nowhere. Probes on that stream end with it. */
static void cut_stream(struct loop *l, int stream)
{
	if (l->stream_fd[stream] < 0)
		return;
	const char *name = stream == MONITOR_STDOUT ? "stdout" : "stderr";
	note(l->r, "perfhunt's %s failed (%s): the command's %s was closed, so its later writes there failed", name,
	     strerror(l->relay[stream].error), name);
	close_stream(l, stream);
}

/* A stream perfhunt cannot write from the start (closed: `>&-`, or
 * read-only) is not piped: the command gets it as perfhunt found it, so its
 * writes fail as they would without perfhunt (a pipe cut later would let
 * the first one through). */
static void keep_unwritable(struct loop *l, struct launch_opts *lo)
{
	for (int s = MONITOR_STDOUT; s <= MONITOR_STDERR; s++) {
		if (!lo->capture || !l->relay[s].error)
			continue;
		const char *name = s == MONITOR_STDOUT ? "stdout" : "stderr";
		note(l->r, "perfhunt's %s cannot be written (%s): the command's %s was left as it was", name,
		     strerror(l->relay[s].error), name);
		*(s == MONITOR_STDOUT ? &lo->keep_stdout : &lo->keep_stderr) = true;
	}
}

/* The relays of the command's output, where it is copied (run mode, output shown). */
static void open_relays(struct loop *l)
{
	for (int s = MONITOR_STDOUT; s <= MONITOR_STDERR; s++) {
		if (l->o->launch && l->o->launch->capture && !l->o->discard_output)
			relay_init(&l->relay[s], s == MONITOR_STDOUT ? STDOUT_FILENO : STDERR_FILENO);
		else if (l->o->launch && l->o->launch->capture && s == MONITOR_STDOUT && l->o->stdout_fd > STDERR_FILENO)
			relay_init(&l->relay[s], l->o->stdout_fd);
		else
			l->relay[s] = (struct relay){ .dst_fd = -1, .wfd = -1 };
	}
}

/* ---- setup and loop ---- */

/* The sample clock: t_ms = 0 is when recording starts, whatever the mode. */
static void start_clock(struct loop *l)
{
	l->r->start_epoch_ms = clock_epoch_ms();
	l->t0_ns = clock_mono_ns();
	l->r->t0_mono_ns = l->t0_ns;
}

/* How a side's memory is counted, each page once: the usage of the cgroup
 * perfhunt made for it (one pread per sample), else the sum of its members'
 * PSS, read within a tenth of the interval per sample (at most --pss's 20
 * ms) once 8 members are read; without smaps_rollup, a member counts by its
 * RSS. */
static void choose_mem(struct loop *l, struct side *sd, const struct cgroup *cg)
{
	struct tree_result *res = sd->res;
	if (cg && cg->version)
		sd->usage_fd = cgroup_usage_open(cg, NULL);
	if (sd->usage_fd >= 0) {
		sd->mem = res->mem = SAMPLE_MEM_CGROUP;
		snprintf(res->mem_method, sizeof(res->mem_method), "%s", cgroup_usage_method(cg));
		return;
	}
	sd->mem = res->mem = SAMPLE_MEM_PSS;
	snprintf(res->mem_method, sizeof(res->mem_method), "PSS sum (smaps_rollup)");
	if (!sd->tree.pss) {
		int64_t budget_ns = (int64_t)l->o->interval_ms * 100000;
		sd->tree.pss = true;
		if (budget_ns < sd->tree.pss_budget_ns)
			sd->tree.pss_budget_ns = budget_ns;
	}
}

/* The cgroup when the child joins it itself (a vforked child): its limit
 * first, then the fd of its cgroup.procs, or -1. */
static int cgroup_for_child(struct loop *l, struct cgroup *cg)
{
	struct err ce;
	int fd = cgroup_procs_open(cg, &ce);
	if (fd < 0) {
		note(l->r, "no cgroup peak: %s", ce.msg);
		cgroup_destroy(cg);
	}
	return fd;
}

/* The command: gated (fork, then counters are opened on it before its exec)
 * or, without an on_spawn hook, vforked: it joins the cgroup and execs while
 * perfhunt waits; it becomes a tree member right after, and its forks wait
 * in the connector's queue until then. */
static int start_command(struct loop *l, struct cgroup *cg, struct err *e)
{
	const struct monitor_opts *o = l->o;
	struct launch_child c;
	bool gate = o->hooks.on_spawn != NULL;
	struct launch_opts lo = *o->launch;
	keep_unwritable(l, &lo);
	if (!gate) {
		int join_fd = cg->version ? cgroup_for_child(l, cg) : -1;
		int into_fd = join_fd >= 0 && cg->version == 2 ? cgroup_dir_open(cg, NULL) : -1;
		l->r->client_start_ms = now_ms(l);
		int rc = launch_spawn_direct(&lo, join_fd, into_fd, &c, e);
		if (join_fd >= 0)
			close(join_fd);
		if (into_fd >= 0)
			close(into_fd);
		if (rc < 0)
			return -1;
	} else if (launch_spawn(&lo, &c, e) < 0) {
		return -1;
	}
	l->root = c.pid;
	if (gate && cg->version) {
		struct err ce;
		if (cgroup_add_pid(cg, c.pid, &ce) < 0) {
			note(l->r, "no cgroup peak: %s", ce.msg);
			cgroup_destroy(cg);
		}
	}
	proctree_add(&l->main.tree, c.pid, NULL);
	l->main.active = true;
	if (o->hooks.on_spawn)
		o->hooks.on_spawn(o->hooks.arg, c.pid);
	l->stream_fd[MONITOR_STDOUT] = c.out_fd;
	l->stream_fd[MONITOR_STDERR] = c.err_fd;
	l->stream_fd[MONITOR_PROBE_FD] = c.probe_fd;
	l->ack_fd = c.ack_fd;
	c.out_fd = c.err_fd = c.probe_fd = c.ack_fd = -1;
	if (gate)
		l->r->client_start_ms = now_ms(l);
	int xerr = launch_release(&c);
	l->r->launch_image_kb = c.image_kb;
	/* the command's clock starts where it was about to exec: after it
	 * joined its cgroup (a v1 move may wait ~15 ms for an RCU grace
	 * period, which is perfhunt's time, not the command's) */
	if (c.exec_mono_ns > l->t0_ns)
		l->r->client_start_ms = (double)(c.exec_mono_ns - l->t0_ns) / 1e6;
	for (int s = 1; s <= 3; s++) /* nothing is written before the command starts */
		l->empty_ms[s] = l->r->client_start_ms;
	if (c.join_errno && cg->version) {
		note(l->r, "no cgroup peak: cannot move PID %d into cgroup '%s': %s", (int)c.pid, cg->dir,
		     strerror(c.join_errno));
		cgroup_destroy(cg);
	}
	launch_close(&c);
	if (xerr) {
		l->r->exec_errno = xerr;
		int st;
		waitpid(l->root, &st, 0);
		l->root_done = true;
		return 0;
	}
	choose_mem(l, &l->main, cg);
	l->r->started = true;
	return 0;
}

/* Drains fork events; when the kernel dropped some, catch up by pulling. */
static void read_forks(struct loop *l)
{
	struct procevents_handler h = { on_fork, NULL, l };
	if (procevents_read(l->events_fd, &h) < 0) {
		l->r->events_lost = true;
		proctree_scan(&l->main.tree);
		if (l->r->daemon_attached)
			proctree_scan(&l->daemon.tree);
	}
}

/* Drains the signalfd: SIGINT/TERM/HUP/QUIT go to the command while it runs,
 * otherwise they stop the monitor (returns true); SIGCHLD reaps. */
static bool read_signals(struct loop *l, int sfd, bool launched)
{
	struct signalfd_siginfo si;
	bool stop = false;
	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;
		if (sig == SIGCHLD)
			continue;
		if (launched && !l->root_done) {
			kill(l->root, sig);
			l->r->forwarded_signal = sig;
		} else {
			l->r->stop_signal = sig;
			stop = true;
		}
	}
	if (launched)
		reap(l);
	return stop;
}

/* Drains the signalfd: whether a signal that stops perfhunt (not SIGCHLD) was in it. */
static bool stop_signal_pending(int sfd)
{
	struct signalfd_siginfo si;
	bool stop = false;
	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		stop |= si.ssi_signo != SIGCHLD;
	return stop;
}

static int median_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Opens the probe logs (at their current end) and an inotify watch on each. */
static void open_logs(struct loop *l)
{
	const struct monitor_opts *o = l->o;
	l->inotify_fd = -1;
	if (!o->probe_logs || !o->probe_logs[0])
		return;
	while (o->probe_logs[l->nlogs])
		l->nlogs++;
	l->logs = calloc(l->nlogs, sizeof(*l->logs));
	if (!l->logs) {
		l->nlogs = 0;
		return;
	}
	l->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (size_t i = 0; i < l->nlogs; i++) {
		logtail_init(&l->logs[i], o->probe_logs[i]);
		if (l->logs[i].fd < 0)
			note(l->r, "probe log '%s' %s", o->probe_logs[i], l->logs[i].unusable ?
			     "is a directory: not followed" : "does not exist yet; followed when it appears");
		/* appends wake us at once; rotation is noticed at the next sample */
		if (l->inotify_fd >= 0)
			inotify_add_watch(l->inotify_fd, o->probe_logs[i], IN_MODIFY);
	}
}

static void close_logs(struct loop *l)
{
	for (size_t i = 0; i < l->nlogs; i++) {
		l->r->log_rotations += l->logs[i].rotations;
		l->r->log_truncations += l->logs[i].truncations;
		char line[sizeof(l->r->notes[0])];
		if (logtail_report(&l->logs[i], line, sizeof(line)))
			note(l->r, "%s", line);
		logtail_release(&l->logs[i]);
	}
	free(l->logs);
	if (l->inotify_fd >= 0)
		close(l->inotify_fd);
}

/* NVML, opened and read on a thread of its own (its init is slow with a
 * driver, its queries block while the driver pins memory), beside the
 * command; without a driver (no /dev/nvidiactl) no thread starts. */
static void open_gpu(struct loop *l)
{
	struct monitor_result *r = l->r;
	struct err ge;
	if (gpu_driver_present(&ge) < 0) {
		snprintf(r->gpu_reason, sizeof(r->gpu_reason), "%s", ge.msg);
		return;
	}
	if (gpupoll_start(&l->gpu, l->o->interval_ms) == 0)
		l->gpu_on = true;
	else
		snprintf(r->gpu_reason, sizeof(r->gpu_reason), "cannot start the GPU reader thread");
}

static void close_gpu(struct loop *l)
{
	struct monitor_result *r = l->r;
	gpupoll_stop(&l->gpu);
	r->gpu_sampled = l->gpu.opened;
	if (!l->gpu.opened)
		snprintf(r->gpu_reason, sizeof(r->gpu_reason), "%s", l->gpu.reason);
	for (size_t i = 0; i < l->gpu.ndevices && r->ngpus < MONITOR_MAX_GPUS; i++)
		snprintf(r->gpu_names[r->ngpus++], sizeof(r->gpu_names[0]), "%s", l->gpu.names[i]);
	/* the reader's own maximum: a GPU peak between two samples counts */
	if (l->gpu.peak_mib > r->peak_gpu_mib)
		r->peak_gpu_mib = l->gpu.peak_mib;
	memcpy(r->gpu_proc_peak, l->gpu.proc_peak, sizeof(r->gpu_proc_peak));
	r->ngpu_proc_peak = l->gpu.nproc_peak;
	if (l->gpu.device_totals) {
		r->gpu_device_totals = true;
		note(r, "%s", l->gpu.fallback);
	}
}

/* The event sockets kept between recordings of one process (a bench), when
 * asked: opening them costs a family lookup and a registration each time. */
static struct {
	bool on, parked;
	int events_fd;
	struct exitstats xs;
} kept;

void monitor_keep_sockets(bool on)
{
	if (!on && kept.parked) {
		if (kept.events_fd >= 0)
			close(kept.events_fd);
		exitstats_close(&kept.xs);
		kept.parked = false;
	}
	kept.on = on;
}

static void discard_exit(const struct exit_record *x, void *arg)
{
	(void)x;
	(void)arg;
}

static void open_event_sockets(struct loop *l)
{
	if (kept.parked) {
		/* what they heard since the last recording is not this one's */
		l->events_fd = kept.events_fd;
		l->xs = kept.xs;
		kept.parked = false;
		struct procevents_handler none = { NULL, NULL, NULL };
		if (l->events_fd >= 0)
			procevents_read(l->events_fd, &none);
		exitstats_read(&l->xs, discard_exit, NULL);
		return;
	}
	struct err ne;
	/* PERFHUNT_NO_PROC_EVENTS=1: discovery by polling, as without root (tests, diagnosis) */
	const char *no_events = getenv("PERFHUNT_NO_PROC_EVENTS");
	l->events_fd = no_events && *no_events == '1' ? -1 : procevents_open(&ne);
	l->events_unfiltered = l->events_fd >= 0;
	if (exitstats_open(&l->xs, &ne) < 0)
		l->xs.fd = -1;
}

static void close_event_sockets(struct loop *l)
{
	if (kept.on && !kept.parked && (l->events_fd >= 0 || l->xs.fd >= 0)) {
		kept.events_fd = l->events_fd;
		kept.xs = l->xs;
		kept.parked = true;
	} else {
		if (l->events_fd >= 0)
			close(l->events_fd);
		exitstats_close(&l->xs);
	}
	l->events_fd = l->xs.fd = -1;
}

/* The monitor asks for a short scheduler slice (0.3 ms, an EEVDF custom
 * slice, Linux 6.12): woken by the command's output, or by the exec that
 * ends a vfork, it then preempts a command that keeps its CPU busy instead
 * of waiting out the command's slice (~3 ms, or a 4 ms tick). So a probe
 * line is dated when it was written, and the first sample follows the exec
 * at once: without it, 17 runs in 30 of a CPU-bound phase 3 ms long came
 * out 0 ms long on this 2-core VM, both its lines read together; 1 in 170
 * with it. Shorter than every default slice (0.75 ms and up), long enough
 * for the launch's end and a sample in one go (0.1 ms: 4 in 80). Children
 * (the command, threads) get the default back, reset on fork; so a negative
 * nice (which that reset would drop) or a real-time policy keeps the
 * default slice. A kernel without custom slices ignores or refuses it. */
static void ask_short_slice(void)
{
	/* the kernel's struct sched_attr, first version (48 bytes): its
	 * header clashes with glibc's struct sched_param */
	struct {
		uint32_t size, sched_policy;
		uint64_t sched_flags;
		int32_t sched_nice;
		uint32_t sched_priority;
		uint64_t sched_runtime, sched_deadline, sched_period;
	} a;
	_Static_assert(sizeof(a) == 48, "SCHED_ATTR_SIZE_VER0");
	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) != 0 ||
	    (a.sched_policy != SCHED_NORMAL && a.sched_policy != SCHED_BATCH) || a.sched_nice < 0)
		return;
	a.size = sizeof(a);
	a.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	a.sched_runtime = 300 * 1000; /* ns */
	syscall(SYS_sched_setattr, 0, &a, 0);
}

/* Everything that is opened before the clock starts: the trees, the
 * signalfd, the kernel's event sockets, the GPU thread (NVML starts on it),
 * the logs. */
static int loop_open(struct loop *l, const struct monitor_opts *o, struct monitor_result *r,
		     struct err *e)
{
	memset(l, 0, sizeof(*l));
	size_t rows = o->timeline_rows ? o->timeline_rows : 2048;
	timeline_init(&r->tree.tl, rows);
	timeline_init(&r->daemon.tl, rows);
	l->o = o;
	l->r = r;
	l->main.res = &r->tree;
	l->daemon.res = &r->daemon;
	l->self = getpid();
	l->ticks_per_s = sysconf(_SC_CLK_TCK);
	l->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (l->ncpus < 1)
		l->ncpus = 1;
	l->events_fd = l->xs.fd = l->inotify_fd = l->sfd = l->tfd = -1;
	l->was_subreaper = -1;
	l->ack_fd = l->sched_fd = -1;
	l->woke_ms = -1;
	l->read_since_ms = INFINITY;
	/* the command's output may carry markers: how late we read it */
	if (o->launch && (o->launch->capture || o->launch->probe_fd))
		l->sched_fd = selfsched_open();
	l->main.tree.procfs_fd = l->daemon.tree.procfs_fd = -1;
	l->main.usage_fd = l->daemon.usage_fd = -1;
	l->main.tree.loadavg_fd = l->daemon.tree.loadavg_fd = -1;
	for (int i = 0; i < 4; i++)
		l->stream_fd[i] = -1;
	open_relays(l);
	l->cpu0_ns = clock_self_cpu_ns();

	ask_short_slice();
	const char *procfs = o->procfs ? o->procfs : "/proc";
	/* the daemon's tree only where there is one (run --attach): a plain run
	 * does not open /proc twice */
	if (proctree_init(&l->main.tree, procfs, e) < 0 ||
	    (o->launch && o->daemon_pid > 0 && proctree_init(&l->daemon.tree, procfs, e) < 0))
		return -1;
	l->main.tree.pss = l->daemon.tree.pss = o->pss;
	/* status and io of each member once every max(8 samples, 100 ms);
	 * PERFHUNT_SAMPLER=full reads them every sample (tests, diagnosis) */
	const char *sampler = getenv("PERFHUNT_SAMPLER");
	bool full = sampler && !strcmp(sampler, "full");
	uint32_t every = o->interval_ms > 0 && 100 / o->interval_ms > 8 ? (uint32_t)(100 / o->interval_ms) : 8;
	/* PERFHUNT_SAMPLE_BUDGET=PCT: the share of a core a sample may take
	 * before the interval stretches (default 50; tests force it with a tiny one) */
	const char *budget = getenv("PERFHUNT_SAMPLE_BUDGET");
	char *end;
	double pct = budget && *budget ? strtod(budget, &end) : 50;
	l->budget = budget && *budget && (*end || !(pct > 0)) ? 0.5 : pct / 100;
	r->sample_budget_pct = l->budget * 100;
	l->main.tree.tiered = l->daemon.tree.tiered = !full;
	l->main.tree.slow_every = l->daemon.tree.slow_every = every;

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, &l->oldmask);
	l->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->sfd < 0) {
		sigprocmask(SIG_SETMASK, &l->oldmask, NULL);
		return err_sys(e, "signalfd");
	}

	open_event_sockets(l);
	r->proc_events = l->events_fd >= 0;
	l->rescan = !r->proc_events;
	r->taskstats = l->xs.fd >= 0;
	/* One wake-up per sample: both sockets hear the whole machine, and what
	 * they hold keeps its order until the sample reads it (4 MiB buffers:
	 * thousands of events). At long intervals they are polled, so a busy
	 * machine cannot fill them between two samples. */
	l->drain_at_sample = o->interval_ms <= 250;
	if (o->gpu)
		open_gpu(l);
	open_logs(l);
	return 0;
}

/* The sampler's budget: a sample that took more than budget x the interval
 * of perfhunt's CPU (thousands of members that all ran) puts the next one
 * off until its CPU is that share of the time between them: the interval is
 * stretched, never the tree cut, and the record says how often (a missed
 * timer expiry would only have made the next sample come at once). */
static void stretch_timer(struct loop *l, int64_t cpu_ns, int64_t wall_ns)
{
	int64_t interval_ns = (int64_t)l->o->interval_ms * 1000000;
	if ((double)cpu_ns <= l->budget * (double)interval_ns)
		return;
	int64_t wait_ns = (int64_t)((double)cpu_ns / l->budget) - wall_ns;
	if (wait_ns < 1000)
		wait_ns = 1000;
	struct itimerspec its = { 0 };
	its.it_interval.tv_sec = interval_ns / 1000000000;
	its.it_interval.tv_nsec = (long)(interval_ns % 1000000000);
	its.it_value.tv_sec = wait_ns / 1000000000;
	its.it_value.tv_nsec = (long)(wait_ns % 1000000000);
	if (timerfd_settime(l->tfd, 0, &its, NULL) == 0)
		l->r->samples_stretched++;
}

/* A sample on the timer, its cost weighed against the budget. */
static void tick_sample(struct loop *l)
{
	int64_t cpu0 = clock_self_cpu_ns(), wall0 = clock_mono_ns();
	take_sample(l);
	l->last_tick_ms = (double)(wall0 - l->t0_ns) / 1e6;
	/* the first one opens and reads every member whole: no measure of the rest */
	if (l->ticks++ == 0)
		l->first_tick_ms = l->last_tick_ms;
	else
		stretch_timer(l, clock_self_cpu_ns() - cpu0, clock_mono_ns() - wall0);
}

/* The settle period is over: the daemon's idle level is the median of its
 * RSS while the command had not yet started. */
static void settle_done(struct loop *l)
{
	qsort(l->idle, l->nidle, sizeof(l->idle[0]), median_cmp);
	l->r->idle_rss_kb = l->nidle ? l->idle[l->nidle / 2] : 0;
}

/* The clock starts, the trees are joined: the daemon (whose settle period
 * comes first), the command (held at its gate until it is a member), or the
 * watched tree. Then the timer and the first sample. */
static int loop_begin(struct loop *l, struct err *e)
{
	const struct monitor_opts *o = l->o;
	struct monitor_result *r = l->r;
	start_clock(l);
	if (o->launch && o->daemon_pid > 0) {
		/* what the daemon did before now is its history, not the first interval's */
		proctree_history_from_now(&l->daemon.tree);
		r->daemon.has_history = true;
		if (proctree_add(&l->daemon.tree, o->daemon_pid, e) < 0)
			return -1;
		proctree_scan(&l->daemon.tree);
		choose_mem(l, &l->daemon, NULL);
		l->daemon.active = true;
		r->daemon_attached = true;
	}
	if (o->launch) {
		/* Daemonizing grandchildren are re-parented to us, so they stay
		 * measured; only while this recording lasts: what a tool that
		 * perfhunt runs afterwards leaves behind (perf script's addr2line
		 * children) is never ours to reap into the next run's figures */
		if (prctl(PR_GET_CHILD_SUBREAPER, &l->was_subreaper) == 0 && !l->was_subreaper)
			prctl(PR_SET_CHILD_SUBREAPER, 1);
		l->main.tree.anchor = l->self;
		if (o->cgroup) {
			struct err ce;
			if (cgroup_create(&l->cg, &ce) < 0)
				note(r, "no cgroup peak: %s", ce.msg);
		}
		/* the limit is set on the empty cgroup, before anything runs: a
		 * limit that cannot be set is an error, never a run without it */
		if (o->memory_limit_bytes && !l->cg.version)
			return err_set(e, "cannot enforce the memory limit: no memory cgroup%s",
				       o->cgroup ? " perfhunt can create here" : " (--cgroup off)");
		if (o->memory_limit_bytes && cgroup_set_limit(&l->cg, o->memory_limit_bytes, e) < 0)
			return -1;
		if (!r->daemon_attached) {
			if (start_command(l, &l->cg, e) < 0)
				return -1;
			l->launched = true;
			if (!r->started)
				return 0;
		}
	} else {
		proctree_history_from_now(&l->main.tree);
		r->tree.has_history = true;
		if (proctree_add(&l->main.tree, o->attach_pid, e) < 0)
			return -1;
		proctree_scan(&l->main.tree);
		choose_mem(l, &l->main, NULL);
		l->main.active = true;
	}

	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	struct itimerspec its = { 0 };
	its.it_interval.tv_sec = o->interval_ms / 1000;
	its.it_interval.tv_nsec = (long)(o->interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (l->tfd < 0 || timerfd_settime(l->tfd, 0, &its, NULL) < 0)
		return err_sys(e, "timerfd");
	tick_sample(l);
	if (o->hooks.on_started)
		o->hooks.on_started(o->hooks.arg);
	/* now, while the command runs: until here the socket heard everything */
	if (l->events_unfiltered)
		procevents_filter_forks(l->events_fd);
	l->events_unfiltered = false;
	return 0;
}

/* A timer expiry: the sample, the end of a watched tree, the end of the
 * daemon's settle period (then the command starts). */
static int on_tick(struct loop *l, struct err *e)
{
	const struct monitor_opts *o = l->o;
	uint64_t expirations;
	if (read(l->tfd, &expirations, sizeof(expirations)) > 0)
		tick_sample(l);
	if (!o->launch && l->main.tree.nprocs == 0) {
		l->r->target_exited = true;
		l->stop = true;
	}
	if (o->launch && !l->launched) {
		if (l->nidle < sizeof(l->idle) / sizeof(l->idle[0]))
			l->idle[l->nidle++] = l->daemon.mem_kb; /* the sample just taken */
		if (now_ms(l) >= o->idle_ms) {
			settle_done(l);
			if (start_command(l, &l->cg, e) < 0)
				return -1;
			l->launched = true;
			if (!l->r->started)
				l->stop = true;
		}
	}
	return 0;
}

/* The command outlived its time: SIGKILL to every member of its tree (and
 * the command itself, even before its first sample). The loop goes on
 * until it is reaped, so the record keeps the timeline up to here. */
static void kill_tree(struct loop *l)
{
	struct monitor_result *r = l->r;
	r->timed_out = true;
	note(r, "timed out after %.0f ms: the command's tree was killed", l->o->timeout_ms);
	size_t n = l->main.tree.nprocs;
	pid_t *pids = calloc(n ? n : 1, sizeof(*pids));
	if (pids) {
		n = proctree_pids(&l->main.tree, pids, n);
		for (size_t i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
		free(pids);
	}
	if (!l->root_done)
		kill(l->root, SIGKILL);
}

/* Milliseconds poll() may wait: until the --duration or the timeout, -1 for
 * ever; 0 with l->stop set when the duration is over. */
static int wait_ms(struct loop *l)
{
	const struct monitor_opts *o = l->o;
	double left = -1;
	if (o->duration_ms > 0) {
		left = o->duration_ms - now_ms(l);
		if (left <= 0) {
			l->stop = true;
			return 0;
		}
	}
	if (o->timeout_ms > 0 && l->launched && l->r->started && !l->r->timed_out) {
		double t = l->r->client_start_ms + o->timeout_ms - now_ms(l);
		if (t <= 0) {
			kill_tree(l);
			t = -1;
		}
		if (t >= 0 && (left < 0 || t < left))
			left = t;
	}
	if (left < 0)
		return -1;
	return left < 1e9 ? (int)left + 1 : 1000000000; /* --duration of years */
}

/* poll(), and when what it reports can have been written: first without
 * waiting, so each stream with nothing to read is known empty now; then,
 * where nothing was ready, the wait, after which woke_ms is when we were
 * woken: poll's return less the time we then waited for a CPU (our
 * schedstat; without one, poll's return), since a line written while we
 * slept woke us. A line's sample is as late as that moment says
 * (sample_lag_ms). */
static int wait_events(struct loop *l, struct pollfd *p, nfds_t np, const int *idx_st, int timeout)
{
	l->woke_ms = -1;
	l->read_since_ms = INFINITY;
	if (!l->o->launch)
		return poll(p, np, timeout);
	int n = poll(p, np, 0);
	double t = now_ms(l);
	for (int s = 1; s <= 3; s++)
		if (idx_st[s] >= 0 && !(p[idx_st[s]].revents & POLLIN))
			l->empty_ms[s] = t;
	if (n != 0 || timeout == 0)
		return n;
	int64_t w0 = selfsched_wait_ns(l->sched_fd);
	n = poll(p, np, timeout);
	int64_t w1 = selfsched_wait_ns(l->sched_fd);
	double woke = now_ms(l) - (w0 >= 0 && w1 >= w0 ? (double)(w1 - w0) / 1e6 : 0);
	l->woke_ms = woke > t ? woke : t;
	return n;
}

/* One wait in poll() and what woke it: kernel events first, so a fork is a
 * member before the next read; then the logs, the child's output, signals
 * and the timer. */
static int loop_step(struct loop *l, struct err *e)
{
	struct pollfd p[11];
	int np = 0, idx_sig, idx_tim, idx_ev = -1, idx_xs = -1, idx_in = -1;
	int idx_st[4] = { -1, -1, -1, -1 }, idx_rl[4] = { -1, -1, -1, -1 };
	p[np] = (struct pollfd){ .fd = l->sfd, .events = POLLIN };
	idx_sig = np++;
	p[np] = (struct pollfd){ .fd = l->tfd, .events = POLLIN };
	idx_tim = np++;
	if (l->events_fd >= 0 && !l->drain_at_sample) {
		p[np] = (struct pollfd){ .fd = l->events_fd, .events = POLLIN };
		idx_ev = np++;
	}
	if (l->xs.fd >= 0 && !l->drain_at_sample) {
		p[np] = (struct pollfd){ .fd = l->xs.fd, .events = POLLIN };
		idx_xs = np++;
	}
	if (l->inotify_fd >= 0) {
		p[np] = (struct pollfd){ .fd = l->inotify_fd, .events = POLLIN };
		idx_in = np++;
	}
	for (int s = 1; s <= 3; s++) {
		if (l->stream_fd[s] < 0)
			continue;
		/* bytes still on their way out: the command waits (its pipe
		 * fills), the sampler does not */
		bool held = s != MONITOR_PROBE_FD && relay_pending(&l->relay[s]);
		if (!held) {
			p[np] = (struct pollfd){ .fd = l->stream_fd[s], .events = POLLIN };
			idx_st[s] = np++;
		}
		int rfd = s != MONITOR_PROBE_FD ? relay_fd(&l->relay[s]) : -1;
		if (rfd >= 0) {
			p[np] = (struct pollfd){ .fd = rfd, .events = held ? POLLOUT : 0 };
			idx_rl[s] = np++;
		}
	}
	int timeout = wait_ms(l);
	if (l->stop)
		return 0;
	int n = wait_events(l, p, (nfds_t)np, idx_st, timeout);
	if (n < 0)
		return errno == EINTR ? 0 : err_sys(e, "poll");
	if (idx_ev >= 0 && p[idx_ev].revents)
		read_forks(l);
	if (idx_xs >= 0 && p[idx_xs].revents)
		exitstats_read(&l->xs, on_exit_record, l);
	if (idx_in >= 0 && p[idx_in].revents) {
		char ev[4096];
		while (read(l->inotify_fd, ev, sizeof(ev)) > 0)
			;
		poll_logs(l);
	}
	for (int s = 1; s <= 3; s++) {
		if (idx_rl[s] >= 0 && p[idx_rl[s]].revents)
			relay_wake(&l->relay[s], p[idx_rl[s]].revents);
		if (idx_st[s] >= 0 && p[idx_st[s]].revents && !pump(l, s))
			close_stream(l, s);
		if (s != MONITOR_PROBE_FD && l->relay[s].error)
			cut_stream(l, s);
	}
	marker_sample(l);
	if (p[idx_sig].revents && read_signals(l, l->sfd, l->launched))
		l->stop = true;
	if (p[idx_tim].revents && on_tick(l, e) < 0)
		return -1;
	if (l->launched && l->root_done)
		l->stop = true;
	return 0;
}

/* Waits until the relay of stream s has written what it holds; a stop
 * signal (the user's ^C while a reader never reads) gives up, and so does a
 * failed destination (the command's pipe is then cut). False when bytes
 * stay behind. */
static bool drain_relay(struct loop *l, int s)
{
	struct relay *rl = &l->relay[s];
	if (s == MONITOR_PROBE_FD)
		return true;
	while (relay_pending(rl) && relay_fd(rl) >= 0) {
		struct pollfd p[2] = { { .fd = relay_fd(rl), .events = POLLOUT }, { .fd = l->sfd, .events = POLLIN } };
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents && stop_signal_pending(l->sfd)) {
			note(l->r, "the command's %s was not all written: perfhunt was stopped while its reader did "
				   "not read", s == MONITOR_STDOUT ? "stdout" : "stderr");
			relay_release(rl);
			close_stream(l, s);
			return false;
		}
		if (p[0].revents)
			relay_wake(rl, p[0].revents);
	}
	if (rl->error)
		cut_stream(l, s);
	return !rl->error && l->stream_fd[s] >= 0;
}

/* The last look: the tree as the command left it, then what is still in the pipes. */
static void last_look(struct loop *l)
{
	struct monitor_result *r = l->r;
	if (l->xs.fd >= 0)
		exitstats_read(&l->xs, on_exit_record, l);
	/* every file of every member: VmHWM, context switches and I/O as left */
	proctree_refresh_all(&l->main.tree);
	proctree_refresh_all(&l->daemon.tree);
	take_sample(l);
	for (int s = 1; s <= 3; s++) {
		if (l->stream_fd[s] < 0)
			continue;
		/* Leftover processes may hold the pipe open: read what is there,
		 * never wait for EOF; the output, whole, before the summary */
		fcntl(l->stream_fd[s], F_SETFL, fcntl(l->stream_fd[s], F_GETFL) | O_NONBLOCK);
		while (drain_relay(l, s) && pump(l, s)) {
			struct pollfd pp = { .fd = l->stream_fd[s], .events = POLLIN };
			if (poll(&pp, 1, 0) <= 0)
				break;
		}
		drain_relay(l, s);
	}
	poll_logs(l);
	if (!l->o->launch)
		r->wall_ms = now_ms(l);
	r->leftover_procs = l->main.tree.nprocs;
}

/* How far the forked image's mark at exec may lie above the image measured
 * just before it: the kernel's RSS counters are per-CPU, and a reading can
 * miss one batch (max(32, 2 x CPUs) pages) of each of the three (file, anon,
 * shmem); 1 MiB at least (seen: a mark 12 KiB above the image, called the
 * command's own). */
static uint64_t image_slack_kb(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
	uint64_t batch = cpus > 16 ? 2 * (uint64_t)cpus : 32;
	uint64_t kb = 3 * batch * (page > 0 ? (uint64_t)page / 1024 : 4);
	return kb > 1024 ? kb : 1024;
}

/* The command's ru_maxrss is the larger of its own high-water mark and that
 * of perfhunt's forked copy before the exec (the image measured then, and the
 * pages the exec itself touched after). Where its exit record gave its own
 * mark, or it is not clearly larger than the image, it says nothing more of
 * the command: an upper bound only. */
static void weigh_root_maxrss(struct loop *l)
{
	struct monitor_result *r = l->r;
	if (!l->root_maxrss_kb || l->root_exit_hwm_kb) /* its exit record holds its own mark */
		return;
	if (l->root_maxrss_kb <= r->launch_image_kb + image_slack_kb()) {
		r->maxrss_bound_kb = l->root_maxrss_kb;
		return;
	}
	if (l->root == r->tree.hwm_pid && l->root_maxrss_kb > r->tree.hwm_exit_kb)
		r->tree.hwm_exit_kb = l->root_maxrss_kb;
	if (l->root_maxrss_kb > r->maxrss_kb) {
		r->maxrss_kb = l->root_maxrss_kb;
		r->maxrss_pid = l->root;
		memcpy(r->maxrss_comm, l->root_comm, sizeof(r->maxrss_comm));
	}
}

/* What is known only at the end: the cgroup's peak and OOM kills, the trees' losses. */
static void loop_finish(struct loop *l)
{
	struct monitor_result *r = l->r;
	weigh_root_maxrss(l);
	if (l->cg.version) {
		struct err ce;
		cgroup_oom_kills(&l->cg, &r->oom_kills, NULL);
		if (cgroup_peak_kb(&l->cg, &r->cgroup_peak_kb, &ce) == 0) {
			r->cgroup_ok = true;
			snprintf(r->cgroup_method, sizeof(r->cgroup_method), "%s", cgroup_method(&l->cg));
		} else {
			note(r, "no cgroup peak: %s", ce.msg);
		}
	}
	if (r->own_reaped)
		note(r, "%llu process(es) reaped that were not the tree's: left out of its figures",
		     (unsigned long long)r->own_reaped);
	r->vanished = l->main.tree.vanished;
	r->tree.procs_seen = l->main.tree.seen;
	r->delayacct = l->main.tree.delayacct;
	/* polled discovery misses a process that lives between two scans */
	r->tree.procs_seen_complete = r->proc_events && !r->events_lost;
	r->daemon.procs_seen_complete = r->tree.procs_seen_complete;
	r->daemon.procs_seen = l->daemon.tree.seen;
	r->unreadable = l->main.tree.unreadable;
	r->effective_interval_ms = l->ticks > 1 ? (l->last_tick_ms - l->first_tick_ms) / (double)(l->ticks - 1)
						: l->o->interval_ms;
	if (r->samples_stretched)
		note(r, "%llu of %llu samples took more than %g %% of a core: the interval was stretched, "
			"every %.1f ms on average (--interval %d)", (unsigned long long)r->samples_stretched,
		     (unsigned long long)l->ticks, r->sample_budget_pct, r->effective_interval_ms, l->o->interval_ms);
}

/* Closes whatever loop_open and loop_begin opened; safe after a failure. */
static void loop_close(struct loop *l)
{
	struct monitor_result *r = l->r;
	timeline_flush(&r->tree.tl);
	timeline_flush(&r->daemon.tl);
	for (int s = 1; s <= 3; s++) {
		close_stream(l, s);
		if (s != MONITOR_PROBE_FD)
			relay_release(&l->relay[s]);
	}
	if (l->ack_fd >= 0)
		close(l->ack_fd);
	if (l->sched_fd >= 0)
		close(l->sched_fd);
	close_logs(l);
	cgroup_destroy(&l->cg);
	close_event_sockets(l);
	if (l->tfd >= 0)
		close(l->tfd);
	if (l->sfd >= 0) {
		close(l->sfd);
		sigprocmask(SIG_SETMASK, &l->oldmask, NULL);
	}
	proctree_release(&l->main.tree);
	proctree_release(&l->daemon.tree);
	if (l->was_subreaper == 0)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	if (l->main.usage_fd >= 0)
		close(l->main.usage_fd);
	if (l->daemon.usage_fd >= 0)
		close(l->daemon.usage_fd);
	if (l->gpu_on)
		close_gpu(l);
	free(l->pids);
	r->monitor_cpu_ms = (double)(clock_self_cpu_ns() - l->cpu0_ns) / 1e6;
}

int monitor_run(const struct monitor_opts *o, struct monitor_result *r, struct err *e)
{
	struct loop l;
	memset(r, 0, sizeof(*r));
	if (loop_open(&l, o, r, e) < 0 || loop_begin(&l, e) < 0)
		goto fail;
	if (o->launch && l.launched && !r->started)
		goto done; /* exec failed: nothing to sample */
	while (!l.stop)
		if (loop_step(&l, e) < 0)
			goto fail;
	if (r->started || !o->launch)
		last_look(&l);
done:
	loop_finish(&l);
	loop_close(&l);
	return 0;
fail:
	loop_close(&l);
	monitor_result_release(r);
	return -1;
}

void monitor_result_release(struct monitor_result *r)
{
	timeline_release(&r->tree.tl);
	timeline_release(&r->daemon.tl);
}
