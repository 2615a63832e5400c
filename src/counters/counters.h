/* counters: perf_event_open counters for a whole process tree, counted from exec.
 *
 * Events are opened on a child that has been forked but has not exec'd yet,
 * with inherit (every descendant is counted) and enable_on_exec (perfhunt's own
 * setup is not counted). Software events share one group, read with a single
 * read(); each hardware event is its own group, as `perf stat` does, so the
 * kernel can multiplex them when the PMU has too few counters, and the counts
 * are scaled by time enabled / time running and marked so.
 *
 * Integration (for the sampler in src/monitor and src/cmd/run.c):
 *   1. fork; the child blocks (e.g. on a pipe) before exec;
 *   2. counters_open(&c, child_pid, event_list_or_NULL, &e) in the parent;
 *      a failure is only a bad -e LIST or a vanished child: events the machine
 *      lacks or forbids open fine and read as "not supported"/"not permitted";
 *   3. release the child; counting starts at its exec;
 *   4. counters_read() at each phase marker (counters_delta() for the phase)
 *      and once after wait4() for the run's totals (the counts of exited
 *      descendants are folded into the fds the kernel keeps), then
 *      counters_to_json() for the record's "counters" object;
 *   5. counters_close().
 * Cost on the 2-core VM (default list: 6 software events open, 6 hardware
 * events not supported): counters_open ~0.2 ms, counters_read ~2 µs (one
 * read() for the software group, plus one per open hardware event), so it
 * can run at every phase marker. No allocation after counters_open.
 */
#ifndef PERFHUNT_COUNTERS_H
#define PERFHUNT_COUNTERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

#define COUNTERS_MAX 24

/* The default event list, by perf's names. */
#define COUNTERS_DEFAULT_EVENTS \
	"task-clock,page-faults,minor-faults,major-faults,context-switches,cpu-migrations," \
	"cycles,instructions,cache-references,cache-misses,branches,branch-misses"

enum counter_status {
	COUNTER_COUNTED,        /* value is valid (maybe scaled) */
	COUNTER_NOT_COUNTED,    /* opened, but never scheduled (time running 0) */
	COUNTER_NOT_SUPPORTED,  /* the machine has no such event (ENOENT, EOPNOTSUPP, ...) */
	COUNTER_NOT_PERMITTED,  /* EACCES/EPERM: perf_event_paranoid or capabilities */
};

struct counter_value {
	const char *name;        /* the event as written in the list (lives as long as the process) */
	const char *unit;        /* "ns" for the clocks, "" for counts */
	enum counter_status status;
	int open_errno;          /* why it is not supported or not permitted, else 0 */
	bool hardware;
	bool user_only;          /* kernel-mode counting was refused; user space only */
	bool scaled;             /* multiplexed: value = raw * enabled / running */
	uint64_t raw;            /* the count as read */
	double value;            /* the (scaled) count */
	uint64_t enabled_ns, running_ns;
};

struct counter_values {
	size_t n;
	struct counter_value v[COUNTERS_MAX];
	/* Derived, NAN when an input is missing: instructions per cycle,
	 * cache-misses per cache-reference and branch-misses per branch in %. */
	double ipc, cache_miss_pct, branch_miss_pct;
};

struct counters;

/* Checks an -e LIST without opening anything, so that a command can refuse a
 * bad list as a usage error before it starts the child. Returns 0 or -1. */
int counters_check_events(const char *event_list, struct err *e);
/* Opens the events of event_list (perf stat -e's syntax: perf's and libpfm4's
 * names with :modifiers, rNNNN, PMU/terms/, SYS:TRACEPOINT, {a,b} groups;
 * NULL = default) on pid, which must not have exec'd yet. Returns 0, or -1 for
 * an unknown or repeated event, broken syntax, a vanished pid, or no fds left. *out is owned by the
 * caller: counters_close() it. */
int counters_open(struct counters **out, pid_t pid, const char *event_list, struct err *e);
/* Opens the events on a process that is already running (an attached daemon,
 * a watched tree): on each of its threads now, counting from now, each
 * inherited by what that thread forks or spawns from then on. A thread's own
 * counts are read live; what its descendants count is folded in as they exit
 * (the kernel's inherit), as for counters_open. At most COUNTERS_MAX_TASKS
 * threads are counted. Returns 0, or -1 when the process is gone or nothing
 * can be opened. */
int counters_attach(struct counters **out, pid_t pid, const char *event_list, struct err *e);
#define COUNTERS_MAX_TASKS 256
/* Reads every event into *out (filled in event-list order). Returns 0 or -1. */
int counters_read(struct counters *c, struct counter_values *out, struct err *e);
/* out = end - begin, for one phase; scaled values subtract the scaled values. */
void counters_delta(const struct counter_values *begin, const struct counter_values *end,
		    struct counter_values *out);
/* "counted", "not counted", "not supported", "not permitted" (perf prints <...>). */
const char *counters_status_name(enum counter_status s);
/* The record's "counters" object (docs/FORMATS.md); new reference, caller owns. */
json_t *counters_to_json(const struct counter_values *v);
/* Closes every fd and frees c; NULL is fine. */
void counters_close(struct counters *c);

#endif
