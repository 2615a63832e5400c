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
 * Where the context-switch software event may be sampled, perf also records
 * every switch (the exact blocked intervals) and the stacks of the
 * switch-outs, for off-CPU time: every one while the tree switches less
 * than PROFILER_OFFCPU_SAMPLED_ABOVE times a second, 1 in
 * PROFILER_OFFCPU_PERIOD of each thread's above (profiler_offcpu_pace).
 */
#ifndef PERFHUNT_PROFILER_H
#define PERFHUNT_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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
	bool offcpu;             /* switches recorded, switch-outs' stacks sampled (PROFILER_OFFCPU_EVENT) */
	bool data_bound_hit;     /* perf stopped at PROFILER_DATA_BOUND: later samples are missing */
	char offcpu_note[200];   /* why they are not, or "" */
};

/* The event whose samples are the stacks threads blocked on: the software
 * context-switch event, sampled in the switching thread's context as it
 * leaves the CPU (preempted switch-outs included: offcpu drops theirs).
 * perf records it twice, named PROFILER_OFFCPU_EVENT (period 1: every
 * switch-out) and PROFILER_OFFCPU_EVENT "-sampled" (1 in
 * PROFILER_OFFCPU_PERIOD of a thread's), one enabled at a time, by the
 * tree's switches a second; perf's switch records (--switch-events, ~1.5 us
 * a switch) time every blocked interval exactly either way.
 * Why not the sched_switch tracepoint, as before: it builds its raw record
 * on every hit, sampled or not (+8.6 us a hand-off at -c 8 against +10.7 at
 * -c 1, docs/PERFORMANCE.md), where the software event only counts until
 * its period is reached. Why not the kernel's frequency mode (cs/freq=N/):
 * it estimates the rate from the time between two samples, and a thread
 * switching twice within microseconds got periods of 35 602 and 190 884
 * here, then no stack for the rest of its run. A prime period: a thread's
 * own pattern of switch-outs (a lock wait, then a sleep, ...) does not
 * alias with it. */
#define PROFILER_OFFCPU_EVENT "context-switches"
#define PROFILER_OFFCPU_PERIOD 7
/* The tree's switches a second (voluntary and not) above which stacks are
 * sampled 1 in PROFILER_OFFCPU_PERIOD (every stack costs its thread ~4-9 us:
 * 1 % of a CPU at this rate), and below which every one is taken again. */
#define PROFILER_OFFCPU_SAMPLED_ABOVE 1000
#define PROFILER_OFFCPU_EVERY_BELOW 250
/* Whether a sample of perf script's is one of the off-CPU stacks (either name). */
#define PROFILER_IS_OFFCPU(event) (!strncmp((event), PROFILER_OFFCPU_EVENT, sizeof(PROFILER_OFFCPU_EVENT) - 1))
/* perf.data's bound (perf record --max-size): DWARF stacks are ~8 KiB each;
 * a tree switching 14 000 times a second wrote 18 MiB/s with 1 in
 * PROFILER_OFFCPU_PERIOD of them (117 MiB/s with every one), its switch
 * records 0.7 MiB/s. */
#define PROFILER_DATA_BOUND "2G"
#define PROFILER_DATA_BOUND_TEXT "2 GiB"

/* Whether a profile can be taken here: 0, or -1 with e the one line to show
 * (perf missing, kernel.perf_event_paranoid). info gets the event and the
 * kernel.kptr_restrict note. */
int profiler_check(int hz, struct profiler_info *info, struct err *e);
/* Starts the keeper, before anything is measured (it must not be a member
 * of the measured tree); perf waits for its targets. The caller may make
 * itself one of them, to follow every child it forks (one perf for many
 * runs: profbatch, which keeps its records out of the runs'). */
int profiler_prepare(struct profiler **out, struct profiler_info *info, struct err *e);
/* Starts perf on the threads of pids (and what they fork from now on);
 * returns once sampling runs. On failure there is nothing more to do but
 * profiler_free. */
int profiler_attach(struct profiler *p, const pid_t *pids, size_t n, struct err *e);
/* Turns sampling on or off through perf's control pipe, without waiting
 * for perf to do it (profiler_sync waits); on failure perf is stopped and e
 * says why. */
int profiler_enable(struct profiler *p, bool on, struct err *e);
/* The tree switched switches times in the last span_ms: above
 * PROFILER_OFFCPU_SAMPLED_ABOVE a second, stacks of blocking switch-outs are
 * sampled, below PROFILER_OFFCPU_EVERY_BELOW every one is taken again
 * (without waiting for perf). A no-op without off-CPU stacks, and once perf
 * has ended on its own (its data bound): what it wrote is still read, and
 * profiler_stop says why it ended. */
void profiler_offcpu_pace(struct profiler *p, uint64_t switches, double span_ms);
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
