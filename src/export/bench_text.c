/* bench_text: per-command result blocks and the relative speed line.
 *
 * Everything printed comes from the finished record (its "stats" and
 * "outliers"), values are formatted by compare_text_value so a figure reads
 * the same in bench and compare, and the relative line follows hyperfine's
 * wording so readers of either tool recognise it. Command and phase names
 * are quoted (util/quote) when they hold control characters.
 */
#include "export/bench_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/compare_text.h"
#include "stats/bench_record.h"
#include "stats/metrics.h"
#include "util/quote.h"
#include "util/xalloc.h"

#define TOP_PHASES 3

const char *const bench_text_titles[BENCH_TEXT_COLS] = {
	"command", "median", "mean ± σ", "min", "max", "peak RSS", "relative",
};

static const json_t *command_at(const json_t *rec, size_t i)
{
	return json_array_get(json_object_get(rec, "commands"), i);
}

static const char *command_name(const json_t *rec, size_t i)
{
	const char *s = json_string_value(json_object_get(command_at(rec, i), "name"));
	return s ? s : "?";
}

static char *stat_text(const json_t *rec, size_t i, const char *metric, const char *what, char *buf, size_t n)
{
	return compare_text_value(metric, bench_record_stat(rec, i, metric, what), buf, n);
}

const char *const bench_text_time_units[3] = { "microsecond", "millisecond", "second" };

/* A wall-time figure, in unit when it names one of bench_text_time_units. */
static char *wall_text(const json_t *rec, size_t i, const char *what, const char *unit, char *buf, size_t n)
{
	static const char *const symbol[] = { "µs", "ms", "s" };
	static const double per_s[] = { 1e6, 1e3, 1 };
	static const int decimals[] = { 1, 1, 3 };
	double v = bench_record_stat(rec, i, "wall_s", what);
	for (size_t k = 0; unit && !isnan(v) && k < 3; k++)
		if (!strcmp(unit, bench_text_time_units[k])) {
			snprintf(buf, n, "%.*f %s", decimals[k], v * per_s[k], symbol[k]);
			return buf;
		}
	return stat_text(rec, i, "wall_s", what, buf, n);
}

static void relative_text(const json_t *rec, size_t i, size_t ref, char *buf, size_t n)
{
	double ratio, sd;
	if (i == ref)
		snprintf(buf, n, "1.00");
	else if (bench_record_relative(rec, i, ref, &ratio, &sd))
		snprintf(buf, n, "%.2f ± %.2f", ratio, sd);
	else
		snprintf(buf, n, "n/a");
}

void bench_text_cells(const json_t *rec, size_t i, size_t ref, const char *time_unit,
		      char cells[BENCH_TEXT_COLS][BENCH_TEXT_CELL])
{
	char a[48], b[48];
	snprintf(cells[0], BENCH_TEXT_CELL, "%s", command_name(rec, i));
	wall_text(rec, i, "median", time_unit, cells[1], BENCH_TEXT_CELL);
	snprintf(cells[2], BENCH_TEXT_CELL, "%s ± %s", wall_text(rec, i, "mean", time_unit, a, sizeof(a)),
		 wall_text(rec, i, "stddev", time_unit, b, sizeof(b)));
	wall_text(rec, i, "min", time_unit, cells[3], BENCH_TEXT_CELL);
	wall_text(rec, i, "max", time_unit, cells[4], BENCH_TEXT_CELL);
	stat_text(rec, i, "peak_rss_kb", "median", cells[5], BENCH_TEXT_CELL);
	relative_text(rec, i, ref, cells[6], BENCH_TEXT_CELL);
}

static int count_failed(json_t *const *runs, size_t n, size_t first, void *arg)
{
	(void)first;
	for (size_t i = 0; i < n; i++)
		*(size_t *)arg += json_integer_value(json_object_get(json_object_get(runs[i], "exit"), "status")) != 0;
	return 0;
}

/* The runs of command i that exited non-zero (those read, should one not be). */
static size_t failed_runs(const json_t *rec, const struct bench_runs *src, size_t i)
{
	size_t failed = 0;
	struct err e;
	bench_runs_each(src, rec, i, count_failed, &failed, &e);
	return failed;
}

/* The TOP_PHASES phases with the largest median total, largest first. */
static void top_phases(const json_t *rec, size_t i, FILE *out)
{
	const char *names[TOP_PHASES] = { 0 };
	double medians[TOP_PHASES] = { 0 };
	size_t n = 0;
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(command_at(rec, i), "stats"), key, v) {
		if (strncmp(key, "phase:", 6) || metrics_phase_resource(key))
			continue;
		double m = json_number_value(json_object_get(v, "median"));
		size_t at = n;
		while (at > 0 && medians[at - 1] < m)
			at--;
		if (at >= TOP_PHASES)
			continue;
		for (size_t k = n < TOP_PHASES ? n++ : TOP_PHASES - 1; k > at; k--) {
			names[k] = names[k - 1];
			medians[k] = medians[k - 1];
		}
		names[at] = key;
		medians[at] = m;
	}
	if (n == 0)
		return;
	fprintf(out, "  %-12s", "phases");
	for (size_t k = 0; k < n; k++) {
		char buf[48];
		char *name = quote_c(names[k] + 6);
		fprintf(out, "%s%s %s", k ? ", " : " ", name, compare_text_value(names[k], medians[k], buf, sizeof(buf)));
		free(name);
	}
	fputs("   (median total per run)\n", out);
}

/* bench --attach: the daemon's medians, under the names compare uses. */
static void daemon_lines(const json_t *rec, size_t i, FILE *out)
{
	char a[48], b[48], c[48], d[48];
	if (isnan(bench_record_stat(rec, i, "daemon.peak_rss_kb", "median")))
		return;
	fprintf(out, "  %-12s peak %s (%s above idle)   user / sys %s / %s   (medians)\n", "daemon",
		stat_text(rec, i, "daemon.peak_rss_kb", "median", a, sizeof(a)),
		stat_text(rec, i, "daemon.peak_above_idle_kb", "median", b, sizeof(b)),
		stat_text(rec, i, "daemon.user_s", "median", c, sizeof(c)),
		stat_text(rec, i, "daemon.sys_s", "median", d, sizeof(d)));
	fprintf(out, "  %-12s %s minor faults, %s context switches   (medians)\n", "",
		stat_text(rec, i, "daemon.minflt", "median", a, sizeof(a)),
		stat_text(rec, i, "daemon.vcsw", "median", b, sizeof(b)));
}

static void command_block(const json_t *rec, const struct bench_runs *src, size_t i,
			  const struct bench_text_style *style, FILE *out)
{
	const json_t *cmd = command_at(rec, i);
	char cells[BENCH_TEXT_COLS][BENCH_TEXT_CELL], a[48], b[48];
	size_t runs = bench_runs_count(src, rec, i);
	size_t timed_out = json_array_size(json_object_get(cmd, "failed"));
	char *name = quote_c(command_name(rec, i));
	fprintf(out, "%sBenchmark %zu: %s%s\n", style->color ? "\033[1m" : "", i + 1, name, style->color ? "\033[0m" : "");
	free(name);
	if (runs == 0) {
		fputs("  no completed runs\n", out);
		if (timed_out)
			fprintf(out, "  %-12s %zu run%s timed out (--timeout): killed, kept apart with their timelines\n",
				"failed", timed_out, timed_out == 1 ? "" : "s");
		return;
	}
	bench_text_cells(rec, i, i, style->time_unit, cells);
	fprintf(out, "  %-12s median %s   mean %s   (%zu run%s)\n", "wall", cells[1], cells[2], runs, runs == 1 ? "" : "s");
	fprintf(out, "  %s %s … %s\n", "min … max   ", cells[3], cells[4]); /* "…" is 3 bytes: padded by hand */
	fprintf(out, "  %-12s %s   (median of the exact largest-process peak)\n", "peak RSS", cells[5]);
	fprintf(out, "  %-12s %s / %s   (medians)\n", "user / sys", stat_text(rec, i, "user_s", "median", a, sizeof(a)),
		stat_text(rec, i, "sys_s", "median", b, sizeof(b)));
	daemon_lines(rec, i, out);
	top_phases(rec, i, out);
	size_t outliers = json_array_size(json_object_get(json_object_get(cmd, "outliers"), "runs"));
	if (outliers)
		fprintf(out, "  %-12s %zu outlier%s in wall time (|modified z| > 3.5, over 5 %% from the median): consider --warmup or a quieter machine\n",
			"outliers", outliers, outliers == 1 ? "" : "s");
	size_t failed = failed_runs(rec, src, i);
	if (failed)
		fprintf(out, "  %-12s %zu of %zu runs exited non-zero (ignored with -i)\n", "failed", failed, runs);
	if (timed_out)
		fprintf(out, "  %-12s %zu of %zu runs timed out (--timeout): killed, kept apart with their timelines,\n"
			     "  %-12s in no statistic above\n", "failed", timed_out, runs + timed_out, "");
}

/* The commands' indexes in the order of figure what ("median", "mean"; a
 * command without runs last), or as given when what is NULL. Caller frees. */
static size_t *order_by(const json_t *rec, size_t n, const char *what)
{
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	for (size_t i = 0; i < n; i++) {
		size_t k = i;
		double v = what ? bench_record_stat(rec, i, "wall_s", what) : 0;
		if (isnan(v))
			v = INFINITY;
		/* insertion: a stable order, ties as given */
		while (what && k > 0) {
			double w = bench_record_stat(rec, order[k - 1], "wall_s", what);
			if (!(v < (isnan(w) ? INFINITY : w)))
				break;
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	return order;
}

int bench_text_write(const json_t *rec, const struct bench_runs *src, const struct bench_text_style *style,
		     FILE *out)
{
	bool color = style->color;
	size_t n = json_array_size(json_object_get(rec, "commands"));
	size_t *blocks = order_by(rec, n, style->sort == BENCH_SORT_MEAN_TIME ? "mean" : NULL);
	size_t *rows = order_by(rec, n, style->sort == BENCH_SORT_AUTO ? "median"
					: style->sort == BENCH_SORT_MEAN_TIME ? "mean" : NULL);
	for (size_t j = 0; j < n; j++) {
		if (j)
			fputc('\n', out);
		command_block(rec, src, blocks[j], style, out);
	}
	struct quote_pool q = { 0 };
	if (n > 1) {
		size_t ref = bench_record_fastest(rec);
		fprintf(out, "\n%sSummary%s (median wall time, ± from the MAD)\n  %s ran\n", color ? "\033[1m" : "", color ? "\033[0m" : "",
			quote_pool_c(&q, command_name(rec, ref)));
		for (size_t j = 0; j < n; j++) {
			char buf[64];
			size_t i = rows[j];
			if (i == ref)
				continue;
			if (!bench_runs_count(src, rec, i)) {
				fprintf(out, "    (%s has no completed runs)\n", command_name(rec, i));
				continue;
			}
			relative_text(rec, i, ref, buf, sizeof(buf));
			fprintf(out, "    %s times faster than %s\n", buf, quote_pool_c(&q, command_name(rec, i)));
		}
	}
	quote_pool_release(&q);
	free(blocks);
	free(rows);
	return ferror(out) ? -1 : 0;
}
