/* bench_plan: what a bench runs and in which order, as pure functions.
 *
 * Parameter lists (-L NAME v1,v2) expand the command templates into their
 * Cartesian product with {NAME} substituted; the schedule interleaves the
 * commands in blocks shuffled by a seeded PRNG, so drift and thermal effects
 * hit every command alike and a given --seed always gives the same order.
 * No I/O here: `perfhunt bench` executes the plan, the unit tests check it.
 */
#ifndef PERFHUNT_BENCH_PLAN_H
#define PERFHUNT_BENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Bounds that keep a mistyped list from planning millions of commands. */
#define BENCH_PLAN_MAX_COMMANDS 10000

struct bench_param {
	char *name;
	char **values;
	size_t n;
};

struct bench_params {
	struct bench_param *items;
	size_t n, cap;
};

void bench_params_init(struct bench_params *p);
void bench_params_release(struct bench_params *p);
/* Adds parameter name with the comma-separated values of list. Names are 1-64
 * of [A-Za-z0-9_]; a name given twice, an empty value or list is an error. */
int bench_params_add(struct bench_params *p, const char *name, const char *list, struct err *e);
/* Number of combinations (the product of the list lengths; 1 without lists). */
size_t bench_params_count(const struct bench_params *p);
/* Value of parameter i in combination k (borrowed); the last parameter varies fastest. */
const char *bench_params_value(const struct bench_params *p, size_t k, size_t i);
/* s with every {NAME} replaced by combination k's value; other braces stay. Caller frees. */
char *bench_params_subst(const struct bench_params *p, size_t k, const char *s);

/* One command of the bench: a template with one combination substituted. */
struct bench_plan_cmd {
	char **argv;       /* NULL-terminated, owned */
	size_t template_i; /* which template */
	size_t combo;      /* which combination of the parameters */
};

/* Expands ntemplates NULL-terminated argv templates: for each template, each
 * combination. Fails when a parameter's {NAME} appears in no template or the
 * product exceeds BENCH_PLAN_MAX_COMMANDS. Caller frees with bench_plan_free. */
int bench_plan_expand(char **const *templates, size_t ntemplates, const struct bench_params *p,
		      struct bench_plan_cmd **out, size_t *n, struct err *e);
void bench_plan_free(struct bench_plan_cmd *cmds, size_t n);

struct bench_slot {
	size_t cmd;
	bool warmup;
};

/* Fills slots (ncmd * (warmup + runs) of them) with the run order. Interleaved:
 * warmup blocks, then runs blocks, each block every command once in an order
 * shuffled with seed. Otherwise command by command, its warmups first.
 * Returns the number of slots written. */
size_t bench_plan_schedule(size_t ncmd, size_t runs, size_t warmup, bool interleave, uint64_t seed,
			   struct bench_slot *slots);

#endif
