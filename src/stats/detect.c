/* detect: change points over a series of commits (see detect.h).
 *
 * The algorithm sees one number per commit (the median of its runs), so a
 * commit measured ten times weighs no more than one measured once, and one
 * slow run among ten moves nothing. Which way is better is decided from the
 * metric's name alone, the same rule for every exporter.
 */
#include "stats/detect.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static int detect_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int detect_better(const char *metric)
{
	static const char *const neutral[] = { "max_procs", "max_threads", "exit_status" };
	const char *base = strrchr(metric, '.');
	base = base ? base + 1 : metric;
	for (size_t i = 0; i < sizeof(neutral) / sizeof(neutral[0]); i++)
		if (!strcmp(base, neutral[i]))
			return 0;
	if (detect_ends_with(base, "_at_ms"))
		return 0;
	if (detect_ends_with(base, "_per_s") || !strcmp(base, "ipc") || strstr(base, "throughput"))
		return 1;
	return -1;
}

enum detect_direction detect_direction(const char *metric, double rel_change)
{
	int better = detect_better(metric);
	if (better == 0 || rel_change == 0)
		return DETECT_SHIFT;
	return (rel_change > 0) == (better > 0) ? DETECT_IMPROVEMENT : DETECT_REGRESSION;
}

const char *detect_direction_name(enum detect_direction d)
{
	switch (d) {
	case DETECT_REGRESSION:
		return "regression";
	case DETECT_IMPROVEMENT:
		return "improvement";
	default:
		return "shift";
	}
}

int detect_series_run(struct detect_series *s, const struct changepoint_opts *o, struct err *e)
{
	double *medians = xcalloc(s->n ? s->n : 1, sizeof(double));
	for (size_t i = 0; i < s->n; i++)
		medians[i] = s->points[i].median;
	int rc = changepoint_detect(medians, s->n, o, &s->cp, e);
	free(medians);
	if (rc)
		return err_wrap(e, "%s of '%s'", s->metric, s->bench);
	s->directions = xcalloc(s->cp.n ? s->cp.n : 1, sizeof(*s->directions));
	for (size_t k = 0; k < s->cp.n; k++)
		s->directions[k] = detect_direction(s->metric, s->cp.items[k].rel_change);
	return 0;
}

int detect_reported(const struct detect_series *s, size_t k)
{
	return s->cp.items[k].index >= s->report_from;
}

int detect_adjacent(const struct detect_series *s, size_t k, int64_t *between)
{
	const struct detect_point *old = &s->points[s->cp.items[k].index - 1];
	const struct detect_point *nw = &s->points[s->cp.items[k].index];
	if (between)
		*between = -1;
	if (old->position < 0 || nw->position < 0)
		return -1;
	if (between)
		*between = nw->position - old->position - 1;
	return nw->position - old->position == 1;
}

void detect_series_free(struct detect_series *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t p = 0; p < s[i].n; p++) {
			free(s[i].points[p].commit);
			free(s[i].points[p].started_at);
			free(s[i].points[p].run_ids);
			free(s[i].points[p].values);
		}
		free(s[i].points);
		free(s[i].bench);
		free(s[i].metric);
		free(s[i].directions);
		xstrv_free(s[i].options);
		changepoint_result_release(&s[i].cp);
	}
	free(s);
}
