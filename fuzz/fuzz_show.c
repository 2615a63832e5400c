/* fuzz_show: libFuzzer target for `perfhunt show` (and the summary `run`
 * and `watch` print at exit) on arbitrary records.
 *
 * The shape check first, as show does; then the summary, the phase tables
 * and the RSS sparkline are printed to /dev/null for every input, whatever
 * the check said, so neither a wrong type nor a huge number can crash,
 * hang or print through an unformatted path. The exports `show` writes of a
 * stored run (folded stacks, speedscope, trace) render it too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export/profile_folded.h"
#include "export/speedscope.h"
#include "export/summary.h"
#include "export/trace.h"
#include "record/recshape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink && !(sink = fopen("/dev/null", "w")))
		return 0;
	json_error_t je;
	json_t *rec = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
	if (!rec)
		return 0;
	struct err e;
	recshape_check(rec, RECSHAPE_SUMMARY, &e);
	summary_print(rec, sink);
	summary_print_sparkline(rec, sink);
	profile_folded_write(rec, sink, &e);
	speedscope_write(rec, sink, &e);
	trace_write(rec, sink, &e);
	fflush(sink);
	json_decref(rec);
	return 0;
}
