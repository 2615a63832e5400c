/* detect_markdown: history detect as markdown — one table row per change
 * point (cells escaped by compare_markdown_cell, numbers from compare_text,
 * as on the terminal), then the bisect lines in a code block whose fence no
 * benchmark command can close.
 */
#include "export/detect_markdown.h"

#include <math.h>
#include <stdlib.h>

#include "export/compare_markdown.h"
#include "export/compare_text.h"
#include "export/detect_text.h"

/* The longest run of '`' in s. */
static size_t longest_backquotes(const char *s)
{
	size_t best = 0, run = 0;
	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		best = run > best ? run : best;
	}
	return best;
}

static void fence_line(FILE *out, size_t fence, const char *info)
{
	while (fence--)
		fputc('`', out);
	fprintf(out, "%s\n", info);
}

int detect_markdown_write(const struct detect_series *s, size_t n, const struct detect_context *c, FILE *out)
{
	size_t changes, regressions;
	detect_text_count(s, n, &changes, &regressions);
	fputs("## perfhunt history detect\n\n", out);
	fprintf(out, "%zu series in %s; alpha %g, min segment %zu, min magnitude %g %%: ", n,
		c->first_parent ? "first-parent order of HEAD" : "recording order", c->opts.alpha,
		c->opts.min_segment, c->opts.min_magnitude * 100);
	fprintf(out, "%zu change point%s, %zu regression%s.\n", changes, changes == 1 ? "" : "s", regressions,
		regressions == 1 ? "" : "s");
	if (!changes)
		return ferror(out) ? -1 : 0;
	fputs("\n| change | metric | benchmark | new commit | last old | before | after | delta | p |\n"
	      "|:--|:--|:--|:--|:--|--:|--:|--:|--:|\n", out);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < s[i].cp.n; k++) {
			if (!detect_reported(&s[i], k))
				continue;
			const struct changepoint *cp = &s[i].cp.items[k];
			char buf[64];
			compare_markdown_cell(out, detect_direction_name(s[i].directions[k]));
			compare_markdown_cell(out, s[i].metric);
			compare_markdown_cell(out, s[i].bench);
			compare_markdown_cell(out, detect_text_point(&s[i].points[cp->index], buf, sizeof(buf)));
			compare_markdown_cell(out, detect_text_point(&s[i].points[cp->index - 1], buf, sizeof(buf)));
			char before[64], after[64];
			compare_text_value_pair(s[i].metric, cp->before_median, cp->after_median, before, after,
						sizeof(before));
			compare_markdown_cell(out, before);
			compare_markdown_cell(out, after);
			if (isinf(cp->rel_change))
				compare_markdown_cell(out, "from 0");
			else
				compare_markdown_cell(out, compare_text_pct(100 * cp->rel_change, buf, sizeof(buf)));
			snprintf(buf, sizeof(buf), "%.2g", cp->p_value);
			compare_markdown_cell(out, buf);
			fputs("|\n", out);
		}
	}
	/* The fence is longer than any run of backquotes in the lines (a benchmark's
	 * command is the user's text): nothing in them can close the block. */
	size_t fence = 3;
	for (int pass = 0; pass < 2; pass++) {
		bool header = false;
		for (size_t i = 0; i < n; i++) {
			for (size_t k = 0; k < s[i].cp.n; k++) {
				char *start, *run;
				if (!detect_text_bisect(&s[i], k, &start, &run))
					continue;
				if (pass == 0) {
					size_t r = longest_backquotes(run);
					fence = r >= fence ? r + 1 : fence;
				} else {
					if (!header) {
						fputs("\nTo find the commit of each regression (runs were not taken at "
						      "every commit):\n\n", out);
						fence_line(out, fence, "sh");
					}
					header = true;
					fprintf(out, "%s\n%s\n", start, run);
				}
				free(start);
				free(run);
			}
		}
		if (pass == 1 && header)
			fence_line(out, fence, "");
	}
	return ferror(out) ? -1 : 0;
}
