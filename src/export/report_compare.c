/* report_compare: the report page of a compare record (perfhunt.compare/1).
 *
 * One bar per metric for its NEW/BASE change in percent, the bootstrap
 * confidence interval as a whisker and the verdict as the colour (vermillion
 * regressed, bluish green improved, grey within the threshold); then the
 * phases that explain the wall-time change, largest first as recorded, and,
 * where both sides were profiled, a differential flame graph per changed
 * phase (export/flamegraph draws it).
 */
#include "export/report_page.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/compare_rows.h"
#include "export/compare_text.h"
#include "export/flamegraph.h"
#include "export/report_chart.h"
#include "stats/metrics.h"
#include "util/xalloc.h"

static const char *report_compare_color(const char *verdict)
{
	if (!strcmp(verdict, "regressed"))
		return "#D55E00";
	if (!strcmp(verdict, "improved"))
		return "#009E73";
	return "#999999";
}

/* A number in fmt, or "–" where the record has none (n = 1, a zero base). */
static char *report_compare_num(const char *fmt, double v, char *buf, size_t n)
{
	if (isfinite(v))
		snprintf(buf, n, fmt, v);
	else
		snprintf(buf, n, "\u2013");
	return buf;
}

/* How p was obtained: the test, and the Holm families with their sizes. */
/* One base-against-new pair of metric (its unit: metrics_unit) as two bars
 * scaled to the larger. */
static void report_compare_pair(struct svg *s, const char *label, const char *metric, double base, double nw)
{
	char a[64], b[64];
	double big = fabs(base) > fabs(nw) ? fabs(base) : fabs(nw);
	double wb = big > 0 && isfinite(big) ? 100 * fabs(base) / big : 0, wn = big > 0 && isfinite(big) ? 100 * fabs(nw) / big : 0;
	compare_text_value_pair(metric, base, nw, a, b, sizeof(a));
	svg_raw(s, "<tr>");
	report_page_cell(s, label, 1);
	report_page_cell(s, a, 0);
	report_page_cell(s, b, 0);
	svg_printf(s, "<td class=\"l\" style=\"width:45%%\"><div class=\"pbar base\" style=\"width:%.1f%%\"></div>"
		   "<div class=\"pbar new\" style=\"width:%.1f%%\"></div></td></tr>\n", wb, wn);
}

/* Per changed phase: its duration and the resources of its line, base against new. */
static void report_compare_why(const json_t *phases, struct svg *s)
{
	size_t i, k, shown = 0;
	const json_t *p, *r;
	json_array_foreach(phases, i, p) {
		bool leading = json_is_true(json_object_get(p, "leading"));
		if ((!json_is_true(json_object_get(p, "changed")) && !leading) ||
		    !json_array_size(json_object_get(p, "reasons")))
			continue;
		if (!shown++)
			svg_raw(s, "<h2>Why the changed phases changed</h2>\n<p class=\"note\">Medians of the "
				   "per-run totals; grey base, orange new.</p>\n");
		svg_raw(s, "<h3>");
		svg_text(s, report_page_str(p, "name"));
		if (leading) /* no phase's change is established: the one that moved most */
			svg_raw(s, " (moved most; not established)");
		svg_raw(s, "</h3>\n<table class=\"why\"><tr><th class=\"l\"></th><th>base</th><th>new</th><th></th></tr>\n");
		report_compare_pair(s, "duration", "phase:", report_page_num(p, "base_ms"), report_page_num(p, "new_ms"));
		json_array_foreach(json_object_get(p, "reasons"), k, r) {
			const char *key = report_page_str(r, "metric");
			char metric[80];
			snprintf(metric, sizeof(metric), "phase:.%s", key);
			report_compare_pair(s, key, metric, report_page_num(r, "base"), report_page_num(r, "new"));
		}
		svg_raw(s, "</table>\n");
	}
}

static enum flamegraph_state report_compare_state(const char *state)
{
	return !strcmp(state, "grown") ? FLAMEGRAPH_GROWN : !strcmp(state, "shrunk") ? FLAMEGRAPH_SHRUNK : FLAMEGRAPH_SAME;
}

/* One profile comparison (a phase's, or the run's): its line, its
 * differential flame graph, the frames that moved most. */
static void report_compare_profile(const char *what, const json_t *prof, struct svg *s)
{
	char a[64], b[64], title[400];
	const json_t *nodes = json_object_get(prof, "nodes"), *frames = json_object_get(prof, "frames"), *x;
	size_t n = json_array_size(nodes), i;
	svg_raw(s, "<h3>");
	svg_text(s, what);
	svg_raw(s, "</h3>\n<p>");
	svg_text(s, report_page_str(prof, "line"));
	svg_printf(s, "</p>\n<p class=\"note\">%.0f + %.0f profiled runs; %.0f frame test%s after merging frames "
		   "with the same per-run values.</p>\n", report_page_num(prof, "base_runs"),
		   report_page_num(prof, "new_runs"), report_page_num(prof, "tests"),
		   report_page_num(prof, "tests") == 1 ? "" : "s");
	struct flamegraph_node *v = xcalloc(n ? n : 1, sizeof(*v));
	json_array_foreach(nodes, i, x) {
		double base = report_page_num(x, "base_ms"), nw = report_page_num(x, "new_ms");
		double depth = report_page_num(x, "depth");
		v[i] = (struct flamegraph_node){ .name = report_page_str(x, "frame"),
						 .depth = depth >= 0 && depth < 1e6 ? (int)depth : -1,
						 .value = (base + nw) / 2, .base = base, .nw = nw,
						 .state = report_compare_state(report_page_str(x, "state")) };
	}
	/* an off-CPU comparison weighs time blocked, not CPU */
	snprintf(title, sizeof(title), "%s \u2014 %s per run %s \u2192 %s", what,
		 json_is_true(json_object_get(prof, "offcpu")) ? "blocked" : "CPU",
		 report_chart_value(REPORT_UNIT_MS, report_page_num(prof, "base_cpu_ms"), a, sizeof(a)),
		 report_chart_value(REPORT_UNIT_MS, report_page_num(prof, "new_cpu_ms"), b, sizeof(b)));
	char *id = flamegraph_id("diff-", what);
	const struct flamegraph_opts o = { .id = id, .title = title, .unit = "ms", .ms_per_unit = 1,
					   .differential = true };
	flamegraph_write(s, v, n, &o);
	free(id);
	free(v);
	svg_raw(s, "<table><tr><th class=\"l\">frame (inclusive)</th><th>base</th><th>new</th><th>change</th>"
		   "<th>p</th><th>p adjusted</th><th class=\"l\">state</th></tr>\n");
	json_array_foreach(frames, i, x) {
		if (i == 12)
			break;
		const char *state = report_page_str(x, "state");
		svg_raw(s, "<tr>");
		report_page_cell(s, report_page_str(x, "frame"), 1);
		report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(x, "base_ms"), a, sizeof(a)), 0);
		report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(x, "new_ms"), a, sizeof(a)), 0);
		report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(x, "delta_ms"), a, sizeof(a)), 0);
		report_page_cell(s, report_compare_num("%.2g", report_page_num(x, "p_value"), a, sizeof(a)), 0);
		report_page_cell(s, report_compare_num("%.2g", report_page_num(x, "p_adjusted"), a, sizeof(a)), 0);
		svg_printf(s, "<td class=\"l %s\">", !strcmp(state, "grown") ? "regressed"
						   : !strcmp(state, "shrunk") ? "improved" : "");
		svg_text(s, state);
		svg_raw(s, "</td></tr>\n");
	}
	svg_raw(s, "</table>\n");
}

/* Which code each changed phase's time went to, where both sides were profiled. */
static void report_compare_code(const json_t *rec, const json_t *phases, struct svg *s)
{
	size_t i, shown = 0;
	const json_t *p;
	json_array_foreach(phases, i, p) {
		const json_t *prof = json_object_get(p, "profile");
		if (!json_is_object(prof))
			continue;
		if (!shown++)
			svg_raw(s, "<h2>Which code</h2>\n<p class=\"note\">Differential flame graphs: a frame's width "
				   "is its mean CPU time per run over both sides (its blocked time, where the "
				   "comparison is of where threads blocked); red grown, blue shrunk, grey within "
				   "the noise \u2014 each frame's per-run time tested with the exact Mann\u2013Whitney "
				   "test, Benjamini\u2013Hochberg over the phase's frames.</p>\n");
		char what[300];
		snprintf(what, sizeof(what), "phase %s%s", report_page_str(p, "name"),
			 json_is_true(json_object_get(p, "leading")) ? " (moved most; not established)" : "");
		report_compare_profile(what, prof, s);
	}
	const json_t *run = json_object_get(rec, "run_profile");
	if (!shown && json_is_object(run)) {
		svg_raw(s, "<h2>Which code</h2>\n");
		report_compare_profile("the whole run", run, s);
	}
}

static void report_compare_families(const json_t *rec, struct svg *s)
{
	const json_t *fam = json_object_get(rec, "families");
	if (!json_is_object(fam))
		return;
	svg_raw(s, "<p>p: two-sided Mann\u2013Whitney U (test <i>exact</i>: its exact permutation distribution, "
		   "ties included; <i>normal</i>: the normal approximation with tie correction), Holm-adjusted "
		   "within each family:");
	const char *name;
	const json_t *f;
	int k = 0;
	json_object_foreach((json_t *)fam, name, f) {
		svg_printf(s, "%s <b>", k++ ? ";" : "");
		svg_text(s, name);
		svg_raw(s, "</b> (");
		svg_text(s, report_page_str(f, "metrics"));
		svg_raw(s, ")");
		double tests = report_page_num(f, "tests");
		if (tests >= 0)
			svg_printf(s, ", %.0f test%s", tests, tests == 1 ? "" : "s");
	}
	svg_raw(s, ".</p>\n");
	json_object_foreach((json_t *)fam, name, f) {
		const char *note = json_string_value(json_object_get(f, "too_few_runs"));
		if (!note)
			continue;
		svg_raw(s, "<p class=\"note\">");
		svg_text(s, note);
		svg_raw(s, ".</p>\n");
	}
}

static bool report_compare_changed(const json_t *m)
{
	const char *verdict = report_page_str(m, "verdict");
	return !strcmp(verdict, "regressed") || !strcmp(verdict, "improved");
}

/* One metric's row; a phase row heading its resources names them in a
 * <details> whose state the stylesheet folds the group's rows by. */
static void report_compare_metric_row(const json_t *m, const struct compare_row *row, struct svg *s)
{
	const char *verdict = report_page_str(m, "verdict"), *name = report_page_str(m, "name");
	char a[64], b[64];
	svg_raw(s, row->kind == COMPARE_ROW_RESOURCE ? "<tr class=\"res\">" : "<tr>");
	if (row->kind == COMPARE_ROW_PHASE) {
		svg_printf(s, "<td class=\"l\"><details%s><summary>", row->open ? " open" : "");
		svg_text(s, name);
		svg_printf(s, " <span class=\"nres\">%zu resource%s", row->resources, row->resources == 1 ? "" : "s");
		if (row->changed)
			svg_printf(s, ", %zu changed", row->changed);
		svg_raw(s, "</span></summary></details></td>");
	} else if (row->kind == COMPARE_ROW_RESOURCE) { /* its key under the phase; the whole name on hover */
		svg_raw(s, "<td class=\"l\" title=\"");
		svg_text(s, name);
		svg_raw(s, "\">.");
		svg_text(s, metrics_phase_resource(name));
		svg_raw(s, "</td>");
	} else {
		report_page_cell(s, name, 1);
	}
	compare_text_value_pair(name, report_page_num(m, "base"), report_page_num(m, "new"), a, b, sizeof(a));
	report_page_cell(s, a, 0);
	report_page_cell(s, b, 0);
	report_page_cell(s, report_compare_num("%+.2f %%", report_page_num(m, "delta_pct"), a, sizeof(a)), 0);
	double lo = report_page_num(m, "ci_low"), hi = report_page_num(m, "ci_high");
	if (isnan(lo) || isnan(hi))
		snprintf(a, sizeof(a), "\u2013");
	else
		snprintf(a, sizeof(a), "%+.2f %% \u2026 %+.2f %%", (lo - 1) * 100, (hi - 1) * 100);
	report_page_cell(s, a, 0);
	report_page_cell(s, report_compare_num("%.2g", report_page_num(m, "p_value"), a, sizeof(a)), 0);
	report_page_cell(s, report_compare_num("%.2g", report_page_num(m, "p_adjusted"), a, sizeof(a)), 0);
	const char *test = report_page_str(m, "p_test");
	report_page_cell(s, *test ? test : "\u2013", 1);
	svg_printf(s, "<td class=\"l %s\">", !strcmp(verdict, "regressed") ? "regressed"
					   : !strcmp(verdict, "improved") ? "improved" : "");
	svg_text(s, verdict);
	svg_raw(s, "</td></tr>\n");
}

/* The table of every metric under a header row per family, each phase's
 * resources in a group under the phase's row (compare_rows): open where
 * something in it changed, folded otherwise. A group is a <tbody
 * class="grp">, the rows between groups a plain <tbody>. */
static void report_compare_table(const json_t *rec, const json_t *metrics, struct svg *s)
{
	size_t n = json_array_size(metrics), i;
	const char **names = xcalloc(n ? n : 1, sizeof(*names));
	bool *changed = xcalloc(n ? n : 1, sizeof(*changed));
	struct compare_row *rows = xcalloc(n ? n : 1, sizeof(*rows));
	const json_t *m, *families = json_object_get(rec, "families");
	json_array_foreach(metrics, i, m) {
		names[i] = report_page_str(m, "name");
		changed[i] = report_compare_changed(m);
	}
	compare_rows_order(names, changed, n, rows);
	svg_raw(s, "<table class=\"metrics\"><thead><tr><th class=\"l\">metric</th><th>base</th><th>new</th>"
		   "<th>change</th><th>95\u00a0% CI</th><th>p</th><th>p adjusted</th><th class=\"l\">test</th>"
		   "<th class=\"l\">verdict</th></tr></thead>\n");
	const char *family = NULL;
	enum { NONE, PLAIN, GROUP } body = NONE;
	for (i = 0; i < n; i++) {
		m = json_array_get(metrics, rows[i].metric);
		const char *f = report_page_str(m, "family");
		bool header = rows[i].kind != COMPARE_ROW_RESOURCE && *f && (!family || strcmp(f, family)); /* older records: none */
		if (body != NONE && (header || rows[i].kind == COMPARE_ROW_PHASE ||
				     (body == GROUP && rows[i].kind == COMPARE_ROW_PLAIN))) {
			svg_raw(s, "</tbody>\n");
			body = NONE;
		}
		if (header) {
			family = f;
			svg_raw(s, "<tbody>\n<tr class=\"fam\"><th class=\"l\" colspan=\"9\">");
			svg_text(s, f);
			svg_raw(s, " <span class=\"nres\">");
			svg_text(s, report_page_str(json_object_get(families, f), "metrics"));
			svg_raw(s, "</span></th></tr>\n");
			body = PLAIN;
		}
		if (rows[i].kind == COMPARE_ROW_PHASE) {
			svg_raw(s, "<tbody class=\"grp\">\n");
			body = GROUP;
		} else if (body == NONE) {
			svg_raw(s, "<tbody>\n");
			body = PLAIN;
		}
		report_compare_metric_row(m, &rows[i], s);
	}
	svg_raw(s, body != NONE ? "</tbody>\n</table>\n" : "</table>\n");
	free(names);
	free(changed);
	free(rows);
}

int report_compare_html(const json_t *rec, struct svg *s, struct err *e)
{
	const json_t *metrics = json_object_get(rec, "metrics"), *phases = json_object_get(rec, "phases");
	if (!json_is_array(metrics))
		return err_set(e, "compare record has no \"metrics\" array");
	const json_t *base = json_object_get(rec, "base"), *nw = json_object_get(rec, "new");
	double threshold = report_page_num(rec, "threshold_pct");
	size_t nm = json_array_size(metrics), np = json_array_size(phases), i;
	json_t *m;
	char line[512], a[64], b[64];

	report_page_begin(s, "perfhunt compare report");
	svg_raw(s, "<h1>perfhunt compare report</h1>\n<table class=\"meta\">\n");
	snprintf(line, sizeof(line), "%s (n=%.0f)", report_page_str(base, "label"), report_page_num(base, "n"));
	report_page_row(s, "base", line);
	snprintf(line, sizeof(line), "%s (n=%.0f)", report_page_str(nw, "label"), report_page_num(nw, "n"));
	report_page_row(s, "new", line);
	const char *bc = report_page_str(base, "command"), *nc = report_page_str(nw, "command");
	if (*bc || *nc) {
		report_page_row(s, "base command", *bc ? bc : "?");
		report_page_row(s, "new command", *nc ? nc : "?");
		if (strcmp(bc, nc))
			svg_raw(s, "<tr><th></th><td class=\"regressed\">BASE and NEW ran different commands</td></tr>\n");
	}
	const char *bh = report_page_str(base, "host"), *nh = report_page_str(nw, "host");
	if (*bh && *nh && strcmp(bh, nh)) {
		report_page_row(s, "base host", bh);
		report_page_row(s, "new host", nh);
		svg_raw(s, "<tr><th></th><td class=\"regressed\">BASE and NEW were recorded on different hosts</td></tr>\n");
	}
	snprintf(line, sizeof(line), "\u00b1%.4g %% \u00b7 \u03b1 = %.4g", threshold, report_page_num(rec, "alpha"));
	report_page_row(s, "threshold", line);
	double g = report_page_num(json_object_get(rec, "geomean"), "ratio");
	if (!isnan(g)) {
		snprintf(line, sizeof(line), "%.4f (%+.2f %%)", g, (g - 1) * 100);
		report_page_row(s, "geometric mean ratio", line);
	}
	svg_raw(s, "</table>\n");

	struct report_hbar *bars = xcalloc(nm + np + 1, sizeof(*bars));
	char **labels = xcalloc(nm + np + 1, sizeof(*labels));
	size_t nchart = 0; /* the per-phase resources are in the table and the phases' section, not the chart */
	json_array_foreach(metrics, i, m) {
		if (!strcmp(report_page_str(m, "family"), "phase resources"))
			continue;
		const char *verdict = report_page_str(m, "verdict");
		double d = report_page_num(m, "delta_pct");
		labels[nchart] = xasprintf("%s %s", report_compare_num("%+.2f %%", d, a, sizeof(a)), verdict);
		bars[nchart] = (struct report_hbar){ report_page_str(m, "name"), d,
						     (report_page_num(m, "ci_low") - 1) * 100,
						     (report_page_num(m, "ci_high") - 1) * 100,
						     report_compare_color(verdict), labels[nchart] };
		nchart++;
	}
	svg_raw(s, "<figure>\n");
	report_chart_hbars(s, "deltas", "Change NEW vs BASE with 95 % confidence interval", REPORT_UNIT_PCT, bars, nchart,
			   isnan(threshold) ? 0 : threshold);
	svg_raw(s, "</figure>\n");
	report_compare_table(rec, metrics, s);
	report_compare_families(rec, s);

	if (np > 0) {
		json_array_foreach(phases, i, m) {
			double d = report_page_num(m, "delta_ms");
			labels[nchart + i] = xasprintf("%s%s (%s)", d > 0 ? "+" : "", report_chart_value(REPORT_UNIT_MS, d, a, sizeof(a)),
						   report_compare_num("%.1f %%", report_page_num(m, "share_pct"), b, sizeof(b)));
			bars[nchart + i] = (struct report_hbar){ report_page_str(m, "name"), d, NAN, NAN,
								  d > 0 ? "#D55E00" : "#009E73", labels[nchart + i] };
		}
		svg_raw(s, "<h2>Per-phase attribution</h2>\n<figure>\n");
		report_chart_hbars(s, "phases", "Phase time change (share of the wall-time change)", REPORT_UNIT_MS,
				   bars + nchart, np, 0);
		svg_raw(s, "</figure>\n<table><tr><th class=\"l\">phase</th><th>base</th><th>new</th><th>change</th>"
			   "<th>share</th></tr>\n");
		json_array_foreach(phases, i, m) {
			double depth = report_page_num(m, "depth");
			svg_printf(s, "<tr class=\"depth%d\">", depth >= 1 && depth <= 3 ? (int)depth : depth > 3 ? 3 : 0);
			report_page_cell(s, report_page_str(m, "name"), 1);
			report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(m, "base_ms"), a, sizeof(a)), 0);
			report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(m, "new_ms"), b, sizeof(b)), 0);
			report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(m, "delta_ms"), a, sizeof(a)), 0);
			report_page_cell(s, report_compare_num("%.1f %%", report_page_num(m, "share_pct"), a, sizeof(a)), 0);
			svg_raw(s, "</tr>\n");
		}
		svg_raw(s, "</table>\n");
		report_compare_why(phases, s);
	}
	report_compare_code(rec, phases, s);
	report_page_end(s);
	for (i = 0; i < nchart + np; i++)
		free(labels[i]);
	free(labels);
	free(bars);
	return 0;
}
