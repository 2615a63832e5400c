/* fuzz_gputrace: libFuzzer target for the collector's JSON-lines activity files.
 *
 * The bytes are one process's file: parsed, finished, summed over a window the
 * input picks and turned into the record's JSON. Invariants (every range
 * ordered, busy time within the window per device, top kernels sorted, no
 * more names than kernels) abort like a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gputrace/gputrace.h"
#include "record/gputrace_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gputrace t;
	gputrace_init(&t);
	gputrace_parse(&t, 42, (const char *)data, size);
	gputrace_finish(&t);
	if (t.n_names > t.n_kernels)
		abort();
	for (size_t i = 0; i < t.n_ranges; i++)
		if (t.ranges[i].end_ns < t.ranges[i].start_ns)
			abort();
	int64_t a = size ? (int64_t)data[0] * 1000 : 0, b = a + (int64_t)size * 1000000;
	struct gputrace_sum s;
	gputrace_sum_init(&s, &t);
	gputrace_sum_add(&s, &t, a, b, 0);
	gputrace_sum_finish(&s);
	if (s.busy_ms < 0 || s.busy_ms > (double)(b - a) / 1e6 * 64 + 1e-6 || s.busy_ms > s.kernel_ms + 1e-6)
		abort();
	for (size_t i = 1; i < s.n_top; i++)
		if (s.top[i].ms > s.top[i - 1].ms)
			abort();
	gputrace_sum_release(&s);
	json_decref(gputrace_json_run(&t, a, b));
	gputrace_release(&t);
	return 0;
}
