/* phases_text: aligned plain-text tables of phase statistics and lanes.
 *
 * It reads the JSON record, not the in-memory phase set, so that a stored
 * run prints exactly like a live one. Durations go through units_ms; the
 * name column is as wide as the longest name (up to a cap), no colour;
 * names are quoted (util/quote) when they hold control characters.
 */
#include "export/phases_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/quote.h"
#include "util/units.h"

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

/* Width of the widest string member key in array a as printed, at least min. */
static int name_width(const json_t *a, const char *key, int min, struct quote_pool *q)
{
	size_t w = (size_t)min, i;
	json_t *o;
	json_array_foreach(a, i, o) {
		size_t len = strlen(quote_pool_c(q, str(o, key)));
		if (len > w)
			w = len;
	}
	return w > NAME_WIDTH_MAX ? NAME_WIDTH_MAX : (int)w;
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

/* The name that encloses every instance of name in time (the innermost such
 * name), or NULL: nested phases are shown under the phase that holds them. */
const char *phases_text_parent(const json_t *phases, const char *name)
{
	const char *best = NULL;
	double best_total = 0;
	size_t i, j, k;
	const json_t *cand, *a, *b;
	json_array_foreach(phases, i, cand) {
		const char *pn = str(cand, "name");
		if (!strcmp(pn, name) || (best && !strcmp(pn, best)))
			continue;
		bool all_inside = true, any = false;
		json_array_foreach(phases, j, a) {
			if (strcmp(str(a, "name"), name))
				continue;
			any = true;
			bool inside = false;
			json_array_foreach(phases, k, b)
				if (!strcmp(str(b, "name"), pn) && num(b, "start_ms") <= num(a, "start_ms") &&
				    num(a, "end_ms") <= num(b, "end_ms") &&
				    num(b, "end_ms") - num(b, "start_ms") > num(a, "end_ms") - num(a, "start_ms"))
					inside = true;
			if (!inside) {
				all_inside = false;
				break;
			}
		}
		if (!any || !all_inside)
			continue;
		double total = 0;
		json_array_foreach(phases, k, b)
			if (!strcmp(str(b, "name"), pn))
				total += num(b, "end_ms") - num(b, "start_ms");
		if (!best || total < best_total) {
			best = pn;
			best_total = total;
		}
	}
	return best;
}

char *phases_text_growth(double kb, char *buf, size_t n)
{
	char u[24];
	units_kb(kb < 0 ? -kb : kb, u, sizeof(u));
	snprintf(buf, n, "%s%s", kb > 0 ? "+" : kb < 0 ? "-" : "", u);
	return buf;
}

struct row {
	const json_t *stat;
	const char *parent;
	int depth;
	bool shown;
};

/* The resource columns of one row, from a totals or medians object. */
static void print_resources(const json_t *r, bool gpu, FILE *out)
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
}

static void print_row(const struct row *rows, size_t n, size_t at, int w, bool res, bool gpu, FILE *out,
		      struct quote_pool *q)
{
	static const char *const keys[] = { "total_ms", "median_ms", "min_ms", "max_ms" };
	char u[32], c[48], name[256];
	const json_t *o = rows[at].stat;
	snprintf(name, sizeof(name), "%*s%s", 2 * rows[at].depth, "", quote_pool_c(q, str(o, "name")));
	fprintf(out, "%-*s %6.0f", w, name, num(o, "count"));
	for (size_t k = 0; k < 4; k++)
		fprintf(out, " %s", cell(duration(num(o, keys[k]), u, sizeof(u)), 11, c, sizeof(c)));
	const json_t *r = json_object_get(o, "resources");
	if (res && r) {
		fputs("  ", out);
		print_resources(json_object_get(r, "total"), gpu, out);
	}
	fputc('\n', out);
	if (res && r && num(o, "count") > 1) {
		snprintf(name, sizeof(name), "%*s  (median)", 2 * rows[at].depth, "");
		fprintf(out, "%-*s %6s %11s %11s %11s %11s  ", w, name, "", "", "", "", "");
		print_resources(json_object_get(r, "median"), gpu, out);
		fputc('\n', out);
	}
	for (size_t i = 0; i < n; i++)
		if (rows[i].parent && !strcmp(rows[i].parent, str(o, "name")))
			print_row(rows, n, i, w, res, gpu, out, q);
}

static void print_stats(const json_t *stats, const json_t *phases, FILE *out, struct quote_pool *q)
{
	size_t n = json_array_size(stats), i;
	struct row *rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return;
	bool res = false, gpu = false;
	size_t m = 0;
	json_t *o;
	json_array_foreach(stats, i, o) {
		if (!json_is_object(o) || !json_is_string(json_object_get(o, "name")))
			continue;
		const json_t *r = json_object_get(o, "resources");
		res |= r != NULL;
		gpu |= json_object_get(json_object_get(r, "total"), "gpu_growth_mib") != NULL;
		rows[m++] = (struct row){ .stat = o,
					  .parent = n <= 256 ? phases_text_parent(phases, str(o, "name")) : NULL };
	}
	/* a parent not in the table shows its child at the top level */
	for (size_t k = 0; k < m; k++) {
		bool known = false;
		for (size_t j = 0; j < m && rows[k].parent && !known; j++)
			known = !strcmp(str(rows[j].stat, "name"), rows[k].parent);
		if (!known)
			rows[k].parent = NULL;
	}
	int w = 5;
	for (size_t k = 0; k < m; k++)
		for (const char *p = rows[k].parent; p; rows[k].depth++) {
			const char *next = NULL;
			for (size_t j = 0; j < m && !next; j++)
				if (!strcmp(str(rows[j].stat, "name"), p))
					next = rows[j].parent ? rows[j].parent : "";
			p = next && *next && rows[k].depth < 8 ? next : NULL;
		}
	for (size_t k = 0; k < m; k++) {
		int need = (int)strlen(quote_pool_c(q, str(rows[k].stat, "name"))) + 2 * rows[k].depth;
		if (res && num(rows[k].stat, "count") > 1 && need < 2 * rows[k].depth + 10)
			need = 2 * rows[k].depth + 10; /* "  (median)" */
		if (need > w)
			w = need;
	}
	if (w > NAME_WIDTH_MAX)
		w = NAME_WIDTH_MAX;
	fprintf(out, "%-*s %6s %11s %11s %11s %11s", w, "phase", "count", "total", "median", "min", "max");
	if (res)
		fprintf(out, "  %10s %5s %9s %11s%s", "CPU", "sys", "minor flt", "RSS growth", gpu ? "  GPU growth" : "");
	fputc('\n', out);
	for (size_t k = 0; k < m; k++)
		if (!rows[k].parent)
			print_row(rows, m, k, w, res, gpu, out, q);
	free(rows);
}

static void print_lanes(const json_t *lanes, FILE *out, struct quote_pool *q)
{
	int w = name_width(lanes, "lane", 4, q);
	char u[32], c[3][48];
	fprintf(out, "%-*s %6s %11s %7s %11s %6s %11s\n", w, "lane", "phases", "busy", "busy%",
		"span", "gaps", "longest gap");
	size_t i;
	json_t *o;
	json_array_foreach(lanes, i, o) {
		if (!json_is_object(o))
			continue;
		fprintf(out, "%-*s %6.0f %11s %6.1f%% %11s %6.0f %11s\n", w, quote_pool_c(q, str(o, "lane")),
			num(o, "phases"), cell(duration(num(o, "busy_ms"), u, sizeof(u)), 11, c[0], sizeof(c[0])),
			num(o, "busy_pct"), cell(duration(num(o, "span_ms"), u, sizeof(u)), 11, c[1], sizeof(c[1])),
			num(o, "gaps"), num(o, "gaps") > 0 ?
			cell(duration(num(o, "longest_gap_ms"), u, sizeof(u)), 11, c[2], sizeof(c[2])) : "-");
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
	if (json_is_array(lanes) && json_array_size(lanes))
		print_lanes(lanes, out, &q);
	quote_pool_release(&q);
	if (json_is_object(info))
		print_info(info, out);
	if (ferror(out))
		return err_set(e, "cannot write the phase table");
	return 0;
}
