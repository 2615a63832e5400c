/* report: perfhunt's self-contained HTML report of a run, bench or compare record.
 *
 * One page, no network: inline SVG drawn by report_chart, a stylesheet and a
 * few lines of plain JavaScript for hover values, all inside the file, so it
 * opens offline in any browser and can be attached to a pull request as is.
 * The record kind is taken from its "schema" field.
 */
#ifndef PERFHUNT_REPORT_H
#define PERFHUNT_REPORT_H

#include <jansson.h>

#include "export/svg.h"
#include "util/err.h"

/* Appends the HTML page for record (perfhunt.run/1, .bench/1 or .compare/1) to out. */
int report_html(const json_t *record, struct svg *out, struct err *e);
/* Appends the memory chart of a run record as a standalone SVG document to out. */
int report_memory_svg(const json_t *record, struct svg *out, struct err *e);

#endif
