/* benchspool: a bench's run records kept in a file while the bench runs.
 *
 * A parsed run record costs ~20 KB in memory against ~2.5 KB as compact
 * text, so a bench of 10 000 runs held 200 MB of records it reads only at
 * the end. Each finished run is appended here as one line of JSON and freed;
 * the bench keeps where each line starts (16 bytes a run) and reads a run
 * back when its statistics, exports or the history ask (bench_runs). The
 * file is unlinked as soon as it is made: nothing is left behind.
 */
#ifndef PERFHUNT_BENCHSPOOL_H
#define PERFHUNT_BENCHSPOOL_H

#include <jansson.h>
#include <stddef.h>

#include "stats/bench_record.h"
#include "util/err.h"

struct benchspool;

/* A new spool for ncmd commands, its file in $TMPDIR (or /tmp). */
int benchspool_new(struct benchspool **out, size_t ncmd, struct err *e);
void benchspool_free(struct benchspool *sp);
/* Appends run (borrowed) as run number count(cmd) of command cmd. */
int benchspool_add(struct benchspool *sp, size_t cmd, const json_t *run, struct err *e);
/* Run k of command cmd is run (borrowed) from now on: written at the end,
 * the old line left unread (a bench's profiles, filled in after its runs). */
int benchspool_replace(struct benchspool *sp, size_t cmd, size_t k, const json_t *run, struct err *e);
/* The spool as a source of run records for bench_record and its readers
 * (valid while sp lives). */
struct bench_runs benchspool_runs(struct benchspool *sp);
/* Writes rec (a perfhunt.bench/1 whose commands hold no "runs") to path
 * atomically, as jsonio_write would write it with each command's runs read
 * back from src, one at a time: one line of compact JSON per run. */
int benchspool_write_record(const char *path, const json_t *rec, const struct bench_runs *src, struct err *e);
/* benchspool_write_record to a new file in $TMPDIR (jsonio_write_elsewhere);
 * returns its path (caller frees) or NULL with e filled. */
char *benchspool_write_elsewhere(const json_t *rec, const struct bench_runs *src, struct err *e);

#endif
