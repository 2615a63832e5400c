/* fuzz_csv: libFuzzer target for the timeline CSV peak scanner (record/csvpeak).
 *
 * The first two bytes choose the column and a chunk size; the rest is scanned
 * twice, as one byte range (a mapped file) and fed in chunks (a pipe). Besides
 * crashes and sanitizer reports, any disagreement between the two is a bug and
 * aborts, so the fuzzer also checks the line-carrying logic.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/csvpeak.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "rss_kb", "t_ms", "epoch_ms", "phase" };
	if (size < 2)
		return 0;
	size_t column = data[0] % 8, chunk = (size_t)data[1] % 64 + 1;
	const char *name = column >= 4 ? names[column - 4] : NULL;
	if (column >= 4)
		column = 0;
	const char *text = (const char *)data + 2;
	size -= 2;

	struct err e1, e2;
	struct csvpeak a, b;
	int rc1 = csvpeak_scan(text, size, column, name, &a, &e1);
	csvpeak_init(&b, column, name);
	int rc2 = 0;
	for (size_t off = 0; off < size && rc2 == 0; off += chunk)
		rc2 = csvpeak_feed(&b, text + off, size - off < chunk ? size - off : chunk, &e2);
	if (rc2 == 0)
		rc2 = csvpeak_finish(&b, &e2);

	check(rc1 == rc2);
	if (rc1 == 0) {
		check(a.found == b.found && a.lines == b.lines && a.rows == b.rows && a.bad == b.bad);
		check(a.rows + a.bad + (a.header ? 1 : 0) == a.lines);
		if (a.found) {
			check(a.peak_line == b.peak_line && a.row_len == b.row_len);
			check(!memcmp(a.row, b.row, a.row_len));
			check(a.value_off + a.value_len <= a.row_len);
			struct csvpeak_num v;
			check(csvpeak_num_parse(a.row + a.value_off, a.row + a.value_off + a.value_len, &v));
			check(csvpeak_num_cmp(&v, &a.peak) == 0);
		}
		char why[96];
		for (size_t i = 0; i < a.bad && i < CSVPEAK_BAD_KEPT; i++)
			csvpeak_bad_describe(&a, &a.bad_first[i], why, sizeof(why));
	}
	csvpeak_release(&a);
	csvpeak_release(&b);
	return 0;
}
