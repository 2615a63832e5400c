/* compare_json: a comparison as a perfhunt.compare/1 record (--export-json).
 *
 * Built with jansson; numbers that do not exist (n = 1, a zero base) are
 * null, never NaN or infinity, so every JSON reader accepts the file.
 */
#ifndef PERFHUNT_COMPARE_JSON_H
#define PERFHUNT_COMPARE_JSON_H

#include <jansson.h>

#include "stats/comparison.h"

/* Returns a new reference to the record (see docs/FORMATS.md), NULL when a
 * label is not valid UTF-8. */
json_t *compare_json_record(const struct comparison *c, const char *base_label, const char *new_label);

#endif
