/* profbatch: the runs in the order they ran, each with its window on perf's
 * clock, its roots, its phases and its record; perf script's records come in
 * time order, so one pass walks the windows forward, keeping the set of the
 * current run's processes (its roots, then each child a member forks).
 * A sample between windows, or of a process outside the set (perfhunt's own
 * threads, a process an earlier run left behind), is not the run's.
 */
#include "session/profbatch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/offcpu.h"
#include "profile/perfscript.h"
#include "session/profile_fold.h"
#include "util/clock.h"
#include "util/xalloc.h"

struct batch_run {
	struct phase_set phases;
	int64_t t0_ns, from_ns, to_ns;  /* the timeline's start; perf enabled from, to */
	struct profile_fold *fold;      /* while perf script is read */
};

/* The processes of the run being read: pids in an open-addressing set. */
struct pidset {
	int32_t *slots;                 /* 0: free */
	size_t cap, used;
};

struct profbatch {
	struct profiler *p;
	struct profiler_info info;
	bool prepared, attached, failed;
	bool on;                        /* perf samples (the run's window is open) */
	pid_t self, daemon;             /* perfhunt, whose children are the runs; the daemon (0: none) */
	char why[600];                  /* why perf is off, once failed */
	/* the window perf was last enabled for, until its run is added */
	int64_t from_ns, to_ns;
	bool window;
	struct batch_run *runs;
	size_t n, cap;
	/* reading */
	const struct profbatch_sink *sink;
	size_t cur;
	struct pidset members;
	uint64_t dropped;               /* switch-outs past OFFCPU_MAX_THREADS, all runs */
};

struct profbatch *profbatch_new(void)
{
	return xcalloc(1, sizeof(struct profbatch));
}

static void fail(struct profbatch *b, const struct err *e)
{
	b->failed = true;
	b->on = b->window = false;
	snprintf(b->why, sizeof(b->why), "%s", e->msg);
	profiler_free(b->p);
	b->p = NULL;
}

int profbatch_prepare(struct profbatch *b, int hz, pid_t daemon, struct profiler_info *info, bool *first,
		      struct err *e)
{
	*first = !b->prepared;
	if (!b->prepared) {
		b->prepared = true;
		b->self = getpid();
		b->daemon = daemon > 0 ? daemon : 0;
		if (profiler_check(hz, &b->info, e) < 0 || profiler_prepare(&b->p, &b->info, e) < 0) {
			fail(b, e);
			return -1;
		}
	}
	*info = b->info;
	if (b->failed)
		return err_set(e, "%s", b->why);
	b->window = false;
	b->from_ns = clock_mono_ns();
	int rc;
	if (b->attached) {
		rc = profiler_enable(b->p, true, e) < 0 ? -1 : profiler_sync(b->p, e);
	} else {
		/* perfhunt, whose children from now on inherit perf's events,
		 * and the daemon the runs attach to */
		pid_t pids[2] = { b->self, b->daemon };
		rc = profiler_attach(b->p, pids, b->daemon ? 2 : 1, e);
	}
	if (rc < 0) {
		fail(b, e);
		return -1;
	}
	b->attached = b->on = true;
	return 0;
}

int profbatch_end(struct profbatch *b, struct err *e)
{
	if (!b->on)
		return 0;
	/* perf turns off while perfhunt keeps the run: nobody waits for it */
	b->to_ns = clock_mono_ns();
	b->on = false;
	b->window = true;
	if (profiler_enable(b->p, false, e) < 0) {
		fail(b, e);
		return -1;
	}
	return 0;
}

void profbatch_pace(struct profbatch *b, uint64_t switches, double span_ms)
{
	if (b->on)
		profiler_offcpu_pace(b->p, switches, span_ms);
}

size_t profbatch_add(struct profbatch *b, struct phase_set *phases, int64_t t0_ns)
{
	if (!b->window || b->failed)
		return PROFBATCH_NONE;
	b->window = false;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->runs = xrealloc(b->runs, b->cap * sizeof(*b->runs));
	}
	struct batch_run *r = &b->runs[b->n++];
	*r = (struct batch_run){ .phases = *phases, .t0_ns = t0_ns, .from_ns = b->from_ns, .to_ns = b->to_ns };
	phase_set_init(phases);
	return b->n - 1;
}

size_t profbatch_last(const struct profbatch *b)
{
	return b && b->n ? b->n - 1 : PROFBATCH_NONE;
}

/* ---- reading ---- */

static size_t pid_home(int32_t pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static bool pidset_has(const struct pidset *s, int32_t pid)
{
	if (pid <= 0 || !s->cap)
		return false;
	for (size_t j = pid_home(pid, s->cap); s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (s->slots[j] == pid)
			return true;
	return false;
}

static void pidset_add(struct pidset *s, int32_t pid)
{
	if (pid <= 0 || pidset_has(s, pid))
		return;
	if (2 * (s->used + 1) > s->cap) { /* at most half full */
		struct pidset g = { .cap = s->cap ? 2 * s->cap : 64 };
		g.slots = xcalloc(g.cap, sizeof(*g.slots));
		for (size_t i = 0; i < s->cap; i++)
			if (s->slots[i])
				pidset_add(&g, s->slots[i]);
		free(s->slots);
		*s = g;
	}
	size_t j = pid_home(pid, s->cap);
	while (s->slots[j])
		j = (j + 1) & (s->cap - 1);
	s->slots[j] = pid;
	s->used++;
}

static void pidset_clear(struct pidset *s)
{
	if (s->cap)
		memset(s->slots, 0, s->cap * sizeof(*s->slots));
	s->used = 0;
}

/* Run i's profile to the sink; its fold and phases are released. */
static void finish_run(struct profbatch *b, size_t i)
{
	struct batch_run *r = &b->runs[i];
	if (!r->fold)
		r->fold = profile_fold_new(&r->phases, r->t0_ns, b->info.keeper, b->info.offcpu);
	b->sink->profile(b->sink->arg, i, profile_fold_build(r->fold, &b->info), NULL);
	b->dropped += profile_fold_dropped(r->fold);
	profile_fold_free(r->fold);
	r->fold = NULL;
	phase_set_release(&r->phases);
}

/* A perfscript_fn: each record to the run whose window and tree it is in. */
static void dispatch(void *arg, const struct perfscript_sample *sm)
{
	struct profbatch *b = arg;
	while (b->cur < b->n && sm->time_ns > b->runs[b->cur].to_ns)
		finish_run(b, b->cur++);
	if (b->cur == b->n || sm->time_ns < b->runs[b->cur].from_ns)
		return; /* perf was off: a record written as it was being disabled */
	struct batch_run *r = &b->runs[b->cur];
	if (!r->fold) {
		r->fold = profile_fold_new(&r->phases, r->t0_ns, b->info.keeper, b->info.offcpu);
		pidset_clear(&b->members);
		pidset_add(&b->members, b->daemon);
	}
	if (sm->kind == PERFSCRIPT_FORK) { /* the run's command is the one child perfhunt forks in it */
		if (sm->pid != sm->ppid && (sm->ppid == b->self || pidset_has(&b->members, sm->ppid)))
			pidset_add(&b->members, sm->pid);
		return;
	}
	if (!pidset_has(&b->members, sm->pid)) {
		if (sm->kind == PERFSCRIPT_SAMPLE)
			profile_fold_outside(r->fold);
		return;
	}
	profile_fold_sample(r->fold, sm);
}

/* The runs not read yet get no profile: why, for each. */
static void refuse_rest(struct profbatch *b, const char *why)
{
	for (; b->cur < b->n; b->cur++)
		b->sink->profile(b->sink->arg, b->cur, NULL, why);
}

int profbatch_finish(struct profbatch *b, const struct profbatch_sink *sink, struct err *e)
{
	b->sink = sink;
	b->cur = 0;
	if (b->failed) { /* said at the run it failed in */
		refuse_rest(b, b->why);
		return 0;
	}
	if (!b->n || !b->p)
		return 0;
	struct perfscript *ps = xcalloc(1, sizeof(*ps));
	perfscript_init(ps, dispatch, b);
	int rc = 0;
	if (profiler_stop(b->p, e) < 0 || profiler_script(b->p, ps, &b->info, e) < 0) {
		refuse_rest(b, e->msg); /* perf script's output may have ended early */
		rc = -1;
	} else {
		while (b->cur < b->n)
			finish_run(b, b->cur++);
		char msg[300];
		if (b->info.data_bound_hit) {
			snprintf(msg, sizeof(msg), "profile: %s", PROFILE_FOLD_BOUND_NOTE);
			sink->warn(sink->arg, msg);
		}
		if (b->dropped) {
			snprintf(msg, sizeof(msg),
				 "profile: more than %d threads blocked at once: %llu switch-outs past them not counted",
				 OFFCPU_MAX_THREADS, (unsigned long long)b->dropped);
			sink->warn(sink->arg, msg);
		}
	}
	free(ps);
	return rc;
}

void profbatch_free(struct profbatch *b)
{
	if (!b)
		return;
	profiler_free(b->p);
	for (size_t i = 0; i < b->n; i++) {
		profile_fold_free(b->runs[i].fold);
		phase_set_release(&b->runs[i].phases);
	}
	free(b->runs);
	free(b->members.slots);
	free(b);
}
