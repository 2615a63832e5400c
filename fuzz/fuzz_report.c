/* fuzz_report: libFuzzer target for `perfhunt report` on arbitrary records.
 *
 * Any JSON value goes through the shape check and then, whatever it said,
 * through the HTML page (run, bench or compare, by its "schema") and the
 * standalone memory SVG: the renderers must stay bounded on anything (1e308
 * values, NaN-free but huge spans, 10 000 lanes), so a hang is a finding.
 * fuzz/run.sh gives each input a time limit; replay.c does the same.
 */
#include <stddef.h>
#include <stdint.h>

#include "export/report.h"
#include "record/recshape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *rec = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
	if (!rec)
		return 0;
	struct err e;
	recshape_check(rec, 0, &e);
	struct svg page, chart;
	svg_init(&page);
	svg_init(&chart);
	report_html(rec, &page, &e);
	report_memory_svg(rec, &chart, &e);
	svg_release(&page);
	svg_release(&chart);
	json_decref(rec);
	return 0;
}
