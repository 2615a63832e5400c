/* phases_text: aligned plain-text tables of phase statistics and lanes.
 *
 * It reads the JSON record, not the in-memory phase set, so that a stored
 * run prints exactly like a live one. Durations go through units_ms; the
 * name column is as wide as the longest name (up to a cap), no colour;
 * names are quoted (util/quote) when they hold control characters. Which
 * rows are listed and how they nest is phase_table's: linear in the phases
 * whatever their shape, and bounded in rows, the rest counted in one line.
 */
#include "export/phases_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/phase_table.h"
#include "util/quote.h"
#include "util/units.h"
#include "util/xalloc.h"

#define NAME_WIDTH_MAX 40

static double num(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* Right-aligns s in width columns; units_ms writes "µs", two bytes, one column. */
static const char *cell(const char *s, int width, char *buf, size_t n)
{
	int cols = 0;
	for (const char *p = s; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	snprintf(buf, n, "%*s%s", width > cols ? width - cols : 0, "", s);
	return buf;
}

/* units_ms, for any number a hostile record may hold. */
static char *duration(double ms, char *buf, size_t n)
{
	if (!(ms > -1e12 && ms < 1e12)) {
		snprintf(buf, n, "%.3g ms", ms);
		return buf;
	}
	return units_ms(ms, buf, n);
}

char *phases_text_growth(double kb, char *buf, size_t n)
{
	char u[24];
	units_kb(kb < 0 ? -kb : kb, u, sizeof(u));
	snprintf(buf, n, "%s%s", kb > 0 ? "+" : kb < 0 ? "-" : "", u);
	return buf;
}

/* Parallelism (on-CPU thread time over wall) and the share of the threads'
 * time spent off a CPU (waiting for one or blocked), for records that have them. */
static void print_thread_states(const json_t *r, FILE *out)
{
	double oncpu = num(r, "oncpu_ms"), off = num(r, "runnable_ms") + num(r, "blocked_ms");
	if (!json_is_number(json_object_get(r, "parallelism"))) {
		fprintf(out, " %5s %7s", "-", "-");
		return;
	}
	fprintf(out, " %5.2f", num(r, "parallelism"));
	if (oncpu + off > 0)
		fprintf(out, " %6.0f%%", 100 * off / (oncpu + off));
	else
		fprintf(out, " %7s", "-");
}

/* The resource columns of one row, from a totals or medians object. */
static void print_resources(const json_t *r, bool gpu, bool threads, FILE *out)
{
	char u[40], c[48];
	double user = num(r, "user_ms"), sys = num(r, "sys_ms");
	fprintf(out, " %s", cell(duration(user + sys, u, sizeof(u)), 10, c, sizeof(c)));
	if (user + sys > 0)
		fprintf(out, " %4.0f%%", 100 * sys / (user + sys));
	else
		fprintf(out, " %5s", "-");
	fprintf(out, " %s", cell(units_count(num(r, "minflt"), u, sizeof(u)), 9, c, sizeof(c)));
	fprintf(out, " %s", cell(phases_text_growth(num(r, "rss_growth_kb"), u, sizeof(u)), 11, c, sizeof(c)));
	if (gpu)
		fprintf(out, " %s", cell(phases_text_growth(num(r, "gpu_growth_mib") * 1024, u, sizeof(u)), 11, c, sizeof(c)));
	if (threads)
		print_thread_states(r, out);
}

static void print_row(const json_t *o, int depth, int w, bool res, bool gpu, bool threads, FILE *out,
		      struct quote_pool *q)
{
	static const char *const keys[] = { "total_ms", "median_ms", "min_ms", "max_ms" };
	char u[32], c[48], name[256];
	snprintf(name, sizeof(name), "%*s%s", 2 * depth, "", quote_pool_c(q, str(o, "name")));
	fprintf(out, "%-*s %6.0f", w, name, num(o, "count"));
	for (size_t k = 0; k < 4; k++)
		fprintf(out, " %s", cell(duration(num(o, keys[k]), u, sizeof(u)), 11, c, sizeof(c)));
	const json_t *r = json_object_get(o, "resources");
	if (res && r) {
		fputs("  ", out);
		print_resources(json_object_get(r, "total"), gpu, threads, out);
	}
	fputc('\n', out);
	if (res && r && num(o, "count") > 1) {
		snprintf(name, sizeof(name), "%*s  (median)", 2 * depth, "");
		fprintf(out, "%-*s %6s %11s %11s %11s %11s  ", w, name, "", "", "", "", "");
		print_resources(json_object_get(r, "median"), gpu, threads, out);
		fputc('\n', out);
	}
}

/* The rows of the table in the order printed: each name, then the names it
 * holds (in the table's order), depth first; depth[] as indented (at most 8). */
static void table_order(struct phase_rows *pr, size_t *order, int *depth)
{
	size_t m = pr->n, done = 0;
	size_t *first = xcalloc(m + 1, sizeof(*first)), *kids = xcalloc(m + 1, sizeof(*kids));
	size_t *stack = xcalloc(m + 1, sizeof(*stack)), *next = xcalloc(m + 1, sizeof(*next));
	bool *seen = xcalloc(m + 1, sizeof(*seen));
	for (size_t k = 0; k < m; k++) /* children of each row, contiguous: counts, then places */
		if (pr->parent[k] != PHASE_ROWS_NONE)
			first[pr->parent[k] + 1]++;
	for (size_t k = 0; k < m; k++)
		first[k + 1] += first[k];
	for (size_t k = 0; k < m; k++)
		if (pr->parent[k] != PHASE_ROWS_NONE)
			kids[first[pr->parent[k]] + next[pr->parent[k]]++] = k;
	/* roots in order; a row whose parents loop (a hostile record) is a root too */
	for (int pass = 0; pass < 2; pass++)
		for (size_t r = 0; r < m; r++) {
			if (seen[r] || (pass == 0 && pr->parent[r] != PHASE_ROWS_NONE))
				continue;
			size_t sp = 0;
			stack[sp] = r;
			next[sp++] = first[r];
			seen[r] = true;
			order[done] = r;
			depth[done++] = 0;
			while (sp) {
				size_t top = stack[sp - 1];
				if (next[sp - 1] == first[top + 1]) {
					sp--;
					continue;
				}
				size_t k = kids[next[sp - 1]++];
				if (seen[k])
					continue;
				seen[k] = true;
				order[done] = k;
				depth[done++] = sp < 8 ? (int)sp : 8;
				stack[sp] = k;
				next[sp++] = first[k];
			}
		}
	free(first);
	free(kids);
	free(stack);
	free(next);
	free(seen);
}

/* "... and 9 800 more phase names (12 000 instances, 1.20 s in all)". */
static void print_left_out(const struct phase_rows *pr, FILE *out)
{
	char c[2][32], u[32];
	fprintf(out, "... and %s more phase names (%s instances, %s in all), listed in the record\n",
		units_count((double)pr->left_out, c[0], sizeof(c[0])), units_count(pr->left_out_count, c[1], sizeof(c[1])),
		duration(pr->left_out_ms, u, sizeof(u)));
}

static void print_stats(const json_t *stats, const json_t *phases, FILE *out, struct quote_pool *q)
{
	struct phase_rows pr;
	phase_rows_init(&pr, stats, phases, PHASE_TABLE_ROWS_MAX);
	size_t m = pr.n;
	size_t *order = xcalloc(m + 1, sizeof(*order));
	int *depth = xcalloc(m + 1, sizeof(*depth));
	table_order(&pr, order, depth);
	bool res = false, gpu = false, threads = false;
	for (size_t k = 0; k < m; k++) {
		const json_t *r = json_object_get(pr.stat[k], "resources");
		res |= r != NULL;
		gpu |= json_object_get(json_object_get(r, "total"), "gpu_growth_mib") != NULL;
		threads |= json_object_get(json_object_get(r, "total"), "parallelism") != NULL;
	}
	int w = 5;
	for (size_t k = 0; k < m; k++) {
		const json_t *o = pr.stat[order[k]];
		int need = (int)strlen(quote_pool_c(q, str(o, "name"))) + 2 * depth[k];
		if (res && num(o, "count") > 1 && need < 2 * depth[k] + 10)
			need = 2 * depth[k] + 10; /* "  (median)" */
		if (need > w)
			w = need;
	}
	if (w > NAME_WIDTH_MAX)
		w = NAME_WIDTH_MAX;
	fprintf(out, "%-*s %6s %11s %11s %11s %11s", w, "phase", "count", "total", "median", "min", "max");
	if (res)
		fprintf(out, "  %10s %5s %9s %11s%s%s", "CPU", "sys", "minor flt", "RSS growth", gpu ? "  GPU growth" : "",
			threads ? "   par off-CPU" : "");
	fputc('\n', out);
	for (size_t k = 0; k < m; k++)
		print_row(pr.stat[order[k]], depth[k], w, res, gpu, threads, out, q);
	if (pr.left_out)
		print_left_out(&pr, out);
	free(order);
	free(depth);
	phase_rows_release(&pr);
}

static void print_lanes(const json_t *lanes, FILE *out, struct quote_pool *q)
{
	const json_t **kept = xcalloc(PHASE_TABLE_ROWS_MAX, sizeof(*kept));
	size_t n = phase_table_pick(lanes, "busy_ms", PHASE_TABLE_ROWS_MAX, kept), all = 0, i;
	int w = 4;
	for (i = 0; i < n; i++) {
		int len = (int)strlen(quote_pool_c(q, str(kept[i], "lane")));
		w = len > w ? len : w;
	}
	w = w > NAME_WIDTH_MAX ? NAME_WIDTH_MAX : w;
	char u[32], c[3][48];
	fprintf(out, "%-*s %6s %11s %7s %11s %6s %11s\n", w, "lane", "phases", "busy", "busy%",
		"span", "gaps", "longest gap");
	double busy_ms = 0, phases = 0;
	for (i = 0; i < n; i++) {
		const json_t *o = kept[i];
		fprintf(out, "%-*s %6.0f %11s %6.1f%% %11s %6.0f %11s\n", w, quote_pool_c(q, str(o, "lane")),
			num(o, "phases"), cell(duration(num(o, "busy_ms"), u, sizeof(u)), 11, c[0], sizeof(c[0])),
			num(o, "busy_pct"), cell(duration(num(o, "span_ms"), u, sizeof(u)), 11, c[1], sizeof(c[1])),
			num(o, "gaps"), num(o, "gaps") > 0 ?
			cell(duration(num(o, "longest_gap_ms"), u, sizeof(u)), 11, c[2], sizeof(c[2])) : "-");
		busy_ms -= num(o, "busy_ms");
		phases -= num(o, "phases");
	}
	const json_t *o;
	json_array_foreach(lanes, i, o)
		if (json_is_object(o)) {
			all++;
			busy_ms += num(o, "busy_ms");
			phases += num(o, "phases");
		}
	if (all > n)
		fprintf(out, "... and %s more lanes (%s phases, %s busy in all), listed in the record\n",
			units_count((double)(all - n), c[0], sizeof(c[0])), units_count(phases, c[1], sizeof(c[1])),
			duration(busy_ms, u, sizeof(u)));
	free(kept);
}

/* Bytes as units_kb does (KiB and up), for copy volumes. */
static char *bytes(double b, char *buf, size_t n)
{
	if (!(b >= 0 && b < 1e18)) {
		snprintf(buf, n, "%.3g B", b);
		return buf;
	}
	return units_kb(b / 1024, buf, n);
}

/* The GPU side of each phase name (run --gpu-trace): busy time, launches,
 * copies, device memory growth and the top kernels by time. */
static void print_gpu(const json_t *stats, FILE *out, struct quote_pool *q)
{
	size_t i, rows = 0;
	const json_t *o;
	int w = 5;
	json_array_foreach(stats, i, o) {
		if (!json_is_object(json_object_get(o, "gpu")))
			continue;
		int len = (int)strlen(quote_pool_c(q, str(o, "name")));
		w = len > w ? len : w;
		rows++;
	}
	if (!rows)
		return;
	w = w > NAME_WIDTH_MAX ? NAME_WIDTH_MAX : w;
	fprintf(out, "%-*s %11s %9s %11s %11s %11s  %s\n", w, "GPU", "busy", "launches", "H2D", "D2H",
		"mem growth", "top kernels (time, launches)");
	rows = 0;
	json_array_foreach(stats, i, o) {
		const json_t *g = json_object_get(o, "gpu");
		if (!json_is_object(g) || rows++ >= PHASE_TABLE_ROWS_MAX)
			continue;
		char c[5][48], u[48];
		fprintf(out, "%-*s %11s %9s %11s %11s %11s ", w, quote_pool_c(q, str(o, "name")),
			duration(num(g, "busy_ms"), c[0], sizeof(c[0])), units_count(num(g, "launches"), c[1], sizeof(c[1])),
			bytes(num(g, "h2d_bytes"), c[2], sizeof(c[2])), bytes(num(g, "d2h_bytes"), c[3], sizeof(c[3])),
			json_is_number(json_object_get(g, "mem_growth_mib"))
				? phases_text_growth(num(g, "mem_growth_mib") * 1024, c[4], sizeof(c[4])) : "-");
		size_t k;
		const json_t *kern;
		json_array_foreach(json_object_get(g, "kernels"), k, kern)
			fprintf(out, "%s %s %s (%.0f)", k ? "," : "", quote_pool_c(q, str(kern, "name")),
				duration(num(kern, "ms"), u, sizeof(u)), num(kern, "launches"));
		fputc('\n', out);
	}
}

/* One line naming what did not fit or did not match, only when something did. */
static void print_info(const json_t *info, FILE *out)
{
	static const struct {
		const char *key, *label;
	} items[] = {
		{ "probes_dropped", "probes over the limit" },
		{ "phases_dropped", "phases over the limit" },
		{ "phases_aggregated", "phases past the list's cap (in the statistics, not listed)" },
		{ "unmatched_ends", "end= without begin=" },
		{ "unfinished", "unfinished at exit" },
		{ "clamped", "clamped to the start" },
		{ "ignored_tokens", "ignored tokens" },
		{ "stamps_ignored", "log timestamps outside the run (arrival time used)" },
	};
	const char *sep = "probes: ";
	for (size_t i = 0; i < sizeof(items) / sizeof(*items); i++) {
		double v = num(info, items[i].key);
		if (v > 0) {
			fprintf(out, "%s%s %.0f", sep, items[i].label, v);
			sep = ", ";
		}
	}
	if (strcmp(sep, "probes: "))
		fputc('\n', out);
}

int phases_text_print(const json_t *record, FILE *out, struct err *e)
{
	const json_t *stats = json_object_get(record, "phase_stats");
	const json_t *lanes = json_object_get(record, "lanes");
	const json_t *info = json_object_get(record, "probe_info");
	struct quote_pool q = { 0 };
	if (json_is_array(stats) && json_array_size(stats))
		print_stats(stats, json_object_get(record, "phases"), out, &q);
	if (json_is_array(stats))
		print_gpu(stats, out, &q);
	if (json_is_array(lanes) && json_array_size(lanes))
		print_lanes(lanes, out, &q);
	quote_pool_release(&q);
	if (json_is_object(info))
		print_info(info, out);
	if (ferror(out))
		return err_set(e, "cannot write the phase table");
	return 0;
}
