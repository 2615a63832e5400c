/* report_site: the pages of `perfhunt history site`, a static trend site.
 *
 * An index of benchmarks with every change point, regressions first and
 * largest first, and, per benchmark, one chart per metric over the
 * commits: the per-commit medians as one line over a band of their runs'
 * min–max spread, binned to one column per pixel past the chart's width (a
 * page stays tens of KB per chart at 10^5 commits), each segment's median as
 * a line, each change point a dashed line labelled with its shift; a marker
 * with a link to its run's report only on the points either side of a change
 * and the latest commits (every point with --all-runs). A benchmark's charts
 * come regressions first, largest first, so the page opens on what a reader
 * came for; a constant series is a line in a folded list, not a flat chart.
 * Axes step in round numbers of the unit they are labelled in (0.1 MiB, not
 * 0.09766). Pure functions into markup
 * (the command writes the files); the page shell, the escaping and the axis
 * helpers are the report's, so a site page looks and behaves like a report.
 */
#include "export/report_site.h"
#include "export/report_page.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/compare_text.h"
#include "export/detect_text.h"
#include "export/report_chart.h"
#include "stats/metrics.h"
#include "stats/stats.h"
#include "util/xalloc.h"

/* True when every run value of s is a whole number: a count, drawn with
 * whole ticks (a ratio such as parallelism is a "count" by name only). */
static bool report_site_whole(const struct detect_series *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->points[i].n; k++)
			if (s->points[i].values[k] != floor(s->points[i].values[k]))
				return false;
	return true;
}

/* The chart unit of series s (metrics_unit: the unit compare and detect
 * print it in) and the factor from its stored unit. */
static enum report_unit report_site_unit(const struct detect_series *s, double *scale)
{
	*scale = 1;
	switch (metrics_unit(s->metric)) {
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
	return report_site_whole(s) ? REPORT_UNIT_COUNT : REPORT_UNIT_PLAIN;
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

/* A reported change point of the index's table: series i (of benchmark b)'s k-th. */
struct report_site_change {
	size_t b, i, k;
	enum detect_direction d;
	double size; /* |relative change| */
};

/* Regressions, then improvements, then shifts, each largest first. */
static int report_site_change_cmp(const void *a, const void *b)
{
	const struct report_site_change *x = a, *y = b;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->i != y->i ? (x->i < y->i ? -1 : 1) : (x->k < y->k ? -1 : x->k > y->k);
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
	struct report_site_change *ch = NULL;
	size_t nch = 0, cap = 0;
	for (size_t b = 0; b < nbench; b++)
		for (size_t i = starts[b]; i < starts[b + 1]; i++)
			for (size_t k = 0; k < s[i].cp.n; k++) {
				if (!detect_reported(&s[i], k))
					continue;
				xgrow((void **)&ch, &cap, nch + 1, sizeof(*ch));
				double rel = s[i].cp.items[k].rel_change;
				ch[nch++] = (struct report_site_change){ b, i, k, s[i].directions[k],
									 isnan(rel) ? 0 : fabs(rel) };
			}
	qsort(ch, nch, sizeof(*ch), report_site_change_cmp);
	if (nch)
		svg_raw(out, "<table id=\"changes\">\n<tr><th class=\"l\">change</th><th class=\"l\">"
			     "metric</th><th class=\"l\">benchmark</th><th class=\"l\">at</th>"
			     "<th>before</th><th>after</th><th>delta</th><th>p</th></tr>\n");
	for (size_t j = 0; j < nch; j++) {
		size_t b = ch[j].b, i = ch[j].i;
		const struct changepoint *cp = &s[i].cp.items[ch[j].k];
		enum detect_direction d = ch[j].d;
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
	free(ch);
	svg_raw(out, nch ? "</table>\n" : "<p>No change point.</p>\n");
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
static void report_site_chart(struct svg *out, const struct detect_series *s, size_t id, const char *change,
			      int all_runs)
{
	double scale;
	enum report_unit unit = report_site_unit(s, &scale);
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
	double step = report_chart_axis_step(unit, lo, hi, 5), label_max = fmax(fabs(lo), fabs(hi));
	lo = floor(lo / step + 1e-9) * step;
	hi = ceil(hi / step - 1e-9) * step;
	double top = REPORT_CHART_TOP, axis = REPORT_CHART_H - REPORT_CHART_BOTTOM;
#define SX(i) (REPORT_CHART_LEFT + ((double)(i) + 0.5) / (double)s->n * REPORT_CHART_PLOT_W)
#define SY(v) (axis - ((v) * scale - lo) / (hi - lo) * (axis - top))
	svg_printf(out, "<figure id=\"m%zu\" data-change=\"%s\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart trend\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\" data-points=\"%zu\" data-changes=\"%zu\"><title>", id, change,
		   REPORT_CHART_W, REPORT_CHART_H, s->n, s->cp.n);
	svg_text(out, s->metric);
	svg_raw(out, "</title>\n<text class=\"ctitle\" x=\"8\" y=\"18\">");
	svg_text(out, s->metric);
	svg_raw(out, "</text>\n");
	char lab[64], val[64], pt[32];
	double nticks = floor((hi - lo) / step + 1e-9);
	for (int t = 0; t <= (nticks < REPORT_CHART_TICKS_MAX ? (int)nticks : REPORT_CHART_TICKS_MAX); t++) {
		double v = lo + t * step;
		v = fabs(v) < step * 1e-9 ? 0 : v; /* -0.1 + 2 * 0.05 is 1.4e-17, not 0 */
		double y = axis - (v - lo) / (hi - lo) * (axis - top);
		svg_printf(out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"ytick\" x=\"%d\" y=\"%.1f\">%s</text>\n", REPORT_CHART_LEFT,
			   REPORT_CHART_W - REPORT_CHART_RIGHT, y, y, REPORT_CHART_LEFT - 6, y + 4,
			   report_chart_tick_label(unit, v, label_max, lab, sizeof(lab)));
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

/* Where a series stands on its benchmark's page: what changed, regressions
 * first; a constant series is listed apart, not drawn. */
enum report_site_rank {
	REPORT_SITE_REGRESSION,
	REPORT_SITE_IMPROVEMENT,
	REPORT_SITE_SHIFT,
	REPORT_SITE_STEADY,
	REPORT_SITE_CONSTANT,
};

struct report_site_place {
	size_t series;              /* index in the page's series */
	enum report_site_rank rank;
	double size;                /* |relative change| of what ranked it (a change point's, the latest step's) */
	double latest;              /* the latest commit's relative change when that ranked it, else NaN */
};

/* Commits before the latest that tell its move from the noise. */
#define REPORT_SITE_WINDOW 10

/* True when s varies by no more than what its records resolve: every run
 * value equal (counts, KiB and bytes are whole numbers), up to a microsecond
 * for times (records keep milliseconds to three decimals) and the rounding of
 * a double for the rest. */
static bool report_site_constant(const struct detect_series *s)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		lo = fmin(lo, s->points[i].min);
		hi = fmax(hi, s->points[i].max);
	}
	if (!(hi >= lo))
		return true; /* no value at all */
	static const double resolution[] = { [METRICS_MS] = 1e-3, [METRICS_S] = 1e-6, [METRICS_NS] = 1e3 };
	enum metrics_unit u = metrics_unit(s->metric);
	double res = u == METRICS_MS || u == METRICS_S || u == METRICS_NS ? resolution[u] : 0;
	return hi - lo <= fmax(res, 1e-9 * fmax(fabs(lo), fabs(hi)));
}

/* The latest commit's move against the one before, when it is a change: at
 * least the smallest shift detect reports, and beyond the noise of the
 * commits before it (more than 3 scaled MADs from their medians' median;
 * any move when they did not vary). NaN otherwise. Change points need
 * min_segment commits after them: this is what the page can say sooner. */
static double report_site_latest(const struct detect_series *s, const struct detect_context *c)
{
	if (s->n < 4)
		return NAN;
	const struct detect_point *last = &s->points[s->n - 1], *prev = &s->points[s->n - 2];
	if (!(fabs(prev->median) > 0))
		return NAN;
	double rel = (last->median - prev->median) / fabs(prev->median);
	if (!(fabs(rel) >= c->opts.min_magnitude))
		return NAN;
	double before[REPORT_SITE_WINDOW];
	size_t k = 0;
	for (size_t i = s->n - 1; i-- > 0 && k < REPORT_SITE_WINDOW;)
		before[k++] = s->points[i].median;
	double mid = stats_median(before, k), mad = stats_mad(before, k);
	return fabs(last->median - mid) > 3 * mad ? rel : NAN;
}

static struct report_site_place report_site_place(const struct detect_series *s, size_t i,
						  const struct detect_context *c)
{
	struct report_site_place p = { .series = i, .rank = REPORT_SITE_STEADY, .size = 0, .latest = NAN };
	static const enum report_site_rank of[] = { [DETECT_REGRESSION] = REPORT_SITE_REGRESSION,
						    [DETECT_IMPROVEMENT] = REPORT_SITE_IMPROVEMENT,
						    [DETECT_SHIFT] = REPORT_SITE_SHIFT };
	if (report_site_constant(s)) {
		p.rank = REPORT_SITE_CONSTANT;
		return p;
	}
	p.latest = report_site_latest(s, c);
	if (!isnan(p.latest)) { /* newer than any change point (those need commits after them) */
		p.rank = of[detect_direction(s->metric, p.latest)];
		p.size = fabs(p.latest);
		return p;
	}
	for (size_t k = s->cp.n; k-- > 0;)
		if (detect_reported(s, k)) {
			p.rank = of[s->directions[k]];
			p.size = fabs(s->cp.items[k].rel_change); /* "from 0" is infinite: first */
			break;
		}
	return p;
}

/* Regressions, improvements, shifts by size, largest first; then the steady
 * and the constant series in their order. */
static int report_site_cmp(const void *a, const void *b)
{
	const struct report_site_place *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->series < y->series ? -1 : x->series > y->series;
}

static const char *report_site_rank_name(enum report_site_rank r)
{
	static const char *const names[] = { "regression", "improvement", "shift", "none", "constant" };
	return names[r];
}

/* The constant series, folded under one line: each one's value and commits. */
static void report_site_constants(struct svg *out, const struct detect_series *s, const struct report_site_place *pl,
				  size_t n, size_t from)
{
	size_t k = 0;
	while (k < n && pl[k].rank != REPORT_SITE_CONSTANT)
		k++;
	if (k == n)
		return;
	char val[64];
	svg_printf(out, "<details class=\"constant\"><summary>%zu constant series</summary>\n<p class=\"note\">The "
		   "same value at every commit: not drawn.</p>\n<table><tr><th class=\"l\">metric</th><th>value</th>"
		   "<th>commits</th></tr>\n", n - k);
	for (; k < n; k++) {
		const struct detect_series *x = &s[pl[k].series];
		svg_printf(out, "<tr id=\"m%zu\">", pl[k].series - from + 1);
		report_page_cell(out, x->metric, 1);
		report_page_cell(out, x->n ? compare_text_value(x->metric, x->points[0].median, val, sizeof(val)) : "\u2013", 0);
		svg_printf(out, "<td>%zu</td></tr>\n", x->n);
	}
	svg_raw(out, "</table>\n</details>\n");
}

void report_site_bench(const struct detect_series *s, size_t from, size_t to, const struct detect_context *c,
		       int all_runs, struct svg *out)
{
	report_page_begin(out, s[from].bench);
	svg_raw(out, "<p><a href=\"index.html\">&larr; all benchmarks</a></p>\n<h1><code>");
	svg_text(out, s[from].bench);
	svg_raw(out, "</code></h1>\n");
	report_site_header(out, c);
	size_t n = to - from, counts[REPORT_SITE_CONSTANT + 1] = { 0 };
	struct report_site_place *pl = xcalloc(n ? n : 1, sizeof(*pl));
	for (size_t i = from; i < to; i++) {
		pl[i - from] = report_site_place(&s[i], i, c);
		counts[pl[i - from].rank]++;
	}
	qsort(pl, n, sizeof(*pl), report_site_cmp);
	svg_printf(out, "<p class=\"note\">Series by what changed last, regressions first: %zu regressed, %zu "
		   "improved, %zu shifted, %zu unchanged", counts[REPORT_SITE_REGRESSION],
		   counts[REPORT_SITE_IMPROVEMENT], counts[REPORT_SITE_SHIFT], counts[REPORT_SITE_STEADY]);
	if (counts[REPORT_SITE_CONSTANT])
		svg_printf(out, "; %zu constant, listed at the end", counts[REPORT_SITE_CONSTANT]);
	svg_raw(out, ".</p>\n");
	for (size_t j = 0; j < n && pl[j].rank != REPORT_SITE_CONSTANT; j++) {
		size_t i = pl[j].series;
		report_site_chart(out, &s[i], i - from + 1, report_site_rank_name(pl[j].rank), all_runs);
		if (!isnan(pl[j].latest)) {
			char pct[32];
			svg_printf(out, "<p class=\"note %s\">The latest commit: ",
				   pl[j].rank == REPORT_SITE_REGRESSION ? "regressed" : pl[j].rank == REPORT_SITE_IMPROVEMENT
				   ? "improved" : "");
			svg_textf(out, "%s against the previous commit's median, beyond the spread of the commits "
				  "before it; a change point needs %zu commits after it.",
				  compare_text_pct(100 * pl[j].latest, pct, sizeof(pct)), c->opts.min_segment);
			svg_raw(out, "</p>\n");
		}
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
	report_site_constants(out, s, pl, n, from);
	free(pl);
	report_page_end(out);
}
