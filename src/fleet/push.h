/* push: send metrics text to a Prometheus Pushgateway over HTTP (libcurl).
 *
 * The Pushgateway keeps the last push of each group (job plus grouping
 * labels) for Prometheus to scrape; a PUT replaces the whole group, so a
 * machine's figures from an older run never linger beside the new ones.
 * Networks fail: every request has a connect and a total timeout, and
 * connection errors and 5xx answers are retried with exponential backoff;
 * a 4xx answer (bad metrics, bad labels) is final.
 */
#ifndef PERFHUNT_PUSH_H
#define PERFHUNT_PUSH_H

#include <stddef.h>

#include "util/err.h"

struct push_opts {
	long connect_timeout_ms; /* per attempt, to establish the connection */
	long total_timeout_ms;   /* per attempt, the whole request */
	int retries;             /* attempts after the first (connection errors, 5xx) */
	long backoff_ms;         /* wait before the first retry, doubled after each */
};

/* Defaults: 3 s to connect, 10 s in all, 3 retries, 250 ms first backoff. */
void push_opts_init(struct push_opts *o);

/* True for a usable grouping label name ([A-Za-z_][A-Za-z0-9_]*, not "job"). */
int push_label_name_ok(const char *name);

/* The group's URL: base (trailing '/' ignored) + /metrics/job/JOB and one
 * /NAME/VALUE per label (labels: NULL-terminated name, value pairs; may be
 * NULL). Values are percent-encoded; a value holding '/', an empty one, "."
 * and ".." use the Pushgateway's /NAME@base64/VALUE form. Caller frees *out. */
int push_group_url(const char *base, const char *job, const char *const *labels,
		   char **out, struct err *e);

/* PUTs text (Prometheus text format; OpenMetrics' # UNIT and # EOF lines are
 * comments there) to the group. Errors name the URL (password hidden) and the
 * HTTP status with the gateway's answer, or curl's error. o may be NULL. */
int push_to_gateway(const char *base, const char *job, const char *const *labels,
		    const char *text, size_t len, const struct push_opts *o, struct err *e);

/* DELETEs the group (its metrics disappear from the gateway). */
int push_delete_group(const char *base, const char *job, const char *const *labels,
		      const struct push_opts *o, struct err *e);

#endif
