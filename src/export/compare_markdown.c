/* compare_markdown: the comparison as a markdown table plus the phase list.
 *
 * Cells come from compare_text_cells so numbers match the terminal exactly;
 * every text goes through util/escape (phase names come from the program), so
 * a phase can neither break the table nor put HTML in a pull request.
 */
#include "export/compare_markdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "export/compare_rows.h"
#include "export/compare_text.h"
#include "util/escape.h"
#include "util/xalloc.h"

void compare_markdown_cell(FILE *out, const char *s)
{
	fputs("| ", out);
	escape_markdown(s, out);
	fputc(' ', out);
}

/* s as inline code: frame names hold "__" and "*", which markdown would read as
 * emphasis, and a label is a path; escape_markdown_code keeps the span closed. */
static void code_span(FILE *out, const char *s)
{
	fputc('`', out);
	escape_markdown_code(s, out);
	fputc('`', out);
}

static void compare_markdown_head(FILE *out)
{
	for (int k = 0; k < COMPARE_TEXT_COLS; k++)
		compare_markdown_cell(out, compare_text_titles[k]);
	fputs("|\n|:--|--:|--:|--:|--:|--:|:--|:--|\n", out);
}

/* A metric's row; a phase's resource indented under the phase (U+00A0:
 * markdown keeps it). */
static void compare_markdown_row(FILE *out, const struct comparison_metric *m, bool resource)
{
	char cells[COMPARE_TEXT_COLS][COMPARE_TEXT_CELL];
	compare_text_cells(m, cells);
	if (resource) {
		char name[COMPARE_TEXT_CELL + 8];
		snprintf(name, sizeof(name), "\u00a0\u00a0\u00a0\u00a0%s", cells[0]);
		compare_markdown_cell(out, name);
	} else {
		compare_markdown_cell(out, cells[0]);
	}
	for (int k = 1; k < COMPARE_TEXT_COLS; k++)
		compare_markdown_cell(out, cells[k]);
	fputs("|\n", out);
}

/* The metrics of c in compare_rows' order (caller frees). */
static struct compare_row *compare_markdown_rows(const struct comparison *c)
{
	size_t n = c->n_metrics;
	const char **names = xcalloc(n ? n : 1, sizeof(*names));
	bool *changed = xcalloc(n ? n : 1, sizeof(*changed));
	struct compare_row *rows = xcalloc(n ? n : 1, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		names[i] = c->metrics[i].name;
		changed[i] = c->metrics[i].verdict == STATS_REGRESSED || c->metrics[i].verdict == STATS_IMPROVED;
	}
	compare_rows_order(names, changed, n, rows);
	free(names);
	free(changed);
	return rows;
}

int compare_markdown_write(const struct comparison *c, const char *base_label, const char *new_label,
			   FILE *out)
{
	char buf[64], buf2[64], note[512];
	fputs("## perfhunt compare\n\n", out);
	fputs("Base: ", out);
	code_span(out, base_label);
	fprintf(out, " (%zu runs), new: ", c->base_runs);
	code_span(out, new_label);
	fprintf(out, " (%zu runs); threshold %g %%, alpha %g.\n\n", c->new_runs, c->threshold * 100, c->alpha);
	size_t n = c->n_metrics, folded = 0;
	struct compare_row *rows = compare_markdown_rows(c);
	compare_markdown_head(out);
	/* every metric; a phase's resources under its row where its group is open
	 * (the phase or one of them changed), the folded groups' after the table */
	bool open = true;
	int family = -1;
	for (size_t i = 0; i < n; i++) {
		const struct comparison_metric *m = &c->metrics[rows[i].metric];
		if (rows[i].kind == COMPARE_ROW_RESOURCE) {
			if (open)
				compare_markdown_row(out, m, true);
			folded += !open;
			continue;
		}
		open = rows[i].open;
		if ((int)m->family != family)
			fprintf(out, "| **%s** (%s) | | | | | | | |\n", comparison_family_name(m->family),
				compare_text_family_what(m->family));
		family = (int)m->family;
		compare_markdown_row(out, m, false);
	}
	fprintf(out, "| **geomean** | | | %s | | | | |\n", compare_text_pct(100 * (c->geomean - 1), buf, sizeof(buf)));
	if (folded) {
		fprintf(out, "\n<details><summary>%zu resource%s of the phases that did not change</summary>\n\n",
			folded, folded == 1 ? "" : "s");
		compare_markdown_head(out);
		for (size_t i = 0; i < n; i++) {
			if (rows[i].kind == COMPARE_ROW_PHASE && !rows[i].open)
				compare_markdown_row(out, &c->metrics[rows[i].metric], false);
			else if (rows[i].kind == COMPARE_ROW_RESOURCE && !open)
				compare_markdown_row(out, &c->metrics[rows[i].metric], true);
			if (rows[i].kind == COMPARE_ROW_PHASE)
				open = rows[i].open;
		}
		fputs("\n</details>\n", out);
	}
	free(rows);
	fprintf(out, "\n%s\n", compare_text_method_note(c, note, sizeof(note)));
	for (int f = 0; f < COMPARISON_FAMILIES; f++)
		if (compare_text_small_n(c, (enum comparison_family)f, note, sizeof(note))[0])
			fprintf(out, "\nNote: %s.\n", note);
	if (c->n_phases) {
		fputs("\n### Phases\n\n| phase | base | new | delta | share of wall-time delta | why |\n"
		      "|:--|--:|--:|--:|--:|:--|\n", out);
		for (size_t i = 0; i < c->n_phases; i++) {
			const struct comparison_phase *p = &c->phases[i];
			char name[300], why[512];
			/* nested phases under the one that encloses them, two U+00A0 (which
			 * markdown keeps) a level as the terminal's two spaces, at any depth */
			size_t len = 0;
			for (int d = 0; d < p->depth && len + 4 < sizeof(name) / 2; d++, len += 4)
				memcpy(name + len, "\u00a0\u00a0", 4);
			snprintf(name + len, sizeof(name) - len, "%s", p->name);
			compare_markdown_cell(out, name);
			compare_markdown_cell(out, compare_text_value("phase:", p->base_ms, buf, sizeof(buf)));
			compare_markdown_cell(out, compare_text_value("phase:", p->new_ms, buf, sizeof(buf)));
			compare_markdown_cell(out, compare_text_delta_ms(p->delta_ms, buf, sizeof(buf)));
			if (isfinite(p->share_pct))
				snprintf(buf2, sizeof(buf2), "%.0f %%", compare_text_round(p->share_pct));
			else
				snprintf(buf2, sizeof(buf2), "n/a");
			compare_markdown_cell(out, buf2);
			compare_markdown_cell(out, compare_text_why(p, why, sizeof(why)));
			fputs("|\n", out);
		}
	}
	/* which code, for the phases with profiles on both sides */
	bool code = false;
	for (size_t i = 0; i < c->n_phases; i++) {
		char line[1024];
		if (!compare_text_code(c->phases[i].profile, line, sizeof(line))[0])
			continue;
		if (!code)
			fputs("\n### Code\n\nWhere each changed phase's time went, on a CPU or blocked (profiles, frames "
			      "compared run by run):\n\n", out);
		code = true;
		fputs("- ", out);
		code_span(out, c->phases[i].name);
		fputs(": ", out);
		code_span(out, line);
		fputs(c->phases[i].leading ? " (not established)\n" : "\n", out);
	}
	/* the whole run's, where no phase has a line (a record without phases) */
	char line[1024];
	if (!code && compare_text_code(c->run_profile, line, sizeof(line))[0]) {
		fprintf(out, "\n### Code\n\nWhere the whole run's time went (wall-time delta %s; profiles, frames "
			     "compared run by run):\n\n- the whole run: ", compare_text_delta_ms(c->wall_delta_ms, buf, sizeof(buf)));
		code_span(out, line);
		fputs("\n", out);
	}
	return ferror(out) ? -1 : 0;
}
