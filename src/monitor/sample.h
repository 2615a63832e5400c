/* sample: one interval of the measured tree, the row of every timeline.
 * Instantaneous fields are summed over the live tree at the sample time;
 * "delta" fields cover the interval since the previous sample.
 */
#ifndef PERFHUNT_SAMPLE_H
#define PERFHUNT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a sample's mem_kb counts the tree's memory: each page once however
 * many of its processes map it (a page shared after fork is not counted
 * once per process, as a sum of RSS does). */
enum sample_mem {
	SAMPLE_MEM_RSS,    /* sum of the members' RSS: only when neither below could be read */
	SAMPLE_MEM_CGROUP, /* the memory cgroup perfhunt made: its charged memory (one read) */
	SAMPLE_MEM_PSS,    /* sum of the members' PSS (smaps_rollup, within a time budget) */
};

/* A timeline row's envelope: the least and most that the samples it merged
 * held, so a day's timeline in a few thousand rows still shows how low and
 * how high memory and the rates went. A rate is its interval's delta over
 * its span_ms; NAN where no sample of the row covers an interval. */
struct sample_envelope {
	uint64_t mem_min_kb, mem_max_kb;          /* mem_kb */
	uint64_t rss_min_kb, rss_max_kb;          /* rss_kb */
	double cpu_min_pct, cpu_max_pct;          /* oncpu_ms over span_ms: % of a core */
	double minflt_min_per_s, minflt_max_per_s; /* minor faults a second */
};

/* One process of the tree as NVML lists it: its GPU memory, summed over
 * devices (nvidia-smi's per-process used_memory, CUDA context included). */
/* Processes a sample keeps apart (NVML's per-tree bound, GPU_MAX_TREE_PROCS). */
#define SAMPLE_GPU_PROCS 64
struct sample_gpu_proc {
	uint32_t pid;
	double mib;
};

struct sample {
	int64_t epoch_ms;
	double t_ms;
	uint64_t mem_kb;                          /* the tree's memory, each page once (mem_method) */
	enum sample_mem mem_method;
	uint64_t rss_kb, anon_kb, file_kb, shmem_kb, swap_kb, pss_kb; /* sums over the members */
	double user_ms, sys_ms;                   /* delta */
	uint64_t minflt, majflt;                  /* delta */
	uint64_t minflt_total, majflt_total;      /* cumulative */
	uint64_t vcsw, ivcsw, read_bytes, write_bytes; /* delta */
	uint32_t procs, threads;
	/* thread time of the interval, summed over threads (ms): on a CPU (the
	 * nanosecond clocks; user_ms + sys_ms is this split in the kernel's tick
	 * ratio), waiting for a CPU, alive; blocked = alive - oncpu - runnable */
	double oncpu_ms, runnable_ms, alive_ms;
	double iowait_ms;                         /* the blocked part waiting for block I/O (iowait_valid) */
	bool iowait_valid;                        /* delay accounting is on: iowait_ms is measured */
	uint32_t threads_max;                     /* largest of threads at either end */
	double span_ms;                           /* the time the deltas cover: since the previous
	                                           * sample (a merged row: the sum of its rows') */
	double gpu_mib, gpu_util_pct;
	/* gpu_valid: the tree's processes NVML lists, each its own gpu_mib
	 * share (none where the figures are device totals). The monitor's
	 * storage, valid while the sample's hooks run: a timeline row keeps none. */
	const struct sample_gpu_proc *gpu_procs;
	uint32_t ngpu_procs;
	bool pss_valid, gpu_valid;
	bool at_marker;                           /* taken at once because a marker arrived */
	bool acked;                               /* at_marker, and the markers it serves waited for it */
	double marker_since_ms;                   /* at_marker: the earliest its lines can have been written */
	double marker_ms;                         /* at_marker: when the monitor, having read the
	                                           * markers, asked for it (the reading began after) */
	double marker_read_end_ms;                /* at_marker: when the reading ended (a program that
	                                           * did not wait ran on until then; 0: not known) */
	char phase[96];                           /* active phases joined by '+' */
	struct sample_envelope env;               /* a timeline row's (timeline_push sets it) */
};

/* A bounded in-memory timeline: when full, neighbouring rows merge in pairs
 * (keeping the row with the larger mem_kb, summing the deltas, widening the
 * envelope) and the stride doubles, so memory stays constant however long
 * the run. */
struct timeline {
	struct sample *rows;
	size_t n, cap;
	uint64_t stride;       /* sampled intervals per kept row */
	struct sample pending; /* partial bucket being filled */
	uint64_t pending_n;
};

void timeline_init(struct timeline *tl, size_t cap);
void timeline_release(struct timeline *tl);
void timeline_push(struct timeline *tl, const struct sample *s);
/* Moves a partial bucket into rows (call once at the end). */
void timeline_flush(struct timeline *tl);
/* Folds b into a: the larger mem_kb row wins for instantaneous fields, deltas
 * add, the envelope spans both. */
void sample_merge(struct sample *a, const struct sample *b);

#endif
