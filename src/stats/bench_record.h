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

#include "util/err.h"

/* A new record {"schema","started_at","options","commands":[]}; consumes options. */
json_t *bench_record_new(const char *started_at, json_t *options);
/* Appends a command {"name","command","parameters","runs":[]}; consumes argv and
 * parameters (an object, may be NULL). Returns its index. */
size_t bench_record_add_command(json_t *rec, const char *name, json_t *argv, json_t *parameters);
/* Appends a run record to command i, consuming it; its "samples" rows are
 * dropped to keep the file small. The first run lends the bench its host and git. */
void bench_record_add_run(json_t *rec, size_t i, json_t *run);
/* Appends a failed run (timed out under --timeout) to command i's "failed",
 * consuming it; it keeps its samples (the partial timeline) and is in no
 * statistic. */
void bench_record_add_failed(json_t *rec, size_t i, json_t *run);
/* Sets "stats" ({"METRIC": {median, mean, stddev, mad, min, max, n}}) and
 * "outliers" ({"metric": "wall_s", "runs": [1-based], "max_abs_z"}) of every
 * command that has runs, and the record's "results": one per such command
 * in hyperfine's --export-json shape (command, mean, stddev, median, user,
 * system, min, max, times, exit_codes, parameters). Errors name the command and the bad field. */
int bench_record_finish(json_t *rec, struct err *e);

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
