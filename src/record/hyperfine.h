/* hyperfine: hyperfine's --export-json results read as a perfhunt bench.
 *
 * A user's hyperfine files are a baseline: compare, report and history
 * import take them as they take perfhunt.bench/1. Each result becomes a
 * command whose runs are minimal run records holding what hyperfine kept of
 * each run (its wall time and exit code); the means of user and system time,
 * which hyperfine keeps only as means, are in the command's "hyperfine"
 * object, never spread over runs as if measured per run.
 */
#ifndef PERFHUNT_HYPERFINE_H
#define PERFHUNT_HYPERFINE_H

#include <jansson.h>
#include <stdbool.h>

#include "util/err.h"

/* true when v is hyperfine's: an object with no "schema" and a "results" array. */
bool hyperfine_is(const json_t *v);
/* The perfhunt.bench/1 record of hyperfine's results hf (finished, with its
 * statistics): 0 and *out (caller decrefs), or -1 with e naming the result
 * and the field that is wrong. */
int hyperfine_to_bench(const json_t *hf, json_t **out, struct err *e);

#endif
