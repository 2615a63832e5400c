/* profile_fold: perf's samples of one recording turned into its record's
 * "profile" — each stack folded root first under its process, placed in the
 * phases open at its time on the recording's clock, and each blocked interval
 * weighted by its length under the stack the thread blocked on.
 *
 * Two feeders share it: a run's own perf (session.c) hands it every line perf
 * script prints; a bench's one perf for all its runs (profbatch.c) hands each
 * run only the samples of that run's tree. No I/O: samples in, JSON out.
 */
#ifndef PERFHUNT_PROFILE_FOLD_H
#define PERFHUNT_PROFILE_FOLD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "probe/phases.h"
#include "profile/perfscript.h"
#include "profile/profiler.h"

/* What the record and a warning say when perf stopped at its data bound. */
#define PROFILE_FOLD_BOUND_NOTE                                                                  \
	"perf stopped at its " PROFILER_DATA_BOUND_TEXT " bound on perf.data: the samples and blocked " \
	"time after it are missing"

struct profile_fold;

/* Folds into phases ph (borrowed, read until profile_fold_build) on a
 * timeline that starts at t0_ns on perf's clock; samples of pid keeper are
 * counted as outside; offcpu: pair blocked intervals. Caller frees. */
struct profile_fold *profile_fold_new(const struct phase_set *ph, int64_t t0_ns, pid_t keeper, bool offcpu);
/* One record of perf script (a perfscript_fn: arg is the fold). */
void profile_fold_sample(void *arg, const struct perfscript_sample *sm);
/* A sample that is not the recording's (another run's, perfhunt's own). */
void profile_fold_outside(struct profile_fold *f);
/* The record's "profile" (caller owns it), with how it was taken (in). */
json_t *profile_fold_build(struct profile_fold *f, const struct profiler_info *in);
/* Switch-outs not counted: more than OFFCPU_MAX_THREADS threads blocked at once. */
uint64_t profile_fold_dropped(const struct profile_fold *f);
void profile_fold_free(struct profile_fold *f);

#endif
