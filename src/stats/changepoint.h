/* changepoint: E-Divisive means change points in one series, deterministic.
 *
 * Matteson & James (2014): split the series where the energy divergence Q̂
 * between the two sides is largest, accept the split when a permutation test
 * says it is significant, repeat inside the segments. The permutation test
 * draws from perfhunt's seeded PRNG, so the same series gives the same change
 * points and p-values on every machine. Pure: no I/O, inputs are never
 * modified. Differences from the paper are listed in docs/CHANGEPOINTS.md.
 */
#ifndef PERFHUNT_CHANGEPOINT_H
#define PERFHUNT_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define CHANGEPOINT_ALPHA 0.01
#define CHANGEPOINT_MIN_SEGMENT 5
#define CHANGEPOINT_MIN_MAGNITUDE 0.01
#define CHANGEPOINT_PERMUTATIONS 499
#define CHANGEPOINT_SEED 0x65646976697369ULL /* "edivisi" */

struct changepoint_opts {
	double alpha;         /* significance level of each split (0, 1) */
	size_t min_segment;   /* fewest points a segment may hold, >= 2 */
	double min_magnitude; /* fraction: shifts of the median smaller than this are merged away */
	size_t permutations;  /* permutations per significance test, >= 1 */
	uint64_t seed;        /* of the permutation PRNG, reset for every series */
};
void changepoint_opts_init(struct changepoint_opts *o);

struct changepoint {
	size_t index;          /* first point of the new segment */
	size_t before_start;   /* the old segment is [before_start, index) */
	size_t after_end;      /* the new segment is [index, after_end) */
	double q;              /* Q̂ of the split when it was accepted */
	double p_value;        /* its permutation p-value, (exceedances + 1) / (permutations + 1) */
	double before_median, before_mad, after_median, after_mad; /* MAD scaled to sigma */
	double rel_change;     /* (after - before) / |before|; 0 when both are 0, ±INFINITY when only before is */
};

struct changepoint_result {
	struct changepoint *items; /* sorted by index; owned */
	size_t n;
	size_t tests;              /* significance tests run (accepted splits + the final rejected one) */
	size_t merged;             /* accepted splits removed for a shift under min_magnitude */
};

/* Change points of x[0..n). Every value must be finite (else an error naming
 * the index). A series shorter than 2 * min_segment has none. Caller
 * releases out with changepoint_result_release. */
int changepoint_detect(const double *x, size_t n, const struct changepoint_opts *o,
		       struct changepoint_result *out, struct err *e);
void changepoint_result_release(struct changepoint_result *r);

/* Q̂ of splitting x[0..n) into [0, tau) and [tau, n), into q[tau] for every
 * tau in [min_segment, n - min_segment]; other entries are NAN. Returns the
 * tau of the largest (the first, on a tie), or 0 when there is none. */
size_t changepoint_qhat(const double *x, size_t n, size_t min_segment, double *q);

#endif
