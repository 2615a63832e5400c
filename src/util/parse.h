/* parse: strict conversions of option values and text fields.
 *
 * Every number perfhunt accepts from a user or a file goes through here, so
 * "12abc", "", overflow, NaN and negative sizes are refused the same way
 * everywhere, with a message naming what was wrong.
 */
#ifndef PERFHUNT_PARSE_H
#define PERFHUNT_PARSE_H

#include <stdint.h>
#include <stdbool.h>
#include "util/err.h"

/* Whole string must be a decimal integer in [min, max]. what names it in errors. */
int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out, const char *what, struct err *e);
/* Whole string must be a finite floating-point number in [min, max]. */
int parse_double(const char *s, double min, double max, double *out, const char *what, struct err *e);
/* A duration: "250ms", "1.5s", "2m", "1h" or a bare number in default_unit_ms units; out in ms. */
int parse_duration_ms(const char *s, double default_unit_ms, double *out_ms, const char *what, struct err *e);

/* Parses the decimal unsigned integer at *p (no sign), advancing *p; false if none. */
bool parse_u64_at(const char **p, const char *end, uint64_t *out);

#endif
