/* bench_markdown: hyperfine's markup tables (markdown, AsciiDoc, Org mode),
 * plus perfhunt's peak RSS column.
 *
 * One row per command, relative to the fastest by median wall time; the
 * cells come from bench_text_cells, and one row loop serves the three
 * markups, which differ only in their frame and in how a cell escapes the
 * characters that would break the table (util/escape for markdown; "|" in
 * AsciiDoc and Org mode here).
 */
#include "export/bench_markdown.h"

#include <string.h>

#include "export/bench_text.h"
#include "stats/bench_record.h"
#include "util/escape.h"

enum markup { MARKDOWN, ASCIIDOC, ORGMODE };

static void cell(FILE *out, enum markup m, const char *s, bool code)
{
	static const char *const code_mark[] = { "`", "`", "=" };
	if (m == ORGMODE && strchr(s, '|'))
		code = false; /* Org's =verbatim= cannot hold the \vert{} a "|" needs in a table */
	fputs("| ", out);
	if (code)
		fputs(code_mark[m], out);
	if (m == MARKDOWN && code)
		escape_markdown_code(s, out);
	else if (m == MARKDOWN)
		escape_markdown(s, out);
	for (const char *p = s; m != MARKDOWN && *p; p++) {
		if (*p == '|')
			fputs(m == ASCIIDOC ? "\\|" : "\\vert{}", out);
		else if (*p == '\n' || *p == '\r')
			fputc(' ', out);
		else
			fputc(*p, out);
	}
	if (code)
		fputs(code_mark[m], out);
	fputc(' ', out);
}

static int table_write(const json_t *rec, FILE *out, enum markup m)
{
	char cells[BENCH_TEXT_COLS][BENCH_TEXT_CELL];
	size_t n = json_array_size(json_object_get(rec, "commands")), ref = bench_record_fastest(rec);
	if (m == ASCIIDOC)
		fputs("[cols=\"<,>,>,>,>,>,>\", options=\"header\"]\n|===\n", out);
	for (int k = 0; k < BENCH_TEXT_COLS; k++)
		cell(out, m, bench_text_titles[k], false);
	fputs(m == MARKDOWN ? "|\n|:---|---:|---:|---:|---:|---:|---:|\n"
	      : m == ORGMODE ? "|\n|--+--+--+--+--+--+--|\n" : "\n\n", out);
	for (size_t i = 0; i < n; i++) {
		bench_text_cells(rec, i, ref, NULL, cells);
		for (int k = 0; k < BENCH_TEXT_COLS; k++)
			cell(out, m, cells[k], k == 0);
		fputs(m == ASCIIDOC ? "\n" : "|\n", out);
	}
	if (m == ASCIIDOC)
		fputs("|===\n", out);
	return ferror(out) ? -1 : 0;
}

int bench_markdown_write(const json_t *rec, FILE *out)
{
	return table_write(rec, out, MARKDOWN);
}

int bench_asciidoc_write(const json_t *rec, FILE *out)
{
	return table_write(rec, out, ASCIIDOC);
}

int bench_orgmode_write(const json_t *rec, FILE *out)
{
	return table_write(rec, out, ORGMODE);
}
