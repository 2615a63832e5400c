/* profiler: on-CPU stacks of a process tree, user and kernel, through the
 * perf tool (`perf record -k mono --call-graph dwarf`, then `perf script`).
 *
 * perf unwinds and symbolizes (DWARF CFI, ELF symbols, kallsyms); perfhunt
 * only starts it, stops it and reads its text. perf runs under a keeper
 * process in its own process group: perf is never perfhunt's child (the
 * monitor counts perfhunt's children as the tree, reaps them and sums their
 * rusage into the command's), and the keeper is one of perf's targets, so perf outlives the measured tree until
 * it is stopped. It starts with its events disabled and is enabled through
 * its control pipe, so when profiler_start returns no sample is missed.
 * Where the sched_switch tracepoint may be used, perf also samples the stack
 * of each thread that blocks, and its switch records, for off-CPU time.
 */
#ifndef PERFHUNT_PROFILER_H
#define PERFHUNT_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/perfscript.h"
#include "util/err.h"

struct profiler;

/* What the profile was taken with, and what went wrong on the way. */
struct profiler_info {
	char event[32];          /* "cycles" or "cpu-clock" */
	bool software;           /* hardware cycles absent: the software clock */
	int hz;
	char kernel_note[200];   /* why kernel frames will not be named, or "" */
	uint64_t lost_chunks;    /* perf's "lost N chunks" */
	uint64_t bad_lines;      /* perf script lines the parser did not understand */
	pid_t keeper;            /* not a sample of the measured tree */
	char script_warning[200]; /* the first warning perf script printed, or "" */
	bool offcpu;             /* switch-outs recorded with their stacks (PROFILER_OFFCPU_EVENT) */
	bool data_bound_hit;     /* perf stopped at PROFILER_DATA_BOUND: later samples are missing */
	char offcpu_note[200];   /* why they are not, or "" */
};

/* The tracepoint whose samples are the stacks threads blocked on: only
 * switch-outs of a thread not runnable (prev_state != 0) are sampled, and
 * perf's switch records (--switch-events) say when each thread came back. */
#define PROFILER_OFFCPU_EVENT "sched:sched_switch"
/* perf.data's bound (perf record --max-size): DWARF stacks are ~8 KiB each,
 * and a thread blocking 10 000 times a second writes 80 MiB/s of them. */
#define PROFILER_DATA_BOUND "2G"
#define PROFILER_DATA_BOUND_TEXT "2 GiB"

/* Whether a profile can be taken here: 0, or -1 with e the one line to show
 * (perf missing, kernel.perf_event_paranoid). info gets the event and the
 * kernel.kptr_restrict note. */
int profiler_check(int hz, struct profiler_info *info, struct err *e);
/* Starts the keeper, before anything is measured (it must not be a member
 * of the measured tree); perf waits for its targets. shared: perf will have
 * the calling process among its targets, to follow every child it forks
 * (one perf for many runs): the calling thread's own blocking is not sampled. */
int profiler_prepare(struct profiler **out, struct profiler_info *info, bool shared, struct err *e);
/* Starts perf on the threads of pids (and what they fork from now on);
 * returns once sampling runs. On failure there is nothing more to do but
 * profiler_free. */
int profiler_attach(struct profiler *p, const pid_t *pids, size_t n, struct err *e);
/* Turns sampling on or off through perf's control pipe, without waiting
 * for perf to do it (profiler_sync waits); on failure perf is stopped and e
 * says why. */
int profiler_enable(struct profiler *p, bool on, struct err *e);
/* Returns once perf has done every command sent; on failure (perf gone, or
 * no answer within 20 s) perf is stopped and e says why. */
int profiler_sync(struct profiler *p, struct err *e);
/* Stops perf (SIGINT) and waits for it to write its file. */
int profiler_stop(struct profiler *p, struct err *e);
/* Runs perf script over the file, feeding every line to ps. */
int profiler_script(struct profiler *p, struct perfscript *ps, struct profiler_info *info, struct err *e);
/* Removes the profile directories in tmp that a perfhunt killed during
 * --profile left behind (profiler_prepare calls it); returns how many. */
int profiler_reap_stale(const char *tmp);
/* Stops perf if it runs, removes its files. NULL is fine. */
void profiler_free(struct profiler *p);

#endif
