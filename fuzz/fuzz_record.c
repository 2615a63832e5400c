/* fuzz_record: libFuzzer target for the record reader behind compare.
 *
 * Feeds arbitrary bytes, as a file, through the one record reader every
 * command uses (jsonio_read: its bounds, duplicate keys refused; no string
 * it returns may be longer than JSONIO_STRING_MAX) into metrics_runs_of and
 * metrics_add_records (every field check of a run or bench record), then
 * compares the extracted set with itself so the statistics see whatever
 * numbers got through (zeros, 1e300, single runs) — none may crash.
 * The same bytes also go through compare's own loading (store_ref_load: a
 * bench read run by run, jsonio_read_runs), which must read what the whole
 * record reader reads into the same series, value for value.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/hyperfine.h"
#include "record/jsonio.h"
#include "stats/comparison.h"
#include "stats/metrics.h"
#include "store/store_ref.h"

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

/* Aborts unless a and b hold the same series, in the same order. */
static void check_same(const struct metrics_set *a, const struct metrics_set *b)
{
	if (a->n != b->n || a->runs != b->runs)
		abort();
	for (size_t i = 0; i < a->n; i++) {
		const struct metrics_series *x = &a->items[i], *y = &b->items[i];
		if (strcmp(x->name, y->name) || x->is_phase != y->is_phase || x->n != y->n ||
		    (x->n && memcmp(x->values, y->values, x->n * sizeof(*x->values))) || !x->parent != !y->parent ||
		    (x->parent && strcmp(x->parent, y->parent)))
			abort();
	}
}

/* data as a file, read by jsonio_read; NULL when the reader refuses it.
 * *streamed: its runs as compare loads them, *loaded whether it could. */
static json_t *read_record(const uint8_t *data, size_t size, struct metrics_set *streamed, bool *loaded)
{
	int fd = memfd_create("fuzz_record", MFD_CLOEXEC);
	json_t *root = NULL;
	*loaded = false;
	if (fd < 0)
		return NULL;
	if (write(fd, data, size) == (ssize_t)size) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (jsonio_read(path, NULL, &root, NULL) < 0)
			root = NULL;
		*loaded = store_ref_load(path, NULL, streamed, NULL) == 0;
	}
	close(fd);
	return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metrics_set streamed;
	bool loaded;
	json_t *root = read_record(data, size, &streamed, &loaded);
	if (!root) {
		if (loaded)
			metrics_set_release(&streamed);
		return 0;
	}
	check_bounded(root);
	json_t **runs;
	size_t n;
	struct err e;
	struct metrics_set a, b;
	metrics_set_init(&a);
	metrics_set_init(&b);
	if (metrics_runs_of(root, NULL, &runs, &n, &e) == 0) {
		bool read = metrics_add_records(&a, runs, n, &e) == 0;
		if (read && !hyperfine_is(root)) {
			if (!loaded) /* what the whole reader reads, compare reads */
				abort();
			check_same(&a, &streamed);
		}
		if (read && metrics_add_records(&b, runs, n, &e) == 0) {
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
	if (loaded)
		metrics_set_release(&streamed);
	json_decref(root);
	return 0;
}
