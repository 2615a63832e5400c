/* report_site: the pages of `perfhunt history site`, a static trend site.
 *
 * An index of benchmarks and, per benchmark, one chart per metric over the
 * commits: the per-commit medians as one line over a band of their runs'
 * min–max spread, binned to one column per pixel past the chart's width (a
 * page stays tens of KB per chart at 10^5 commits), each segment's median as
 * a line, each change point a dashed line labelled with its shift; a marker
 * with a link to its run's report only on the points either side of a change
 * and the latest commits (every point with --all-runs). Pure functions into markup
 * (the command writes the files); the page shell, the escaping and the axis
 * helpers are the report's, so a site page looks and behaves like a report.
 */
#include "export/report_site.h"
#include "export/report_page.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/compare_text.h"
#include "export/detect_text.h"
#include "export/report_chart.h"
#include "stats/metrics.h"
#include "stats/stats.h"

/* The chart unit of a metric (metrics_unit: the unit compare and detect
 * print it in) and the factor from its stored unit. */
static enum report_unit report_site_unit(const char *metric, double *scale)
{
	*scale = 1;
	switch (metrics_unit(metric)) {
	case METRICS_MS:
		return REPORT_UNIT_MS;
	case METRICS_S:
		*scale = 1000;
		return REPORT_UNIT_MS;
	case METRICS_NS:
		*scale = 1e-6;
		return REPORT_UNIT_MS;
	case METRICS_KB:
		return REPORT_UNIT_KB;
	case METRICS_MIB:
		*scale = 1024;
		return REPORT_UNIT_KB;
	case METRICS_BYTES:
		*scale = 1.0 / 1024;
		return REPORT_UNIT_KB;
	case METRICS_PCT:
		return REPORT_UNIT_PCT;
	case METRICS_COUNT:
		break;
	}
	return REPORT_UNIT_COUNT;
}

size_t report_site_benches(const struct detect_series *s, size_t n, size_t *starts)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(s[i].bench, s[i - 1].bench))
			starts[k++] = i;
	starts[k] = n;
	return k;
}

static void report_site_counts(const struct detect_series *s, size_t from, size_t to, size_t *points,
			       size_t *changes, size_t *regressions)
{
	*points = *changes = *regressions = 0;
	for (size_t i = from; i < to; i++) {
		*points = s[i].n > *points ? s[i].n : *points;
		for (size_t k = 0; k < s[i].cp.n; k++) {
			if (!detect_reported(&s[i], k))
				continue;
			(*changes)++;
			*regressions += s[i].directions[k] == DETECT_REGRESSION;
		}
	}
}

static void report_site_header(struct svg *out, const struct detect_context *c)
{
	svg_printf(out, "<p class=\"note\">Points in %s; change points by E-Divisive means, alpha %g, at least %zu "
		   "commits per segment, shifts under %g %% ignored.",
		   c->first_parent ? "the first-parent order of HEAD" : "recording order", c->opts.alpha,
		   c->opts.min_segment, c->opts.min_magnitude * 100);
	if (c->since)
		svg_printf(out, " Changes after %.10s.", c->since);
	svg_raw(out, "</p>\n");
}

void report_site_index(const struct detect_series *s, const struct detect_context *c,
		       const size_t *starts, size_t nbench, struct svg *out)
{
	report_page_begin(out, "perfhunt trends");
	svg_raw(out, "<h1>perfhunt trends</h1>\n");
	report_site_header(out, c);
	svg_raw(out, "<table id=\"benches\">\n<tr><th class=\"l\">benchmark</th><th>metrics</th><th>commits</th>"
		     "<th>change points</th><th>regressions</th></tr>\n");
	char buf[64];
	for (size_t b = 0; b < nbench; b++) {
		size_t points, changes, regressions;
		report_site_counts(s, starts[b], starts[b + 1], &points, &changes, &regressions);
		svg_printf(out, "<tr><td class=\"l\"><a href=\"bench-%zu.html\"><code>", b + 1);
		svg_text(out, s[starts[b]].bench);
		svg_printf(out, "</code></a></td><td>%zu</td><td>%zu</td><td>%zu</td><td%s>%zu</td></tr>\n",
			   starts[b + 1] - starts[b], points, changes, regressions ? " class=\"regressed\"" : "",
			   regressions);
	}
	svg_raw(out, "</table>\n<h2>Change points</h2>\n");
	size_t shown = 0;
	for (size_t b = 0; b < nbench; b++) {
		for (size_t i = starts[b]; i < starts[b + 1]; i++) {
			for (size_t k = 0; k < s[i].cp.n; k++) {
				if (!detect_reported(&s[i], k))
					continue;
				const struct changepoint *cp = &s[i].cp.items[k];
				if (!shown++)
					svg_raw(out, "<table id=\"changes\">\n<tr><th class=\"l\">change</th><th class=\"l\">"
						     "metric</th><th class=\"l\">benchmark</th><th class=\"l\">at</th>"
						     "<th>before</th><th>after</th><th>delta</th><th>p</th></tr>\n");
				enum detect_direction d = s[i].directions[k];
				svg_printf(out, "<tr><td class=\"l%s\">%s</td>",
					   d == DETECT_REGRESSION ? " regressed" : d == DETECT_IMPROVEMENT ? " improved" : "",
					   detect_direction_name(d));
				svg_printf(out, "<td class=\"l\"><a href=\"bench-%zu.html#m%zu\">", b + 1, i - starts[b] + 1);
				svg_text(out, s[i].metric);
				svg_raw(out, "</a></td>");
				report_page_cell(out, s[i].bench, 1);
				report_page_cell(out, detect_text_point(&s[i].points[cp->index], buf, sizeof(buf)), 1);
				char before[64], after[64];
				compare_text_value_pair(s[i].metric, cp->before_median, cp->after_median, before, after,
							sizeof(before));
				report_page_cell(out, before, 0);
				report_page_cell(out, after, 0);
				report_page_cell(out, isinf(cp->rel_change) ? "from 0"
						      : compare_text_pct(100 * cp->rel_change, buf, sizeof(buf)), 0);
				snprintf(buf, sizeof(buf), "%.2g", cp->p_value);
				report_page_cell(out, buf, 0);
				svg_raw(out, "</tr>\n");
			}
		}
	}
	svg_raw(out, shown ? "</table>\n" : "<p>No change point.</p>\n");
	report_page_end(out);
}

int report_site_linked(const struct detect_series *s, size_t i, int all_runs)
{
	if (all_runs || i + REPORT_SITE_LATEST >= s->n)
		return 1;
	for (size_t k = 0; k < s->cp.n; k++)
		if (i + 1 == s->cp.items[k].index || i == s->cp.items[k].index)
			return 1;
	return 0;
}

/* One trend chart: medians over their spread, segment medians, change
 * points, the linked points' markers. */
static void report_site_chart(struct svg *out, const struct detect_series *s, size_t id, int all_runs)
{
	double scale;
	enum report_unit unit = report_site_unit(s->metric, &scale);
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		lo = fmin(lo, s->points[i].min * scale);
		hi = fmax(hi, s->points[i].max * scale);
	}
	if (!(hi > lo)) {
		double pad = fabs(hi) > 0 ? fabs(hi) * 0.05 : 1;
		lo -= pad;
		hi += pad;
	}
	double step = report_chart_step(unit, hi - lo, 5);
	lo = floor(lo / step + 1e-9) * step;
	hi = ceil(hi / step - 1e-9) * step;
	double top = REPORT_CHART_TOP, axis = REPORT_CHART_H - REPORT_CHART_BOTTOM;
#define SX(i) (REPORT_CHART_LEFT + ((double)(i) + 0.5) / (double)s->n * REPORT_CHART_PLOT_W)
#define SY(v) (axis - ((v) * scale - lo) / (hi - lo) * (axis - top))
	svg_printf(out, "<figure id=\"m%zu\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart trend\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\" data-points=\"%zu\" data-changes=\"%zu\"><title>", id,
		   REPORT_CHART_W, REPORT_CHART_H, s->n, s->cp.n);
	svg_text(out, s->metric);
	svg_raw(out, "</title>\n<text class=\"ctitle\" x=\"8\" y=\"18\">");
	svg_text(out, s->metric);
	svg_raw(out, "</text>\n");
	char lab[64], val[64], pt[32];
	for (double v = lo; v <= hi * (1 + 1e-9) + 1e-12; v += step) {
		double y = axis - (v - lo) / (hi - lo) * (axis - top);
		svg_printf(out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"ytick\" x=\"%d\" y=\"%.1f\">%s</text>\n", REPORT_CHART_LEFT,
			   REPORT_CHART_W - REPORT_CHART_RIGHT, y, y, REPORT_CHART_LEFT - 6, y + 4,
			   report_chart_tick_label(unit, v, hi, lab, sizeof(lab)));
	}
	svg_printf(out, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		   "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", REPORT_CHART_LEFT,
		   REPORT_CHART_W - REPORT_CHART_RIGHT, axis, axis, REPORT_CHART_LEFT, REPORT_CHART_LEFT, top, axis);
	size_t every = s->n > 8 ? (s->n + 7) / 8 : 1;
	for (size_t i = 0; i < s->n; i += every) {
		svg_printf(out, "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\">", SX(i), axis + 15);
		svg_text(out, detect_text_point(&s->points[i], pt, sizeof(pt)));
		svg_raw(out, "</text>\n");
	}
	/* segment medians */
	size_t from = 0;
	for (size_t k = 0; k <= s->cp.n; k++) {
		size_t to = k < s->cp.n ? s->cp.items[k].index : s->n;
		double med = k < s->cp.n ? s->cp.items[k].before_median
			   : s->cp.n ? s->cp.items[s->cp.n - 1].after_median : NAN;
		if (isnan(med) && to > from) {
			double *m = calloc(to - from, sizeof(double));
			if (m) {
				for (size_t i = from; i < to; i++)
					m[i - from] = s->points[i].median;
				med = stats_median(m, to - from);
				free(m);
			}
		}
		if (isfinite(med))
			svg_printf(out, "<line class=\"segment\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				   "stroke=\"#555\" stroke-width=\"2\" stroke-opacity=\".6\"/>\n",
				   SX(from) - 3, SX(to - 1) + 3, SY(med), SY(med));
		from = to;
	}
	/* change points */
	for (size_t k = 0; k < s->cp.n; k++) {
		const struct changepoint *cp = &s->cp.items[k];
		enum detect_direction d = s->directions[k];
		const char *color = d == DETECT_REGRESSION ? "#B34700" : d == DETECT_IMPROVEMENT ? "#00755A" : "#555";
		double x = (SX(cp->index - 1) + SX(cp->index)) / 2;
		svg_printf(out, "<g class=\"change\" data-index=\"%zu\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			   "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>"
			   "<text class=\"peaklabel\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\" text-anchor=\"%s\">",
			   cp->index, x, x, top, axis, color, x + (x < REPORT_CHART_W * 0.7 ? 5 : -5),
			   top + 12 + 14.0 * (double)(k % 3), color, x < REPORT_CHART_W * 0.7 ? "start" : "end");
		svg_textf(out, "%s %s at %s", isinf(cp->rel_change) ? "from 0"
					    : compare_text_pct(100 * cp->rel_change, val, sizeof(val)),
			  detect_direction_name(d), detect_text_point(&s->points[cp->index], pt, sizeof(pt)));
		svg_raw(out, "</text></g>\n");
	}
	/* the medians over their spread, a column per pixel at most */
	size_t cols = s->n < REPORT_CHART_PLOT_W ? s->n : REPORT_CHART_PLOT_W;
	double *med = calloc(cols, sizeof(double)), *cmin = calloc(cols, sizeof(double)),
	       *cmax = calloc(cols, sizeof(double)), *xs = calloc(cols, sizeof(double)),
	       *tmp = calloc(s->n / (cols ? cols : 1) + 2, sizeof(double));
	if (cols && med && cmin && cmax && xs && tmp) {
		for (size_t c = 0; c < cols; c++) {
			size_t lo_i = c * s->n / cols, hi_i = (c + 1) * s->n / cols;
			cmin[c] = INFINITY;
			cmax[c] = -INFINITY;
			for (size_t i = lo_i; i < hi_i; i++) {
				tmp[i - lo_i] = s->points[i].median;
				cmin[c] = fmin(cmin[c], s->points[i].min);
				cmax[c] = fmax(cmax[c], s->points[i].max);
			}
			med[c] = stats_median(tmp, hi_i - lo_i);
			xs[c] = (SX(lo_i) + SX(hi_i - 1)) / 2;
		}
		svg_raw(out, "<path class=\"spread\" fill=\"#4C72B0\" fill-opacity=\".2\" d=\"");
		for (size_t c = 0; c < cols; c++)
			svg_printf(out, "%s%.1f %.1f", c ? "L" : "M", xs[c], SY(cmax[c]));
		for (size_t c = cols; c-- > 0;)
			svg_printf(out, "L%.1f %.1f", xs[c], SY(cmin[c]));
		svg_raw(out, "Z\"/>\n<polyline class=\"medians\" fill=\"none\" stroke=\"#4C72B0\" stroke-width=\"1.5\" points=\"");
		for (size_t c = 0; c < cols; c++)
			svg_printf(out, "%s%.1f,%.1f", c ? " " : "", xs[c], SY(med[c]));
		svg_raw(out, "\"/>\n");
	}
	free(med);
	free(cmin);
	free(cmax);
	free(xs);
	free(tmp);
	/* markers with a link to the run's report: where report_site_linked says */
	for (size_t i = 0; i < s->n; i++) {
		if (!report_site_linked(s, i, all_runs))
			continue;
		const struct detect_point *p = &s->points[i];
		double x = SX(i);
		if (p->max > p->min)
			svg_printf(out, "<line class=\"whisker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x,
				   SY(p->min), SY(p->max));
		svg_printf(out, "<a href=\"runs/%" PRId64 ".html\"><circle class=\"dot point\" cx=\"%.1f\" cy=\"%.1f\" "
			   "r=\"3.5\" fill=\"%s\"><title>", p->run_ids[0], x, SY(p->median), report_chart_palette[1]);
		svg_textf(out, "%s, %zu run%s: median %s", detect_text_point(p, pt, sizeof(pt)), p->n,
			  p->n == 1 ? "" : "s", compare_text_value(s->metric, p->median, val, sizeof(val)));
		svg_raw(out, "</title></circle></a>\n");
	}
#undef SX
#undef SY
	svg_raw(out, "</svg>\n</figure>\n");
}

void report_site_bench(const struct detect_series *s, size_t from, size_t to, const struct detect_context *c,
		       int all_runs, struct svg *out)
{
	report_page_begin(out, s[from].bench);
	svg_raw(out, "<p><a href=\"index.html\">&larr; all benchmarks</a></p>\n<h1><code>");
	svg_text(out, s[from].bench);
	svg_raw(out, "</code></h1>\n");
	report_site_header(out, c);
	for (size_t i = from; i < to; i++) {
		report_site_chart(out, &s[i], i - from + 1, all_runs);
		for (size_t k = 0; k < s[i].cp.n; k++) {
			char *start, *run;
			if (!detect_text_bisect(&s[i], k, &start, &run))
				continue;
			svg_raw(out, "<p class=\"note\">To find the commit of this regression:</p>\n<pre><code>");
			svg_text(out, start);
			svg_raw(out, "\n");
			svg_text(out, run);
			svg_raw(out, "</code></pre>\n");
			free(start);
			free(run);
		}
	}
	report_page_end(out);
}
