/* phases_text: the terminal table of a run's phases and lanes, read from the
 * run record's "phase_stats", "lanes" and "probe_info" members. Used by the
 * end-of-run summary and by `perfhunt show`.
 */
#ifndef PERFHUNT_PHASES_TEXT_H
#define PERFHUNT_PHASES_TEXT_H

#include <stdio.h>
#include <jansson.h>
#include "util/err.h"

/* Writes the tables to out; nothing when the record has no phases. Members
 * of the wrong type are skipped. Returns 0, or -1 when writing failed. */
int phases_text_print(const json_t *record, FILE *out, struct err *e);
/* A signed size: "+200 MiB", "-1.50 MiB", "0 KiB". */
char *phases_text_growth(double kb, char *buf, size_t n);

#endif
