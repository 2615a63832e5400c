/* comparison: per-metric statistics, Holm within each family, attribution.
 *
 * Two families for Holm's correction, each over its metrics that have at least
 * two runs on both sides: the primary one (wall time and phase durations, what
 * compare is asked) and the secondary one (resources and counters). Adding side
 * metrics thus makes their own verdicts more careful without diluting a clear
 * phase regression (6 runs against 6 that do not overlap: exact p 2/924, which
 * Holm over a dozen mostly-client metrics had pushed past 0.05). The bootstrap
 * uses the same seed for every metric: an interval does not depend on which
 * others were compared.
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

static int cmp_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
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

const char *comparison_family_name(enum comparison_family f)
{
	return f == COMPARISON_PRIMARY ? "primary" : f == COMPARISON_SECONDARY ? "secondary" : "phase resources";
}

/* Per-phase resources ("phase:NAME.minflt", ".user_s", ...) are secondary. */
enum comparison_family comparison_family_of(const char *name, bool is_phase)
{
	if (!strcmp(name, "wall_s"))
		return COMPARISON_PRIMARY;
	if (is_phase && metrics_phase_resource(name))
		return COMPARISON_PHASE_RESOURCES;
	if (!is_phase || strncmp(name, "phase:", 6))
		return COMPARISON_SECONDARY;
	return COMPARISON_PRIMARY;
}

static double median_ratio(double base, double nw)
{
	if (base == 0)
		return nw == 0 ? 1 : INFINITY;
	return nw / base;
}

/* The same values in any order. */
static bool same_sample(const double *a, size_t na, const double *b, size_t nb)
{
	if (na != nb)
		return false;
	double *x = xmalloc(2 * na * sizeof(*x));
	memcpy(x, a, na * sizeof(*x));
	memcpy(x + na, b, na * sizeof(*x));
	qsort(x, na, sizeof(*x), cmp_value);
	qsort(x + na, na, sizeof(*x), cmp_value);
	bool same = !memcmp(x, x + na, na * sizeof(*x));
	free(x);
	return same;
}

static void compare_one(const struct metrics_series *b, const struct metrics_series *n,
			const struct comparison_opts *o, struct comparison_metric *m)
{
	m->name = xstrdup(b->name);
	m->family = comparison_family_of(b->name, b->is_phase);
	m->n_base = b->n;
	m->n_new = n->n;
	m->base_median = stats_median(b->values, b->n);
	m->new_median = stats_median(n->values, n->n);
	double ratio = median_ratio(m->base_median, m->new_median);
	m->delta_pct = isfinite(ratio) ? 100 * (ratio - 1) : NAN;
	m->ci_low = m->ci_high = m->p_value = m->p_adjusted = NAN;
	m->test = STATS_MWU_NONE;
	m->verdict = STATS_NO_SIGNIFICANCE;
	if (b->n < 2 || n->n < 2)
		return;
	/* Two medians of 0 have no ratio: the bootstrap would only say 1..inf. */
	if (m->base_median != 0 || m->new_median != 0)
		stats_bootstrap_ratio_ci(b->values, b->n, n->values, n->n, o->resamples, 0.95,
					 o->seed, &m->ci_low, &m->ci_high);
	m->p_value = stats_mann_whitney_p(b->values, b->n, n->values, n->n, &m->test);
	m->verdict = STATS_INCONCLUSIVE; /* until Holm's adjustment decides */
}

/* The verdict once p is adjusted. Identical samples are the same whatever
 * their spread; so are two medians of 0 (majflt 0 vs 0) unless the test sees
 * the distributions apart, when more runs must move a median first. A small
 * count whose base resamples can have median 0 (cpu-migrations 1 vs 1) keeps
 * its infinite bound otherwise: the data cannot bound the ratio. */
static enum stats_verdict decide(const struct metrics_series *b, const struct metrics_series *n,
				 const struct comparison_metric *m, const struct comparison_opts *o)
{
	if (same_sample(b->values, b->n, n->values, n->n))
		return STATS_SAME;
	if (m->base_median == 0 && m->new_median == 0)
		return m->p_adjusted < o->alpha ? STATS_INCONCLUSIVE : STATS_SAME;
	return stats_verdict(m->ci_low, m->ci_high, m->p_adjusted, o->threshold, o->alpha);
}

static int cmp_phase(const void *a, const void *b)
{
	const struct comparison_phase *x = a, *y = b;
	double dx = fabs(x->delta_ms), dy = fabs(y->delta_ms);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int cmp_metric_name(const void *a, const void *b, void *ctx)
{
	const struct comparison_metric *m = ctx;
	return strcmp(m[*(const size_t *)a].name, m[*(const size_t *)b].name);
}

/* by_name, once the metrics are final: a compare of 5 000 phase names asks
 * for 50 000 reasons among 70 000 metrics. */
static void index_metrics(struct comparison *c)
{
	c->by_name = xcalloc(c->n_metrics + 1, sizeof(*c->by_name));
	for (size_t i = 0; i < c->n_metrics; i++)
		c->by_name[i] = i;
	qsort_r(c->by_name, c->n_metrics, sizeof(*c->by_name), cmp_metric_name, c->metrics);
}

static const struct comparison_metric *metric_named(const struct comparison *c, const char *name)
{
	size_t lo = 0, hi = c->n_metrics;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->metrics[c->by_name[mid]].name, name);
		if (!d)
			return &c->metrics[c->by_name[mid]];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* How far a resource moved, as a score (0: not at all or not enough to
 * name). CPU counts by its share of the phase's time delta, at most the
 * whole of it (more is other threads or the 10 ms tick); counts and sizes
 * by how far they moved relative to the larger side, when large enough to
 * matter and not within the noise (a CI that holds 1). */
static double reason_score(const char *key, const struct comparison_metric *m, double phase_delta_ms, bool loose)
{
	double b = m->base_median, n = m->new_median, d = n - b;
	if (!isfinite(d) || d == 0)
		return 0;
	/* a growth that changes sign (5608 -> -2048 MiB) has no ratio to rank */
	if (b * n < 0)
		return 0;
	if (!loose && !isnan(m->ci_low) && m->ci_low <= 1 && m->ci_high >= 1 && isfinite(m->ci_low) &&
	    isfinite(m->ci_high))
		return 0; /* the interval holds no change */
	bool thread_time = !strcmp(key, "blocked_ms") || !strcmp(key, "runnable_ms") || !strcmp(key, "iowait_ms");
	bool gpu_time = comparison_reason_is_gpu_ms(key);
	if (!strcmp(key, "user_s") || !strcmp(key, "sys_s") || thread_time || gpu_time) {
		/* thread time sums threads: 4 of them blocked 1 s more is 4 s, so
		 * it may exceed the phase's delta and still be its whole story */
		double ms = fabs(d) * (thread_time || gpu_time ? 1 : 1000), of = fabs(phase_delta_ms);
		if (ms < 5 || (of > 0 && ms < (thread_time ? 0.5 : 0.1) * of))
			return 0;
		return of > 0 ? 10 * fmin(ms / of, 1) : 1;
	}
	if (!strcmp(key, "parallelism")) { /* a pool that lost its parallelism: 1.6 -> 1.0 */
		double big = fmax(fabs(b), fabs(n));
		return fabs(d) >= 0.2 && big > 0 && fabs(d) / big >= 0.25 ? 10 * fabs(d) / big : 0;
	}
	double floor = !strcmp(key, "read_bytes") || !strcmp(key, "write_bytes") || !strcmp(key, "h2d_bytes") ||
			!strcmp(key, "d2h_bytes") || !strcmp(key, "h2d_pageable_bytes") ? 1 << 20
		: !strcmp(key, "rss_growth_kb") ? 1024
		: !strcmp(key, "gpu_growth_mib") || !strcmp(key, "gpu_mem_growth_mib") ? 16 : 100;
	double big = fabs(b) > fabs(n) ? fabs(b) : fabs(n);
	double rel = fabs(d) / big;
	if (fabs(d) < floor || rel < 0.5)
		return 0;
	/* faults that appear or vanish are the usual story: they lead a tie with CPU */
	bool faults = !strcmp(key, "minflt") || !strcmp(key, "majflt");
	return (faults ? 12 : 10) * rel;
}

bool comparison_reason_is_gpu_ms(const char *key)
{
	size_t n = strlen(key);
	return !strcmp(key, "gpu_busy_ms") || !strcmp(key, "gpu_sync_ms") ||
	       (!strncmp(key, "kernel:", 7) && n > 10 && !strcmp(key + n - 3, "_ms"));
}

/* Keeps (key, m) among p's reasons when it scores among the largest. */
static struct comparison_reason *keep_reason(struct comparison_phase *p, double *score, const char *key,
					     const struct comparison_metric *m, double sc)
{
	size_t at = p->n_reasons;
	while (at > 0 && score[at - 1] < sc)
		at--;
	if (at >= COMPARISON_MAX_REASONS)
		return NULL;
	if (p->n_reasons < COMPARISON_MAX_REASONS)
		p->n_reasons++;
	for (size_t j = p->n_reasons - 1; j > at; j--) {
		p->reasons[j] = p->reasons[j - 1];
		score[j] = score[j - 1];
	}
	p->reasons[at] = (struct comparison_reason){ .key = key, .base = m->base_median, .nw = m->new_median };
	score[at] = sc;
	return &p->reasons[at];
}

/* The phase's H2D copies moved between pinned and pageable host memory
 * (which holds most of their bytes): a reason of its own, scored by the
 * change of the copies' time, ahead of the pageable bytes it explains.
 * True when kept. */
static bool copy_kind_reason(const struct comparison *c, struct comparison_phase *p, double *score, bool loose)
{
	const struct comparison_metric *m[3];
	static const char *const keys[3] = { "h2d_bytes", "h2d_pageable_bytes", "h2d_copy_ms" };
	for (int i = 0; i < 3; i++) {
		char name[512];
		snprintf(name, sizeof(name), "phase:%s.%s", p->name, keys[i]);
		if (!(m[i] = metric_named(c, name)))
			return false;
	}
	double bb = m[0]->base_median, nb = m[0]->new_median, bms = m[2]->base_median, nms = m[2]->new_median;
	if (!(bb >= 1 << 20 && nb >= 1 << 20 && bms > 0 && nms > 0))
		return false;
	bool bp = m[1]->base_median >= 0.5 * bb, np = m[1]->new_median >= 0.5 * nb;
	double sc = bp != np ? 1.2 * reason_score("gpu_busy_ms", m[2], p->delta_ms, loose) : 0;
	struct comparison_reason *r = sc > 0 ? keep_reason(p, score, "h2d_copy_ms", m[2], sc) : NULL;
	if (!r)
		return false;
	r->bytes = nb;
	r->base_gbps = bb / bms / 1e6;
	r->new_gbps = nb / nms / 1e6;
	r->base_pageable = bp;
	r->new_pageable = np;
	return true;
}

/* The resources of phase p that changed most, largest first; loose: also
 * those whose interval holds no change (a phase whose own change is not
 * established). The GPU side (run --gpu-trace) competes too: busy time,
 * copies, allocations and each top kernel's time ("kernel:NAME_ms", the key
 * pointing into its metric's name). */
static void find_reasons(const struct comparison *c, struct comparison_phase *p, bool loose)
{
	p->n_reasons = 0;
	static const char *const keys[] = { "minflt", "majflt", "sys_s", "user_s", "rss_growth_kb",
					    "gpu_growth_mib", "parallelism", "blocked_ms", "iowait_ms", "runnable_ms",
					    "vcsw", "ivcsw", "read_bytes", "write_bytes", "gpu_busy_ms", "gpu_sync_ms",
					    "h2d_bytes", "d2h_bytes", "h2d_pageable_bytes", "gpu_mem_growth_mib" };
	double score[COMPARISON_MAX_REASONS] = { 0 };
	bool kind = copy_kind_reason(c, p, score, loose);
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		char name[512];
		if (kind && !strcmp(keys[k], "h2d_pageable_bytes"))
			continue;
		snprintf(name, sizeof(name), "phase:%s.%s", p->name, keys[k]);
		const struct comparison_metric *m = metric_named(c, name);
		double sc = m ? reason_score(keys[k], m, p->delta_ms, loose) : 0;
		if (sc > 0)
			keep_reason(p, score, keys[k], m, sc);
	}
	char prefix[512];
	int plen = snprintf(prefix, sizeof(prefix), "phase:%s.kernel:", p->name);
	for (size_t i = 0; plen > 0 && (size_t)plen < sizeof(prefix) && i < c->n_metrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		const char *key = m->name + plen - 7;
		if (strncmp(m->name, prefix, (size_t)plen) || !comparison_reason_is_gpu_ms(key))
			continue;
		/* the kernel that moved is the story: it leads a tie with busy time */
		double sc = 1.1 * reason_score(key, m, p->delta_ms, loose);
		if (sc > 0)
			keep_reason(p, score, key, m, sc);
	}
}

/* Top-level phases by the size of their change, each followed by the
 * phases it encloses (at their depth), so an umbrella phase is read with
 * the child that explains it and shares add up over phases that do not
 * overlap. */
static void order_phases(struct comparison *c)
{
	struct comparison_phase *sorted = xcalloc(c->n_phases ? c->n_phases : 1, sizeof(*sorted));
	bool *used = xcalloc(c->n_phases ? c->n_phases : 1, sizeof(*used));
	size_t n = 0;
	qsort(c->phases, c->n_phases, sizeof(*c->phases), cmp_phase);
	/* a parent that is not itself a phase here leaves its child at the top */
	for (size_t i = 0; i < c->n_phases; i++) {
		bool known = false;
		for (size_t j = 0; j < c->n_phases && c->phases[i].parent && !known; j++)
			known = !strcmp(c->phases[j].name, c->phases[i].parent);
		if (!known) {
			free(c->phases[i].parent);
			c->phases[i].parent = NULL;
		}
	}
	/* depth-first: a stack of (parent name, depth) through the sorted list */
	for (size_t i = 0; i < c->n_phases; i++) {
		if (c->phases[i].parent || used[i])
			continue;
		size_t start = n;
		used[i] = true;
		sorted[n++] = c->phases[i];
		for (size_t at = start; at < n; at++) {
			/* insert the children of sorted[at] right after it, in order */
			size_t insert = at + 1;
			for (size_t j = 0; j < c->n_phases; j++) {
				if (used[j] || !c->phases[j].parent || strcmp(c->phases[j].parent, sorted[at].name))
					continue;
				used[j] = true;
				memmove(&sorted[insert + 1], &sorted[insert], (n - insert) * sizeof(*sorted));
				sorted[insert] = c->phases[j];
				sorted[insert].depth = sorted[at].depth + 1;
				insert++;
				n++;
			}
		}
	}
	for (size_t i = 0; i < c->n_phases; i++) /* a cycle cannot happen; keep anything left */
		if (!used[i])
			sorted[n++] = c->phases[i];
	free(c->phases);
	free(used);
	c->phases = sorted;
}

/* The runs' off-CPU profiles ("offcpu" of each "profile"), null where none. */
static json_t *offcpu_profiles(const json_t *profiles)
{
	json_t *out = json_array();
	size_t i;
	const json_t *prof;
	json_array_foreach(profiles, i, prof) {
		json_t *off = json_object_get(prof, "offcpu");
		json_array_append(out, json_is_object(off) ? off : json_null());
	}
	return out;
}

/* The median change of a phase's thread-time metric, 0 where absent. */
static double phase_delta(const struct comparison *c, const struct comparison_phase *p, const char *key)
{
	char name[512];
	snprintf(name, sizeof(name), "phase:%s.%s", p->name, key);
	const struct comparison_metric *m = metric_named(c, name);
	double d = m ? m->new_median - m->base_median : 0;
	return isfinite(d) ? d : 0;
}

/* Whether blocked thread time carries a change of delta_ms: it moved the
 * same way, further than on-CPU thread time, and on-CPU time explains under
 * half of the change (a lock held across work: CPU unchanged, blocked +3 s).
 * A pool left idle while one thread computes longer also blocks longer, by
 * as many times the change as it has threads: there CPU carries it. */
static bool blocked_carries(double delta_ms, double blocked_delta_ms, double oncpu_delta_ms)
{
	double dir = delta_ms > 0 ? 1 : -1;
	double blocked = dir * blocked_delta_ms, oncpu = dir * oncpu_delta_ms;
	return blocked > 0 && blocked > oncpu && oncpu < 0.5 * fabs(delta_ms);
}

/* The off-CPU comparison of phase (NULL: the whole run) where it names a
 * path, marked as such; else NULL. */
static struct profdiff *offcpu_diff(const struct comparison *c, const struct metrics_set *base,
				    const struct metrics_set *nw, const char *phase, double ref_ms)
{
	json_t *b = offcpu_profiles(base->profiles), *n = offcpu_profiles(nw->profiles);
	struct profdiff *d = profdiff_phase(b, n, phase, ref_ms, c->threshold, c->alpha);
	json_decref(b);
	json_decref(n);
	if (d && d->n_hot) {
		d->offcpu = true;
		return d;
	}
	profdiff_free(d);
	return NULL;
}

/* Which code: the on-CPU profiles, or the off-CPU ones where the phase's
 * blocked thread time carries its change. */
static struct profdiff *profile_of(const struct comparison *c, const struct metrics_set *base,
				   const struct metrics_set *nw, const struct comparison_phase *p)
{
	double ref_ms = p->base_ms > 0 ? p->base_ms : p->new_ms;
	if (blocked_carries(p->delta_ms, phase_delta(c, p, "blocked_ms"), phase_delta(c, p, "oncpu_ms"))) {
		struct profdiff *d = offcpu_diff(c, base, nw, p->name, ref_ms);
		if (d)
			return d;
	}
	return profdiff_phase(base->profiles, nw->profiles, p->name, ref_ms, c->threshold, c->alpha);
}

/* Which code for the whole run when its wall time changed: the same choice,
 * the thread times being the profiles' own totals (a run has no thread-time
 * metrics; in attach mode the profiles cover both trees): the off-CPU
 * profiles' blocked ms against the on-CPU ones' sampled CPU ms. */
static struct profdiff *run_profile_of(const struct comparison *c, const struct metrics_set *base,
				       const struct metrics_set *nw, double base_wall_ms)
{
	struct profdiff *on = profdiff_phase(base->profiles, nw->profiles, NULL, base_wall_ms, c->threshold, c->alpha);
	struct profdiff *off = offcpu_diff(c, base, nw, NULL, base_wall_ms);
	if (off && blocked_carries(c->wall_delta_ms, off->new_ms - off->base_ms, on ? on->new_ms - on->base_ms : 0)) {
		profdiff_free(on);
		return off;
	}
	profdiff_free(off);
	return on;
}

/* Where no phase's change is established (too few runs, or noise), the
 * top-level phase that moved most still gets its reasons and code line,
 * marked not established: an engineer looks there first either way. */
static void lead_phase(struct comparison *c, const struct metrics_set *base, const struct metrics_set *nw)
{
	for (size_t i = 0; i < c->n_phases; i++)
		if (c->phases[i].changed)
			return;
	struct comparison_phase *p = c->n_phases ? &c->phases[0] : NULL;
	if (!p || p->parent || !isfinite(p->delta_ms) || p->delta_ms == 0 || p->verdict == STATS_SAME ||
	    p->verdict == STATS_NO_SIGNIFICANCE)
		return;
	p->leading = true;
	find_reasons(c, p, true);
	p->profile = profile_of(c, base, nw, p);
}

static void attribute_phases(struct comparison *c, const struct metrics_set *base, const struct metrics_set *nw)
{
	c->phases = xcalloc(c->n_metrics ? c->n_metrics : 1, sizeof(*c->phases));
	for (size_t i = 0; i < c->n_metrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		if (strncmp(m->name, "phase:", 6) || metrics_phase_resource(m->name))
			continue;
		struct comparison_phase *p = &c->phases[c->n_phases++];
		p->name = xstrdup(m->name + 6);
		const struct metrics_series *bs = metrics_find(base, m->name), *ns = metrics_find(nw, m->name);
		const char *parent = bs && bs->parent ? bs->parent : ns ? ns->parent : NULL;
		p->parent = parent ? xstrdup(parent) : NULL;
		p->base_ms = m->base_median;
		p->new_ms = m->new_median;
		p->delta_ms = p->new_ms - p->base_ms;
		p->delta_pct = m->delta_pct;
		p->verdict = m->verdict;
		p->changed = m->verdict == STATS_REGRESSED || m->verdict == STATS_IMPROVED ||
			     (m->verdict == STATS_NO_SIGNIFICANCE && isfinite(m->delta_pct) &&
			      fabs(m->delta_pct) > 100 * c->threshold);
		p->share_pct = !p->parent && c->wall_delta_ms != 0 && isfinite(c->wall_delta_ms)
			? 100 * p->delta_ms / c->wall_delta_ms : NAN;
		find_reasons(c, p, false);
		if (p->changed)
			p->profile = profile_of(c, base, nw, p);
	}
	order_phases(c);
	lead_phase(c, base, nw);
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
	for (size_t i = 0; i < json_array_size(base->profiles); i++)
		out->base_profiled += json_is_object(json_array_get(base->profiles, i));
	for (size_t i = 0; i < json_array_size(nw->profiles); i++)
		out->new_profiled += json_is_object(json_array_get(nw->profiles, i));
	out->threshold = o->threshold;
	out->alpha = o->alpha;
	out->metrics = xcalloc(base->n ? base->n : 1, sizeof(*out->metrics));
	const struct metrics_series **bs = xcalloc(base->n ? base->n : 1, sizeof(*bs));
	const struct metrics_series **ns = xcalloc(base->n ? base->n : 1, sizeof(*ns));
	for (int f = 0; f < COMPARISON_FAMILIES; f++)
		for (size_t i = 0; i < base->n; i++) {
			const struct metrics_series *b = &base->items[i];
			const struct metrics_series *n = metrics_find(nw, b->name);
			if (n && b->n && n->n && wanted(o, b->name) &&
			    comparison_family_of(b->name, b->is_phase) == (enum comparison_family)f) {
				bs[out->n_metrics] = b;
				ns[out->n_metrics] = n;
				compare_one(b, n, o, &out->metrics[out->n_metrics++]);
			}
		}
	if (out->n_metrics == 0) {
		free(bs);
		free(ns);
		comparison_release(out);
		return err_set(e, "BASE and NEW have no metric in common");
	}

	double *p = xmalloc(out->n_metrics * sizeof(*p));
	double *ratios = xmalloc(out->n_metrics * sizeof(*ratios));
	for (size_t i = 0; i < out->n_metrics; i++)
		ratios[i] = median_ratio(out->metrics[i].base_median, out->metrics[i].new_median);
	for (int f = 0; f < COMPARISON_FAMILIES; f++) {
		size_t k = 0;
		for (size_t i = 0; i < out->n_metrics; i++)
			if (out->metrics[i].family == (enum comparison_family)f)
				p[k++] = out->metrics[i].p_value;
		stats_holm(p, k, p);
		k = 0;
		for (size_t i = 0; i < out->n_metrics; i++)
			if (out->metrics[i].family == (enum comparison_family)f) {
				out->metrics[i].p_adjusted = p[k++];
				out->family_tests[f] += !isnan(out->metrics[i].p_value);
			}
	}
	for (size_t i = 0; i < out->n_metrics; i++) {
		struct comparison_metric *m = &out->metrics[i];
		size_t tests = out->family_tests[m->family];
		if (!isnan(m->p_value) && (double)tests * stats_mwu_min_p(m->n_base, m->n_new) >= o->alpha) {
			size_t k = stats_mwu_runs_needed(tests, o->alpha);
			m->runs_needed = k ? k : SIZE_MAX;
		}
	}
	out->geomean = stats_geomean(ratios, out->n_metrics);
	/* From the sets, so attribution works even when --metric leaves wall_s out. */
	const struct metrics_series *wb = metrics_find(base, "wall_s"), *wn = metrics_find(nw, "wall_s");
	out->wall_delta_ms = wb && wn && wb->n && wn->n
		? 1000 * (stats_median(wn->values, wn->n) - stats_median(wb->values, wb->n)) : NAN;
	for (size_t i = 0; i < out->n_metrics; i++) {
		struct comparison_metric *m = &out->metrics[i];
		if (m->verdict == STATS_NO_SIGNIFICANCE)
			continue;
		m->verdict = decide(bs[i], ns[i], m, o);
		if (m->verdict == STATS_SAME && (isinf(m->ci_low) || isinf(m->ci_high)))
			m->ci_low = m->ci_high = NAN; /* "same, CI 0.5..inf" says nothing */
		out->regressed += m->verdict == STATS_REGRESSED;
		out->improved += m->verdict == STATS_IMPROVED;
	}
	free(bs);
	free(ns);
	free(p);
	free(ratios);
	index_metrics(out);
	attribute_phases(out, base, nw);
	const struct comparison_metric *wall = metric_named(out, "wall_s");
	if (wall && (wall->verdict == STATS_REGRESSED || wall->verdict == STATS_IMPROVED ||
		     (wall->verdict == STATS_NO_SIGNIFICANCE && fabs(wall->delta_pct) > 100 * o->threshold)))
		out->run_profile = run_profile_of(out, base, nw, 1000 * wall->base_median);
	out->base_command = json_incref(base->command);
	out->new_command = json_incref(nw->command);
	out->base_host = json_incref(base->hostname);
	out->new_host = json_incref(nw->hostname);
	return 0;
}

void comparison_release(struct comparison *c)
{
	for (size_t i = 0; i < c->n_metrics; i++)
		free(c->metrics[i].name);
	for (size_t i = 0; i < c->n_phases; i++) {
		free(c->phases[i].name);
		free(c->phases[i].parent);
		profdiff_free(c->phases[i].profile);
	}
	profdiff_free(c->run_profile);
	free(c->metrics);
	free(c->by_name);
	free(c->phases);
	json_decref(c->base_command);
	json_decref(c->new_command);
	json_decref(c->base_host);
	json_decref(c->new_host);
	memset(c, 0, sizeof(*c));
}
