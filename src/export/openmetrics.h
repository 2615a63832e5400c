/* openmetrics: run and bench records (and live samples) as OpenMetrics text.
 *
 * One pure function from a record to bytes, so `run --export-openmetrics`,
 * node_exporter's textfile collector and `perfhunt push` all see the same
 * figures. Every family is a gauge in base units (seconds, bytes): the values
 * describe one run, not a count that rises across scrapes, and gauges read the
 * same under the OpenMetrics and the Prometheus 0.0.4 text parsers (the one
 * node_exporter and the Pushgateway use), where `# UNIT` and `# EOF` are comments.
 */
#ifndef PERFHUNT_OPENMETRICS_H
#define PERFHUNT_OPENMETRICS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "monitor/sample.h"
#include "stats/bench_record.h"
#include "util/err.h"

/* The text of a perfhunt.run/1 or perfhunt.bench/1 record (borrowed). A run
 * gives its own figures; a bench gives, per command, the median over its runs
 * and perfhunt_runs. Every sample carries the labels command, host and commit
 * (when the record has them). Ends with "# EOF\n". A bench's runs are read
 * from src (NULL: the record's own). *out is the caller's (free). */
int openmetrics_from_record(json_t *record, const struct bench_runs *src, char **out, size_t *len, struct err *e);

/* openmetrics_from_record, written atomically (temp file + rename) to path. */
int openmetrics_write(const char *path, json_t *record, const struct bench_runs *src, struct err *e);

/* The gauges of one live sample of a watched daemon, for `watch --push-every`:
 * perfhunt_live_rss_bytes, perfhunt_live_cpu_ratio (CPU seconds per second
 * over the interval, summed over the tree), perfhunt_live_page_faults_per_second
 * {kind}, perfhunt_live_procs, perfhunt_live_threads, perfhunt_live_gpu_bytes
 * (when sampled) and perfhunt_live_phase_active{phase} 1 for each active phase.
 * interval_ms is the length of the sample's interval (> 0); command and host
 * label every sample (either may be NULL). *out is the caller's (free). */
int openmetrics_live(const struct sample *s, double interval_ms, const char *command,
		     const char *host, char **out, size_t *len, struct err *e);

/* Appends v to f as an OpenMetrics label value: \ " and newline escaped. */
void openmetrics_escape(FILE *f, const char *v);

#endif
