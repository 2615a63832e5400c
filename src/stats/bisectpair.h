/* bisectpair: two sets of runs (two commits, two commands) judged on every
 * metric they share by the rule of bisectrule.h, and the verdict of the pair.
 *
 * Apart from bisectrule.c so that the rule stays free of records and can be
 * compiled alone (bench/bisect/sim.c); this file knows which metrics a pair is
 * judged on and the smallest change worth naming in each metric's unit.
 */
#ifndef PERFHUNT_BISECTPAIR_H
#define PERFHUNT_BISECTPAIR_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/bisectrule.h"
#include "stats/metrics.h"

struct bisectpair {
	enum bisectrule_verdict verdict; /* different if one metric is, same if all are */
	size_t n;
	char **names;                    /* the judged metrics (owned) */
	struct bisectrule_result *res;   /* each one's decision */
};

/* Judges a against b (both aligned with metrics_align_phases first, which
 * this does) with r's p thresholds, min_runs and threshold, on only[0..n_only)
 * when n_only > 0, else on wall_s and every phase's duration; the floor is
 * 1 ms of time (r->floor is ignored). Caller releases out. */
void bisectpair_judge(const struct bisectrule *r, struct metrics_set *a, struct metrics_set *b,
		      const char *const *only, size_t n_only, struct bisectpair *out);
void bisectpair_release(struct bisectpair *p);
/* The metric whose change names the pair: its largest moved phase, else the
 * first moved metric; -1 when none moved. */
long bisectpair_leading(const struct bisectpair *p);
/* " (NAME: p 0.003, 5 runs a side)" of the metric that decided the pair ("" for none). */
void bisectpair_why(const struct bisectpair *p, char *buf, size_t n);

#endif
