/* speedscope: a record's profile as speedscope's file format (--export-speedscope).
 *
 * The JSON that https://www.speedscope.app opens (its "$schema" named): the
 * frames shared, then sampled profiles weighted in milliseconds (samples /
 * frequency) — the whole run first (its stacks rooted at their phases, one
 * sample after another in time order where the record's timeline holds them
 * all), then one per phase name.
 */
#ifndef PERFHUNT_SPEEDSCOPE_H
#define PERFHUNT_SPEEDSCOPE_H

#include <jansson.h>
#include <stdio.h>

#include "util/err.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* -1 (e filled) when rec has no profile. */
int speedscope_write(const json_t *rec, FILE *out, struct err *e);

#endif
