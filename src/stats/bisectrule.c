/* bisectrule: the different / same / not yet decision of `perfhunt bisect`
 * (see bisectrule.h and docs/BISECT.md for the rule and its error rates).
 *
 * Kept apart from comparison.c on purpose: compare answers one question once
 * (a verdict at alpha 0.05, Holm within a family); a bisect asks again after
 * each batch of runs, so it needs two thresholds that make "same" as hard to
 * reach early as "different", and never a verdict from too few runs.
 */
#include "stats/bisectrule.h"

#include <math.h>

#include "stats/stats.h"

/* The CI is a second way to "same" and is asked after every batch: 2 000
 * resamples put its ends within about a percent of 10 000's. */
enum { RESAMPLES = 2000 };

void bisectrule_init(struct bisectrule *r)
{
	r->p_different = 0.01;
	r->threshold = 0.10;
	r->floor = 0;
	r->min_runs = 5;
}

double bisectrule_same_p(size_t n)
{
	if (n < 5)
		return 2; /* p never exceeds 1: not same by p alone */
	double t = 3.0 / (double)n;
	return t < 0.05 ? 0.05 : t;
}

/* Relative change of the medians, |new - base| / base; 0 when both are 0,
 * infinite when only the base is. */
static double rel_change(double base, double nw)
{
	if (base == nw)
		return 0;
	return base > 0 ? fabs(nw - base) / base : INFINITY;
}

enum bisectrule_verdict bisectrule_decide(const struct bisectrule *r, const double *base, size_t nb,
					  const double *nw, size_t nn, struct bisectrule_result *out)
{
	struct bisectrule_result res = { .verdict = BISECTRULE_NOT_YET, .p = NAN, .base_median = NAN,
					 .new_median = NAN, .ci_low = NAN, .ci_high = NAN,
					 .n = nb < nn ? nb : nn };
	if (nb > 0 && nn > 0) {
		res.base_median = stats_median(base, nb);
		res.new_median = stats_median(nw, nn);
	}
	if (res.n >= 2) {
		res.p = stats_mann_whitney_p(base, nb, nw, nn, NULL);
		if (stats_bootstrap_ratio_ci(base, nb, nw, nn, RESAMPLES, 0.95, STATS_BOOTSTRAP_SEED,
					     &res.ci_low, &res.ci_high) < 0)
			res.ci_low = res.ci_high = NAN;
	}
	if (res.n >= r->min_runs && res.n >= 2) {
		double delta = fabs(res.new_median - res.base_median);
		bool big = rel_change(res.base_median, res.new_median) >= r->threshold && delta >= r->floor;
		bool within = isfinite(res.ci_low) && isfinite(res.ci_high) && res.ci_low >= 1 - r->threshold &&
			      res.ci_high <= 1 + r->threshold;
		/* a change established but whose medians lie under the threshold is
		 * same only once its CI does: a true change just past the threshold
		 * often shows medians just under it */
		if (res.p < r->p_different && big)
			res.verdict = BISECTRULE_DIFFERENT;
		else if ((res.p >= bisectrule_same_p(res.n) && res.p >= r->p_different) || within || delta < r->floor)
			res.verdict = BISECTRULE_SAME;
	}
	if (out)
		*out = res;
	return res.verdict;
}

enum bisectrule_verdict bisectrule_combine(const enum bisectrule_verdict *v, size_t n)
{
	bool all_same = n > 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == BISECTRULE_DIFFERENT)
			return BISECTRULE_DIFFERENT;
		all_same &= v[i] == BISECTRULE_SAME;
	}
	return all_same ? BISECTRULE_SAME : BISECTRULE_NOT_YET;
}

const char *bisectrule_name(enum bisectrule_verdict v)
{
	switch (v) {
	case BISECTRULE_SAME:
		return "same";
	case BISECTRULE_DIFFERENT:
		return "different";
	default:
		return "not yet";
	}
}
