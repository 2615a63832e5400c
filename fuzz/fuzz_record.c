/* fuzz_record: libFuzzer target for the record reader behind compare.
 *
 * Feeds arbitrary bytes through jansson into metrics_runs_of and
 * metrics_add_records (every field check of a run or bench record), then
 * compares the extracted set with itself so the statistics see whatever
 * numbers got through (zeros, 1e300, single runs) — none may crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats/comparison.h"
#include "stats/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *root = json_loadb((const char *)data, size, 0, &je);
	if (!root)
		return 0;
	json_t **runs;
	size_t n;
	struct err e;
	struct metrics_set a, b;
	metrics_set_init(&a);
	metrics_set_init(&b);
	if (metrics_runs_of(root, NULL, &runs, &n, &e) == 0) {
		if (metrics_add_records(&a, runs, n, &e) == 0 && metrics_add_records(&b, runs, n, &e) == 0) {
			struct comparison_opts o;
			struct comparison c;
			comparison_opts_init(&o);
			o.resamples = 50;
			if (comparison_run(&a, &b, &o, &c, &e) == 0)
				comparison_release(&c);
		}
		free(runs);
	}
	metrics_set_release(&a);
	metrics_set_release(&b);
	json_decref(root);
	return 0;
}
