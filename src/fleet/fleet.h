/* fleet: what run, watch and bench do with a finished record for a fleet —
 * the OpenMetrics file for node_exporter's textfile collector and the push to
 * a Pushgateway — in one call made after the local records are written, so a
 * gateway that is down never costs a measurement.
 *
 * Groups: every push goes to job JOB (default "perfhunt") with the grouping
 * label instance=<the record's hostname> unless the caller gives "instance",
 * so N machines pushing the same job keep N groups instead of overwriting one.
 */
#ifndef PERFHUNT_FLEET_H
#define PERFHUNT_FLEET_H

#include <jansson.h>

#include "fleet/push.h"
#include "monitor/sample.h"
#include "util/err.h"

#define FLEET_DEFAULT_JOB "perfhunt"

struct fleet_opts {
	const char *openmetrics_path;   /* --export-openmetrics FILE, or NULL */
	const char *push_url;           /* --push URL (the gateway), or NULL */
	const char *job;                /* NULL: FLEET_DEFAULT_JOB */
	const char **labels;            /* grouping labels: name, value, ..., NULL (may be NULL) */
	struct push_opts push;
};

void fleet_opts_init(struct fleet_opts *o);

/* Splits "name=value" (borrowed) into *name (caller frees) and *value
 * (points into kv); a bad name or a missing '=' is an error. */
int fleet_parse_label(const char *kv, char **name, const char **value, struct err *e);

struct bench_runs; /* stats/bench_record.h: where a bench's runs are read from */

/* Pushes the OpenMetrics text of record (a run or bench record, borrowed, a
 * bench's runs read from src, NULL: its own) to the gateway group job +
 * labels (+ instance, see above). */
int fleet_push_record(const char *url, const char *job, const char *const *labels,
		      json_t *record, const struct bench_runs *src, const struct push_opts *o, struct err *e);

/* Writes o->openmetrics_path, then pushes to o->push_url, each when set. Both
 * are attempted; a failure of either is returned (-1, the first message). */
int fleet_after_record(const struct fleet_opts *o, json_t *record, const struct bench_runs *src, struct err *e);

/* `watch --push-every`: PUTs the gauges of one live sample (openmetrics_live)
 * to the group job + labels + instance + stream="live", kept apart from the
 * run's own group so the final push of the record does not erase it, nor it
 * the record. fleet_live_end DELETEs that group when the watch ends. */
int fleet_push_live(const struct fleet_opts *o, const struct sample *s, double interval_ms,
		    const char *command, const char *host, struct err *e);
int fleet_live_end(const struct fleet_opts *o, const char *host, struct err *e);

#endif
