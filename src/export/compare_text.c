/* compare_text: the comparison table for a terminal.
 *
 * Columns are padded by display width (UTF-8 code points, since units print
 * "µs" and verdicts "—"), and colour codes are added after padding so they
 * never shift a column. Phases follow the table, largest delta first, each
 * with the share of the wall-time delta it explains. Names and labels are
 * quoted (util/quote) when they hold control characters; the markdown
 * export, a file, keeps their bytes.
 */
#include "export/compare_text.h"

#include <math.h>
#include <string.h>

#include "util/quote.h"
#include "util/units.h"

const char *const compare_text_titles[COMPARE_TEXT_COLS] = {
	"metric", "base", "new", "delta", "CI of ratio", "p (Holm)", "test", "verdict",
};

const char *compare_text_family_what(enum comparison_family f)
{
	return f == COMPARISON_PRIMARY ? "wall time and phase durations" : "resources and counters";
}

char *compare_text_method_note(const struct comparison *c, char *buf, size_t n)
{
	bool exact = false, normal = false;
	for (size_t i = 0; i < c->n_metrics; i++) {
		exact |= c->metrics[i].test == STATS_MWU_EXACT;
		normal |= c->metrics[i].test == STATS_MWU_NORMAL;
	}
	char tests[240];
	snprintf(tests, sizeof(tests), "%s%s%s",
		 exact ? "exact = its exact permutation distribution, ties included" : "",
		 exact && normal ? "; " : "",
		 normal ? "normal = the normal approximation with tie correction (over "
			  STATS_MWU_EXACT_MAX_STR " runs on a side)" : "");
	snprintf(buf, n, "p: two-sided Mann\u2013Whitney U, Holm-adjusted within each family: "
		 "primary (%s), %zu test%s; secondary (%s), %zu test%s.%s%s%s",
		 compare_text_family_what(COMPARISON_PRIMARY), c->family_tests[COMPARISON_PRIMARY],
		 c->family_tests[COMPARISON_PRIMARY] == 1 ? "" : "s",
		 compare_text_family_what(COMPARISON_SECONDARY), c->family_tests[COMPARISON_SECONDARY],
		 c->family_tests[COMPARISON_SECONDARY] == 1 ? "" : "s",
		 *tests ? " Test: " : "", tests, *tests ? "." : "");
	return buf;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* units_ms, but seconds stay seconds past a minute: "88.95 s" compares at a
 * glance with "94.50 s", "1 min 28 s" does not. */
static void duration(double ms, char *buf, size_t n)
{
	if (fabs(ms) >= 60000)
		snprintf(buf, n, "%.2f s", ms / 1000);
	else
		units_ms(ms, buf, n);
}

char *compare_text_value(const char *name, double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else if (!strncmp(name, "phase:", 6))
		duration(v, buf, n);
	else if (ends_with(name, "_s"))
		duration(v * 1000, buf, n);
	else if (ends_with(name, "_kb"))
		units_kb(v, buf, n);
	else if (ends_with(name, "_mib"))
		units_kb(v * 1024, buf, n);
	else
		units_count(v, buf, n);
	return buf;
}

char *compare_text_pct(double pct, char *buf, size_t n)
{
	if (!isfinite(pct))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%+.2f %%", pct);
	return buf;
}

char *compare_text_delta_ms(double ms, char *buf, size_t n)
{
	char u[48];
	duration(fabs(ms), u, sizeof(u));
	snprintf(buf, n, "%s%s", ms < 0 ? "-" : "+", u);
	return buf;
}

double compare_text_round(double v)
{
	v = round(v);
	return v == 0 ? 0 : v; /* no "-0" */
}

static void ratio_str(double r, char *buf, size_t n)
{
	if (isinf(r))
		snprintf(buf, n, "inf");
	else
		snprintf(buf, n, "%.3f", r);
}

void compare_text_cells(const struct comparison_metric *m, char cells[COMPARE_TEXT_COLS][COMPARE_TEXT_CELL])
{
	snprintf(cells[0], COMPARE_TEXT_CELL, "%s", m->name);
	compare_text_value(m->name, m->base_median, cells[1], COMPARE_TEXT_CELL);
	compare_text_value(m->name, m->new_median, cells[2], COMPARE_TEXT_CELL);
	compare_text_pct(m->delta_pct, cells[3], COMPARE_TEXT_CELL);
	if (isnan(m->ci_low)) {
		snprintf(cells[4], COMPARE_TEXT_CELL, "-");
	} else {
		char lo[24], hi[24];
		ratio_str(m->ci_low, lo, sizeof(lo));
		ratio_str(m->ci_high, hi, sizeof(hi));
		snprintf(cells[4], COMPARE_TEXT_CELL, "%s..%s", lo, hi);
	}
	if (isnan(m->p_adjusted))
		snprintf(cells[5], COMPARE_TEXT_CELL, "-");
	else
		snprintf(cells[5], COMPARE_TEXT_CELL, "%.2g", m->p_adjusted);
	snprintf(cells[6], COMPARE_TEXT_CELL, "%s", m->test == STATS_MWU_NONE ? "-" : stats_mwu_method_name(m->test));
	snprintf(cells[7], COMPARE_TEXT_CELL, "%s", stats_verdict_label(m->verdict));
}

/* Display width of UTF-8 text: one column per code point. */
static size_t display_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *out, const char *s, size_t width, bool right)
{
	size_t w = display_width(s);
	if (right)
		fprintf(out, "%*s%s", (int)(width > w ? width - w : 0), "", s);
	else
		fprintf(out, "%s%*s", s, (int)(width > w ? width - w : 0), "");
}

/* Prints s as lines of at most width columns, broken at spaces. */
static void wrap(FILE *out, const char *s, size_t width)
{
	while (*s) {
		const char *end = s, *brk = NULL;
		size_t w = 0;
		for (; *end && (w < width || !brk); end++) {
			if (*end == ' ')
				brk = end;
			w += ((unsigned char)*end & 0xc0) != 0x80;
		}
		if (!*end)
			brk = end;
		fprintf(out, "%.*s\n", (int)(brk - s), s);
		s = *brk ? brk + 1 : brk;
	}
}

/* compare_text_cells with the name quoted for a terminal. */
static void term_cells(const struct comparison_metric *m, char cells[COMPARE_TEXT_COLS][COMPARE_TEXT_CELL],
		       struct quote_pool *q)
{
	compare_text_cells(m, cells);
	snprintf(cells[0], COMPARE_TEXT_CELL, "%s", quote_pool_c(q, m->name));
}

int compare_text_write(const struct comparison *c, const char *base_label, const char *new_label,
		       bool color, FILE *out)
{
	size_t width[COMPARE_TEXT_COLS];
	char cells[COMPARE_TEXT_COLS][COMPARE_TEXT_CELL];
	struct quote_pool q = { 0 };
	for (int k = 0; k < COMPARE_TEXT_COLS; k++)
		width[k] = display_width(compare_text_titles[k]);
	for (size_t i = 0; i < c->n_metrics; i++) {
		term_cells(&c->metrics[i], cells, &q);
		for (int k = 0; k < COMPARE_TEXT_COLS; k++)
			if (display_width(cells[k]) > width[k])
				width[k] = display_width(cells[k]);
	}
	fprintf(out, "base: %s (%zu run%s)\nnew:  %s (%zu run%s)\nthreshold %g %%, alpha %g\n\n",
		quote_pool_c(&q, base_label), c->base_runs, c->base_runs == 1 ? "" : "s",
		quote_pool_c(&q, new_label), c->new_runs, c->new_runs == 1 ? "" : "s", c->threshold * 100, c->alpha);
	for (int k = 0; k < COMPARE_TEXT_COLS; k++) {
		pad(out, compare_text_titles[k], k == COMPARE_TEXT_COLS - 1 ? 0 : width[k], k > 0 && k < 6);
		fputs(k == COMPARE_TEXT_COLS - 1 ? "\n" : "  ", out);
	}
	bool any_n1 = false;
	for (size_t i = 0; i < c->n_metrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		if (i == 0 || m->family != c->metrics[i - 1].family)
			fprintf(out, "%s (%s):\n", comparison_family_name(m->family), compare_text_family_what(m->family));
		term_cells(m, cells, &q);
		for (int k = 0; k < COMPARE_TEXT_COLS - 1; k++) {
			pad(out, cells[k], width[k], k > 0 && k < 6);
			fputs("  ", out);
		}
		const char *on = !color ? NULL : m->verdict == STATS_REGRESSED ? "\033[31m"
			: m->verdict == STATS_IMPROVED ? "\033[32m" : NULL;
		fprintf(out, "%s%s%s\n", on ? on : "", cells[COMPARE_TEXT_COLS - 1], on ? "\033[0m" : "");
		any_n1 |= m->verdict == STATS_NO_SIGNIFICANCE;
	}
	char buf[64], note[512];
	pad(out, "geomean", width[0], false);
	fputs("  ", out);
	pad(out, "", width[1] + 2 + width[2], true);
	fputs("  ", out);
	pad(out, compare_text_pct(100 * (c->geomean - 1), buf, sizeof(buf)), width[3], true);
	fputs("\n", out);
	if (any_n1)
		fputs("\nOne run on a side: deltas only, no significance is claimed; run more (perfhunt bench -n 10).\n", out);
	else
	{
		fprintf(out, "\n%zu regressed, %zu improved.\n", c->regressed, c->improved);
		wrap(out, compare_text_method_note(c, note, sizeof(note)), 78);
	}

	if (c->n_phases) {
		char delta[64];
		if (isfinite(c->wall_delta_ms))
			fprintf(out, "\nphases, by size of change (wall-time delta %s):\n",
				compare_text_delta_ms(c->wall_delta_ms, delta, sizeof(delta)));
		else
			fputs("\nphases, by size of change:\n", out);
		size_t name_w = 0;
		for (size_t i = 0; i < c->n_phases; i++)
			if (display_width(quote_pool_c(&q, c->phases[i].name)) > name_w)
				name_w = display_width(quote_pool_c(&q, c->phases[i].name));
		for (size_t i = 0; i < c->n_phases; i++) {
			const struct comparison_phase *p = &c->phases[i];
			fputs("  ", out);
			pad(out, quote_pool_c(&q, p->name), name_w, false);
			fputs("  ", out);
			pad(out, compare_text_delta_ms(p->delta_ms, delta, sizeof(delta)), 12, true);
			if (isfinite(p->share_pct))
				fprintf(out, "  explains %.0f %% of the wall-time delta", compare_text_round(p->share_pct));
			fputs("\n", out);
		}
	}
	quote_pool_release(&q);
	return ferror(out) ? -1 : 0;
}
