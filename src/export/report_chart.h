/* report_chart: the drawing primitives of perfhunt's HTML report.
 *
 * Pure functions from numbers to SVG markup: "nice" 1-2-5 ticks, human axis
 * labels, min/max-per-pixel downsampling (so a one-sample spike survives any
 * zoom level), time-series charts on a shared time axis and the phase Gantt
 * strip. Every chart uses the same horizontal geometry (REPORT_CHART_*), so
 * x positions line up from one chart to the next.
 */
#ifndef PERFHUNT_REPORT_CHART_H
#define PERFHUNT_REPORT_CHART_H

#include <stddef.h>
#include "export/svg.h"

#define REPORT_CHART_W 960      /* viewBox width */
#define REPORT_CHART_LEFT 76    /* plot area x range [LEFT, W - RIGHT] */
#define REPORT_CHART_RIGHT 24
#define REPORT_CHART_H 300      /* height of a time-series chart */
#define REPORT_CHART_TOP 34     /* plot area y range [TOP, H - BOTTOM] */
#define REPORT_CHART_BOTTOM 40
#define REPORT_CHART_PLOT_W (REPORT_CHART_W - REPORT_CHART_LEFT - REPORT_CHART_RIGHT)
/* Bounds that keep every chart finite whatever a record holds: values (KiB, ms,
 * counts, %) beyond ±VALUE_MAX are drawn at it and the chart says so; an axis
 * has at most TICKS_MAX + 1 ticks; the Gantt strip at most LANES_MAX rows. */
#define REPORT_CHART_VALUE_MAX 1e15
#define REPORT_CHART_TICKS_MAX 64
#define REPORT_CHART_LANES_MAX 64

/* Okabe–Ito, safe for the common colour-vision deficiencies. */
extern const char *const report_chart_palette[8];

enum report_unit {
	REPORT_UNIT_KB,    /* KiB, labelled B..TiB */
	REPORT_UNIT_MS,    /* durations, labelled ms/s/min/h */
	REPORT_UNIT_RATE,  /* counts per second */
	REPORT_UNIT_PCT,
	REPORT_UNIT_PLAIN,
	REPORT_UNIT_COUNT, /* "1.2 k", "3.4 M" */
};

struct report_point {
	double t, v;
};

/* Writes at most 2 * buckets points of (t, v) (sorted by t; NaN v skipped) into
 * out: the minimum and the maximum of each of the equal-width buckets over
 * [t0, t1], in time order. Returns the number written. */
size_t report_chart_downsample(const double *t, const double *v, size_t n, double t0, double t1,
			       size_t buckets, struct report_point *out);

/* A 1-2-5 step giving about target intervals over span (> 0). */
double report_chart_nice_step(double span, int target);
/* Axis step for values in unit: time steps are 1-2-5 ms/s, then 1-2-5-10-15-30 s/min, 1-2-3-6-12 h. */
double report_chart_step(enum report_unit unit, double span, int target);
/* The step of an axis over [lo, hi]: report_chart_step, but for KiB a round
 * number in the unit report_chart_tick_label gives the axis (B, KiB, MiB, ...:
 * 0.05 MiB, not 50 KiB labelled 0.04883 MiB). */
double report_chart_axis_step(enum report_unit unit, double lo, double hi, int target);
/* Tick label of v on an axis whose largest value is max (one unit for all
 * ticks; bytes under 1 KiB). */
char *report_chart_tick_label(enum report_unit unit, double v, double max, char *buf, size_t n);
/* A value with its unit, for labels and tables ("203.12 GiB", "4.21 s", "3.2 k/s");
 * "–" when v is not finite (a field the record does not have). */
char *report_chart_value(enum report_unit unit, double v, char *buf, size_t n);

/* Vertical gridlines from y_top and the shared time axis at y_axis, labelled. */
void report_chart_time_axis(struct svg *s, double t_max_ms, double y_top, double y_axis);
/* x of time t_ms in a chart spanning [0, t_max_ms]. */
double report_chart_x(double t_ms, double t_max_ms);
/* The time span a chart draws for t_max_ms: 1 when not positive, clamped to
 * REPORT_CHART_VALUE_MAX (counted in *clamped). */
double report_chart_t_max(double t_max_ms, size_t *clamped);

struct report_series {
	const char *name;  /* legend text (escaped) */
	const char *key;   /* short id used for hover data */
	const char *color;
	const double *v;   /* n values, NaN = missing */
};

struct report_chart {
	const char *id, *title;
	enum report_unit unit;
	double t_max_ms;
	size_t n;
	const double *t_ms;
	struct report_series series[8];
	size_t nseries;
	/* the first series' envelope, shaded under the lines where not NULL: each
	 * timeline row's least and most (a merged row's, from its samples) */
	const double *band_lo, *band_hi;
	int marker;                /* draw a peak marker at (marker_t_ms, marker_v) */
	double marker_t_ms, marker_v;
	const char *marker_label;  /* escaped */
	const char *style;         /* CSS put inside the <svg> (standalone files), or NULL */
	int hover;                 /* follow the <svg> with hover data for the page's script */
};

/* y axis top of a chart: the first tick at or above the largest value. */
double report_chart_y_max(const struct report_chart *c);
/* Appends <svg class="chart"> with axes, gridlines, legend, lines and marker. */
void report_chart_draw(struct svg *s, const struct report_chart *c);

struct report_bar {
	const char *name, *lane;  /* lane "" = the main row */
	double start_ms, end_ms;
	int depth;                /* nesting inside the lane's other bars: 0 outermost */
	const char *href;         /* where the bar links to ("#flame-pin"), or NULL */
};
/* Appends the Gantt strip: one row per distinct lane, in first-seen order,
 * and a sub-row under it per nesting depth of its bars (at most 3). */
void report_chart_lanes(struct svg *s, const struct report_bar *bars, size_t n, double t_max_ms);

struct report_strip {
	const char *name;  /* row label (escaped) */
	const double *v;   /* n values, one dot each */
	size_t n;
};
/* Appends a strip plot with a box (quartiles, median, min–max whiskers) per row. */
void report_chart_strips(struct svg *s, const char *id, const char *title, enum report_unit unit,
			 const struct report_strip *rows, size_t n);

struct report_hbar {
	const char *name;   /* row label (escaped) */
	double v;           /* bar from 0 to v */
	double lo, hi;      /* whisker (confidence interval), NaN = none */
	const char *color;
	const char *label;  /* text right of the row (escaped) */
};
/* Appends horizontal bars around a zero line; band > 0 shades [-band, band]. */
void report_chart_hbars(struct svg *s, const char *id, const char *title, enum report_unit unit,
			const struct report_hbar *bars, size_t n, double band);

#endif
