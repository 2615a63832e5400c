/* profile_fold: a fold's state is the record's profile_json being filled,
 * the off-CPU pairing of switch records, and one growing buffer for the
 * folded stack of the sample at hand (no allocation per sample once it has
 * grown to the deepest stack).
 */
#include "session/profile_fold.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/offcpu.h"
#include "record/profile_json.h"
#include "util/xalloc.h"

struct profile_fold {
	const struct phase_set *ph;
	int64_t t0_ns;
	pid_t keeper;
	struct profile_json *pj;
	struct profile_json_meta m;
	struct offcpu *off;  /* pairs switch-outs with switch-ins, with --profile's off-CPU stacks */
	char *stack;   /* root;...;leaf */
	size_t cap;
};

/* The sample's folded stack in f->stack: its command name, the marker of
 * blocked time where off, then its frames root first. */
static void fold_stack(struct profile_fold *f, const struct perfscript_sample *sm, bool off)
{
	char name[PERFSCRIPT_NAME + 40];
	/* rooted at the process, as FlameGraph's stackcollapse-perf does */
	perfscript_comm_name(sm, name, sizeof(name));
	if (off)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), ";%s", PROFILE_JSON_OFFCPU);
	size_t len = strlen(name);
	if (len + 1 > f->cap) {
		f->cap = 2 * (len + 1) > 256 ? 2 * (len + 1) : 256;
		f->stack = realloc(f->stack, f->cap);
		if (!f->stack)
			abort();
	}
	memcpy(f->stack, name, len + 1);
	for (size_t i = sm->nframes; i-- > 0;) {
		perfscript_frame_name(&sm->frames[i], name, sizeof(name));
		size_t nl = strlen(name);
		if (len + nl + 2 > f->cap) {
			f->cap = (len + nl + 2) * 2;
			f->stack = realloc(f->stack, f->cap);
			if (!f->stack)
				abort();
		}
		f->stack[len++] = ';';
		memcpy(f->stack + len, name, nl + 1);
		len += nl;
	}
	f->stack[len] = 0;
}

/* One part of a blocked interval, between two phase boundaries. */
struct blocked_part {
	struct profile_fold *f;
	const char *stack;
	uint64_t period;       /* the switch-outs its stack stands for; 0: no stack of its own */
	int64_t out_ns, in_ns;
	double out_ms, in_ms;  /* the same instants on the phases' clock */
};

static void fold_blocked_part(void *arg, double from_ms, double to_ms, const char *phases)
{
	const struct blocked_part *b = arg;
	/* a cut inside, on perf's clock; the ends are the interval's own */
	int64_t from = from_ms == b->out_ms ? b->out_ns : b->f->t0_ns + llround(from_ms * 1e6);
	int64_t to = to_ms == b->in_ms ? b->in_ns : b->f->t0_ns + llround(to_ms * 1e6);
	if (to > from)
		profile_json_add_offcpu(b->f->pj, phases, b->stack, to - from, b->period);
}

/* A blocked interval: its time split at the phases' boundaries, each part
 * to the phases open during it (a daemon's thread that waited for the next
 * request through three phases is in each for its time there, not wholly
 * in the one open when it switched out). One whose switch-out was not
 * sampled is the thread's time all the same, under its name and the bare
 * marker: profile_json gives it to the stacks sampled in the same thread
 * name and phases (see profile_json.h). */
static void fold_blocked(void *arg, int32_t tid, const char *comm, const char *stack, uint64_t period,
			 int64_t out_ns, int64_t in_ns)
{
	(void)tid;
	struct profile_fold *f = arg;
	char bare[PERFSCRIPT_NAME + 40];
	if (!stack[0]) {
		perfscript_comm_frame(comm, bare, sizeof(bare));
		snprintf(bare + strlen(bare), sizeof(bare) - strlen(bare), ";%s", PROFILE_JSON_OFFCPU);
	}
	struct blocked_part b = { f, stack[0] ? stack : bare, stack[0] ? period : 0, out_ns, in_ns,
				  (double)(out_ns - f->t0_ns) / 1e6, (double)(in_ns - f->t0_ns) / 1e6 };
	phase_set_split(f->ph, b.out_ms, b.in_ms, fold_blocked_part, &b);
}

void profile_fold_sample(void *arg, const struct perfscript_sample *sm)
{
	struct profile_fold *f = arg;
	if (sm->pid == f->keeper) {
		f->m.outside += sm->kind == PERFSCRIPT_SAMPLE;
		return;
	}
	if (sm->kind != PERFSCRIPT_SAMPLE) {
		if (f->off)
			offcpu_switch(f->off, sm);
		return;
	}
	if (PROFILER_IS_OFFCPU(sm->event)) {
		if (f->off) {
			fold_stack(f, sm, true);
			offcpu_stack(f->off, sm->tid, f->stack, sm->period);
		}
		return;
	}
	bool unnamed = false, user = false;
	for (size_t i = 0; i < sm->nframes; i++) {
		unnamed |= !strcmp(sm->frames[i].sym, "[unknown]");
		user |= !sm->frames[i].kernel;
	}
	fold_stack(f, sm, false);
	f->m.unnamed += unnamed;
	f->m.kernel_only += sm->nframes && !user;
	f->m.truncated += sm->truncated;
	char name[PERFSCRIPT_NAME + 40];
	if (sm->nframes)
		perfscript_frame_name(&sm->frames[0], name, sizeof(name));
	else
		snprintf(name, sizeof(name), "[no stack]");
	double t_ms = (double)(sm->time_ns - f->t0_ns) / 1e6;
	char phases[512];
	phase_set_active_at(f->ph, t_ms, phases, sizeof(phases));
	profile_json_add(f->pj, t_ms, sm->tid, phases, f->stack, name);
}

struct profile_fold *profile_fold_new(const struct phase_set *ph, int64_t t0_ns, pid_t keeper, bool offcpu)
{
	struct profile_fold *f = xcalloc(1, sizeof(*f));
	f->ph = ph;
	f->t0_ns = t0_ns;
	f->keeper = keeper;
	f->pj = profile_json_new();
	if (offcpu)
		f->off = offcpu_new(fold_blocked, f);
	return f;
}

void profile_fold_outside(struct profile_fold *f)
{
	f->m.outside++;
}

json_t *profile_fold_build(struct profile_fold *f, const struct profiler_info *in)
{
	f->m.event = in->event;
	f->m.software = in->software;
	f->m.hz = in->hz;
	f->m.unwinding = "dwarf";
	f->m.lost_chunks = in->lost_chunks;
	f->m.bad_lines = in->bad_lines;
	f->m.kernel_note = in->kernel_note;
	if (in->data_bound_hit)
		f->m.bound_note = PROFILE_FOLD_BOUND_NOTE;
	f->m.offcpu = in->offcpu;
	f->m.offcpu_event = PROFILER_OFFCPU_EVENT;
	f->m.offcpu_period = PROFILER_OFFCPU_PERIOD;
	f->m.offcpu_sampled_above = PROFILER_OFFCPU_SAMPLED_ABOVE;
	f->m.offcpu_note = in->offcpu_note;
	if (f->off) {
		struct offcpu_counts oc = offcpu_counts(f->off);
		f->m.offcpu_intervals = oc.intervals;
		f->m.offcpu_no_stack = oc.no_stack;
		f->m.offcpu_sampled = oc.sampled;
		f->m.offcpu_open = oc.open;
		f->m.offcpu_dropped = oc.dropped;
	}
	return profile_json_build(f->pj, &f->m);
}

uint64_t profile_fold_dropped(const struct profile_fold *f)
{
	return f->off ? offcpu_counts(f->off).dropped : 0;
}

void profile_fold_free(struct profile_fold *f)
{
	if (!f)
		return;
	free(f->stack);
	offcpu_free(f->off);
	profile_json_free(f->pj);
	free(f);
}
