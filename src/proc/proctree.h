/* proctree: the measured process tree — discovery, per-process reads, sums.
 *
 * Each member process is opened once as a /proc/PID directory fd and its
 * files are kept open and re-read with pread (about a third of the cost of
 * open/read/close). Tiered (the default): stat and statm every sample (CPU,
 * faults, threads, RSS and its anon/shared split); status and io, which the
 * kernel formats at 3-4x the cost, round-robin so that each member is read
 * at least every slow_every samples, at once when its RSS rises above its
 * last VmHWM, and at its first and last reading. A single-threaded member
 * asleep at its last reading whose process CPU clock has not moved since is
 * not re-read but for that clock: its statm waits for every tenth of its
 * turns on the cadence. A process that vanishes between two reads is a normal event: its last values move into the "exited" totals so
 * cumulative CPU and fault counts never go backwards.
 * Context switches and thread time sum every thread of a member (tasks.c);
 * its on-CPU time is its process CPU clock (ns, every thread, those that
 * exited between two readings included).
 * Discovery is either pushed (proctree_add from the process-events connector)
 * or pulled (proctree_scan reads task/TID/children of every member).
 */
#ifndef PERFHUNT_PROCTREE_H
#define PERFHUNT_PROCTREE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/tasks.h"
#include "util/err.h"

struct proctree_proc;

/* Counters a process had accumulated before it was measured: its history. */
struct proctree_counts {
	uint64_t utime_ticks, stime_ticks, minflt, majflt, vcsw, ivcsw, rchar, wchar;
	/* thread time summed over every thread: on a CPU, waiting on a run
	 * queue, alive (ns); blocked is alive minus the two */
	uint64_t oncpu_ns, runnable_ns, alive_ns;
	uint64_t iowait_ticks;     /* the blocked part spent waiting for block I/O (delay accounting) */
};

struct proctree_totals {
	/* instantaneous, summed over live members */
	uint64_t rss_kb, anon_kb, file_kb, shmem_kb, swap_kb, pss_kb;
	uint32_t procs, threads;
	/* cumulative over live and exited members, since each was first read
	 * (processes with a history count from that reading: see history_before_ticks) */
	uint64_t utime_ticks, stime_ticks, minflt, majflt, vcsw, ivcsw, rchar, wchar;
	uint64_t oncpu_ns, runnable_ns, alive_ns; /* thread time, as in proctree_counts */
	uint64_t iowait_ns;        /* waiting for block I/O, whole clock ticks (iowait_valid) */
	bool iowait_valid;         /* delay accounting is on: iowait_ns is measured */
	/* largest VmHWM seen of any single member */
	uint64_t hwm_kb;
	int64_t hwm_after_ns;      /* CLOCK_MONOTONIC of that member's previous status read (0: none) */
	pid_t hwm_pid;
	char hwm_comm[64];
	bool hwm_final;            /* that member is alive and its VmHWM was read in this sample */
	bool hwm_before;           /* that mark was set before the recording (see history_before_ticks) */
	bool pss_valid;
};

struct proctree {
	int procfs_fd;
	pid_t anchor;              /* children of this PID are members; it is not sampled */
	bool pss;                  /* read smaps_rollup (costly): totals.pss_kb, a member that
	                            * refuses it counted by its RSS */
	int64_t pss_budget_ns;     /* time allowed for smaps_rollup reads per sample (20 ms) */
	struct proctree_proc **procs;
	size_t nprocs, cap;
	int *index;                /* open-addressing PID -> procs[] slot */
	size_t index_cap;
	struct proctree_counts exited;  /* cumulative counters of members that are gone */
	uint64_t exited_hwm_kb;
	int64_t exited_hwm_after_ns;
	pid_t exited_hwm_pid;
	bool exited_hwm_before;
	char exited_hwm_comm[64];
	size_t fd_budget;          /* kept-open file fds allowed (RLIMIT_NOFILE share) */
	size_t fds_kept;
	uint64_t seen;             /* members added over the run */
	uint64_t vanished;         /* members that exited between reads */
	uint64_t unreadable;       /* members whose files could not be read (EACCES) */
	size_t pss_rr;             /* round-robin start for the PSS budget */
	uint64_t mem_changes;      /* counts what may move the tree's PSS: faults, pages gone, members */
	int loadavg_fd;            /* /proc/loadavg: its last PID tells whether anything forked */
	uint64_t last_pid_seen;    /* at the previous pull discovery (0: never) */
	uint64_t scans, scans_skipped;
	uint64_t listings_skipped; /* members' children files not read: they had not run since */
	/* tiered reading (tiered false: stat, status and io of every member every sample) */
	bool tiered;
	uint32_t slow_every;       /* samples between two status/io readings of a member */
	bool slow_all_next;        /* the next sample reads every file of every member */
	size_t slow_rr;            /* round-robin start of the status/io readings */
	uint64_t page_kb;
	uint64_t slow_reads, rise_reads; /* status readings: on the cadence, for a risen RSS */
	bool schedstat;            /* schedstat counts runs: a member that has not run is not re-read */
	bool clocks;               /* the members' CPU clocks are theirs: the live /proc, not a
	                            * fixture tree (whose PIDs the kernel does not know) */
	bool runs_exact;           /* this sample asks schedstat whether a member ran, never its CPU
	                            * clock (a marker's sample: has_run in proctree.c says why) */
	uint64_t stat_skips;       /* stat readings saved so */
	uint64_t statm_skips;      /* statm readings saved so (read on the cadence instead) */
	pid_t *gone;               /* members retired by the latest sample, and marked gone */
	size_t ngone, gone_cap;
	/* A member that started before this instant (stat's starttime, clock
	 * ticks since boot) has a history: its first reading is its baseline and
	 * only what it does after counts. 0: every member counts from its start
	 * (a command perfhunt launched). See proctree_history_from_now(). */
	uint64_t history_before_ticks;
	struct proctree_counts history;  /* the baselines of every member so far */
	struct tasks_clock clk;    /* stat's starttime to CLOCK_MONOTONIC */
	int delayacct;             /* kernel.task_delayacct at init: 1 on, 0 off, -1 unknown */
	uint64_t task_listings;    /* task/ directory reads (threads came or went) */
};

/* procfs_root: "/proc" normally; a fixture tree in tests. */
int proctree_init(struct proctree *t, const char *procfs_root, struct err *e);
void proctree_release(struct proctree *t);
/* Adds PID as a member (no-op if known). Returns 1 added, 0 known, -1 gone/unreadable. */
int proctree_add(struct proctree *t, pid_t pid, struct err *e);
bool proctree_has(const struct proctree *t, pid_t pid);
/* Members that started before now have a history: their counters count from
 * their first reading (an attached or watched tree). */
void proctree_history_from_now(struct proctree *t);
/* Pulls discovery: adds every descendant reachable through children files.
 * Skipped when no process was created since the last scan. Returns new count. */
int proctree_scan(struct proctree *t);
/* Reads every member once and fills the sums. */
void proctree_sample(struct proctree *t, struct proctree_totals *out);
/* The next proctree_sample reads every file of every member (the last look). */
void proctree_refresh_all(struct proctree *t);
/* True if PID was a member retired by the latest proctree_sample, or was
 * marked gone since (a child announced by a fork event that had already exited). */
bool proctree_was_member(const struct proctree *t, pid_t pid);
void proctree_mark_gone(struct proctree *t, pid_t pid);
/* A live member's name as its latest stat read gave it (owned by t; NULL: not a
 * member, or not read yet). */
const char *proctree_comm(const struct proctree *t, pid_t pid);
/* A process of the tree announced by a fork event after it had exited: it
 * counts among the members seen, and is marked gone. */
void proctree_add_exited(struct proctree *t, pid_t pid);
/* A task of member tgid exited (its taskstats exit record): when it ended
 * (elapsed_us after its start) and, for a thread other than the leader, its
 * final context switches and on-CPU and run-queue ns (tasks_exited). Returns
 * true if it was known. */
bool proctree_task_exited(struct proctree *t, pid_t tgid, pid_t tid, uint64_t nvcsw, uint64_t nivcsw,
			  uint64_t elapsed_us, uint64_t run_ns, uint64_t run_delay_ns);
/* Member PIDs (for GPU attribution); returns count written (at most n). */
size_t proctree_pids(const struct proctree *t, pid_t *out, size_t n);

#endif
