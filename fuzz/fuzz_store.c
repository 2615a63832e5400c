/* fuzz_store: libFuzzer target for what the history store reads.
 *
 * The input's first line is a history reference (what compare and
 * `history show` hand to store_resolve); the rest is a JSON record that goes
 * through store_add_run or store_add_bench into an in-memory database, then
 * back out through list, resolve and trend. Nothing may crash or leak,
 * whatever the reference or the record holds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t ref_len = nl ? (size_t)(nl - (const char *)data) : size;
	char *ref = xstrndup((const char *)data, ref_len);
	size_t rest = nl ? size - ref_len - 1 : 0;
	struct store *s = NULL;
	struct err e;
	if (store_open(&s, ":memory:", &e)) {
		free(ref);
		return 0;
	}
	json_error_t je;
	json_t *rec = rest ? json_loadb(nl + 1, rest, 0, &je) : NULL;
	if (rec) {
		const char *const tags[] = { "fuzz", NULL };
		store_add_run(s, rec, tags, 0, NULL, &e);
		store_add_bench(s, rec, NULL, NULL, NULL, &e);
		json_decref(rec);
	}
	json_t **recs = NULL;
	size_t n = 0;
	if (store_resolve(s, ref, &recs, &n, &e) == 0)
		store_records_free(recs, n);
	struct store_row *rows = NULL;
	struct store_filter f = { .command = ref, .commit = ref, .limit = 5 };
	if (store_list(s, &f, &rows, &n, &e) == 0)
		store_rows_free(rows, n);
	struct store_trend_point *p = NULL;
	if (store_trend(s, ref, NULL, &p, &n, &e) == 0)
		store_trend_free(p, n);
	store_close(s);
	free(ref);
	return 0;
}
