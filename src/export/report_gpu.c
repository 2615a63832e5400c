/* report_gpu: each device's kernels and copies as lanes under the phases.
 *
 * A run can hold tens of thousands of kernels (the record keeps the 20 000
 * longest): drawing each would make the page as large as the trace and no
 * more readable at 2 px a bucket. So the time axis is cut into buckets of two
 * pixels; each slice adds its time to the buckets it covers (linear in the
 * slices and the buckets), and neighbouring busy buckets whose longest slice
 * has the same name are drawn as one rectangle, shaded by how busy it was,
 * its tooltip giving the busy share, the slices started and the longest.
 */
#include "export/report_gpu.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/report_chart.h"
#include "export/report_page.h"
#include "util/units.h"
#include "util/xalloc.h"

#define GPU_DEVICES 64
#define GPU_ROWS (2 * GPU_DEVICES)                 /* kernels and copies of each device */
#define GPU_BUCKETS (REPORT_CHART_PLOT_W / 2)

struct gpu_row {
	double busy_ms[GPU_BUCKETS];   /* slice time inside the bucket, concurrent slices each counted */
	double top_ms[GPU_BUCKETS];    /* the largest one slice's time there */
	const char *top[GPU_BUCKETS];  /* and its name */
	unsigned started[GPU_BUCKETS];
};

static void add_slice(struct gpu_row *r, const char *name, double a, double b, double bucket_ms)
{
	long b0 = (long)floor(a / bucket_ms), b1 = (long)floor(b / bucket_ms);
	if (b1 < 0 || b0 >= GPU_BUCKETS)
		return;
	r->started[b0 < 0 ? 0 : b0]++;
	for (long k = b0 < 0 ? 0 : b0; k <= b1 && k < GPU_BUCKETS; k++) {
		double lo = fmax(a, (double)k * bucket_ms), hi = fmin(b, (double)(k + 1) * bucket_ms);
		double ms = hi > lo ? hi - lo : 0;
		r->busy_ms[k] += ms;
		if (!r->top[k] || ms > r->top_ms[k]) {
			r->top[k] = name;
			r->top_ms[k] = ms;
		}
	}
}

/* One row: runs of busy buckets whose longest slice has one name. */
static void draw_row(struct svg *s, const struct gpu_row *r, bool kernels, double y, double h, double bucket_ms,
		     double t_max_ms)
{
	const char *fill = report_chart_palette[kernels ? 5 : 1];
	for (long k = 0; k < GPU_BUCKETS;) {
		if (!r->top[k]) {
			k++;
			continue;
		}
		long e = k + 1;
		double busy = r->busy_ms[k];
		unsigned started = r->started[k];
		while (e < GPU_BUCKETS && r->top[e] && !strcmp(r->top[e], r->top[k])) {
			busy += r->busy_ms[e];
			started += r->started[e++];
		}
		double a = (double)k * bucket_ms, b = fmin((double)e * bucket_ms, t_max_ms);
		double x0 = report_chart_x(a, t_max_ms), x1 = report_chart_x(b, t_max_ms);
		double share = b > a ? fmin(busy / (b - a), 1) : 1;
		char from[32], to[32], busy_txt[32];
		svg_raw(s, "<g class=\"bar\"><title>");
		svg_textf(s, "%s %s \u2192 %s: busy %s (%.0f %%), %u started; longest there: %s", kernels ? "kernels" : "copies",
			  units_ms(a, from, sizeof(from)), units_ms(b, to, sizeof(to)),
			  units_ms(busy, busy_txt, sizeof(busy_txt)), 100 * share, started, r->top[k]);
		svg_printf(s, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\" "
			      "fill-opacity=\"%.2f\"/>",
			   x0, y + 2, fmax(x1 - x0, 1), h - 4, fill, 0.25 + 0.75 * share);
		if (x1 - x0 > 6.5 * (double)strlen(r->top[k]) + 8) {
			svg_printf(s, "<text class=\"barlabel\" x=\"%.1f\" y=\"%.1f\">", x0 + 4, y + h - 9);
			svg_text(s, r->top[k]);
			svg_raw(s, "</text>");
		}
		svg_raw(s, "</g>\n");
		k = e;
	}
}

void report_gpu_lanes(const json_t *rec, struct svg *s, double t_max_ms)
{
	const json_t *gt = json_object_get(rec, "gpu_trace"), *slices = json_object_get(gt, "slices");
	if (!json_array_size(slices))
		return;
	size_t clamped = 0;
	t_max_ms = report_chart_t_max(t_max_ms, &clamped);
	double bucket_ms = t_max_ms / GPU_BUCKETS;
	struct gpu_row **rows = xcalloc(GPU_ROWS, sizeof(*rows));
	size_t i, drawn = 0;
	const json_t *sl;
	json_array_foreach(slices, i, sl) {
		json_int_t dev = json_integer_value(json_array_get(sl, 0));
		const char *kind = json_string_value(json_array_get(sl, 1));
		const char *name = json_string_value(json_array_get(sl, 2));
		double a = json_number_value(json_array_get(sl, 3)), d = json_number_value(json_array_get(sl, 4));
		if (!kind || !name || dev < 0 || dev >= GPU_DEVICES || !(d >= 0) || !(fabs(a) < 1e12 && d < 1e12))
			continue;
		size_t row = (size_t)dev * 2 + (strcmp(kind, "kernel") != 0);
		if (!rows[row])
			rows[row] = xcalloc(1, sizeof(**rows));
		add_slice(rows[row], name, a, a + d, bucket_ms);
		drawn++;
	}
	size_t nrows = 0;
	for (size_t r = 0; r < GPU_ROWS; r++)
		nrows += rows[r] != NULL;
	const double row_h = 26, top = 30, y_axis = top + (double)nrows * row_h + 4;
	svg_printf(s, "<figure>\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart lanes\" id=\"gpu-lanes\" "
		      "viewBox=\"0 0 %d %.0f\" role=\"img\" data-tmax=\"%.3f\">\n"
		      "<title>GPU (--gpu-trace)</title><text class=\"ctitle\" x=\"8\" y=\"18\">GPU (--gpu-trace): kernels "
		      "and copies</text>\n",
		   REPORT_CHART_W, y_axis + 24, t_max_ms);
	report_chart_time_axis(s, t_max_ms, top, y_axis);
	double y = top;
	for (size_t r = 0; r < GPU_ROWS; r++) {
		if (!rows[r])
			continue;
		/* the margin holds "GPU 0" and "copies", not "GPU 0 kernels" */
		if (r % 2)
			svg_printf(s, "<text class=\"lane\" x=\"%d\" y=\"%.1f\"><title>GPU %zu: copies</title>copies</text>\n",
				   REPORT_CHART_LEFT - 6, y + 17, r / 2);
		else
			svg_printf(s, "<text class=\"lane\" x=\"%d\" y=\"%.1f\"><title>GPU %zu: kernels</title>GPU %zu</text>\n",
				   REPORT_CHART_LEFT - 6, y + 17, r / 2, r / 2);
		draw_row(s, rows[r], r % 2 == 0, y, row_h, bucket_ms, t_max_ms);
		y += row_h;
		free(rows[r]);
	}
	free(rows);
	svg_raw(s, "</svg>\n");
	char n[32], left[32];
	double left_out = report_page_num(gt, "slices_left_out");
	svg_printf(s, "<figcaption class=\"note\">Each device's kernels (row GPU N) and copies (under it): %s "
		      "slices summed into buckets of %s (a rectangle: neighbouring buckets whose longest slice has "
		      "one name; darker is busier)",
		   units_count((double)drawn, n, sizeof(n)), units_ms(bucket_ms, left, sizeof(left)));
	if (left_out > 0)
		svg_printf(s, "; %s shorter ones are not in the record", units_count(left_out, n, sizeof(n)));
	svg_raw(s, ".</figcaption>\n</figure>\n");
}
