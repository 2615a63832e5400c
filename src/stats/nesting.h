/* nesting: which name's spans hold which, for phase tables and for the
 * shares of compare, in O(n log n) for n spans whatever their shape.
 *
 * Plain arrays in, plain arrays out (names and groups are indices), so the
 * presentation of one record and the statistics over many runs share it.
 */
#ifndef PERFHUNT_NESTING_H
#define PERFHUNT_NESTING_H

#include <stddef.h>

#define NESTING_NONE ((size_t)-1)

/* One instance of a name in a group (a run): spans nest only in their group. */
struct nesting_span {
	size_t name;          /* < n_names, always */
	size_t group;
	double start_ms, end_ms;
};

/* parent[k], for each name k < n_names: the name whose spans hold every
 * span of k, each inside a strictly longer span of it in the same group —
 * the nearest such around k's first span (earliest group, then start) — or
 * NESTING_NONE (at the top, or no span). Names are tried among the 32
 * nearest around that span. */
void nesting_parents(const struct nesting_span *spans, size_t n, size_t n_names, size_t *parent);

#endif
