/* detect_text: the terminal report of history detect (see detect_text.h).
 *
 * One block per series that changed, one line per change point with the
 * medians and spreads on both sides in the metric's own unit, then the
 * bisect lines where runs were not taken at every commit; a closing line
 * counts everything, including what was left out and why.
 */
#include "export/detect_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/compare_text.h"
#include "util/quote.h"
#include "util/xalloc.h"

char *detect_text_point(const struct detect_point *p, char *buf, size_t n)
{
	if (*p->commit)
		snprintf(buf, n, "%.10s", p->commit);
	else
		snprintf(buf, n, "run %" PRId64, p->run_ids[0]);
	return buf;
}

int detect_text_bisect(const struct detect_series *s, size_t k, char **start, char **run)
{
	*start = *run = NULL;
	const struct changepoint *c = &s->cp.items[k];
	const struct detect_point *old = &s->points[c->index - 1], *nw = &s->points[c->index];
	if (s->directions[k] != DETECT_REGRESSION || !detect_reported(s, k) || !*old->commit ||
	    !*nw->commit || !strcmp(old->commit, nw->commit) || detect_adjacent(s, k, NULL) == 1)
		return 0;
	*start = xasprintf("git bisect start %.12s %.12s", nw->commit, old->commit);
	char threshold[48] = "";
	if (isfinite(c->rel_change))
		snprintf(threshold, sizeof(threshold), " --threshold %.3g", fmin(fabs(c->rel_change) * 50, 100));
	/* the options the runs were recorded with: without them bisect-check
	 * would measure another thing (no daemon, no log, other phases) */
	struct quote_line opts = { 0 };
	quote_shell(&opts, s->metric, false);
	for (char **w = s->options; w && *w; w++)
		quote_shell(&opts, *w, false);
	*run = xasprintf("git bisect run perfhunt bisect-check --baseline @commit:%.12s --metric %s%s -- %s",
			 old->commit, opts.s, threshold, s->bench);
	free(opts.s);
	return 1;
}

void detect_text_count(const struct detect_series *s, size_t n, size_t *changes, size_t *regressions)
{
	*changes = *regressions = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < s[i].cp.n; k++) {
			if (!detect_reported(&s[i], k))
				continue;
			(*changes)++;
			*regressions += s[i].directions[k] == DETECT_REGRESSION;
		}
}

static void detect_text_change(const struct detect_series *s, size_t k, bool color, FILE *out)
{
	const struct changepoint *c = &s->cp.items[k];
	char nw[32], old[32], b[48], bs[48], a[48], as[48], pct[32];
	detect_text_point(&s->points[c->index], nw, sizeof(nw));
	detect_text_point(&s->points[c->index - 1], old, sizeof(old));
	const char *on = "", *off = "";
	if (color && s->directions[k] != DETECT_SHIFT) {
		on = s->directions[k] == DETECT_REGRESSION ? "\033[31m" : "\033[32m";
		off = "\033[0m";
	}
	fprintf(out, "  %s%s%s at %s (last old %s", on, detect_direction_name(s->directions[k]), off, nw, old);
	int64_t between;
	if (detect_adjacent(s, k, &between) == 0)
		fprintf(out, ", %" PRId64 " commit%s between without runs", between, between == 1 ? "" : "s");
	if (isinf(c->rel_change))
		snprintf(pct, sizeof(pct), "from 0");
	else
		compare_text_pct(100 * c->rel_change, pct, sizeof(pct));
	compare_text_value_pair(s->metric, c->before_median, c->after_median, b, a, sizeof(b));
	fprintf(out, "): %s ± %s (%zu points) -> %s ± %s (%zu points), %s, p %.2g\n", b,
		compare_text_value(s->metric, c->before_mad, bs, sizeof(bs)), c->index - c->before_start, a,
		compare_text_value(s->metric, c->after_mad, as, sizeof(as)), c->after_end - c->index, pct,
		c->p_value);
	char *start, *run;
	if (detect_text_bisect(s, k, &start, &run)) {
		fprintf(out, "    %s\n    %s\n", start, run);
		free(start);
		free(run);
	}
}

int detect_text_write(const struct detect_series *s, size_t n, const struct detect_context *c, bool color,
		      FILE *out)
{
	size_t points = 0, short_series = 0, changes, regressions, improvements = 0;
	for (size_t i = 0; i < n; i++) {
		points += s[i].n;
		short_series += s[i].n < 2 * c->opts.min_segment;
	}
	fprintf(out, "%zu series, %zu points in %s; alpha %g, min segment %zu, min magnitude %g %%\n", n, points,
		c->first_parent ? "first-parent order of HEAD" : "recording order", c->opts.alpha,
		c->opts.min_segment, c->opts.min_magnitude * 100);
	if (c->since)
		fprintf(out, "reporting changes after %.10s\n", c->since);
	for (size_t i = 0; i < n; i++) {
		int any = 0;
		for (size_t k = 0; k < s[i].cp.n; k++) {
			if (!detect_reported(&s[i], k))
				continue;
			if (!any)
				fprintf(out, "\n%s of %s\n", s[i].metric, s[i].bench);
			any = 1;
			improvements += s[i].directions[k] == DETECT_IMPROVEMENT;
			detect_text_change(&s[i], k, color, out);
		}
	}
	detect_text_count(s, n, &changes, &regressions);
	if (changes)
		fprintf(out, "\n%zu change point%s: %zu regression%s, %zu improvement%s, %zu other shift%s\n", changes,
			changes == 1 ? "" : "s", regressions, regressions == 1 ? "" : "s", improvements,
			improvements == 1 ? "" : "s", changes - regressions - improvements,
			changes - regressions - improvements == 1 ? "" : "s");
	else
		fprintf(out, "\nno change point\n");
	if (short_series)
		fprintf(out, "%zu series too short to test (fewer than %zu points)\n", short_series,
			2 * c->opts.min_segment);
	if (c->dirty_runs || c->off_history_runs || c->nonfinite_values)
		fprintf(out, "left out: %zu run%s in a dirty work tree, %zu run%s off the first-parent history, "
			"%zu non-finite value%s\n", c->dirty_runs, c->dirty_runs == 1 ? "" : "s", c->off_history_runs,
			c->off_history_runs == 1 ? "" : "s", c->nonfinite_values, c->nonfinite_values == 1 ? "" : "s");
	return ferror(out) ? -1 : 0;
}
