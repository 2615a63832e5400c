/* bench_csv: one CSV row per run of a bench record (--export-csv).
 *
 * For spreadsheets and pandas: every run of every command, with its
 * parameters and every metric compare knows (summary figures, counters,
 * phase totals), so nothing needs the JSON to be analysed further.
 */
#ifndef PERFHUNT_BENCH_CSV_H
#define PERFHUNT_BENCH_CSV_H

#include <jansson.h>
#include <stdio.h>

#include "stats/bench_record.h"
#include "util/err.h"

/* Header "command,parameter_NAME...,run,started_at,exit_status,METRIC..." then
 * one row per run, the runs read from src one at a time (NULL: the record's
 * own); -1 (e filled) on a bad run record or a write error. */
int bench_csv_write(const json_t *rec, const struct bench_runs *src, FILE *out, struct err *e);

#endif
