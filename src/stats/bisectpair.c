/* bisectpair: a pair of run sets judged metric by metric (see bisectpair.h).
 *
 * The default metrics are the ones a user waits on: the wall time and each
 * phase's duration (not the per-phase resources, which explain a change but
 * are not one); times below 1 ms are never a culprit's change.
 */
#include "stats/bisectpair.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static bool chosen(const struct metrics_series *s, const char *const *only, size_t n_only)
{
	if (n_only) {
		for (size_t i = 0; i < n_only; i++)
			if (!strcmp(only[i], s->name))
				return true;
		return false;
	}
	return !strcmp(s->name, "wall_s") || (s->is_phase && !metrics_phase_resource(s->name));
}

/* The smallest change worth a culprit, in a metric's own unit: 1 ms of time. */
static double floor_of(const char *name)
{
	switch (metrics_unit(name)) {
	case METRICS_MS:
		return 1;
	case METRICS_S:
		return 0.001;
	case METRICS_NS:
		return 1e6;
	default:
		return 0;
	}
}

void bisectpair_judge(const struct bisectrule *r, struct metrics_set *a, struct metrics_set *b,
		      const char *const *only, size_t n_only, struct bisectpair *out)
{
	memset(out, 0, sizeof(*out));
	metrics_align_phases(a, b);
	enum bisectrule_verdict *v = xcalloc(a->n + 1, sizeof(*v));
	out->names = xcalloc(a->n + 1, sizeof(*out->names));
	out->res = xcalloc(a->n + 1, sizeof(*out->res));
	struct bisectrule rule = *r;
	for (size_t i = 0; i < a->n; i++) {
		const struct metrics_series *x = &a->items[i], *y = metrics_find(b, x->name);
		if (!y || !chosen(x, only, n_only))
			continue;
		rule.floor = floor_of(x->name);
		v[out->n] = bisectrule_decide(&rule, x->values, x->n, y->values, y->n, &out->res[out->n]);
		out->names[out->n++] = xstrdup(x->name);
	}
	out->verdict = bisectrule_combine(v, out->n);
	free(v);
}

void bisectpair_release(struct bisectpair *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->names[i]);
	free(p->names);
	free(p->res);
	memset(p, 0, sizeof(*p));
}

long bisectpair_leading(const struct bisectpair *p)
{
	long best = -1;
	for (size_t i = 0; i < p->n; i++) {
		const struct bisectrule_result *r = &p->res[i];
		if (r->verdict != BISECTRULE_DIFFERENT)
			continue;
		bool phase = !strncmp(p->names[i], "phase:", 6);
		bool best_phase = best >= 0 && !strncmp(p->names[best], "phase:", 6);
		if (best < 0 || (phase && !best_phase) ||
		    (phase == best_phase && fabs(r->new_median - r->base_median) >
						    fabs(p->res[best].new_median - p->res[best].base_median)))
			best = (long)i;
	}
	return best;
}

void bisectpair_why(const struct bisectpair *p, char *buf, size_t n)
{
	*buf = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->res[i].verdict == p->verdict || (p->verdict == BISECTRULE_NOT_YET && !*buf)) {
			snprintf(buf, n, " (%s: p %.3g, %zu runs a side)", p->names[i], p->res[i].p, p->res[i].n);
			if (p->verdict != BISECTRULE_SAME)
				return;
		}
}
