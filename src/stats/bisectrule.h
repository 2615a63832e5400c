/* bisectrule: is a metric different, the same, or not yet decided between two
 * commits, given the runs each has so far?
 *
 * The rule of Chromium's Pinpoint, with perfhunt's smallest effect of
 * interest: different when the Mann–Whitney p falls below a low threshold and
 * the medians differ by at least that effect (and the floor); same when p
 * rises above a high threshold that falls as runs accumulate, when the
 * bootstrap CI of the ratio lies within ± the effect, or when the medians
 * differ by less than the floor; else not yet. Pure functions, no I/O:
 * `perfhunt bisect` and the simulation in bench/bisect/ run the same code.
 */
#ifndef PERFHUNT_BISECTRULE_H
#define PERFHUNT_BISECTRULE_H

#include <stdbool.h>
#include <stddef.h>

enum bisectrule_verdict {
	BISECTRULE_NOT_YET,
	BISECTRULE_SAME,
	BISECTRULE_DIFFERENT,
};

struct bisectrule {
	double p_different;   /* p below this (and the effect reached): different; 0.01 */
	double threshold;     /* smallest relative change of interest, 0.10 = 10 % */
	double floor;         /* smallest absolute change of interest, in the metric's unit (0: none) */
	size_t min_runs;      /* fewer runs on a side: not yet, whatever the values; 5 */
};

/* One metric's decision and the figures it rests on. */
struct bisectrule_result {
	enum bisectrule_verdict verdict;
	double p;                  /* Mann–Whitney, two-sided; NAN with fewer than 2 runs a side */
	double base_median, new_median;
	double ci_low, ci_high;    /* 95 % bootstrap CI of median(new) / median(base); NAN if none */
	size_t n;                  /* runs on the smaller side */
};

/* p_different 0.01, threshold 0.10, floor 0, min_runs 5. */
void bisectrule_init(struct bisectrule *r);
/* The high p threshold with n runs on the smaller side: p at or above it
 * counts as same. 0.6 at 5 runs, falling as 3 / n, never below 0.05; above 1
 * (never same by p) under 5 runs. */
double bisectrule_same_p(size_t n);
/* Decides base[0..nb) against nw[0..nn); out may be NULL. */
enum bisectrule_verdict bisectrule_decide(const struct bisectrule *r, const double *base, size_t nb,
					  const double *nw, size_t nn, struct bisectrule_result *out);
/* The verdict of a pair of commits from its metrics' verdicts: different when
 * any metric is, same when every one is, else not yet (none: not yet). */
enum bisectrule_verdict bisectrule_combine(const enum bisectrule_verdict *v, size_t n);
/* "different", "same", "not yet" */
const char *bisectrule_name(enum bisectrule_verdict v);

#endif
