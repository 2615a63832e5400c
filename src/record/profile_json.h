/* profile_json: a run's profile as the record keeps it — folded stacks with
 * sample counts for the whole run (each rooted at the phases active at the
 * sample) and per phase name, bounded: the top PROFILE_JSON_TOP stacks of each,
 * the rest merged into "[other]", the bound stated in the record.
 *
 * Off-CPU time (the stacks threads blocked on, weighted by how long) is kept
 * the same way, apart, in milliseconds: the "offcpu" object. Every blocked
 * interval is measured, but only some have a stack (sampled 1 in a period of
 * the thread's switch-outs): a list's time is exact per stratum — a thread
 * name (in the run's list, under its phases) — and shared out among the
 * stratum's sampled stacks by period × blocked time (a ratio estimator:
 * unbiased shares as the samples grow, and exact totals, which the period
 * weights alone are not).
 *
 * It knows nothing of perf: the session hands it each sample as strings
 * (the active phases, the stack root first), so it is plain data in, JSON out.
 */
#ifndef PERFHUNT_PROFILE_JSON_H
#define PERFHUNT_PROFILE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define PROFILE_JSON_TOP 300          /* stacks kept per list */
#define PROFILE_JSON_TIMELINE 5000    /* samples kept with their time (for traces) */
#define PROFILE_JSON_MAX_PHASES 256   /* phase names with a profile of their own */
#define PROFILE_JSON_OFFCPU "[off-cpu]"  /* the frame under the process that marks blocked time */
/* How the off-CPU stacks' weights are made (the record's "stack_weighting"). */
#define PROFILE_JSON_OFFCPU_WEIGHTING "period x blocked time, scaled to each thread name's exact blocked time"

struct profile_json;

/* How the profile was taken and what could not be read. */
struct profile_json_meta {
	const char *event;            /* "cycles" or "cpu-clock" */
	bool software;                /* hardware cycles absent */
	int hz;
	const char *unwinding;        /* "dwarf" */
	uint64_t lost_chunks;         /* perf lost buffers of samples */
	uint64_t bad_lines;           /* perf script lines not understood */
	uint64_t unnamed;             /* samples with at least one frame without a symbol */
	uint64_t kernel_only;         /* samples whose user stack was not unwound */
	uint64_t truncated;           /* samples with more frames than kept */
	uint64_t outside;             /* samples of perfhunt's own helper, not counted */
	const char *kernel_note;      /* why kernel frames are not named, or NULL */
	const char *bound_note;       /* perf stopped at its bound on the data: what is missing, or NULL */
	bool offcpu;                  /* blocked time was recorded: the "offcpu" object */
	const char *offcpu_event;     /* the event whose samples are the blocked stacks */
	uint64_t offcpu_period;       /* it samples 1 in this many switch-outs of a thread */
	const char *offcpu_note;      /* why it was not, or NULL */
	uint64_t offcpu_intervals, offcpu_no_stack, offcpu_sampled, offcpu_open, offcpu_dropped; /* offcpu_counts */
	int offcpu_sampled_above;     /* switches a second of the tree above which stacks are sampled */
};

struct profile_json *profile_json_new(void);
/* One sample at t_ms (the timeline's clock) on thread tid: phases "a+b" (""
 * for none), stack "process;root;...;leaf" (its first frame the thread's
 * command name), leaf its last frame. */
void profile_json_add(struct profile_json *pj, double t_ms, int tid, const char *phases, const char *stack,
		      const char *leaf);
/* A thread's blocked interval, blocked_ns long, switched out at stack
 * ("process;[off-cpu];root;...;leaf") while phases were open, sampled 1 in
 * period switch-outs; period 0: its switch-out was not sampled, stack is
 * "process;[off-cpu]" and the time goes to the stacks sampled under the same
 * name and phases (or stays there when none was). */
void profile_json_add_offcpu(struct profile_json *pj, const char *phases, const char *stack, int64_t blocked_ns,
			     uint64_t period);
/* The record's "profile" object. */
json_t *profile_json_build(const struct profile_json *pj, const struct profile_json_meta *m);
void profile_json_free(struct profile_json *pj);

#endif
