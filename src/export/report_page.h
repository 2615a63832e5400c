/* report_page: what the run, bench and compare pages of the report share.
 *
 * The page shell (stylesheet, hover script, error hook), typed reads of
 * optional JSON fields (absent = NaN or ""), and small table helpers, so each
 * page file is only about its own content. Internal to src/export/report_*.c.
 */
#ifndef PERFHUNT_REPORT_PAGE_H
#define PERFHUNT_REPORT_PAGE_H

#include <jansson.h>

#include "export/svg.h"
#include "util/err.h"

/* CSS of the charts, also embedded in standalone SVG files. */
extern const char report_page_chart_css[];

void report_page_begin(struct svg *s, const char *title);
void report_page_end(struct svg *s);
/* The number at key, or NaN when absent or not a number. */
double report_page_num(const json_t *o, const char *key);
/* The string at key, or "" when absent or not a string. */
const char *report_page_str(const json_t *o, const char *key);
/* The command as a shell line (command_text: linear in its length), "?"
 * when it is not one; caller frees. */
char *report_page_command(const json_t *argv);
/* <tr><th>key</th><td>value</td></tr>, value escaped. */
void report_page_row(struct svg *s, const char *key, const char *value);
/* <td>text</td> escaped, with class "l" (left aligned) when left. */
void report_page_cell(struct svg *s, const char *text, int left);

/* The pages, one file each; report.c picks one by the record's schema. */
int report_run_html(const json_t *rec, struct svg *s, struct err *e);
int report_run_memory_svg(const json_t *rec, struct svg *s, struct err *e);
int report_bench_html(const json_t *rec, struct svg *s, struct err *e);
int report_compare_html(const json_t *rec, struct svg *s, struct err *e);
int report_bisect_html(const json_t *rec, struct svg *s, struct err *e);

#endif
