/* fuzz_changepoint: libFuzzer target for the change-point detector.
 *
 * The values it reads come from a history anyone can write to (import, plain
 * SQL), so every series must get a defined answer: the first two bytes pick
 * the minimum segment and the permutations, the rest are doubles (NaN, inf,
 * subnormals, huge values included). Either the detector refuses the series
 * with a message, or every change point lies inside it, in order, with
 * segments at least min_segment long and a p-value in (0, alpha].
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct changepoint_opts o;
	changepoint_opts_init(&o);
	o.min_segment = 2 + data[0] % 8;
	o.permutations = 1 + data[1] % 64;
	o.alpha = 0.5;
	size_t n = (size - 2) / sizeof(double);
	if (n > 512)
		n = 512;
	double *x = malloc((n ? n : 1) * sizeof(double));
	memcpy(x, data + 2, n * sizeof(double));
	struct changepoint_result r;
	struct err e = { 0 };
	if (changepoint_detect(x, n, &o, &r, &e) < 0) {
		check(e.msg[0] != 0);
	} else {
		size_t prev = 0;
		for (size_t i = 0; i < r.n; i++) {
			check(r.items[i].index >= prev + o.min_segment && r.items[i].index + o.min_segment <= n);
			check(r.items[i].p_value > 0 && r.items[i].p_value <= o.alpha);
			check(r.items[i].before_start == prev);
			prev = r.items[i].index;
		}
		changepoint_result_release(&r);
	}
	free(x);
	return 0;
}
