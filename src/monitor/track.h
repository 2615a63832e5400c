/* track: what a tree consumed inside any window of the run.
 *
 * Every sample adds a point of cumulative figures (CPU, faults, context
 * switches, I/O) with the tree's instantaneous memory (each page once) and
 * GPU memory. A window's
 * consumption is the difference of the cumulative figures at its two ends,
 * each interpolated linearly inside the sample interval that holds it; a
 * sample taken at a marker's arrival serves a marked end (a line's own
 * instant, never a computed one), exact when the program waited for it or
 * its reading was over within a millisecond of the line. The track is
 * bounded: when full, every other point is dropped (its RSS and GPU maxima
 * folded into the next), so resolution halves but no total and no maximum
 * is lost. Each process NVML lists gets a column of its own GPU memory
 * beside the points (0 where it was not listed), so a phase that belongs to
 * one process can be charged that process's memory, not the tree's.
 */
#ifndef PERFHUNT_TRACK_H
#define PERFHUNT_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "monitor/sample.h"

struct track_point {
	double t_ms;
	double user_ms, sys_ms, minflt, majflt, vcsw, ivcsw, read_bytes, write_bytes; /* cumulative */
	double oncpu_ms, runnable_ms, alive_ms, iowait_ms;                           /* cumulative */
	bool iowait;              /* iowait_ms is measured (delay accounting on) */
	uint32_t threads_max;     /* threads alive at t_ms, or at a dropped point before it if more */
	uint64_t mem_kb;          /* the tree's memory at t_ms, each page once (sample.mem_kb) */
	uint64_t mem_max_kb;      /* largest since the previous kept point, t_ms included */
	double gpu_mib, gpu_max_mib;
	bool gpu_valid;
	bool exact;               /* taken at a marker's arrival */
	bool acked;               /* and the program waited for it (its acknowledgement) */
	double since_ms;          /* exact: the earliest its lines can have been written */
	double marker_ms;         /* exact: when it was asked for (t_ms is when the reading began) */
	double read_end_ms;       /* exact: when the reading ended (t_ms where not known) */
};

/* One process's GPU memory at each point (NVML's per-process figure):
 * mib[i] at pts[i], max_mib[i] the largest since the previous kept point. */
struct track_gpu_proc {
	uint32_t pid;
	double *mib, *max_mib;
};

struct track {
	struct track_point *pts;
	size_t n, cap, max_points;
	struct track_gpu_proc *gpu_procs; /* by first appearance, at most SAMPLE_GPU_PROCS */
	size_t ngpu_procs;
	struct track_point sum;   /* the running cumulative figures */
	double interval_ms;       /* the sampling interval: windows shorter than two are approximate */
};

/* What a tree consumed inside one window. */
struct track_window {
	double user_ms, sys_ms;
	uint64_t minflt, majflt, vcsw, ivcsw, read_bytes, write_bytes;
	/* the tree's memory (sample.mem_kb: a page shared after fork counts
	 * once), under the record's historical rss_* names */
	uint64_t rss_start_kb, rss_end_kb, rss_max_kb;
	int64_t rss_growth_kb;
	bool gpu;                 /* GPU memory was sampled inside the window */
	double gpu_max_mib, gpu_growth_mib;
	uint32_t gpu_pid;         /* the process they are of (track_window_pid), 0: the tree's */
	/* thread time (thread-ms summed over threads): on a CPU, waiting for
	 * one, blocked (alive but neither); parallelism = oncpu_ms / the window */
	double oncpu_ms, runnable_ms, blocked_ms, parallelism;
	double iowait_ms;         /* the part of blocked_ms waiting for block I/O; -1: not measured */
	uint32_t threads_max;
	bool approximate;         /* shorter than two intervals and an end not exact, or than
	                           * two of the (stretched) intervals holding its interpolated
	                           * ends, or an end
	                           * read at a marker sample too late (sample_lag_ms): a log
	                           * line stamped before perfhunt woke for it is interpolated */
	double sample_lag_ms;     /* largest lag between a marked end the program did not wait
	                           * for and its sample's reading (0 if it waited); -1: no marked end */
	bool acknowledged;        /* the program waited for the samples of both ends */
	bool empty;               /* no sample at all: every figure 0 */
};

void track_init(struct track *t, size_t max_points, double interval_ms);
void track_release(struct track *t);
/* Adds a sample (its deltas accumulate); one taken at a marker's arrival
 * (s->at_marker) makes the ends it serves exact. */
void track_push(struct track *t, const struct sample *s);
/* The consumption inside [from_ms, to_ms] (clamped to the track; an
 * inverted window is read as its reverse). An end marked is a probe line's
 * own instant, which a marker sample can serve; one not marked is computed
 * (a duration probe's arrival less its duration, an NVTX range's ends) and
 * always interpolated: the sample of a line read later says nothing of it. */
void track_window(const struct track *t, double from_ms, double to_ms, bool from_marked, bool to_marked,
		  struct track_window *w);
/* track_window, with the GPU memory of process pid alone where NVML listed
 * it at some point (w->gpu_pid = pid); else the tree's, as track_window
 * gives it, and false. */
bool track_window_pid(const struct track *t, uint32_t pid, double from_ms, double to_ms, bool from_marked,
		      bool to_marked, struct track_window *w);
/* The earliest a probe line read at t_ms can have been written: the instant
 * perfhunt was woken for it (less the time it then waited for a CPU) where
 * the marker sample taken for it says so, else t_ms. A duration probe ends
 * there: read late by a starved perfhunt, its window would lose its start. */
double track_written_ms(const struct track *t, double t_ms);

#endif
