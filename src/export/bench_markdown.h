/* bench_markdown: a bench record as a markup table: markdown
 * (--export-markdown), AsciiDoc (--export-asciidoc), Org mode
 * (--export-orgmode), as hyperfine writes them.
 *
 * Rows come from bench_text_cells, so the pasted table and the terminal
 * never disagree; "|" in commands is escaped so a command cannot break it.
 */
#ifndef PERFHUNT_BENCH_MARKDOWN_H
#define PERFHUNT_BENCH_MARKDOWN_H

#include <jansson.h>
#include <stdio.h>

/* Writes the table of a finished bench record; -1 when writing failed. */
int bench_markdown_write(const json_t *rec, FILE *out);
int bench_asciidoc_write(const json_t *rec, FILE *out);
int bench_orgmode_write(const json_t *rec, FILE *out);

#endif
