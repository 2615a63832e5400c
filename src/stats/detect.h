/* detect: a history's series over commits and the change points in them.
 *
 * A series is one benchmark (command) and one metric; its points are commits
 * in order (several runs at one commit are one point: their median, with
 * their spread). store_series fills these from the history; this module runs
 * changepoint on the medians and says, from the metric's name, whether a
 * shift is a regression or an improvement. Plain data, no I/O: exporters
 * (text, markdown, JSON, the trend site) all read the same result.
 */
#ifndef PERFHUNT_DETECT_H
#define PERFHUNT_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "stats/changepoint.h"
#include "util/err.h"

struct detect_point {
	char *commit;          /* full hex, "" when the runs were recorded outside a repository */
	char *started_at;      /* of the point's first run */
	int64_t position;      /* index in the first-parent history (oldest 0); -1 in time order */
	int64_t *run_ids;      /* the runs, in storage order */
	double *values;        /* their finite values, n of them */
	size_t n;
	double median, min, max;
};

enum detect_direction { DETECT_REGRESSION, DETECT_IMPROVEMENT, DETECT_SHIFT };

struct detect_series {
	char *bench;           /* the command, as the runs table holds it */
	char *metric;
	struct detect_point *points;
	size_t n;
	size_t report_from;    /* changes whose new segment starts before this point are not reported */
	struct changepoint_result cp;          /* after detect_series_run */
	enum detect_direction *directions;     /* one per cp item */
	/* the options its newest run was recorded with, as words that record
	 * again (its record's options.words, "--attach-name=cuzkd"), for the
	 * bisect line; NULL-terminated, or NULL when the record has none */
	char **options;
};

/* What a detection ran on and with, for every exporter. */
struct detect_context {
	int first_parent;         /* 1: points in first-parent order of HEAD; 0: by recording time */
	size_t runs;              /* runs read */
	size_t dirty_runs;        /* left out: recorded in a dirty work tree */
	size_t off_history_runs;  /* left out: commit not on the first-parent history */
	size_t nonfinite_values;  /* left out: NaN or infinite stored values */
	const char *since;        /* full commit the report starts after, or NULL */
	struct changepoint_opts opts;
};

/* Change points of s's point medians; fills s->cp and s->directions. */
int detect_series_run(struct detect_series *s, const struct changepoint_opts *o, struct err *e);
/* True when change point k of s is reported (at or after report_from). */
int detect_reported(const struct detect_series *s, size_t k);
/* 1 when the old and new commits of change point k are neighbours in the
 * first-parent history, 0 when commits without runs lie between (*between
 * of them, may be NULL), -1 when unknown (time order, or no commits). */
int detect_adjacent(const struct detect_series *s, size_t k, int64_t *between);
void detect_series_free(struct detect_series *s, size_t n);

/* Which way is better for a metric: -1 lower (times, memory, faults, counts:
 * every metric perfhunt records), +1 higher (names ending _per_s, ipc,
 * throughput), 0 neither (peak_at_ms, max_procs, max_threads, exit_status). */
int detect_better(const char *metric);
/* What a relative change of a metric is. */
enum detect_direction detect_direction(const char *metric, double rel_change);
/* "regression", "improvement", "shift" */
const char *detect_direction_name(enum detect_direction d);

#endif
