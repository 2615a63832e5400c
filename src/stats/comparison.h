/* comparison: BASE against NEW, metric by metric and phase by phase.
 *
 * Turns two metric sets into the plain result every compare exporter
 * (terminal, markdown, JSON) renders: medians, delta, bootstrap CI of the
 * ratio, Mann–Whitney p with Holm's adjustment within the metric's family, a
 * verdict, a geomean, and the phases ranked by how much of the wall-time delta
 * each explains. No I/O.
 */
#ifndef PERFHUNT_COMPARISON_H
#define PERFHUNT_COMPARISON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/metrics.h"
#include "stats/profdiff.h"
#include "stats/stats.h"
#include "util/err.h"

struct comparison_opts {
	double threshold;       /* fraction, 0.02 = 2 % */
	double alpha;           /* 0.05 */
	size_t resamples;       /* bootstrap resamples, STATS_BOOTSTRAP_RESAMPLES */
	uint64_t seed;          /* STATS_BOOTSTRAP_SEED */
	const char *const *only; /* restrict to these metric names (n_only of them) */
	size_t n_only;
};
void comparison_opts_init(struct comparison_opts *o);

/* The multiple-comparison families, each Holm-corrected within itself: the
 * question compare answers (did the time change, and in which phase) is not
 * diluted by a dozen side metrics, and those are still corrected among
 * themselves. */
enum comparison_family {
	COMPARISON_PRIMARY,     /* wall_s and each phase's duration (phase:NAME) */
	COMPARISON_SECONDARY,   /* resources and counters: CPU, RSS, faults, ... */
	COMPARISON_PHASE_RESOURCES, /* what each phase consumed: phase:NAME.minflt, ... */
	COMPARISON_FAMILIES
};
/* "primary", "secondary", "phase resources" */
const char *comparison_family_name(enum comparison_family f);
/* A reason key that is GPU time in ms: gpu_busy_ms, gpu_sync_ms, kernel:NAME_ms. */
bool comparison_reason_is_gpu_ms(const char *key);
/* The family of a metric: primary for wall_s and phase durations, phase
 * resources for a phase series ending in a per-phase resource (".minflt",
 * ".user_s", see metrics_phase_resource), secondary for everything else. */
enum comparison_family comparison_family_of(const char *name, bool is_phase);

/* Every double below is NAN when it does not exist (n = 1, base median 0,
 * a CI of two medians of 0). */
struct comparison_metric {
	char *name;
	size_t n_base, n_new;
	double base_median, new_median;
	double delta_pct;       /* 100 * (new - base) / base */
	double ci_low, ci_high; /* 95 % CI of median(new) / median(base) */
	double p_value, p_adjusted;
	enum stats_mwu_method test; /* which test gave p_value (NONE: no test) */
	enum comparison_family family; /* p_adjusted is Holm's within it */
	enum stats_verdict verdict;
	/* 0 when p could fall under alpha with these runs; else the test cannot
	 * decide whatever the values (3 + 3 runs: p is at least 0.1, Holm-
	 * adjusted over the family's tests), and this is the fewest runs a side
	 * (k + k) with which it could */
	size_t runs_needed;
};

/* One resource that moved with a phase's time: medians of its per-run totals. */
struct comparison_reason {
	const char *key;        /* "minflt", "sys_s", ... (static), or "kernel:NAME_ms" (in the
	                         * comparison's metric name: lives as long as the comparison) */
	double base, nw;
	/* "h2d_copy_ms" (the H2D copies' time) is a reason only when the copies
	 * changed between pinned and pageable host memory (most of their
	 * bytes): the new side's bytes, each side's throughput (10^9 bytes a
	 * second) and kind */
	double bytes, base_gbps, new_gbps;
	bool base_pageable, new_pageable;
};

#define COMPARISON_MAX_REASONS 3

struct comparison_phase {
	char *name;             /* without the "phase:" prefix */
	char *parent;           /* the phase enclosing it, or NULL (top level) */
	int depth;              /* nesting depth: 0 at the top level */
	double base_ms, new_ms, delta_ms; /* medians of the per-run totals */
	double delta_pct;       /* NAN when the base is 0 */
	double share_pct;       /* delta_ms / wall-time delta; NAN when that is 0 or
				 * the phase is nested (shares count non-overlapping phases) */
	enum stats_verdict verdict; /* of its duration */
	bool changed;           /* its time regressed or improved (one run: beyond the threshold) */
	/* no phase changed, and this top-level one moved most: its reasons and
	 * code line are given all the same, not established */
	bool leading;
	/* the resources whose change best accounts for it, largest first */
	struct comparison_reason reasons[COMPARISON_MAX_REASONS];
	size_t n_reasons;
	/* which code: its profiles compared, when it changed and both sides
	 * have runs recorded with --profile; else NULL */
	struct profdiff *profile;
};

struct comparison {
	size_t base_runs, new_runs;
	double threshold, alpha;
	struct comparison_metric *metrics; /* primary family first, then secondary */
	size_t n_metrics;
	size_t *by_name;        /* metrics[] indices in name order, for lookups by name */
	size_t family_tests[COMPARISON_FAMILIES]; /* metrics with a p-value, per family */
	struct comparison_phase *phases; /* top level by |delta_ms|, largest first, each
					  * followed by the phases it encloses */
	size_t n_phases;
	double geomean;         /* of the metrics' median ratios */
	double wall_delta_ms;   /* NAN without wall_s on both sides */
	struct profdiff *run_profile; /* the whole run's profiles, when wall_s changed; else NULL */
	size_t base_profiled, new_profiled; /* runs recorded with --profile on each side */
	json_t *base_command, *new_command; /* each side's first command (references), or NULL */
	json_t *base_host, *new_host;       /* each side's first hostname (references), or NULL */
	size_t regressed, improved;
};

/* Compares base with nw (both aligned with metrics_align_phases first, which
 * this does). Fails when o->only names a metric missing from either side, or
 * when no metric is common to both. Caller releases out. */
int comparison_run(struct metrics_set *base, struct metrics_set *nw,
		   const struct comparison_opts *o, struct comparison *out, struct err *e);
void comparison_release(struct comparison *c);

#endif
