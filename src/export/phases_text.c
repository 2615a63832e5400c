/* phases_text: aligned plain-text tables of phase statistics and lanes.
 *
 * It reads the JSON record, not the in-memory phase set, so that a stored
 * run prints exactly like a live one. Durations go through units_ms; the
 * name column is as wide as the longest name (up to a cap), no colour;
 * names are quoted (util/quote) when they hold control characters.
 */
#include "export/phases_text.h"

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

static void print_stats(const json_t *stats, FILE *out, struct quote_pool *q)
{
	int w = name_width(stats, "name", 5, q);
	static const char *const keys[] = { "total_ms", "median_ms", "min_ms", "max_ms" };
	char u[32], c[48];
	fprintf(out, "%-*s %6s %11s %11s %11s %11s\n", w, "phase", "count", "total", "median", "min", "max");
	size_t i;
	json_t *o;
	json_array_foreach(stats, i, o) {
		if (!json_is_object(o))
			continue;
		fprintf(out, "%-*s %6.0f", w, quote_pool_c(q, str(o, "name")), num(o, "count"));
		for (size_t k = 0; k < 4; k++)
			fprintf(out, " %s", cell(duration(num(o, keys[k]), u, sizeof(u)), 11, c, sizeof(c)));
		fputc('\n', out);
	}
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
		{ "unmatched_ends", "end= without begin=" },
		{ "unfinished", "unfinished at exit" },
		{ "clamped", "clamped to the start" },
		{ "ignored_tokens", "ignored tokens" },
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
		print_stats(stats, out, &q);
	if (json_is_array(lanes) && json_array_size(lanes))
		print_lanes(lanes, out, &q);
	quote_pool_release(&q);
	if (json_is_object(info))
		print_info(info, out);
	if (ferror(out))
		return err_set(e, "cannot write the phase table");
	return 0;
}
