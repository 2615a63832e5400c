/* fuzz_record: libFuzzer target for the record reader behind compare.
 *
 * Feeds arbitrary bytes, as a file, through the one record reader every
 * command uses (jsonio_read: its bounds, duplicate keys refused; no string
 * it returns may be longer than JSONIO_STRING_MAX) into metrics_runs_of and
 * metrics_add_records (every field check of a run or bench record), then
 * compares the extracted set with itself so the statistics see whatever
 * numbers got through (zeros, 1e300, single runs) — none may crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/jsonio.h"
#include "stats/comparison.h"
#include "stats/metrics.h"

/* Every string and key of v within the reader's bound, or abort. */
static void check_bounded(const json_t *v)
{
	if (json_is_string(v) && json_string_length(v) > JSONIO_STRING_MAX)
		abort();
	size_t i;
	const char *k;
	json_t *x;
	if (json_is_array(v))
		json_array_foreach((json_t *)v, i, x)
			check_bounded(x);
	if (json_is_object(v))
		json_object_foreach((json_t *)v, k, x)
			check_bounded(x);
}

/* data as a file, read by jsonio_read; NULL when the reader refuses it. */
static json_t *read_record(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_record", MFD_CLOEXEC);
	json_t *root = NULL;
	if (fd < 0)
		return NULL;
	if (write(fd, data, size) == (ssize_t)size) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (jsonio_read(path, NULL, &root, NULL) < 0)
			root = NULL;
	}
	close(fd);
	return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *root = read_record(data, size);
	if (!root)
		return 0;
	check_bounded(root);
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
