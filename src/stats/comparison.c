/* comparison: per-metric statistics, Holm over the family, phase attribution.
 *
 * The family for Holm's correction is every metric that has at least two runs
 * on both sides, so adding metrics makes each verdict more careful rather than
 * producing more false alarms. The bootstrap uses the same seed for every
 * metric: a metric's interval does not depend on which others were compared.
 */
#include "stats/comparison.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void comparison_opts_init(struct comparison_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = 0.02;
	o->alpha = 0.05;
	o->resamples = STATS_BOOTSTRAP_RESAMPLES;
	o->seed = STATS_BOOTSTRAP_SEED;
}

static bool wanted(const struct comparison_opts *o, const char *name)
{
	if (o->n_only == 0)
		return true;
	for (size_t i = 0; i < o->n_only; i++)
		if (!strcmp(o->only[i], name))
			return true;
	return false;
}

static double median_ratio(double base, double nw)
{
	if (base == 0)
		return nw == 0 ? 1 : INFINITY;
	return nw / base;
}

static void compare_one(const struct metrics_series *b, const struct metrics_series *n,
			const struct comparison_opts *o, struct comparison_metric *m)
{
	m->name = xstrdup(b->name);
	m->n_base = b->n;
	m->n_new = n->n;
	m->base_median = stats_median(b->values, b->n);
	m->new_median = stats_median(n->values, n->n);
	double ratio = median_ratio(m->base_median, m->new_median);
	m->delta_pct = isfinite(ratio) ? 100 * (ratio - 1) : NAN;
	m->ci_low = m->ci_high = m->p_value = m->p_adjusted = NAN;
	m->verdict = STATS_NO_SIGNIFICANCE;
	if (b->n < 2 || n->n < 2)
		return;
	stats_bootstrap_ratio_ci(b->values, b->n, n->values, n->n, o->resamples, 0.95,
				 o->seed, &m->ci_low, &m->ci_high);
	m->p_value = stats_mann_whitney_p(b->values, b->n, n->values, n->n, &m->exact_p);
	m->verdict = STATS_INCONCLUSIVE; /* until Holm's adjustment decides */
}

static int cmp_phase(const void *a, const void *b)
{
	const struct comparison_phase *x = a, *y = b;
	double dx = fabs(x->delta_ms), dy = fabs(y->delta_ms);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void attribute_phases(struct comparison *c)
{
	c->phases = xcalloc(c->n_metrics ? c->n_metrics : 1, sizeof(*c->phases));
	for (size_t i = 0; i < c->n_metrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		if (strncmp(m->name, "phase:", 6))
			continue;
		struct comparison_phase *p = &c->phases[c->n_phases++];
		p->name = xstrdup(m->name + 6);
		p->base_ms = m->base_median;
		p->new_ms = m->new_median;
		p->delta_ms = p->new_ms - p->base_ms;
		p->share_pct = c->wall_delta_ms != 0 && isfinite(c->wall_delta_ms)
			? 100 * p->delta_ms / c->wall_delta_ms : NAN;
	}
	qsort(c->phases, c->n_phases, sizeof(*c->phases), cmp_phase);
}

int comparison_run(struct metrics_set *base, struct metrics_set *nw,
		   const struct comparison_opts *o, struct comparison *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < o->n_only; i++)
		if (!metrics_find(base, o->only[i]) || !metrics_find(nw, o->only[i]))
			return err_set(e, "metric '%s' is not in both BASE and NEW", o->only[i]);
	metrics_align_phases(base, nw);
	out->base_runs = base->runs;
	out->new_runs = nw->runs;
	out->threshold = o->threshold;
	out->alpha = o->alpha;
	out->metrics = xcalloc(base->n ? base->n : 1, sizeof(*out->metrics));
	for (size_t i = 0; i < base->n; i++) {
		const struct metrics_series *b = &base->items[i];
		const struct metrics_series *n = metrics_find(nw, b->name);
		if (n && b->n && n->n && wanted(o, b->name))
			compare_one(b, n, o, &out->metrics[out->n_metrics++]);
	}
	if (out->n_metrics == 0) {
		comparison_release(out);
		return err_set(e, "BASE and NEW have no metric in common");
	}

	double *p = xmalloc(out->n_metrics * sizeof(*p));
	double *ratios = xmalloc(out->n_metrics * sizeof(*ratios));
	for (size_t i = 0; i < out->n_metrics; i++) {
		p[i] = out->metrics[i].p_value;
		ratios[i] = median_ratio(out->metrics[i].base_median, out->metrics[i].new_median);
	}
	stats_holm(p, out->n_metrics, p);
	out->geomean = stats_geomean(ratios, out->n_metrics);
	/* From the sets, so attribution works even when --metric leaves wall_s out. */
	const struct metrics_series *wb = metrics_find(base, "wall_s"), *wn = metrics_find(nw, "wall_s");
	out->wall_delta_ms = wb && wn && wb->n && wn->n
		? 1000 * (stats_median(wn->values, wn->n) - stats_median(wb->values, wb->n)) : NAN;
	for (size_t i = 0; i < out->n_metrics; i++) {
		struct comparison_metric *m = &out->metrics[i];
		if (m->verdict == STATS_NO_SIGNIFICANCE)
			continue;
		m->p_adjusted = p[i];
		m->verdict = stats_verdict(m->ci_low, m->ci_high, m->p_adjusted, o->threshold, o->alpha);
		out->regressed += m->verdict == STATS_REGRESSED;
		out->improved += m->verdict == STATS_IMPROVED;
	}
	free(p);
	free(ratios);
	attribute_phases(out);
	return 0;
}

void comparison_release(struct comparison *c)
{
	for (size_t i = 0; i < c->n_metrics; i++)
		free(c->metrics[i].name);
	for (size_t i = 0; i < c->n_phases; i++)
		free(c->phases[i].name);
	free(c->metrics);
	free(c->phases);
	memset(c, 0, sizeof(*c));
}
