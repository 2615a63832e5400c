/* perfstat: a run record's counters as perf stat -x SEP writes them (run -x).
 *
 * One line per counter, fields separated by SEP: value, unit, event name,
 * the counter's running time, the percentage of the run it ran, and an
 * empty metric. A script that split perf stat's CSV splits perfhunt's.
 */
#ifndef PERFHUNT_PERFSTAT_H
#define PERFHUNT_PERFSTAT_H

#include <jansson.h>
#include <stdio.h>

/* Writes the lines of rec's "counters" (none when it has none); -1 on a write error. */
int perfstat_write(const json_t *rec, const char *sep, FILE *out);

#endif
