/* store_ref: one side of a comparison from what a user types.
 *
 * compare and bisect-check both accept a record file, a comma-separated list
 * of them, or a history reference (@last, @tag:NAME, a run ID ...); this is
 * the one loader, so the two commands cannot disagree about what a reference
 * means.
 */
#ifndef PERFHUNT_STORE_REF_H
#define PERFHUNT_STORE_REF_H

#include <jansson.h>
#include <stdbool.h>

#include "stats/metrics.h"
#include "util/err.h"

/* True when arg is a history reference (@last, @tag:NAME, a run ID), not a file. */
bool store_ref_is_history(const char *arg);
/* One record file (show, report, push): a perfhunt record, or hyperfine's
 * --export-json results as a perfhunt.bench/1 record (record/hyperfine.h).
 * *out is a new reference. */
int store_ref_read_file(const char *path, json_t **out, struct err *e);
/* Loads the runs that arg names into out (initialised here; released on
 * failure). command picks the command of a bench record (its name or
 * 1-based index; NULL for the first). */
int store_ref_load(const char *arg, const char *command, struct metrics_set *out, struct err *e);
/* One record from what a user types (show, report): a record file of any
 * perfhunt schema, or a history reference — one run is that run record,
 * several (a bench, @tag:NAME) a perfhunt.bench/1 record of them, one
 * command per distinct command line. *out is a new reference. */
int store_ref_record(const char *arg, json_t **out, struct err *e);

#endif
