/* detect_json: change points as a perfhunt.detect/1 record (docs/FORMATS.md). */
#ifndef PERFHUNT_DETECT_JSON_H
#define PERFHUNT_DETECT_JSON_H

#include <jansson.h>

#include "stats/detect.h"

/* A new record (caller json_decref's); every series with its points' count
 * and its reported change points. NULL when a string is not valid UTF-8. */
json_t *detect_json_record(const struct detect_series *s, size_t n, const struct detect_context *c);

#endif
