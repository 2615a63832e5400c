/* profbatch: one perf for all the runs of a bench.
 *
 * Starting perf record (it reads /proc/kallsyms several times) and perf
 * script (perf's start-up, kallsyms and every binary's symbols again) cost
 * each run far more than a short command takes. So a bench's runs share one
 * perf record that follows perfhunt itself: every run perfhunt forks
 * inherits its events. perf is enabled through its control pipe before each
 * run's command is forked and disabled once its tree has ended, and one perf
 * script after the last run hands each run the samples of its own tree inside
 * its own window: the child perfhunt forked in it (and the attached daemon)
 * and what they fork meanwhile, by perf's fork records. The command needs no
 * step between fork and exec, so it is vforked as without --profile. Nothing is read while runs run, so no run waits
 * for the previous one's profile nor shares a CPU with perf script.
 */
#ifndef PERFHUNT_PROFBATCH_H
#define PERFHUNT_PROFBATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "probe/phases.h"
#include "profile/profiler.h"
#include "util/err.h"

struct profbatch;

/* Caller frees with profbatch_free; nothing starts before the first run. */
struct profbatch *profbatch_new(void);
/* Before a run's monitor starts: sampling on, returning once perf samples.
 * At the first run, perf's keeper and perf itself start, at hz, on perfhunt
 * and the daemon the runs attach to (0: none). info gets how the profile is
 * taken. 0, or -1 with e the reason (perf stays off for the bench); *first
 * is true the first time either is known (the notes in info, or the reason,
 * are to be said once). */
int profbatch_prepare(struct profbatch *b, int hz, pid_t daemon, struct profiler_info *info, bool *first,
		      struct err *e);
/* The run's tree ended (or never started): sampling off. 0, or -1 with e
 * (perf stopped). */
int profbatch_end(struct profbatch *b, struct err *e);
/* The run's tree switched switches times in span_ms (profiler_offcpu_pace). */
void profbatch_pace(struct profbatch *b, uint64_t switches, double span_ms);
/* No run: what profbatch_add returns when the run has no window of its own
 * (perf failed, or it was never on for it). */
#define PROFBATCH_NONE ((size_t)-1)
/* The run that just ended, its samples to be placed in phases (consumed:
 * *phases is left empty) on a timeline that starts at t0_ns
 * (CLOCK_MONOTONIC). Returns its number (0, 1, ... in the order added), or
 * PROFBATCH_NONE. */
size_t profbatch_add(struct profbatch *b, struct phase_set *phases, int64_t t0_ns);
/* The number of the last run added, or PROFBATCH_NONE (b may be NULL). */
size_t profbatch_last(const struct profbatch *b);

/* Where profbatch_finish hands what it read. */
struct profbatch_sink {
	void *arg;
	/* run's record "profile" (consumed), or NULL and why there is none */
	void (*profile)(void *arg, size_t run, json_t *profile, const char *why);
	/* a problem of the whole profile (one line) */
	void (*warn)(void *arg, const char *msg);
};

/* Stops perf and reads its samples: every run added goes to sink->profile,
 * in order, as soon as its window has been read (without a profile where
 * perf failed meanwhile). Returns 0, or -1 with e filled where perf or perf
 * script failed now (the runs not read were told why). */
int profbatch_finish(struct profbatch *b, const struct profbatch_sink *sink, struct err *e);
/* Stops perf if it runs, removes its files, drops the records. NULL is fine. */
void profbatch_free(struct profbatch *b);

#endif
