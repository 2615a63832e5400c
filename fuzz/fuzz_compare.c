/* fuzz_compare: libFuzzer target for `perfhunt compare`'s outputs.
 *
 * The input is BASE, or BASE NUL NEW: each side goes through the record
 * reader (hyperfine's results converted first, as compare converts them;
 * metrics_runs_of, metrics_add_records), the comparison, then every
 * exporter of its result — the terminal table, the markdown table, the
 * perfhunt.compare/1 record — and that record through the report's compare
 * page, so whatever numbers get through (1e308, one run, no phases) reach
 * every renderer. Labels hold an escape sequence, as a file name can.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/compare_json.h"
#include "export/compare_markdown.h"
#include "export/compare_text.h"
#include "export/report.h"
#include "record/hyperfine.h"
#include "stats/comparison.h"
#include "stats/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_compare_load(const uint8_t *data, size_t size, struct metrics_set *s)
{
	json_error_t je;
	struct err e;
	json_t *root = json_loadb((const char *)data, size, 0, &je), **runs;
	size_t n;
	int rc = -1;
	if (hyperfine_is(root)) { /* hyperfine's results, as compare reads them */
		json_t *bench = NULL;
		if (hyperfine_to_bench(root, &bench, &e) < 0)
			bench = NULL;
		json_decref(root);
		root = bench;
	}
	if (root && metrics_runs_of(root, NULL, &runs, &n, &e) == 0) {
		rc = metrics_add_records(s, runs, n, &e);
		free(runs);
	}
	json_decref(root);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink && !(sink = fopen("/dev/null", "w")))
		return 0;
	const uint8_t *nul = memchr(data, 0, size);
	size_t base_n = nul ? (size_t)(nul - data) : size;
	const uint8_t *new_data = nul ? nul + 1 : data;
	size_t new_n = nul ? size - base_n - 1 : size;
	struct metrics_set a, b;
	metrics_set_init(&a);
	metrics_set_init(&b);
	if (fuzz_compare_load(data, base_n, &a) == 0 && fuzz_compare_load(new_data, new_n, &b) == 0) {
		struct comparison_opts o;
		struct comparison c;
		struct err e;
		comparison_opts_init(&o);
		o.resamples = 50;
		if (comparison_run(&a, &b, &o, &c, &e) == 0) {
			const char *base = "base\033]0;x\a.json", *nw = "new.json";
			compare_text_write(&c, base, nw, true, sink);
			compare_markdown_write(&c, base, nw, sink);
			fflush(sink);
			json_t *rec = compare_json_record(&c, base, nw);
			if (rec) {
				struct svg page;
				svg_init(&page);
				report_html(rec, &page, &e);
				svg_release(&page);
				json_decref(rec);
			}
			comparison_release(&c);
		}
	}
	metrics_set_release(&a);
	metrics_set_release(&b);
	return 0;
}
