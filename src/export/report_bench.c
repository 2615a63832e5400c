/* report_bench: the report page of a bench record (perfhunt.bench/1).
 *
 * First the figures the terminal prints, one row per command (the cells of
 * bench_text_cells, so page and terminal agree): mean ± σ, median, min … max,
 * user / sys, peak RSS, relative speed, and the daemon's for --attach; then
 * the distributions: every run is a dot over a box
 * plot, per command, for wall time and peak RSS; then the per-phase medians
 * side by side, so a phase that moved between commands stands out; then,
 * for a bench recorded with --profile, one flame graph per command of the
 * stacks of all its runs.
 */
#include "export/report_page.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/bench_text.h"
#include "export/compare_text.h"
#include "export/flamegraph.h"
#include "export/report_chart.h"
#include "stats/bench_record.h"
#include "stats/stats.h"
#include "util/units.h"
#include "util/xalloc.h"

static void cell(struct svg *s, const char *cls, const char *text)
{
	svg_printf(s, "<td%s>", cls);
	svg_text(s, text);
	svg_raw(s, "</td>");
}

/* The terminal's figures per command, then how much faster the fastest ran. */
static void report_bench_results(const json_t *rec, struct svg *s)
{
	size_t n = json_array_size(json_object_get(rec, "commands")), ref = bench_record_fastest(rec), i;
	bool daemon = false;
	for (i = 0; i < n; i++)
		daemon |= !isnan(bench_record_stat(rec, i, "daemon.peak_rss_kb", "median"));
	svg_raw(s, "<h2>Results</h2>\n<table class=\"results\"><tr><th class=\"l\">command</th><th>mean ± σ</th>"
		   "<th>median</th><th>min … max</th><th>user / sys</th><th>peak RSS</th>");
	if (daemon)
		svg_raw(s, "<th>daemon peak (above idle)</th><th>daemon user / sys</th>");
	svg_raw(s, "<th>relative</th></tr>\n");
	char cells[BENCH_TEXT_COLS][BENCH_TEXT_CELL], a[48], b[48], line[2 * BENCH_TEXT_CELL + 16];
	for (i = 0; i < n; i++) {
		bench_text_cells(rec, i, ref, NULL, cells);
		svg_raw(s, "<tr>");
		svg_raw(s, "<td class=\"l\"><code>");
		svg_text(s, cells[0]);
		svg_raw(s, "</code></td>");
		cell(s, "", cells[2]);
		cell(s, "", cells[1]);
		snprintf(line, sizeof(line), "%s … %s", cells[3], cells[4]);
		cell(s, "", line);
		snprintf(line, sizeof(line), "%s / %s",
			 compare_text_value("user_s", bench_record_stat(rec, i, "user_s", "median"), a, sizeof(a)),
			 compare_text_value("sys_s", bench_record_stat(rec, i, "sys_s", "median"), b, sizeof(b)));
		cell(s, "", line);
		cell(s, "", cells[5]);
		if (daemon) {
			snprintf(line, sizeof(line), "%s (%s)",
				 compare_text_value("daemon.peak_rss_kb",
						    bench_record_stat(rec, i, "daemon.peak_rss_kb", "median"), a, sizeof(a)),
				 compare_text_value("daemon.peak_above_idle_kb",
						    bench_record_stat(rec, i, "daemon.peak_above_idle_kb", "median"), b,
						    sizeof(b)));
			cell(s, "", line);
			snprintf(line, sizeof(line), "%s / %s",
				 compare_text_value("daemon.user_s", bench_record_stat(rec, i, "daemon.user_s", "median"), a,
						    sizeof(a)),
				 compare_text_value("daemon.sys_s", bench_record_stat(rec, i, "daemon.sys_s", "median"), b,
						    sizeof(b)));
			cell(s, "", line);
		}
		snprintf(line, sizeof(line), i == ref ? "%s (fastest)" : "%s ×", cells[6]);
		cell(s, "", line);
		svg_raw(s, "</tr>\n");
	}
	svg_raw(s, "</table>\n");
	for (i = 0; n > 1 && i < n; i++) {
		if (i == ref)
			continue;
		bench_text_cells(rec, i, ref, NULL, cells);
		svg_raw(s, "<p class=\"note\">");
		svg_text(s, cells[0]);
		svg_raw(s, " ran ");
		snprintf(line, sizeof(line), "%s × slower than ", cells[6]);
		svg_text(s, line);
		bench_text_cells(rec, ref, ref, NULL, cells);
		svg_text(s, cells[0]);
		svg_raw(s, " (median wall time)</p>\n");
	}
}

/* Median of the total_ms of phase name over the runs of command cmd; NaN if none has it. */
static double report_bench_phase_median(const json_t *cmd, const char *name)
{
	const json_t *runs = json_object_get(cmd, "runs");
	double *v = xcalloc(json_array_size(runs) + 1, sizeof(double));
	size_t n = 0, i, j;
	json_t *r, *p;
	json_array_foreach(runs, i, r) {
		json_array_foreach(json_object_get(r, "phase_stats"), j, p) {
			double t = report_page_num(p, "total_ms");
			if (!strcmp(report_page_str(p, "name"), name) && !isnan(t)) {
				v[n++] = t;
				break;
			}
		}
	}
	double med = stats_median(v, n); /* NaN when no run has the phase */
	free(v);
	return med;
}

static void report_bench_phases(const json_t *cmds, struct svg *s)
{
	/* phase names in first-seen order across all runs */
	size_t cap = 16, nn = 0, i, j, k;
	const char **names = xcalloc(cap, sizeof(*names));
	json_t *c, *r, *p;
	json_array_foreach(cmds, i, c) json_array_foreach(json_object_get(c, "runs"), j, r)
		json_array_foreach(json_object_get(r, "phase_stats"), k, p) {
			const char *name = report_page_str(p, "name");
			size_t x = 0;
			while (x < nn && strcmp(names[x], name))
				x++;
			if (x == nn) {
				if (nn == cap) {
					void *b = names;
					xgrow(&b, &cap, nn + 1, sizeof(*names));
					names = b;
				}
				names[nn++] = name;
			}
		}
	if (nn > 0) {
		svg_raw(s, "<h2>Phase medians</h2>\n<table><tr><th class=\"l\">phase</th>");
		json_array_foreach(cmds, i, c) {
			svg_raw(s, "<th>");
			svg_text(s, report_page_str(c, "name"));
			svg_raw(s, "</th>");
		}
		svg_raw(s, "</tr>\n");
		for (size_t x = 0; x < nn; x++) {
			svg_raw(s, "<tr>");
			report_page_cell(s, names[x], 1);
			json_array_foreach(cmds, i, c) {
				char a[64];
				double m = report_bench_phase_median(c, names[x]);
				report_page_cell(s, isnan(m) ? "\u2013" : report_chart_value(REPORT_UNIT_MS, m, a, sizeof(a)), 0);
			}
			svg_raw(s, "</tr>\n");
		}
		svg_raw(s, "</table>\n");
	}
	free(names);
}

/* The whole-run stacks of a command's profiled runs summed, as the record's
 * [{"stack", "count"}]; *profiled the runs with a profile, *ms the first
 * one's milliseconds per sample (0 when none says). */
static json_t *report_bench_stacks(const json_t *runs, size_t *profiled, double *ms)
{
	json_t *sum = json_object(), *out = json_array();
	*profiled = 0;
	*ms = 0;
	size_t i, j;
	json_t *r, *st;
	json_array_foreach(runs, i, r) {
		const json_t *p = json_object_get(r, "profile");
		const json_t *stacks = json_object_get(json_object_get(p, "run"), "stacks");
		if (!json_is_array(stacks))
			continue;
		(*profiled)++;
		double m = report_page_num(p, "ms_per_sample");
		if (!(*ms > 0) && m > 0)
			*ms = m;
		json_array_foreach(stacks, j, st) {
			const char *k = json_string_value(json_object_get(st, "stack"));
			double c = report_page_num(st, "count");
			if (!k || !(c > 0) || !isfinite(c))
				continue;
			double had = report_page_num(sum, k);
			json_object_set_new(sum, k, json_real(isnan(had) ? c : had + c));
		}
	}
	const char *k;
	json_t *v;
	json_object_foreach(sum, k, v)
		json_array_append_new(out, json_pack("{s:s, s:f}", "stack", k, "count", json_number_value(v)));
	json_decref(sum);
	return out;
}

/* "Profiles": one flame graph per command that has profiled runs. */
static void report_bench_profiles(const json_t *cmds, struct svg *s)
{
	size_t i;
	json_t *c;
	bool any = false;
	json_array_foreach(cmds, i, c) {
		size_t profiled;
		double ms;
		json_t *stacks = report_bench_stacks(json_object_get(c, "runs"), &profiled, &ms);
		struct flamegraph_nodes nodes;
		if (profiled && flamegraph_nodes_from_stacks(stacks, FLAMEGRAPH_MIN_FRACTION, &nodes, NULL) == 0) {
			if (!any)
				svg_raw(s, "<h2 id=\"profile\">Profiles</h2>\n<p class=\"note\">Per command, the "
					   "stacks of all its profiled runs summed: each frame as wide as its samples over "
					   "the runs, rooted at the phases of their sample; hover a frame for its numbers.</p>\n");
			any = true;
			char a[32], b[32], id[32];
			/* the command itself is in the table above, by its number */
			char *title = xasprintf("command %zu \u2014 %zu profiled run%s, %s samples (%s CPU)", i + 1,
						profiled, profiled == 1 ? "" : "s",
						units_count(nodes.total, a, sizeof(a)),
						report_chart_value(REPORT_UNIT_MS, nodes.total * ms, b, sizeof(b)));
			snprintf(id, sizeof(id), "profile-%zu", i + 1);
			struct flamegraph_opts o = { .id = id, .title = title, .unit = "samples", .ms_per_unit = ms,
							     .merged = nodes.merged };
			flamegraph_write(s, nodes.v, nodes.n, &o);
			free(title);
			flamegraph_nodes_free(&nodes);
		}
		json_decref(stacks);
	}
}

int report_bench_html(const json_t *rec, struct svg *s, struct err *e)
{
	const json_t *cmds = json_object_get(rec, "commands");
	if (!json_is_array(cmds))
		return err_set(e, "bench record has no \"commands\" array");
	size_t nc = json_array_size(cmds), i, j;
	json_t *c, *r;
	struct report_strip *wall = xcalloc(nc + 1, sizeof(*wall)), *rss = xcalloc(nc + 1, sizeof(*rss));
	double **vals = xcalloc(2 * nc + 1, sizeof(*vals));
	json_array_foreach(cmds, i, c) {
		const json_t *runs = json_object_get(c, "runs");
		vals[2 * i] = xcalloc(json_array_size(runs) + 1, sizeof(double));
		vals[2 * i + 1] = xcalloc(json_array_size(runs) + 1, sizeof(double));
		wall[i] = (struct report_strip){ report_page_str(c, "name"), vals[2 * i], 0 };
		rss[i] = (struct report_strip){ report_page_str(c, "name"), vals[2 * i + 1], 0 };
		json_array_foreach(runs, j, r) {
			const json_t *sum = json_object_get(r, "summary");
			double w = report_page_num(sum, "wall_s"), m = report_page_num(sum, "peak_rss_kb");
			if (!isnan(w))
				vals[2 * i][wall[i].n++] = w * 1000;
			if (!isnan(m))
				vals[2 * i + 1][rss[i].n++] = m;
		}
	}

	const json_t *host = json_object_get(rec, "host"), *opt = json_object_get(rec, "options");
	char line[512];
	report_page_begin(s, "perfhunt bench report");
	svg_raw(s, "<h1>perfhunt bench report</h1>\n<table class=\"meta\">\n");
	report_page_row(s, "started", report_page_str(rec, "started_at"));
	if (json_is_object(host)) {
		snprintf(line, sizeof(line), "%s \u00b7 Linux %s \u00b7 %s", report_page_str(host, "hostname"),
			 report_page_str(host, "kernel"), report_page_str(host, "cpu_model"));
		report_page_row(s, "host", line);
	}
	const json_t *git = json_object_get(rec, "git");
	if (json_is_object(git)) {
		snprintf(line, sizeof(line), "%.12s%s", report_page_str(git, "commit"),
			 json_is_true(json_object_get(git, "dirty")) ? " (dirty)" : "");
		report_page_row(s, "git commit", line);
	}
	snprintf(line, sizeof(line), "%.0f runs per command, %.0f warmup", report_page_num(opt, "runs"),
		 report_page_num(opt, "warmup"));
	report_page_row(s, "runs", line);
	json_array_foreach(cmds, i, c) {
		char *cmd = report_page_command(json_object_get(c, "command"));
		snprintf(line, sizeof(line), "command %zu", i + 1);
		report_page_row(s, line, cmd);
		free(cmd);
	}
	svg_raw(s, "</table>\n");
	report_bench_results(rec, s);
	svg_raw(s, "<figure>\n");
	report_chart_strips(s, "wall", "Wall time, every run", REPORT_UNIT_MS, wall, nc);
	svg_raw(s, "</figure>\n<figure>\n");
	report_chart_strips(s, "peak_rss", "Peak RSS (largest process), every run", REPORT_UNIT_KB, rss, nc);
	svg_raw(s, "</figure>\n");
	report_bench_phases(cmds, s);
	report_bench_profiles(cmds, s);
	report_page_end(s);
	for (i = 0; i < 2 * nc; i++)
		free(vals[i]);
	free(vals);
	free(wall);
	free(rss);
	return 0;
}
