/* bench_markdown: hyperfine's markdown table, plus perfhunt's peak RSS column.
 *
 * One row per command, relative to the fastest by mean wall time; commands
 * are code spans, other cells text, both escaped by util/escape.
 */
#include "export/bench_markdown.h"

#include "export/bench_text.h"
#include "stats/bench_record.h"
#include "util/escape.h"

static void cell(FILE *out, const char *s, bool code)
{
	fputs(code ? "| `" : "| ", out);
	if (code)
		escape_markdown_code(s, out);
	else
		escape_markdown(s, out);
	fputs(code ? "` " : " ", out);
}

int bench_markdown_write(const json_t *rec, FILE *out)
{
	char cells[BENCH_TEXT_COLS][BENCH_TEXT_CELL];
	size_t n = json_array_size(json_object_get(rec, "commands")), ref = bench_record_fastest(rec);
	for (int k = 0; k < BENCH_TEXT_COLS; k++)
		cell(out, bench_text_titles[k], false);
	fputs("|\n|:---|---:|---:|---:|---:|---:|---:|\n", out);
	for (size_t i = 0; i < n; i++) {
		bench_text_cells(rec, i, ref, cells);
		for (int k = 0; k < BENCH_TEXT_COLS; k++)
			cell(out, cells[k], k == 0);
		fputs("|\n", out);
	}
	return ferror(out) ? -1 : 0;
}
