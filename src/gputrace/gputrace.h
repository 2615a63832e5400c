/* gputrace: the GPU activity files of `run --gpu-trace`, read and summed per window.
 *
 * The collector (collector.c, loaded into each CUDA process) writes one JSON
 * object a line to DIR/PID.jsonl. This module reads those files into flat
 * arrays sorted by time (kernels, copies, device memory events, host
 * synchronisations, NVTX ranges; the calls that launched the kernels and
 * copies, by correlation id) and answers, for any window of the run's
 * monotonic clock, what the GPU did inside it. The reader is bounded: past
 * GPUTRACE_MAX_EVENTS events the rest are counted as skipped, never kept.
 */
#ifndef PERFHUNT_GPUTRACE_H
#define PERFHUNT_GPUTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/strindex.h"

#define GPUTRACE_MAX_EVENTS (8u << 20)
#define GPUTRACE_TOP_KERNELS 5
#define GPUTRACE_NAME_MAX 256

enum gputrace_copy_kind { GPUTRACE_H2D, GPUTRACE_D2H, GPUTRACE_D2D, GPUTRACE_OTHER };

struct gputrace_kernel {
	int64_t start_ns, end_ns;
	uint32_t name;         /* index into gputrace.names */
	uint32_t dev;
	uint32_t corr;         /* CUPTI's correlation id: its launch's (0: none) */
	int pid;
};

struct gputrace_copy {
	int64_t start_ns, end_ns;
	uint64_t bytes;
	enum gputrace_copy_kind kind;
	bool pageable;         /* the host side was pageable memory */
	uint32_t dev;
	uint32_t corr;
	int pid;
};

/* A runtime or driver call that put work on the GPU (cudaLaunchKernel,
 * cudaMemcpyAsync, cuLaunchKernel, ...): the host side of a kernel or copy
 * of the same pid and correlation id. */
struct gputrace_launch {
	int64_t start_ns, end_ns;
	uint32_t corr;
	uint32_t tid;          /* the calling thread, as CUPTI names it */
	uint32_t name;         /* index into gputrace.calls */
	int pid;
};

/* A device-memory allocation (+bytes) or free (-bytes). */
struct gputrace_mem {
	int64_t ts_ns;
	int64_t delta_bytes;
	int pid;
};

/* A host thread blocked in a CUDA synchronisation, or a memset. */
struct gputrace_span {
	int64_t start_ns, end_ns;
	int pid;
};

/* An NVTX push/pop or start/end range. */
struct gputrace_range {
	int64_t start_ns, end_ns;
	char *name, *domain;   /* domain "" for the default one */
	int pid;
};

/* One traced process: what its file said about itself. */
struct gputrace_proc {
	int pid, ppid;
	uint64_t records, dropped, cupti_dropped; /* from the file's last line */
	bool complete;         /* the last line was there (the process flushed at exit) */
	bool clock_ok;         /* CUPTI took perfhunt's clock (CLOCK_MONOTONIC) */
	uint64_t kernels;
	double kernel_ms;
	uint64_t mem_max_bytes; /* largest device memory it held at once, from its events */
};

struct gputrace {
	struct gputrace_kernel *kernels;
	size_t n_kernels, cap_kernels;
	struct gputrace_copy *copies;
	size_t n_copies, cap_copies;
	struct gputrace_mem *mem;
	size_t n_mem, cap_mem;
	struct gputrace_span *syncs;
	size_t n_syncs, cap_syncs;
	struct gputrace_range *ranges;
	size_t n_ranges, cap_ranges;
	struct gputrace_launch *launches; /* after finish: by pid, then corr */
	size_t n_launches, cap_launches;
	struct gputrace_proc *procs;
	size_t n_procs, cap_procs;
	char **names;          /* kernel names, short form (see gputrace_short_name) */
	size_t n_names, cap_names;
	struct strindex name_index; /* names -> their index */
	char **calls;          /* the launching calls' names ("cudaLaunchKernel") */
	size_t n_calls, cap_calls;
	struct strindex call_index;
	int64_t *mem_level;    /* after finish: device memory in use after mem[i], all processes */
	int64_t max_kernel_ns, max_sync_ns;
	uint64_t bad_lines;    /* lines that were not a record this reader knows */
	uint64_t skipped;      /* events past GPUTRACE_MAX_EVENTS */
	uint64_t unmatched_ranges;
	/* parser state of the file being read */
	struct gputrace_open { uint64_t id; size_t range; } *open;
	size_t n_open, cap_open;
	int cur_pid;
};

/* The collector library's path into buf (n bytes), or -1 with why not. */
int gputrace_collector_path(char *buf, size_t n, struct err *e);

void gputrace_init(struct gputrace *t);
void gputrace_release(struct gputrace *t);
/* Reads one process's file text (pid names it; its "process" line may say
 * otherwise). Lines that are not records are counted in bad_lines. */
void gputrace_parse(struct gputrace *t, int pid, const char *buf, size_t n);
/* Reads every PID.jsonl in dir. Returns the number of files read, or -1. */
int gputrace_read_dir(struct gputrace *t, const char *dir, struct err *e);
/* Sorts the events by time and computes the memory levels; call once after
 * reading, before any window. */
void gputrace_finish(struct gputrace *t);

/* The call that launched the kernel or copy of pid with correlation id
 * corr, or NULL (none recorded: a collector before launches were kept, or
 * CUPTI gave none). After gputrace_finish; a binary search. */
const struct gputrace_launch *gputrace_launch_of(const struct gputrace *t, int pid, uint32_t corr);

/* The kernel name without its return type and parameter list:
 * "void ns::k<int>(float*, int)" -> "ns::k<int>", cut to n - 1 bytes. */
void gputrace_short_name(const char *full, char *buf, size_t n);

struct gputrace_kernel_time {
	uint32_t name;
	double ms;             /* kernel time inside the window(s) */
	uint64_t launches;     /* kernels that started inside */
};

/* What the GPU did inside one or more windows of the monotonic clock. */
struct gputrace_sum {
	double busy_ms;        /* union of kernel intervals, summed over devices */
	double kernel_ms;      /* kernel time, overlapping kernels each counted */
	uint64_t launches;
	double copy_bytes[GPUTRACE_OTHER + 1]; /* by kind, of the copies that started inside */
	double copy_ms[GPUTRACE_OTHER + 1];   /* their whole durations */
	double h2d_pageable_bytes;
	double sync_ms;        /* host time blocked in CUDA synchronisation */
	bool mem;              /* device memory events exist */
	int64_t mem_start_bytes, mem_end_bytes, mem_max_bytes, mem_growth_bytes;
	struct gputrace_kernel_time top[GPUTRACE_TOP_KERNELS];
	size_t n_top;
	size_t windows;
	/* scratch: per-name sums */
	double *by_name_ms;
	uint64_t *by_name_launches;
	uint32_t *touched;
	size_t n_touched;
};

void gputrace_sum_init(struct gputrace_sum *s, const struct gputrace *t);
void gputrace_sum_release(struct gputrace_sum *s);
/* Adds the window [start_ns, end_ns) (pid > 0: that process's activity only). */
void gputrace_sum_add(struct gputrace_sum *s, const struct gputrace *t, int64_t start_ns, int64_t end_ns, int pid);
/* Picks the top kernels by time (ties by name index). */
void gputrace_sum_finish(struct gputrace_sum *s);

#endif
