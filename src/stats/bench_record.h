/* bench_record: the perfhunt.bench/1 record (docs/FORMATS.md) and its statistics.
 *
 * `perfhunt bench` adds each run record as it finishes; finishing computes
 * every command's per-metric statistics (stats_summarize over the series of
 * the metrics module) and flags wall-time outliers by modified z-score. The
 * exporters and the history read only this record, so a stored bench prints
 * and exports exactly as the live one did.
 */
#ifndef PERFHUNT_BENCH_RECORD_H
#define PERFHUNT_BENCH_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "stats/metrics.h"
#include "util/err.h"

/* Where a bench's run records are read from, one at a time. A record read
 * from a file holds them in its commands' "runs" arrays: a NULL source below
 * means those. A bench being run keeps them in a spool file
 * (record/benchspool.h) and its record holds none, so no reader of it holds
 * every run at once: 10 000 parsed runs were 200 MB. */
struct bench_runs {
	size_t (*count)(void *ctx, size_t cmd);
	/* run k of command cmd: a new reference, or NULL with e filled */
	json_t *(*load)(void *ctx, size_t cmd, size_t k, struct err *e);
	void *ctx;
};

/* The number of runs of command cmd. */
size_t bench_runs_count(const struct bench_runs *src, const json_t *rec, size_t cmd);
/* Run k of command cmd: a new reference (json_decref it), or NULL with e filled. */
json_t *bench_runs_load(const struct bench_runs *src, const json_t *rec, size_t cmd, size_t k, struct err *e);
/* fn(runs, n, first, arg) over the runs of command cmd in order, BENCH_RUNS_CHUNK
 * at a time (borrowed for the call; first: the index of runs[0]). 0, -1 with e
 * filled (a run that cannot be read, or fn's -1). */
enum { BENCH_RUNS_CHUNK = 128 };
int bench_runs_each(const struct bench_runs *src, const json_t *rec, size_t cmd,
		    int (*fn)(json_t *const *runs, size_t n, size_t first, void *arg), void *arg, struct err *e);
/* fn(run, ms, k, arg) for each run k of command cmd in order, ms the metrics
 * of that run alone; both borrowed for the call. 0, or -1 with e filled (a
 * run that cannot be read or has bad figures, named, or fn's -1). */
int bench_record_each_run(const struct bench_runs *src, const json_t *rec, size_t cmd,
			  int (*fn)(const json_t *run, const struct metrics_set *ms, size_t k, void *arg), void *arg,
			  struct err *e);
/* The metrics of command cmd's runs (metrics_add_records, a chunk at a time);
 * out is released on failure, and the error names the command. */
int bench_record_metrics(const struct bench_runs *src, const json_t *rec, size_t cmd, struct metrics_set *out,
			 struct err *e);

/* A new record {"schema","started_at","options","commands":[]}; consumes options. */
json_t *bench_record_new(const char *started_at, json_t *options);
/* Appends a command {"name","command","parameters","runs":[]}; consumes argv and
 * parameters (an object, may be NULL). Returns its index. */
size_t bench_record_add_command(json_t *rec, const char *name, json_t *argv, json_t *parameters);
/* Readies a run record for a bench: its "samples" rows are dropped to keep
 * the file small, and the first run lends the bench its host and git. */
void bench_record_prepare_run(json_t *rec, json_t *run);
/* bench_record_prepare_run, then appends the run to command i's "runs",
 * consuming it. */
void bench_record_add_run(json_t *rec, size_t i, json_t *run);
/* Appends a failed run (timed out under --timeout) to command i's "failed",
 * consuming it; it keeps its samples (the partial timeline) and is in no
 * statistic. */
void bench_record_add_failed(json_t *rec, size_t i, json_t *run);
/* Sets "stats" ({"METRIC": {median, mean, stddev, mad, min, max, n}}) and
 * "outliers" ({"metric": "wall_s", "runs": [1-based], "max_abs_z"}) of every
 * command that has runs (read from src), and the record's "results": one per
 * such command in hyperfine's --export-json shape (command, mean, stddev,
 * median, user, system, min, max, times, exit_codes, parameters). Errors name
 * the command and the bad field. */
int bench_record_finish(json_t *rec, const struct bench_runs *src, struct err *e);

/* A statistic of command i ("median" of "wall_s"); NAN when absent. */
double bench_record_stat(const json_t *rec, size_t i, const char *metric, const char *what);
/* The command with the lowest median wall time among those with runs; 0 when none. */
size_t bench_record_fastest(const json_t *rec);
/* median_wall(i) / median_wall(ref) and its spread, propagated from both
 * sides' relative MAD (scaled to estimate σ) the way hyperfine propagates σ
 * of the means: robust to the one slow run that would swamp a mean.
 * false when a side has no runs. */
bool bench_record_relative(const json_t *rec, size_t i, size_t ref, double *ratio, double *sd);

#endif
