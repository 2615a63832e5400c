/* compare_markdown: a comparison as GitHub-flavoured markdown (--export-markdown).
 *
 * Same cells as the terminal table (compare_text_cells), so a pasted report
 * and the terminal never disagree; names are escaped for table cells.
 */
#ifndef PERFHUNT_COMPARE_MARKDOWN_H
#define PERFHUNT_COMPARE_MARKDOWN_H

#include <stdio.h>

#include "stats/comparison.h"

/* Writes the markdown document to out; -1 when writing failed. */
int compare_markdown_write(const struct comparison *c, const char *base_label, const char *new_label,
			   FILE *out);
/* Writes "| " and s as escape_markdown writes a table cell's text. */
void compare_markdown_cell(FILE *out, const char *s);

#endif
