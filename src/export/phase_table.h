/* phase_table: the rows of a phase or lane table — which names are listed
 * and which name holds which — for the end-of-run summary, `show` and the
 * HTML report, in O(P log P) for P phases whatever their shape.
 *
 * The nesting is built once from a record's "phases" (one sorted sweep, a
 * stack of the phases still open), then asked per name in O(log names).
 * Past PHASE_TABLE_ROWS_MAX names (or lanes) the table lists those with the
 * most time and counts the rest in one line.
 */
#ifndef PERFHUNT_PHASE_TABLE_H
#define PERFHUNT_PHASE_TABLE_H

#include <stddef.h>
#include <jansson.h>

/* Names (lanes) listed in a table; the others are counted, not listed. */
#define PHASE_TABLE_ROWS_MAX 200

struct phase_nest;

/* The nesting of the phases array (members of the wrong type are skipped);
 * it points into phases, which must outlive it. Caller frees with
 * phase_nest_free. Never NULL. */
struct phase_nest *phase_nest_new(const json_t *phases);
void phase_nest_free(struct phase_nest *t);
/* The name (a pointer into phases) whose instances hold every instance of
 * name, each inside one strictly longer instance of it: the nearest such
 * around name's first instance. NULL at the top level or for a name not
 * in phases. */
const char *phase_nest_parent(const struct phase_nest *t, const char *name);

#define PHASE_ROWS_NONE ((size_t)-1)

/* A phase table: the phase_stats entries listed, in the record's order. */
struct phase_rows {
	const json_t **stat;   /* owned array of pointers into the record */
	size_t *parent;        /* the row that holds row k, or PHASE_ROWS_NONE */
	size_t n;
	size_t left_out;       /* names not listed */
	double left_out_count; /* their instances */
	double left_out_ms;    /* their total time */
};

/* The rows of stats (entries that are objects with a string name), at most
 * max: those with the largest total_ms. A row's parent is the row of its
 * phase_nest_parent; a parent not listed leaves its child at the top. */
void phase_rows_init(struct phase_rows *pr, const json_t *stats, const json_t *phases, size_t max);
void phase_rows_release(struct phase_rows *pr);
/* Fills kept with the objects of rows (in their order) that have the max
 * largest values of key; returns how many. kept has room for max. */
size_t phase_table_pick(const json_t *rows, const char *key, size_t max, const json_t **kept);

#endif
