/* offcpu: a thread's blocked intervals, from perf's records in time order —
 * the stack sampled when it switched out (a context-switch sample, 1 in
 * its period of the thread's switch-outs), its switch-out record, and the
 * switch-in that ended the wait. Every interval is measured from the switch
 * records; only the sampled ones have a stack, delivered with its period.
 *
 * Preempted switch-outs (still runnable: waiting for a CPU, not blocked) end
 * nothing and start nothing, and a stack sampled at one is dropped. The stack
 * is the caller's folded string, kept until the switch-in; at most
 * OFFCPU_MAX_THREADS threads wait at once (the rest counted as dropped).
 * No I/O: records in, intervals out.
 */
#ifndef PERFHUNT_OFFCPU_H
#define PERFHUNT_OFFCPU_H

#include <stdint.h>

#include "profile/perfscript.h"

#define OFFCPU_MAX_THREADS 8192

/* One blocked interval of thread tid (command name comm): [out_ns, in_ns) on
 * perf's clock, the stack it blocked on and the sample's period (the
 * switch-outs of the thread it stands for), or "" and 0 when its switch-out
 * was not sampled. */
typedef void (*offcpu_fn)(void *arg, int32_t tid, const char *comm, const char *stack, uint64_t period,
			  int64_t out_ns, int64_t in_ns);

struct offcpu_counts {
	uint64_t intervals;   /* blocked intervals delivered */
	uint64_t no_stack;    /* of them, without a stack of their own (not sampled) */
	uint64_t sampled;     /* of them, with a stack taken 1 in more than one switch-out */
	uint64_t open;        /* switch-outs with no switch-in before the end */
	uint64_t dropped;     /* switch-outs past OFFCPU_MAX_THREADS waiting at once */
};

struct offcpu;

/* Caller frees with offcpu_free. */
struct offcpu *offcpu_new(offcpu_fn fn, void *arg);
/* The stack a thread is switching out on (a sample taken 1 in period of its
 * switch-outs; period 0 is taken as 1); copied. An empty stack (no frame)
 * is none: its interval counts among those without a stack. */
void offcpu_stack(struct offcpu *o, int32_t tid, const char *stack, uint64_t period);
/* A switch record (sm->kind not PERFSCRIPT_SAMPLE). */
void offcpu_switch(struct offcpu *o, const struct perfscript_sample *sm);
/* The counts so far; the threads still out count as open. */
struct offcpu_counts offcpu_counts(const struct offcpu *o);
void offcpu_free(struct offcpu *o);

#endif
