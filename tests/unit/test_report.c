/* test_report: the report's SVG builder, chart primitives and pages.
 *
 * Golden checks on the SVG of the fixture run record (tests/cli/data/report,
 * made by gen.py there): elements and labels present, the peak marker placed
 * where the data puts it, the page-fault storm inside pin_abc, record strings
 * escaped; plus min/max downsampling keeping a one-sample spike among 1 M points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/compare_rows.h"
#include "export/compare_text.h"
#include "export/detect_markdown.h"
#include "export/report.h"
#include "export/report_chart.h"
#include "export/report_site.h"
#include "export/summary.h"
#include "export/svg.h"
#include "util/xalloc.h"

#define FIXTURES "../cli/data/report/"

static json_t *load(const char *name)
{
	json_error_t je;
	json_t *v = json_load_file(name, 0, &je);
	if (!v)
		fail_msg("cannot load %s: %s", name, je.text);
	return v;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Points of the polyline of series key, parsed into xs/ys; returns how many. */
static size_t polyline(const char *doc, const char *key, double *xs, double *ys, size_t cap)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "data-series=\"%s\"", key);
	const char *p = strstr(doc, pat);
	assert_non_null(p);
	p = strstr(p, "points=\"");
	assert_non_null(p);
	p += 8;
	size_t n = 0;
	while (*p != '"' && n < cap) {
		char *end;
		xs[n] = strtod(p, &end);
		assert_int_equal(*end, ',');
		ys[n] = strtod(end + 1, &end);
		n++;
		p = *end == ' ' ? end + 1 : end;
	}
	return n;
}

static double attr(const char *doc, const char *elem_prefix, const char *name)
{
	const char *p = strstr(doc, elem_prefix);
	assert_non_null(p);
	char pat[32];
	snprintf(pat, sizeof(pat), " %s=\"", name);
	p = strstr(p, pat);
	assert_non_null(p);
	return strtod(p + strlen(pat), NULL);
}

/* Renders the fixture record file as an HTML page into s (initialised here). */
static void render(const char *file, struct svg *s)
{
	json_t *rec = load(file);
	struct err e;
	svg_init(s);
	assert_int_equal(report_html(rec, s, &e), 0);
	json_decref(rec);
}

/* Index of the highest point of a polyline (smallest y). */
static size_t highest(const double *ys, size_t n)
{
	size_t top = 0;
	for (size_t i = 1; i < n; i++)
		if (ys[i] < ys[top])
			top = i;
	return top;
}

static void test_escape(void **state)
{
	(void)state;
	struct svg s;
	svg_init(&s);
	svg_text(&s, "<script>alert('x') & \"y\"</script>\x01");
	assert_string_equal(s.buf, "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;?");
	svg_release(&s);
	svg_init(&s);
	for (int i = 0; i < 2000; i++) /* growth past the first allocation */
		svg_textf(&s, "%d<", i % 10);
	assert_int_equal(s.len, 2000 * 5);
	assert_int_equal(strlen(s.buf), s.len);
	svg_release(&s);
}

static void test_downsample_keeps_spike(void **state)
{
	(void)state;
	const size_t n = 1000000;
	double *t = xmalloc(n * sizeof(double)), *v = xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		t[i] = (double)i;
		v[i] = 100 + (double)(i % 7);
	}
	v[654321] = 5000; /* one-sample spike */
	v[123457] = 1;    /* one-sample dip */
	struct report_point *out = xcalloc(1600, sizeof(*out));
	size_t m = report_chart_downsample(t, v, n, 0, (double)n, 800, out);
	assert_true(m <= 1600);
	assert_true(m >= 800);
	double max = 0, min = 1e9, t_max = -1;
	for (size_t i = 0; i < m; i++) {
		if (out[i].v > max) {
			max = out[i].v;
			t_max = out[i].t;
		}
		min = fmin(min, out[i].v);
		if (i)
			assert_true(out[i].t > out[i - 1].t);
	}
	assert_true(max == 5000);
	assert_true(t_max == 654321);
	assert_true(min == 1);
	/* NaN samples (missing values) are skipped, not drawn */
	v[10] = NAN;
	m = report_chart_downsample(t, v, 20, 0, 20, 20, out);
	assert_int_equal(m, 19);
	free(t);
	free(v);
	free(out);
}

static void test_ticks(void **state)
{
	(void)state;
	char b[64];
	assert_true(report_chart_nice_step(10, 5) == 2);
	assert_true(report_chart_nice_step(37, 5) == 10);
	assert_true(fabs(report_chart_nice_step(0.9, 4) - 0.5) < 1e-12);
	assert_true(report_chart_step(REPORT_UNIT_MS, 60012, 8) == 10000);
	assert_true(report_chart_step(REPORT_UNIT_MS, 86400000, 8) == 10800000); /* 24 h: every 3 h */
	assert_true(report_chart_step(REPORT_UNIT_MS, 900, 8) == 200);
	assert_true(report_chart_step(REPORT_UNIT_KB, 217267039, 5) == 50.0 * 1048576);
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_KB, 50.0 * 1048576, 250.0 * 1048576, b, sizeof(b)),
			    "50 GiB");
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_KB, 512, 1536, b, sizeof(b)), "0.5 MiB");
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_MS, 30000, 60012, b, sizeof(b)), "30 s");
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_MS, 10800000, 86400000, b, sizeof(b)), "3 h");
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_MS, 600000, 3600000, b, sizeof(b)), "10 min");
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_RATE, 2e6, 4e6, b, sizeof(b)), "2 M/s");
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_MS, 0, 4e6, b, sizeof(b)), "0");
	/* counts: whole ticks, never 0.5 of a fault; thousands as k */
	assert_true(report_chart_step(REPORT_UNIT_COUNT, 3, 5) == 1);
	assert_true(report_chart_step(REPORT_UNIT_COUNT, 40, 5) == 10);
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_COUNT, 20000, 40000, b, sizeof(b)), "20 k");
	/* an axis from 800 to 1025 KiB is labelled in MiB: its step is 0.05 MiB, not 50 KiB
	 * (labelled 0.7812, 0.8301 MiB ...); under 1 KiB, bytes, whole ones */
	assert_true(report_chart_axis_step(REPORT_UNIT_KB, 800, 1025, 5) == 0.05 * 1024);
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_KB, 0.85 * 1024, 1025, b, sizeof(b)), "0.85 MiB");
	assert_true(report_chart_axis_step(REPORT_UNIT_KB, 3072, 3584, 5) == 0.1 * 1024);
	assert_true(report_chart_axis_step(REPORT_UNIT_KB, 0.1, 0.2, 5) == 50.0 / 1024);
	assert_true(report_chart_axis_step(REPORT_UNIT_KB, 0.001, 0.002, 5) == 1.0 / 1024);
	assert_string_equal(report_chart_tick_label(REPORT_UNIT_KB, 0.5, 0.75, b, sizeof(b)), "512 B");
	assert_true(report_chart_axis_step(REPORT_UNIT_MS, 900, 1300, 5) == report_chart_step(REPORT_UNIT_MS, 400, 5));
}

/* Each phase's resources under its phase's row, the changed first; a group
 * only where a phase has resources; a resource without its phase's row stays. */
static void test_compare_rows(void **state)
{
	(void)state;
	const char *names[] = { "wall_s", "phase:a", "phase:b", "phase:a.b", "user_s", "phase:a.minflt",
				"phase:b.sys_s", "phase:a.b.minflt", "phase:a.sys_s", "phase:gone.minflt" };
	const bool changed[] = { 1, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	enum { N = sizeof(names) / sizeof(*names) };
	struct compare_row rows[N];
	compare_rows_order(names, changed, N, rows);
	const size_t want[N] = { 0, 1, 8, 5, 2, 6, 3, 7, 4, 9 };
	for (size_t i = 0; i < N; i++)
		assert_int_equal(rows[i].metric, want[i]);
	/* phase:a: open (its sys_s changed), 2 resources; phase:b folded; phase:a.b (a phase
	 * whose name holds a dot) heads its own minflt */
	assert_int_equal(rows[1].kind, COMPARE_ROW_PHASE);
	assert_true(rows[1].open);
	assert_int_equal(rows[1].resources, 2);
	assert_int_equal(rows[1].changed, 1);
	assert_int_equal(rows[2].kind, COMPARE_ROW_RESOURCE);
	assert_int_equal(rows[2].group, rows[1].group);
	assert_int_equal(rows[4].kind, COMPARE_ROW_PHASE);
	assert_false(rows[4].open);
	assert_int_equal(rows[6].kind, COMPARE_ROW_PHASE);
	assert_int_equal(rows[7].kind, COMPARE_ROW_RESOURCE);
	assert_int_equal(rows[0].kind, COMPARE_ROW_PLAIN);
	assert_int_equal(rows[9].kind, COMPARE_ROW_PLAIN);
	assert_int_equal(rows[9].group, 0);
}

static void test_memory_svg_golden(void **state)
{
	(void)state;
	json_t *rec = load(FIXTURES "run.json");
	struct svg s;
	svg_init(&s);
	struct err e;
	assert_int_equal(report_memory_svg(rec, &s, &e), 0);
	const char *d = s.buf;
	assert_true(!strncmp(d, "<?xml", 5));
	assert_non_null(strstr(d, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"memory\""));
	assert_non_null(strstr(d, "<style>"));
	assert_null(strstr(d, "<script"));
	static const char *series[] = { "rss", "anon", "file", "shmem", "pss", "gpu" };
	for (size_t i = 0; i < 6; i++) {
		char pat[64];
		snprintf(pat, sizeof(pat), "data-series=\"%s\"", series[i]);
		assert_int_equal(count(d, pat), 1);
	}
	assert_null(strstr(d, "data-series=\"swap\"")); /* all zero in the record: not drawn */
	assert_non_null(strstr(d, ">RSS</text>"));
	assert_non_null(strstr(d, ">GPU</text>"));
	assert_non_null(strstr(d, ">250 GiB</text>"));
	assert_non_null(strstr(d, ">30 s</text>"));
	assert_non_null(strstr(d, ">peak 207.20 GiB at 33.40 s in verify</text>"));

	/* the marker sits where the record's sampled peak is */
	json_t *sum = json_object_get(rec, "summary");
	double peak_kb = json_number_value(json_object_get(sum, "peak_tree_rss_kb"));
	double at_ms = json_number_value(json_object_get(sum, "peak_at_ms"));
	double t_max = json_number_value(json_object_get(sum, "wall_s")) * 1000;
	double step = report_chart_step(REPORT_UNIT_KB, peak_kb, 5);
	double y_max = ceil(peak_kb / step) * step;
	double want_x = REPORT_CHART_LEFT + at_ms / t_max * REPORT_CHART_PLOT_W;
	double want_y = REPORT_CHART_TOP + (1 - peak_kb / y_max) *
				(REPORT_CHART_H - REPORT_CHART_TOP - REPORT_CHART_BOTTOM);
	double cx = attr(d, "<circle class=\"peak\"", "cx"), cy = attr(d, "<circle class=\"peak\"", "cy");
	assert_true(fabs(cx - want_x) < 0.06);
	assert_true(fabs(cy - want_y) < 0.06);
	/* ... and the RSS line's highest point is that same spike */
	double xs[2000], ys[2000];
	size_t n = polyline(d, "rss", xs, ys, 2000);
	assert_true(n >= 590);
	size_t top = highest(ys, n);
	assert_true(fabs(xs[top] - cx) < 0.06 && fabs(ys[top] - cy) < 0.06);
	svg_release(&s);
	json_decref(rec);
}

static void test_run_page(void **state)
{
	(void)state;
	struct svg s;
	render(FIXTURES "run.json", &s);
	const char *d = s.buf;
	assert_true(!strncmp(d, "<!DOCTYPE html>", 15));
	/* self-contained: the only URL is the SVG namespace */
	assert_int_equal(count(d, "://"), count(d, "http://www.w3.org/2000/svg\""));
	assert_null(strstr(d, "<link"));
	assert_null(strstr(d, " src="));
	for (const char *id = "memory\0faults\0cpu\0lanes\0"; *id; id += strlen(id) + 1) {
		char pat[64];
		snprintf(pat, sizeof(pat), "id=\"%s\"", id);
		assert_int_equal(count(d, pat), 1);
	}
	assert_non_null(strstr(d, "./prover --circuits 10 --pin-host-memory"));
	assert_non_null(strstr(d, "9f3c2a1d5e7b (dirty)"));
	assert_non_null(strstr(d, "cgroup v2 memory.peak, exact, includes page cache"));
	assert_non_null(strstr(d, "wait4 ru_maxrss, exact"));
	/* lanes: one row per lane, durations on hover */
	assert_non_null(strstr(d, "class=\"lane\" x=\"70\" y=\"47.0\">main</text>"));
	assert_non_null(strstr(d, ">gpu_tid=0</text>"));
	assert_non_null(strstr(d, ">gpu_tid=1</text>"));
	assert_non_null(strstr(d, "<title>ntt_msm_h @ gpu_tid=0: 21.42 s (7555 ms \u2192 28972 ms)</title>"));
	assert_non_null(strstr(d, "<title>pin_abc: 5.733 s"));
	/* the page-fault storm: the highest minor-fault rate falls inside pin_abc */
	double xs[2000], ys[2000];
	size_t n = polyline(d, "minflt", xs, ys, 2000);
	size_t top = highest(ys, n);
	assert_true(xs[top] >= report_chart_x(100, 60012) && xs[top] <= report_chart_x(5833, 60012));
	assert_non_null(strstr(d, ">3 M/s</text>"));
	/* tables */
	assert_non_null(strstr(d, "<td class=\"l\">b_g2_msm</td><td>1</td><td>22.85 s</td>"));
	assert_non_null(strstr(d, "<td class=\"l\">gpu_tid=0</td><td>24.12 s</td><td>99.8 %</td>"));
	svg_release(&s);
}

static void test_hostile_strings_stay_text(void **state)
{
	(void)state;
	struct svg s;
	render(FIXTURES "hostile.json", &s);
	const char *d = s.buf;
	assert_null(strstr(d, "<script>alert"));
	assert_null(strstr(d, "<img"));
	assert_null(strstr(d, "<b>x"));
	assert_non_null(strstr(d, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(d, "&lt;img src=x onerror=alert(2)&gt;"));
	assert_non_null(strstr(d, ">&lt;script&gt;alert(3)&lt;/script&gt;</text>"));
	assert_non_null(strstr(d, ">w=&quot;1&quot;</text>"));
	assert_non_null(strstr(d, "in &lt;script&gt;alert(3)&lt;/script&gt;</text>"));
	/* every script element is one perfhunt wrote */
	size_t ours = 0;
	for (const char *p = d; (p = strstr(p, "<script")); p++)
	{
		static const char *const known[] = {
			"<script>window.onerror=",
			"<script type=\"application/json\" class=\"hover-data\">{\"t\":",
			"<script>\n(function(){",
		};
		size_t k = 0;
		while (k < 3 && strncmp(p, known[k], strlen(known[k])))
			k++;
		if (k == 3)
			fail_msg("unexpected script element: %.60s", p);
		ours++;
	}
	assert_int_equal(ours, 5);
	assert_int_equal(count(d, "</script>"), 5);
	svg_release(&s);
}

static void test_bench_and_compare_pages(void **state)
{
	(void)state;
	struct svg s;
	render(FIXTURES "bench.json", &s);
	assert_int_equal(count(s.buf, "<circle class=\"dot\""), 40); /* 2 commands x 10 runs x 2 plots */
	assert_int_equal(count(s.buf, "<rect class=\"box\""), 4);
	assert_non_null(strstr(s.buf, "id=\"wall\""));
	assert_non_null(strstr(s.buf, "id=\"peak_rss\""));
	assert_non_null(strstr(s.buf, "<td class=\"l\">pin_abc</td>"));
	svg_release(&s);

	render(FIXTURES "compare.json", &s);
	assert_int_equal(count(s.buf, "<g class=\"hbar\">"), 6 + 3);
	assert_int_equal(count(s.buf, "<path class=\"whisker\""), 6);
	assert_int_equal(count(s.buf, "fill=\"#D55E00\""), 2 + 2); /* two regressed metrics, two slower phases */
	assert_int_equal(count(s.buf, "fill=\"#009E73\""), 1 + 1);
	assert_non_null(strstr(s.buf, ">+6.19 % regressed</text>"));
	/* the same units as the terminal table: seconds stay seconds */
	assert_non_null(strstr(s.buf, "<td>88.90 s</td><td>94.40 s</td>"));
	assert_non_null(strstr(s.buf, "<td class=\"l\">pin_abc</td><td>30.0 ms</td><td>5.733 s</td>"));
	svg_release(&s);
}

/* Values shown as what they are, and two values that differ never read alike. */
static void test_values(void **state)
{
	(void)state;
	char a[64], b[64];
	assert_string_equal(compare_text_value("task-clock", 2.9e9, a, sizeof(a)), "2.900 s");
	assert_string_equal(compare_text_value("write_bytes", 16777216, a, sizeof(a)), "16.00 MiB");
	assert_string_equal(compare_text_value("read_bytes", 100, a, sizeof(a)), "100 B");
	assert_string_equal(compare_text_value("cpu_pct", 0.25, a, sizeof(a)), "0.2 %");
	assert_string_equal(compare_text_value("minflt", 2.5, a, sizeof(a)), "2.5");
	compare_text_value_pair("cpu_pct", 0.034, 0.0225, a, b, sizeof(a));
	assert_string_equal(a, "0.034 %");
	assert_string_equal(b, "0.0225 %");
	compare_text_value_pair("peak_rss_kb", 1536, 1537, a, b, sizeof(a));
	assert_string_equal(a, "1536 KiB");
	assert_string_equal(b, "1537 KiB");
	compare_text_value_pair("minflt", 0, 0, a, b, sizeof(a));
	assert_string_equal(a, "0");
	assert_string_equal(b, "0");
}

static void test_errors(void **state)
{
	(void)state;
	struct svg s;
	struct err e;
	svg_init(&s);
	json_t *rec = json_pack("{s:s}", "schema", "perfhunt.nope/9");
	assert_int_equal(report_html(rec, &s, &e), -1);
	assert_non_null(strstr(e.msg, "unsupported record schema 'perfhunt.nope/9'"));
	json_decref(rec);
	rec = json_object();
	assert_int_equal(report_html(rec, &s, &e), -1);
	assert_non_null(strstr(e.msg, "no \"schema\""));
	json_decref(rec);
	rec = load(FIXTURES "bench.json");
	assert_int_equal(report_memory_svg(rec, &s, &e), -1);
	assert_non_null(strstr(e.msg, "needs a run record"));
	json_decref(rec);
	/* samples without time */
	rec = json_pack("{s:s, s:{s:[s], s:[[i]]}}", "schema", "perfhunt.run/1", "samples", "columns", "rss_kb",
			"rows", 5);
	assert_int_equal(report_html(rec, &s, &e), -1);
	assert_non_null(strstr(e.msg, "t_ms"));
	json_decref(rec);
	/* fields of the wrong type are treated as absent, never trusted */
	static const char *const odd[] = {
		"{\"schema\":\"perfhunt.run/1\",\"summary\":\"x\",\"peaks\":[1,{\"kb\":\"big\"}],"
		"\"phases\":[{\"name\":1,\"start_ms\":0,\"end_ms\":5},3],\"phase_stats\":[[]],\"lanes\":{},"
		"\"samples\":{\"columns\":[\"t_ms\",\"rss_kb\",7],\"rows\":[[0,\"x\"],[1,null],[2,5,9,9]]}}",
		"{\"schema\":\"perfhunt.bench/1\",\"commands\":[1,{\"runs\":\"no\"},{\"runs\":[{\"summary\":[]}]}]}",
		"{\"schema\":\"perfhunt.compare/1\",\"metrics\":[\"a\",{\"name\":5}],\"phases\":[null]}",
	};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		json_error_t je;
		rec = json_loads(odd[i], 0, &je);
		assert_non_null(rec);
		svg_release(&s);
		svg_init(&s);
		assert_int_equal(report_html(rec, &s, &e), 0);
		assert_non_null(strstr(s.buf, "</html>"));
		json_decref(rec);
	}
	/* a run with no samples, summary or phases still renders */
	rec = json_pack("{s:s}", "schema", "perfhunt.run/1");
	svg_release(&s);
	svg_init(&s);
	assert_int_equal(report_html(rec, &s, &e), 0);
	assert_non_null(strstr(s.buf, "holds no samples"));
	json_decref(rec);
	svg_release(&s);
}

static void test_save(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_report.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = xasprintf("%s/out.html", dir);
	struct svg s;
	struct err e;
	svg_init(&s);
	svg_raw(&s, "<p>hello</p>\n");
	assert_int_equal(svg_save(&s, path, &e), 0);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char buf[64] = { 0 };
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), 13);
	fclose(f);
	assert_string_equal(buf, "<p>hello</p>\n");
	struct stat st;
	if (stat("/dev/full", &st) == 0) {
		assert_int_equal(svg_save(&s, "/dev/full", &e), -1);
		assert_non_null(strstr(e.msg, "cannot write '/dev/full'"));
		assert_int_equal(stat("/dev/full", &st), 0);
		assert_true(S_ISCHR(st.st_mode)); /* never replaced by a regular file */
	}
	char *missing = xasprintf("%s/no/such/dir/x.html", dir);
	assert_int_equal(svg_save(&s, missing, &e), -1);
	unlink(path);
	rmdir(dir);
	free(missing);
	free(path);
	svg_release(&s);
}

/* The page-faults note (summary and run report): only where perf's count and
 * the task's minflt + majflt differ by more than 10 % and 1000 faults. */
static bool fault_note(const char *json, char *buf, size_t n)
{
	json_error_t je;
	json_t *rec = json_loads(json, 0, &je);
	if (!rec)
		fail_msg("fixture: %s", je.text);
	bool r = summary_fault_note(rec, buf, n);
	json_decref(rec);
	return r;
}

static void test_fault_note(void **state)
{
	(void)state;
	char buf[400] = "";
#define REC(minflt, counters) "{\"summary\": {\"minflt\": " minflt ", \"majflt\": 2}, \"counters\": " counters "}"
#define PF(v, status) "\"page-faults\": {\"value\": " v ", \"status\": \"" status "\"}"
	assert_false(fault_note("{\"summary\": {\"minflt\": 51200, \"majflt\": 0}}", buf, sizeof(buf)));
	assert_false(fault_note(REC("51200", "{}"), buf, sizeof(buf)));
	assert_false(fault_note(REC("51200", "{" PF("50000", "counted") "}"), buf, sizeof(buf)));  /* 2.3 % */
	assert_false(fault_note(REC("2000", "{" PF("1100", "counted") "}"), buf, sizeof(buf)));    /* 902 faults */
	assert_false(fault_note(REC("51200", "{" PF("null", "not permitted") "}"), buf, sizeof(buf)));
	assert_false(fault_note(REC("\"many\"", "{" PF("3", "counted") "}"), buf, sizeof(buf)));
	assert_false(fault_note(REC("51200", "{" PF("\"x\"", "counted") "}"), buf, sizeof(buf)));
	assert_false(fault_note(REC("51200", "[1]"), buf, sizeof(buf)));
	assert_string_equal(buf, "");
	assert_true(fault_note(REC("51200", "{" PF("3955", "counted") "}"), buf, sizeof(buf)));
	assert_non_null(strstr(buf, "perf counted 3955 page-faults events but the task counters 51.2 k faults"));
	assert_non_null(strstr(buf, "mlock, MAP_POPULATE, get_user_pages"));
	assert_null(strchr(buf, '\n'));
	/* more perf events than task faults is a difference too */
	assert_true(fault_note(REC("100", "{" PF("5000", "counted") "}"), buf, sizeof(buf)));
	/* without page-faults: minor-faults + major-faults */
	assert_true(fault_note(REC("51200", "{\"minor-faults\": {\"value\": 10, \"status\": \"counted\"},"
					    " \"major-faults\": {\"value\": 0, \"status\": \"counted\"}}"), buf, sizeof(buf)));
	assert_non_null(strstr(buf, "perf counted 10 minor-faults + major-faults events"));
	assert_false(fault_note(REC("51200", "{\"minor-faults\": {\"value\": 10, \"status\": \"counted\"}}"), buf, sizeof(buf)));
	/* a tiny buffer is cut, never overrun */
	char tiny[8];
	assert_true(fault_note(REC("51200", "{" PF("3955", "counted") "}"), tiny, sizeof(tiny)));
	assert_int_equal(strlen(tiny), 7);
#undef REC
#undef PF
}

/* history detect's markdown with a benchmark command that holds HTML, a pipe,
 * line breaks and a run of backquotes: the table row stays one row of text, and
 * nothing inside the bisect block can close it early. */
static void test_detect_markdown_hostile(void **state)
{
	(void)state;
	double v0[] = { 1.0 }, v1[] = { 2.0 };
	struct detect_point pts[2] = {
		{ .commit = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", .started_at = "2026-01-01T00:00:00Z",
		  .position = -1, .values = v0, .n = 1, .median = 1, .min = 1, .max = 1 },
		{ .commit = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", .started_at = "2026-01-02T00:00:00Z",
		  .position = -1, .values = v1, .n = 1, .median = 2, .min = 2, .max = 2 },
	};
	struct changepoint cp = { .index = 1, .before_start = 0, .after_end = 2, .p_value = 0.01,
				  .before_median = 1, .after_median = 2, .rel_change = 1 };
	enum detect_direction dir = DETECT_REGRESSION;
	struct detect_series s = { .bench = "sh -c 'a|b\n````\n<img src=x onerror=alert(1)>\n'",
				   .metric = "wall_s", .points = pts, .n = 2,
				   .cp = { .items = &cp, .n = 1 }, .directions = &dir };
	struct detect_context c = { .first_parent = 0, .runs = 2 };
	char *md = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&md, &len);
	assert_int_equal(detect_markdown_write(&s, 1, &c, f), 0);
	fclose(f);
	/* the table row: one line, the command as text */
	const char *row = strstr(md, "\n| regression |");
	assert_non_null(row);
	const char *eol = strchr(row + 1, '\n');
	assert_non_null(strstr(row, "&lt;img src=x onerror=alert(1)&gt;"));
	assert_true(strstr(row, "&lt;img") < eol);
	assert_true(strstr(row, "a\\|b") < eol);
	/* the block: a fence of 5 backquotes, closed once, at the end */
	const char *open = strstr(md, "\n`````sh\n");
	assert_non_null(open);
	assert_null(strstr(open + 1, "\n``````"));
	const char *close = strstr(open + 1, "\n`````\n");
	assert_non_null(close);
	assert_string_equal(close, "\n`````\n");
	assert_non_null(strstr(open, "\n````\n<img src=x onerror=alert(1)>\n'\n")); /* the command, whole */
	free(md);
}

/* A trend chart of 10 000 commits with one change: the medians one polyline
 * of at most a vertex per pixel, markers only either side of the change and
 * on the latest commits, the page tens of KB; --all-runs marks every point. */
static void test_site_chart_bounded(void **state)
{
	(void)state;
	enum { N = 10000 };
	struct detect_point *pts = xcalloc(N, sizeof(*pts));
	int64_t *ids = xcalloc(N, sizeof(*ids));
	double *vals = xcalloc(N, sizeof(*vals));
	for (size_t i = 0; i < N; i++) {
		ids[i] = (int64_t)i + 1;
		vals[i] = i < N / 2 ? 1.0 + 0.001 * (double)(i % 7) : 1.1;
		pts[i] = (struct detect_point){ .commit = "", .started_at = "2026-01-01T00:00:00Z", .position = -1,
						.run_ids = &ids[i], .values = &vals[i], .n = 1,
						.median = vals[i], .min = vals[i], .max = vals[i] };
	}
	struct changepoint cp = { .index = N / 2, .before_start = 0, .after_end = N, .p_value = 0.002,
				  .before_median = 1.003, .after_median = 1.1, .rel_change = 0.097 };
	enum detect_direction dir = DETECT_REGRESSION;
	struct detect_series s = { .bench = "./server", .metric = "wall_s", .points = pts, .n = N,
				   .cp = { .items = &cp, .n = 1 }, .directions = &dir };
	struct detect_context c = { .first_parent = 0, .runs = N };
	for (int all = 0; all < 2; all++) {
		struct svg page;
		svg_init(&page);
		report_site_bench(&s, 0, 1, &c, all, &page);
		assert_int_equal(count(page.buf, "class=\"medians\""), 1);
		assert_int_equal(count(page.buf, "class=\"spread\""), 1);
		assert_int_equal(count(page.buf, "class=\"dot point\""), all ? (size_t)N : 2 + REPORT_SITE_LATEST);
		if (!all) {
			assert_true(page.len < 100000);
			assert_non_null(strstr(page.buf, "href=\"runs/5000.html\""));
			assert_non_null(strstr(page.buf, "href=\"runs/5001.html\""));
			assert_non_null(strstr(page.buf, "href=\"runs/10000.html\""));
			assert_null(strstr(page.buf, "href=\"runs/1.html\""));
			const char *poly = strstr(page.buf, "class=\"medians\"");
			const char *pts_attr = strstr(poly, "points=\"");
			const char *end = strchr(pts_attr + 8, '"');
			int vertices = 0;
			for (const char *q = pts_attr; q < end; q++)
				vertices += *q == ',';
			assert_int_equal(vertices, REPORT_CHART_PLOT_W);
		}
		svg_release(&page);
	}
	free(pts);
	free(ids);
	free(vals);
}

/* The index's change points: regressions first, then improvements, each
 * largest first, across benchmarks (not in benchmark order). */
static void test_site_index_regressions_first(void **state)
{
	(void)state;
	enum { N = 4 };
	struct detect_point pts[N];
	int64_t ids[N];
	double vals[N];
	for (size_t i = 0; i < N; i++) {
		ids[i] = (int64_t)i + 1;
		vals[i] = 1.0;
		pts[i] = (struct detect_point){ .commit = "", .started_at = "2026-01-01T00:00:00Z", .position = -1,
						.run_ids = &ids[i], .values = &vals[i], .n = 1,
						.median = 1.0, .min = 1.0, .max = 1.0 };
	}
	struct changepoint cps[3] = {
		{ .index = 2, .before_start = 0, .after_end = N, .p_value = 0.01, .before_median = 1, .after_median = 0.7,
		  .rel_change = -0.3 },
		{ .index = 2, .before_start = 0, .after_end = N, .p_value = 0.01, .before_median = 1, .after_median = 1.05,
		  .rel_change = 0.05 },
		{ .index = 2, .before_start = 0, .after_end = N, .p_value = 0.01, .before_median = 1, .after_median = 1.2,
		  .rel_change = 0.2 },
	};
	enum detect_direction dirs[3] = { DETECT_IMPROVEMENT, DETECT_REGRESSION, DETECT_REGRESSION };
	const char *metrics[3] = { "improved_m", "small_m", "large_m" };
	struct detect_series s[3];
	for (size_t i = 0; i < 3; i++)
		s[i] = (struct detect_series){ .bench = i ? "./b" : "./a", .metric = (char *)metrics[i], .points = pts,
					       .n = N, .cp = { .items = &cps[i], .n = 1 }, .directions = &dirs[i] };
	size_t starts[3] = { 0, 1, 3 };
	struct detect_context c = { .first_parent = 0, .runs = N };
	struct svg page;
	svg_init(&page);
	report_site_index(s, &c, starts, 2, &page);
	const char *large = strstr(page.buf, ">large_m<"), *small = strstr(page.buf, ">small_m<"),
		   *improved = strstr(page.buf, ">improved_m<");
	assert_non_null(large);
	assert_non_null(small);
	assert_non_null(improved);
	assert_true(large < small && small < improved);
	svg_release(&page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_downsample_keeps_spike),
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_compare_rows),
		cmocka_unit_test(test_memory_svg_golden),
		cmocka_unit_test(test_run_page),
		cmocka_unit_test(test_hostile_strings_stay_text),
		cmocka_unit_test(test_bench_and_compare_pages),
		cmocka_unit_test(test_fault_note),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_save),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_detect_markdown_hostile),
		cmocka_unit_test(test_site_chart_bounded),
		cmocka_unit_test(test_site_index_regressions_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
