/* report_chart: ticks, downsampling, time-series charts and the Gantt strip (see report_chart.h).
 *
 * A record may hold any finite number (1e308 is valid JSON). Every loop here
 * is bounded by a count, never by adding a step to a double (1e308 + step ==
 * 1e308); values and spans are clamped to ±REPORT_CHART_VALUE_MAX before any
 * arithmetic, coordinates to a few chart widths, and a chart that clamped
 * something says so in a line under its title.
 */
#include "export/report_chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "stats/stats.h"
#include "util/units.h"
#include "util/xalloc.h"

/* Clamps v to ±REPORT_CHART_VALUE_MAX, counting the values that were beyond it. NaN stays NaN. */
static double report_chart_clamp(double v, size_t *clamped)
{
	if (v > REPORT_CHART_VALUE_MAX || v < -REPORT_CHART_VALUE_MAX) {
		(*clamped)++;
		return v > 0 ? REPORT_CHART_VALUE_MAX : -REPORT_CHART_VALUE_MAX;
	}
	return v;
}

/* An SVG coordinate kept within a few chart widths (and never NaN), so
 * whatever the value, the markup holds short, finite numbers. */
static double report_chart_coord(double c)
{
	if (isnan(c))
		return 0;
	return c < -4 * REPORT_CHART_W ? -4 * REPORT_CHART_W : c > 4 * REPORT_CHART_W ? 4 * REPORT_CHART_W : c;
}

/* The number of steps of size step that fit in span, at most REPORT_CHART_TICKS_MAX
 * (-1 when step is no usable step). */
static int report_chart_ticks(double span, double step)
{
	if (!(step > 0) || !isfinite(step) || !(span >= 0) || !isfinite(span))
		return -1;
	double k = floor(span / step + 1e-9);
	return k > REPORT_CHART_TICKS_MAX ? REPORT_CHART_TICKS_MAX : (int)k;
}

/* The note under a chart's title when values were beyond what it can draw. */
static void report_chart_clamp_note(struct svg *s, size_t clamped)
{
	if (clamped)
		svg_printf(s, "<text class=\"clamped\" x=\"8\" y=\"30\">%zu value%s beyond \u00b1%.0e drawn at "
			   "the limit</text>\n", clamped, clamped == 1 ? "" : "s", REPORT_CHART_VALUE_MAX);
}

const char *const report_chart_palette[8] = {
	"#000000", "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442",
};

size_t report_chart_downsample(const double *t, const double *v, size_t n, double t0, double t1,
			       size_t buckets, struct report_point *out)
{
	size_t k = 0;
	double width = t1 > t0 ? t1 - t0 : 1;
	long cur = -1;
	size_t imin = 0, imax = 0;
	for (size_t i = 0; i <= n; i++) {
		long b = -1;
		if (i < n) {
			if (isnan(v[i]))
				continue;
			double f = (t[i] - t0) / width * (double)buckets;
			b = !(f > 0) ? 0 : f >= (double)buckets ? (long)buckets - 1 : (long)f; /* NaN: 0 */
			if (b == cur) {
				if (v[i] < v[imin])
					imin = i;
				if (v[i] > v[imax])
					imax = i;
				continue;
			}
		}
		if (cur >= 0) { /* flush the finished bucket, earlier sample first */
			size_t a = imin < imax ? imin : imax, z = imin < imax ? imax : imin;
			out[k++] = (struct report_point){ t[a], v[a] };
			if (z != a)
				out[k++] = (struct report_point){ t[z], v[z] };
		}
		cur = b;
		imin = imax = i;
	}
	return k;
}

double report_chart_nice_step(double span, int target)
{
	if (!(span > 0) || !isfinite(span) || target < 1)
		return 1;
	double raw = span / target;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	/* a span near DBL_MIN or DBL_MAX: pow underflows to 0 or overflows */
	return step > 0 && isfinite(step) ? step : raw > 0 && isfinite(raw) ? raw : 1;
}

/* The factor from KiB to the unit a KiB axis reaching max is labelled in:
 * 1/1024 (bytes) under 1 KiB, then 1 (KiB), 1024 (MiB), ... up to TiB. */
static double report_chart_kb_scale(double max)
{
	double a = fabs(max), scale = 1;
	if (a > 0 && a < 1)
		return 1.0 / 1024;
	while (a >= 1024 && scale < 1024.0 * 1024 * 1024) {
		a /= 1024;
		scale *= 1024;
	}
	return scale;
}

double report_chart_axis_step(enum report_unit unit, double lo, double hi, int target)
{
	if (unit != REPORT_UNIT_KB)
		return report_chart_step(unit, hi - lo, target);
	double scale = report_chart_kb_scale(fmax(fabs(lo), fabs(hi)));
	double step = report_chart_nice_step((hi - lo) / scale, target) * scale;
	return scale < 1 ? fmax(step, scale) : step; /* no tick between two whole bytes */
}

double report_chart_step(enum report_unit unit, double span, int target)
{
	if (unit == REPORT_UNIT_MS) {
		static const double steps[] = {
			1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4,
			6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5,
		};
		double raw = span / (target > 0 ? target : 1);
		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			if (steps[i] >= raw && raw >= 1)
				return steps[i];
		if (raw < 1)
			return report_chart_nice_step(span, target);
		return report_chart_nice_step(span / 864e5, target) * 864e5;
	}
	if (unit == REPORT_UNIT_KB) {
		double scale = 1;
		while (span / scale >= 1024 && scale < 1024.0 * 1024 * 1024)
			scale *= 1024;
		return report_chart_nice_step(span / scale, target) * scale;
	}
	if (unit == REPORT_UNIT_COUNT) /* no tick between two whole counts */
		return fmax(1, report_chart_nice_step(span, target));
	return report_chart_nice_step(span, target);
}

char *report_chart_tick_label(enum report_unit unit, double v, double max, char *buf, size_t n)
{
	static const char *kb[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *rate[] = { "/s", " k/s", " M/s", " G/s" }, *cnt[] = { "", " k", " M", " G" };
	double a = fabs(max);
	int i = 0;
	switch (unit) {
	case REPORT_UNIT_KB: {
		double scale = report_chart_kb_scale(max);
		for (double f = scale; f >= 1; f /= 1024)
			i++;
		snprintf(buf, n, "%.4g %s", v / scale, kb[i]);
		break;
	}
	case REPORT_UNIT_MS:
		if (a < 2000)
			snprintf(buf, n, "%.4g ms", v);
		else if (a < 120000)
			snprintf(buf, n, "%.4g s", v / 1e3);
		else if (a < 7200000)
			snprintf(buf, n, "%.4g min", v / 6e4);
		else
			snprintf(buf, n, "%.4g h", v / 36e5);
		break;
	case REPORT_UNIT_RATE:
	case REPORT_UNIT_COUNT:
		while (a >= 1000 && i < 3) {
			a /= 1000;
			v /= 1000;
			i++;
		}
		snprintf(buf, n, "%.4g%s", v, unit == REPORT_UNIT_RATE ? rate[i] : cnt[i]);
		break;
	case REPORT_UNIT_PCT:
		snprintf(buf, n, "%.4g %%", v);
		break;
	default:
		snprintf(buf, n, "%.4g", v);
	}
	if (v == 0 && unit != REPORT_UNIT_PCT)
		snprintf(buf, n, "0");
	return buf;
}

char *report_chart_value(enum report_unit unit, double v, char *buf, size_t n)
{
	char t[64];
	if (!isfinite(v)) {
		snprintf(buf, n, "\u2013");
		return buf;
	}
	switch (unit) {
	case REPORT_UNIT_COUNT:
		return units_count(v, buf, n);
	case REPORT_UNIT_KB:
		return units_kb(v, buf, n);
	case REPORT_UNIT_MS:
		return units_ms(v, buf, n);
	case REPORT_UNIT_RATE:
		snprintf(buf, n, "%s/s", units_count(v, t, sizeof(t)));
		return buf;
	case REPORT_UNIT_PCT:
		snprintf(buf, n, "%.1f %%", v);
		return buf;
	default:
		snprintf(buf, n, "%.4g", v);
		return buf;
	}
}

double report_chart_x(double t_ms, double t_max_ms)
{
	double span = t_max_ms > 0 ? fmin(t_max_ms, REPORT_CHART_VALUE_MAX) : 1;
	return report_chart_coord(REPORT_CHART_LEFT + t_ms / span * REPORT_CHART_PLOT_W);
}

double report_chart_t_max(double t_max_ms, size_t *clamped)
{
	if (!(t_max_ms > 0))
		return 1;
	return report_chart_clamp(t_max_ms, clamped);
}

double report_chart_y_max(const struct report_chart *c)
{
	double max = 0;
	for (size_t s = 0; s < c->nseries; s++)
		for (size_t i = 0; i < c->n; i++)
			if (!isnan(c->series[s].v[i]) && c->series[s].v[i] > max)
				max = c->series[s].v[i];
	if (c->marker && c->marker_v > max)
		max = c->marker_v;
	if (!(max > 0))
		max = 1;
	if (max > REPORT_CHART_VALUE_MAX)
		max = REPORT_CHART_VALUE_MAX;
	double step = report_chart_step(c->unit, max, 5);
	return ceil(max / step - 1e-9) * step;
}

static double report_chart_y(double v, double y_max)
{
	double plot_h = REPORT_CHART_H - REPORT_CHART_TOP - REPORT_CHART_BOTTOM;
	return report_chart_coord(REPORT_CHART_TOP + (1 - v / y_max) * plot_h);
}

static const char *report_chart_unit_name(enum report_unit u)
{
	static const char *names[] = { "kb", "ms", "rate", "pct", "plain", "count" };
	return names[u];
}

/* Vertical gridlines and labels of the shared time axis, at y_axis. */
void report_chart_time_axis(struct svg *s, double t_max_ms, double y_top, double y_axis)
{
	char lab[64];
	double step = report_chart_step(REPORT_UNIT_MS, t_max_ms, 8);
	int ticks = report_chart_ticks(t_max_ms, step);
	for (int i = 0; i <= ticks; i++) {
		double t = i * step;
		double x = report_chart_x(t, t_max_ms);
		svg_printf(s, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x,
			   y_top, y_axis);
		svg_printf(s, "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x, y_axis + 15,
			   report_chart_tick_label(REPORT_UNIT_MS, t, t_max_ms, lab, sizeof(lab)));
	}
	svg_printf(s, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
		   REPORT_CHART_LEFT, REPORT_CHART_W - REPORT_CHART_RIGHT, y_axis, y_axis);
}

static void report_chart_hover_data(struct svg *s, const struct report_chart *c)
{
	size_t stride = c->n > 2048 ? (c->n + 2047) / 2048 : 1;
	json_t *root = json_object(), *t = json_array(), *ser = json_array();
	for (size_t i = 0; i < c->n; i += stride) /* one entry per sample, finite or null */
		json_array_append_new(t, isfinite(c->t_ms[i]) ? json_real(c->t_ms[i]) : json_null());
	for (size_t k = 0; k < c->nseries; k++) {
		json_t *v = json_array();
		for (size_t i = 0; i < c->n; i += stride)
			json_array_append_new(v, !isfinite(c->series[k].v[i]) ? json_null()
									      : json_real(c->series[k].v[i]));
		json_array_append_new(ser, json_pack("{s:s, s:s, s:o}", "n", c->series[k].name, "c",
						     c->series[k].color, "v", v));
	}
	json_object_set_new(root, "t", t);
	json_object_set_new(root, "s", ser);
	json_object_set_new(root, "u", json_string(report_chart_unit_name(c->unit)));
	/* JSON_ESCAPE_SLASH: no "</script>" can appear inside the data. */
	char *txt = json_dumps(root, JSON_COMPACT | JSON_ESCAPE_SLASH | JSON_REAL_PRECISION(8));
	svg_raw(s, "<script type=\"application/json\" class=\"hover-data\">");
	svg_raw(s, txt ? txt : "{}");
	svg_raw(s, "</script>\n");
	free(txt);
	json_decref(root);
}

/* Values of c beyond ±REPORT_CHART_VALUE_MAX (drawn at the limit). */
static size_t report_chart_count_clamped(const struct report_chart *c)
{
	size_t clamped = 0;
	for (size_t i = 0; i < c->n; i++) {
		report_chart_clamp(c->t_ms[i], &clamped);
		for (size_t k = 0; k < c->nseries; k++)
			report_chart_clamp(c->series[k].v[i], &clamped);
	}
	if (c->marker) {
		report_chart_clamp(c->marker_v, &clamped);
		report_chart_clamp(c->marker_t_ms, &clamped);
	}
	return clamped;
}

/* The first series' envelope: a polygon along the most of each pixel's
 * rows, back along their least. */
static void report_chart_band(struct svg *s, const struct report_chart *c, double t_max_ms, double y_max)
{
	struct report_point *hi = xcalloc(2 * REPORT_CHART_PLOT_W + 2, sizeof(*hi));
	struct report_point *lo = xcalloc(2 * REPORT_CHART_PLOT_W + 2, sizeof(*lo));
	size_t nh = report_chart_downsample(c->t_ms, c->band_hi, c->n, 0, t_max_ms, REPORT_CHART_PLOT_W, hi);
	size_t nl = report_chart_downsample(c->t_ms, c->band_lo, c->n, 0, t_max_ms, REPORT_CHART_PLOT_W, lo);
	if (nh && nl) {
		svg_printf(s, "<polygon class=\"envelope\" data-series=\"%s\" fill=\"%s\" points=\"",
			   c->series[0].key, c->series[0].color);
		for (size_t i = 0; i < nh; i++)
			svg_printf(s, "%s%.1f,%.1f", i ? " " : "", report_chart_x(hi[i].t, t_max_ms),
				   report_chart_y(hi[i].v, y_max));
		for (size_t i = nl; i-- > 0;)
			svg_printf(s, " %.1f,%.1f", report_chart_x(lo[i].t, t_max_ms), report_chart_y(lo[i].v, y_max));
		svg_raw(s, "\"/>\n");
	}
	free(hi);
	free(lo);
}

void report_chart_draw(struct svg *s, const struct report_chart *c)
{
	char lab[64];
	double y_max = report_chart_y_max(c);
	double y_axis = REPORT_CHART_H - REPORT_CHART_BOTTOM;
	size_t clamped = report_chart_count_clamped(c);
	double t_max_ms = report_chart_t_max(c->t_max_ms, &clamped);
	svg_printf(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\" data-tmax=\"%.3f\" data-unit=\"%s\">\n",
		   c->id, REPORT_CHART_W, REPORT_CHART_H, t_max_ms, report_chart_unit_name(c->unit));
	if (c->style)
		svg_printf(s, "<style>%s</style>\n", c->style);
	svg_raw(s, "<title>");
	svg_text(s, c->title);
	svg_raw(s, "</title>\n<text class=\"ctitle\" x=\"8\" y=\"18\">");
	svg_text(s, c->title);
	svg_raw(s, "</text>\n");
	report_chart_clamp_note(s, clamped);

	/* legend, right-aligned on the title line */
	double lx = REPORT_CHART_W - REPORT_CHART_RIGHT;
	for (size_t k = c->nseries; k-- > 0;) {
		lx -= 30 + 7.2 * (double)strlen(c->series[k].name);
		svg_printf(s, "<g class=\"legend\"><rect x=\"%.1f\" y=\"9\" width=\"14\" height=\"4\" fill=\"%s\"/>"
			   "<text x=\"%.1f\" y=\"16\">", lx, c->series[k].color, lx + 18);
		svg_text(s, c->series[k].name);
		svg_raw(s, "</text></g>\n");
	}
	if (c->band_lo && c->band_hi && c->nseries) { /* the envelope's entry, left of the lines' */
		lx -= 30 + 7.2 * 7;
		svg_printf(s, "<g class=\"legend\"><rect class=\"envelope\" x=\"%.1f\" y=\"6\" width=\"14\" "
			   "height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"16\">min\u2013max</text></g>\n",
			   lx, c->series[0].color, lx + 18);
	}

	double step = report_chart_step(c->unit, y_max, 5);
	int ticks = report_chart_ticks(y_max, step);
	for (int i = 0; i <= ticks; i++) {
		double v = i * step;
		double y = report_chart_y(v, y_max);
		svg_printf(s, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"ytick\" x=\"%d\" y=\"%.1f\">%s</text>\n",
			   REPORT_CHART_LEFT, REPORT_CHART_W - REPORT_CHART_RIGHT, y, y,
			   REPORT_CHART_LEFT - 6, y + 4,
			   report_chart_tick_label(c->unit, v, y_max, lab, sizeof(lab)));
	}
	report_chart_time_axis(s, t_max_ms, REPORT_CHART_TOP, y_axis);
	svg_printf(s, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%.1f\"/>\n",
		   REPORT_CHART_LEFT, REPORT_CHART_LEFT, REPORT_CHART_TOP, y_axis);

	if (c->band_lo && c->band_hi && c->nseries)
		report_chart_band(s, c, t_max_ms, y_max);
	struct report_point *pts = xcalloc(2 * REPORT_CHART_PLOT_W + 2, sizeof(*pts));
	for (size_t k = 0; k < c->nseries; k++) {
		size_t m = report_chart_downsample(c->t_ms, c->series[k].v, c->n, 0, t_max_ms,
						   REPORT_CHART_PLOT_W, pts);
		svg_printf(s, "<polyline class=\"series\" data-series=\"%s\" stroke=\"%s\"%s points=\"",
			   c->series[k].key, c->series[k].color, k == 0 ? " stroke-width=\"2\"" : "");
		for (size_t i = 0; i < m; i++)
			svg_printf(s, "%s%.1f,%.1f", i ? " " : "", report_chart_x(pts[i].t, t_max_ms),
				   report_chart_y(pts[i].v, y_max));
		svg_raw(s, "\"/>\n");
	}
	free(pts);

	if (c->marker) {
		double x = report_chart_x(c->marker_t_ms, t_max_ms);
		double y = report_chart_y(c->marker_v, y_max);
		int right = x < REPORT_CHART_LEFT + REPORT_CHART_PLOT_W * 0.6;
		svg_printf(s, "<g class=\"peak\"><line class=\"peakline\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			   "y2=\"%.1f\"/><circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"/>"
			   "<text class=\"peaklabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
			   x, x, y, y_axis, x, y, right ? x + 9 : x - 9, y < REPORT_CHART_TOP + 14 ? y + 14 : y - 6,
			   right ? "start" : "end");
		svg_text(s, c->marker_label);
		svg_raw(s, "</text></g>\n");
	}
	svg_printf(s, "<line class=\"cursor\" x1=\"0\" x2=\"0\" y1=\"%d\" y2=\"%.1f\" visibility=\"hidden\"/>"
		   "<rect class=\"hover\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%.1f\" fill=\"transparent\"/>\n",
		   REPORT_CHART_TOP, y_axis, REPORT_CHART_LEFT, REPORT_CHART_TOP, REPORT_CHART_PLOT_W,
		   y_axis - REPORT_CHART_TOP);
	svg_raw(s, "</svg>\n");
	if (c->hover && c->n > 0)
		report_chart_hover_data(s, c);
}

static const char *report_chart_bar_colors[7][2] = {
	{ "#0072B2", "#ffffff" }, { "#E69F00", "#000000" }, { "#009E73", "#ffffff" },
	{ "#56B4E9", "#000000" }, { "#CC79A7", "#000000" }, { "#D55E00", "#ffffff" },
	{ "#F0E442", "#000000" },
};

/* Index of name in the first *n of names, added when there is room (max): else max. */
static size_t report_chart_intern(const char **names, size_t *n, size_t max, const char *name)
{
	size_t j = 0;
	while (j < *n && strcmp(names[j], name))
		j++;
	if (j == *n && *n < max)
		names[(*n)++] = name;
	return j;
}

void report_chart_lanes(struct svg *s, const struct report_bar *bars, size_t n, double t_max_ms)
{
	/* At most REPORT_CHART_LANES_MAX rows and as many colour names: a record
	 * with 100 000 lanes draws in linear time and says what it left out. */
	const char **lanes = xcalloc(REPORT_CHART_LANES_MAX, sizeof(*lanes));
	const char **names = xcalloc(REPORT_CHART_LANES_MAX, sizeof(*names));
	size_t nl = 0, nn = 0, hidden = 0, clamped = 0;
	lanes[nl++] = ""; /* the main row first */
	for (size_t i = 0; i < n; i++)
		if (report_chart_intern(lanes, &nl, REPORT_CHART_LANES_MAX, bars[i].lane) == REPORT_CHART_LANES_MAX)
			hidden++;
	for (size_t i = 0; i < n; i++) {
		report_chart_clamp(bars[i].start_ms, &clamped);
		report_chart_clamp(bars[i].end_ms, &clamped);
	}
	t_max_ms = report_chart_t_max(t_max_ms, &clamped);
	/* each lane takes a row, and one more per nesting depth it holds */
	int *rows_of = xcalloc(REPORT_CHART_LANES_MAX, sizeof(*rows_of)), *row0 = xcalloc(REPORT_CHART_LANES_MAX, sizeof(*row0));
	for (size_t i = 0; i < n; i++) {
		size_t j = report_chart_intern(lanes, &nl, REPORT_CHART_LANES_MAX, bars[i].lane);
		int d = bars[i].depth < 0 ? 0 : bars[i].depth > 3 ? 3 : bars[i].depth;
		if (j < REPORT_CHART_LANES_MAX && d + 1 > rows_of[j])
			rows_of[j] = d + 1;
	}
	int nrows = 0;
	for (size_t j = 0; j < nl; j++) {
		row0[j] = nrows;
		nrows += rows_of[j] ? rows_of[j] : 1;
	}
	const int row_h = 26, top = 30;
	double y_axis = top + (double)nrows * row_h + 4;
	int h = (int)y_axis + 24;
	svg_printf(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart lanes\" id=\"lanes\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\" data-tmax=\"%.3f\">\n"
		   "<title>Phases</title><text class=\"ctitle\" x=\"8\" y=\"18\">Phases</text>\n",
		   REPORT_CHART_W, h, t_max_ms);
	report_chart_clamp_note(s, clamped);
	if (hidden)
		svg_printf(s, "<text class=\"clamped\" x=\"%d\" y=\"18\" text-anchor=\"end\">%zu phase%s in "
			   "lanes past the first %d not drawn (see the tables)</text>\n", REPORT_CHART_W - REPORT_CHART_RIGHT,
			   hidden, hidden == 1 ? "" : "s", REPORT_CHART_LANES_MAX);
	report_chart_time_axis(s, t_max_ms, top, y_axis);
	for (size_t j = 0; j < nl; j++) {
		double y_lane = top + (double)row0[j] * row_h;
		svg_printf(s, "<text class=\"lane\" x=\"%d\" y=\"%.1f\">", REPORT_CHART_LEFT - 6, y_lane + 17);
		svg_text(s, lanes[j][0] ? lanes[j] : "main");
		svg_raw(s, "</text>\n");
		for (size_t i = 0; i < n; i++) {
			if (strcmp(bars[i].lane, lanes[j]))
				continue;
			int depth = bars[i].depth < 0 ? 0 : bars[i].depth > 3 ? 3 : bars[i].depth;
			double y = y_lane + (double)depth * row_h;
			/* one colour per phase name, whatever its lane (past the cap: the last) */
			size_t c = report_chart_intern(names, &nn, REPORT_CHART_LANES_MAX, bars[i].name);
			const char *const *col = report_chart_bar_colors[c % 7];
			double x0 = report_chart_x(bars[i].start_ms, t_max_ms);
			double x1 = report_chart_x(bars[i].end_ms, t_max_ms);
			double w = x1 - x0 < 1 ? 1 : x1 - x0;
			char d[64];
			units_ms(bars[i].end_ms - bars[i].start_ms, d, sizeof(d));
			if (bars[i].href) {
				svg_raw(s, "<a href=\"");
				svg_text(s, bars[i].href);
				svg_raw(s, "\">");
			}
			svg_printf(s, "<g class=\"bar\"><title>");
			svg_textf(s, "%s%s%s: %s (%.0f ms \u2192 %.0f ms)", bars[i].name, lanes[j][0] ? " @ " : "",
				  lanes[j], d, bars[i].start_ms, bars[i].end_ms);
			svg_printf(s, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
				   x0, y + 2, w, row_h - 4, col[0]);
			if (w > 6.5 * (double)strlen(bars[i].name) + 8) {
				svg_printf(s, "<text class=\"barlabel\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", x0 + 4,
					   y + 17, col[1]);
				svg_text(s, bars[i].name);
				svg_raw(s, "</text>");
			}
			svg_raw(s, bars[i].href ? "</g></a>\n" : "</g>\n");
		}
	}
	svg_raw(s, "</svg>\n");
	free(rows_of);
	free(row0);
	free(lanes);
	free(names);
}

/* A value axis over [lo, hi] along the plot width, with gridlines down to y_axis. */
struct report_chart_scale {
	double lo, hi;
};

static double report_chart_sx(const struct report_chart_scale *sc, double v)
{
	v = fmax(sc->lo, fmin(sc->hi, v)); /* values are within the clamped scale */
	return report_chart_coord(REPORT_CHART_LEFT + 140 +
				  (v - sc->lo) / (sc->hi - sc->lo) * (REPORT_CHART_PLOT_W - 140 - 150));
}

static void report_chart_value_axis(struct svg *s, struct report_chart_scale *sc, enum report_unit unit,
				    double y_top, double y_axis)
{
	char lab[64];
	size_t clamped = 0; /* the caller clamped and flagged the values */
	sc->lo = report_chart_clamp(sc->lo, &clamped);
	sc->hi = report_chart_clamp(sc->hi, &clamped);
	if (!(sc->hi > sc->lo)) {
		double pad = fabs(sc->lo) > 0 ? fabs(sc->lo) * 0.05 : 1;
		sc->lo -= pad;
		sc->hi += pad;
	}
	/* the step is a round number in the unit the labels use */
	double step = report_chart_axis_step(unit, sc->lo, sc->hi, 6);
	double amax = fmax(fabs(sc->lo), fabs(sc->hi));
	if (!(step > 0) || !isfinite(step))
		step = 1;
	sc->lo = floor(sc->lo / step) * step;
	sc->hi = ceil(sc->hi / step) * step;
	int ticks = report_chart_ticks(sc->hi - sc->lo, step);
	for (int i = 0; i <= ticks; i++) {
		double v = sc->lo + i * step;
		double x = report_chart_sx(sc, v);
		svg_printf(s, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x, x, y_top, y_axis, x,
			   y_axis + 15, report_chart_tick_label(unit, fabs(v) < step * 1e-9 ? 0 : v, amax, lab,
								 sizeof(lab)));
	}
	svg_printf(s, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
		   report_chart_sx(sc, sc->lo), report_chart_sx(sc, sc->hi), y_axis, y_axis);
}

static void report_chart_open(struct svg *s, const char *id, const char *title, int h)
{
	svg_printf(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" viewBox=\"0 0 %d %d\" "
		   "role=\"img\"><title>", id, REPORT_CHART_W, h);
	svg_text(s, title);
	svg_raw(s, "</title><text class=\"ctitle\" x=\"8\" y=\"18\">");
	svg_text(s, title);
	svg_raw(s, "</text>\n");
}

/* Characters of a row label that fit left of the plot (about 6.6 px each at
 * the chart's font, in the 206 px there): a longer name keeps its end, where
 * commands differ (their arguments), after a "…", and shows whole on hover. */
#define REPORT_CHART_LABEL_CHARS 28

static void report_chart_row_label(struct svg *s, double y, const char *name)
{
	size_t chars = 0;
	const char *tail = name + strlen(name);
	for (const char *p = tail; p > name && chars < REPORT_CHART_LABEL_CHARS;) {
		p--;
		if (((unsigned char)*p & 0xC0) != 0x80) { /* the first byte of a UTF-8 character */
			chars++;
			tail = p;
		}
	}
	svg_printf(s, "<text class=\"lane\" x=\"%d\" y=\"%.1f\">", REPORT_CHART_LEFT + 130, y + 4);
	if (tail > name) {
		svg_raw(s, "<title>");
		svg_text(s, name);
		svg_raw(s, "</title>\u2026");
	}
	svg_text(s, tail);
	svg_raw(s, "</text>\n");
}

void report_chart_strips(struct svg *s, const char *id, const char *title, enum report_unit unit,
			 const struct report_strip *rows, size_t n)
{
	const int row_h = 44, top = 34;
	double y_axis = top + (double)n * row_h;
	struct report_chart_scale sc = { INFINITY, -INFINITY };
	size_t clamped = 0;
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < rows[r].n; i++) {
			double v = report_chart_clamp(rows[r].v[i], &clamped);
			sc.lo = fmin(sc.lo, v);
			sc.hi = fmax(sc.hi, v);
		}
	if (!isfinite(sc.lo))
		sc.lo = sc.hi = 0;
	report_chart_open(s, id, title, (int)y_axis + 26);
	report_chart_clamp_note(s, clamped);
	report_chart_value_axis(s, &sc, unit, top, y_axis);
	char a[64], b[64];
	for (size_t r = 0; r < n; r++) {
		double y = top + (double)r * row_h + row_h / 2.0;
		report_chart_row_label(s, y, rows[r].name);
		if (rows[r].n == 0)
			continue;
		const double *v = rows[r].v;
		double q1 = stats_quantile(v, rows[r].n, 0.25), q3 = stats_quantile(v, rows[r].n, 0.75);
		double med = stats_median(v, rows[r].n);
		double lo = stats_min(v, rows[r].n), hi = stats_max(v, rows[r].n);
		svg_printf(s, "<line class=\"whisker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\"/>"
			   "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
			   report_chart_sx(&sc, lo), report_chart_sx(&sc, hi), y, y,
			   report_chart_sx(&sc, q1), y - 8, fmax(1, report_chart_sx(&sc, q3) - report_chart_sx(&sc, q1)),
			   report_chart_sx(&sc, med), report_chart_sx(&sc, med), y - 10, y + 10);
		for (size_t i = 0; i < rows[r].n; i++) {
			double jitter = fmod((double)i * 0.618034, 1.0) * 20 - 10; /* deterministic */
			svg_printf(s, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>",
				   report_chart_sx(&sc, rows[r].v[i]), y + jitter, report_chart_palette[1 + r % 7]);
			svg_textf(s, "run %zu: %s", i + 1, report_chart_value(unit, rows[r].v[i], a, sizeof(a)));
			svg_raw(s, "</title></circle>");
		}
		svg_printf(s, "\n<text x=\"%.1f\" y=\"%.1f\">median ", report_chart_sx(&sc, sc.hi) + 10, y + 4);
		svg_textf(s, "%s (n=%zu)", report_chart_value(unit, med, b, sizeof(b)), rows[r].n);
		svg_raw(s, "</text>\n");
	}
	svg_raw(s, "</svg>\n");
}

void report_chart_hbars(struct svg *s, const char *id, const char *title, enum report_unit unit,
			const struct report_hbar *bars, size_t n, double band)
{
	const int row_h = 30, top = 34;
	double y_axis = top + (double)n * row_h;
	size_t clamped = 0, band_clamped = 0;
	band = isfinite(band) ? fabs(report_chart_clamp(band, &band_clamped)) : 0;
	struct report_chart_scale sc = { -band, band };
	for (size_t i = 0; i < n; i++) {
		double v[3] = { bars[i].v, bars[i].lo, bars[i].hi };
		for (int k = 0; k < 3; k++)
			if (isfinite(v[k])) {
				sc.lo = fmin(sc.lo, report_chart_clamp(v[k], &clamped));
				sc.hi = fmax(sc.hi, report_chart_clamp(v[k], &clamped));
			}
	}
	clamped = clamped / 2 + band_clamped; /* each value was counted for lo and for hi */
	sc.lo = fmin(sc.lo, 0);
	sc.hi = fmax(sc.hi, 0);
	report_chart_open(s, id, title, (int)y_axis + 26);
	report_chart_clamp_note(s, clamped);
	report_chart_value_axis(s, &sc, unit, top, y_axis);
	if (band > 0)
		svg_printf(s, "<rect class=\"band\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" "
			   "fill=\"#000\" fill-opacity=\"0.06\"><title>threshold \u00b1%.4g</title></rect>\n",
			   report_chart_sx(&sc, -band), top, report_chart_sx(&sc, band) - report_chart_sx(&sc, -band),
			   y_axis - top, band);
	double x0 = report_chart_sx(&sc, 0);
	for (size_t i = 0; i < n; i++) {
		double y = top + (double)i * row_h + row_h / 2.0;
		double x1 = report_chart_sx(&sc, isfinite(bars[i].v) ? bars[i].v : 0);
		report_chart_row_label(s, y, bars[i].name);
		svg_printf(s, "<g class=\"hbar\"><title>");
		svg_textf(s, "%s: %s", bars[i].name, bars[i].label);
		svg_printf(s, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"14\" fill=\"%s\"/>",
			   fmin(x0, x1), y - 7, fmax(1, fabs(x1 - x0)), bars[i].color);
		if (isfinite(bars[i].lo) && isfinite(bars[i].hi)) {
			double a = report_chart_sx(&sc, bars[i].lo), b = report_chart_sx(&sc, bars[i].hi);
			svg_printf(s, "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fV%.1f\"/>",
				   a, y - 9, y + 9, a, y, b, b, y - 9, y + 9);
		}
		svg_printf(s, "</g><text x=\"%.1f\" y=\"%.1f\">", report_chart_sx(&sc, sc.hi) + 10, y + 4);
		svg_text(s, bars[i].label);
		svg_raw(s, "</text>\n");
	}
	svg_printf(s, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\"/>\n</svg>\n", x0, x0, top,
		   y_axis);
}
