/* bench_gobench: a bench record in Go's benchmark format (--export-gobench).
 *
 * benchstat and the rest of golang.org/x/perf read this text; one line per
 * run ("BenchmarkSleep_0.1 1 100234567 ns/op 1548288 peak-rss-B ...") lets
 * them compute their own statistics across runs and across files.
 */
#ifndef PERFHUNT_BENCH_GOBENCH_H
#define PERFHUNT_BENCH_GOBENCH_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "stats/bench_record.h"
#include "util/err.h"

/* The benchmark name of a command: "Benchmark", then the command with the
 * program's directory dropped, its first letter upper-cased, blanks and
 * characters Go names cannot hold turned to '_', and a trailing "-N" (which
 * benchstat would read as GOMAXPROCS) kept from looking like one.
 * "sleep 0.1" -> "BenchmarkSleep_0.1". Returns buf. */
char *bench_gobench_name(const char *command, char *buf, size_t n);

/* Configuration lines (cpu, commit), then one line per run; names made unique
 * by a "_N" suffix; the runs read from src one at a time (NULL: the record's
 * own). -1 (e filled) on a bad run record or a write error. */
int bench_gobench_write(const json_t *rec, const struct bench_runs *src, FILE *out, struct err *e);

#endif
