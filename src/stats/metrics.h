/* metrics: run records (perfhunt.run/1, perfhunt.bench/1) to named vectors.
 *
 * compare, bench and bisect-check all ask "what were wall_s, peak_rss_kb,
 * phase:pin_abc ... over these runs?"; this is the one place that answers it
 * and the one place that validates a record's numbers (negative, missing or
 * mistyped fields are errors that name the field, never a crash).
 */
#ifndef PERFHUNT_METRICS_H
#define PERFHUNT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "util/err.h"
#include "util/strindex.h"

/* One metric over runs: values[0..n). Summary metrics and counters hold one
 * value per run that had the field; phases ("phase:NAME", total ms per run)
 * hold one value per run, 0 for a run without that phase; so do per-phase
 * resources ("phase:NAME.minflt", summed over the run's instances). */
struct metrics_series {
	char *name;
	double *values;
	size_t n, cap;
	bool is_phase;
	/* a phase's duration series: its instances (run, start, end), and the
	 * phase that encloses every one of them, innermost ("prove_total"
	 * for synth), or NULL (see metrics_find_parents) */
	struct metrics_span *spans;
	size_t n_spans, cap_spans;
	char *parent;
};

struct metrics_span {
	size_t run;
	double start_ms, end_ms;
};

struct metrics_set {
	struct metrics_series *items;
	size_t n, cap;
	struct strindex index;    /* items by name */
	size_t runs; /* run records added */
	json_t *command;     /* the first run's "command" (a reference), or NULL */
	json_t *profiles;    /* one entry per run: its "profile" object or null (NULL: no run yet) */
	bool mixed_commands; /* a later run ran another command */
	json_t *hostname;    /* the first run's "host"."hostname" (a reference), or NULL */
};

void metrics_set_init(struct metrics_set *s);
void metrics_set_release(struct metrics_set *s);

/* Adds the metrics of run records (perfhunt.run/1 objects) to s. Errors name
 * the run, counted over every run added to s ("run 3: summary.wall_s must
 * be a non-negative number"). */
int metrics_add_records(struct metrics_set *s, json_t *const *records, size_t n, struct err *e);
/* metrics_add_records of runs read one at a time (a bench file streamed):
 * metrics_stream_add for each run, record borrowed for the call, then
 * metrics_stream_end(s, first) with first the s->n before the first run:
 * s is then what metrics_add_records of them all would have made it. */
int metrics_stream_add(struct metrics_set *s, json_t *record, struct err *e);
void metrics_stream_end(struct metrics_set *s, size_t first);
/* metrics_set_init + metrics_add_records; out is released on failure. */
int metrics_from_records(json_t *const *records, size_t n, struct metrics_set *out, struct err *e);

/* The run records held by a parsed record: itself for perfhunt.run/1; for
 * perfhunt.bench/1 the runs of the command named by command (its "name", or
 * its 1-based position), the first when command is NULL. *runs is a new array
 * of borrowed references (caller frees the array only). */
int metrics_runs_of(json_t *root, const char *command, json_t ***runs, size_t *n, struct err *e);
/* The position in "commands" of the bench record's command that
 * metrics_runs_of reads (command as there). */
int metrics_command_index(json_t *root, const char *command, size_t *index, struct err *e);


/* Sets each phase series' parent: the other phase whose instances enclose
 * every instance of it in the same run, the nearest around its first
 * (stats/nesting), so shares are counted over phases that do not overlap.
 * Called by metrics_add_records; phases with more than a few thousand
 * instances are left top-level. */
void metrics_find_parents(struct metrics_set *s);

/* The resource key of a per-phase resource metric ("phase:pin.minflt" ->
 * "minflt"; user_s, sys_s, minflt, majflt, vcsw, ivcsw, read_bytes,
 * write_bytes, rss_growth_kb, gpu_growth_mib, oncpu_ms, runnable_ms,
 * blocked_ms, parallelism), NULL for any other metric,
 * a phase's duration included. */
const char *metrics_phase_resource(const char *name);

/* False for a number a record holds that is not a measurement of the
 * program: an identifier (peak_rss_pid), perfhunt's own work (samples,
 * monitor_cpu_s), its configuration (interval_ms) or a moment rather than
 * an amount (peak_at_ms). Such numbers stay in the record and the history's
 * tables but are never a series of history detect nor a compared metric. */
bool metrics_is_measurement(const char *name);

/* The unit of a metric's values, from its name: a phase's duration and
 * *_ms in milliseconds, *_s in seconds, perf's task-clock and cpu-clock in
 * nanoseconds, *_kb in KiB, *_mib in MiB, *_bytes in bytes, *_pct in
 * percent, anything else a count. */
enum metrics_unit {
	METRICS_COUNT, METRICS_MS, METRICS_S, METRICS_NS, METRICS_KB, METRICS_MIB, METRICS_BYTES, METRICS_PCT,
};
enum metrics_unit metrics_unit(const char *name);

/* The series called name, or NULL. */
const struct metrics_series *metrics_find(const struct metrics_set *s, const char *name);

/* Gives each side an all-zero series for every phase seen only on the other,
 * so a phase that appears or vanishes is compared against 0 ms. */
void metrics_align_phases(struct metrics_set *a, struct metrics_set *b);

#endif
