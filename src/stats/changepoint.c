/* changepoint: E-Divisive means with a seeded permutation test (see changepoint.h).
 *
 * Q̂ of every split of a segment comes from the sums of pairwise distances of
 * its prefixes and suffixes, each built in O(n log n) with a Fenwick tree over
 * the values' ranks (sum |x - y| over a set = x * (count below) - (sum below)
 * + (sum above) - x * (count above)); the cross term is the whole segment's
 * sum minus the two inner ones. A permutation moves (value, rank) pairs, so
 * ranks are sorted once per segment, never per permutation. A test stops as
 * soon as its p-value can no longer reach alpha, so a series without a change
 * costs a few permutations, not hundreds.
 */
#include "stats/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "util/xalloc.h"

void changepoint_opts_init(struct changepoint_opts *o)
{
	o->alpha = CHANGEPOINT_ALPHA;
	o->min_segment = CHANGEPOINT_MIN_SEGMENT;
	o->min_magnitude = CHANGEPOINT_MIN_MAGNITUDE;
	o->permutations = CHANGEPOINT_PERMUTATIONS;
	o->seed = CHANGEPOINT_SEED;
}

struct cp_work {
	size_t n, min_seg;
	const double *x;      /* the series, as given */
	uint32_t *rank;       /* rank of x[i] within its current segment */
	double *v;            /* working copy of x, permuted inside segments */
	uint32_t *r;          /* ranks travelling with v */
	double *fc, *fs;      /* Fenwick tree: counts and sums by rank, n + 1 each */
	double *wpre, *wsuf;  /* within-sums of prefixes and suffixes, n + 1 each */
};

struct cp_ranked {
	double v;
	uint32_t i;
};

static int cp_ranked_cmp(const void *pa, const void *pb)
{
	const struct cp_ranked *a = pa, *b = pb;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Ranks of x[a..b) within the segment, ties by position. */
static void cp_rank_segment(struct cp_work *w, size_t a, size_t b)
{
	size_t len = b - a;
	struct cp_ranked *t = xmalloc(len * sizeof(*t));
	for (size_t i = 0; i < len; i++)
		t[i] = (struct cp_ranked){ w->x[a + i], (uint32_t)i };
	qsort(t, len, sizeof(*t), cp_ranked_cmp);
	for (size_t k = 0; k < len; k++)
		w->rank[a + t[k].i] = (uint32_t)k;
	free(t);
}

static void cp_fenwick_add(struct cp_work *w, size_t len, uint32_t r, double x)
{
	for (size_t i = (size_t)r + 1; i <= len; i += i & (~i + 1)) {
		w->fc[i] += 1;
		w->fs[i] += x;
	}
}

/* Count and sum of the inserted values ranked below r. */
static void cp_fenwick_below(const struct cp_work *w, uint32_t r, double *count, double *sum)
{
	double c = 0, s = 0;
	for (size_t i = r; i > 0; i -= i & (~i + 1)) {
		c += w->fc[i];
		s += w->fs[i];
	}
	*count = c;
	*sum = s;
}

/* Sum of |v_i - v_j| over pairs of each prefix (out[k] for v[0..k)) when
 * step is +1, of each suffix (out[k] for v[k..len)) when step is -1. Values
 * are centred on c, which leaves the sums unchanged and keeps them exact. */
static void cp_within_sums(struct cp_work *w, const double *v, const uint32_t *r, size_t len,
			   double c, int forward, double *out)
{
	memset(w->fc, 0, (len + 1) * sizeof(double));
	memset(w->fs, 0, (len + 1) * sizeof(double));
	double total = 0;
	if (forward) {
		out[0] = 0;
		for (size_t k = 0; k < len; k++) {
			double x = v[k] - c, cl, sl;
			cp_fenwick_below(w, r[k], &cl, &sl);
			double above = (double)k - cl;
			out[k + 1] = out[k] + (x * cl - sl) + ((total - sl) - x * above);
			cp_fenwick_add(w, len, r[k], x);
			total += x;
		}
	} else {
		out[len] = 0;
		for (size_t k = len; k-- > 0;) {
			double x = v[k] - c, cl, sl;
			cp_fenwick_below(w, r[k], &cl, &sl);
			double above = (double)(len - 1 - k) - cl;
			out[k] = out[k + 1] + (x * cl - sl) + ((total - sl) - x * above);
			cp_fenwick_add(w, len, r[k], x);
			total += x;
		}
	}
}

/* Best split of the working segment [a, b): returns its tau (relative to a,
 * 0 when the segment is too short) and Q̂ in *q; every Q̂ into qall[tau]
 * when qall is non-NULL. */
static size_t cp_best(struct cp_work *w, size_t a, size_t b, double *q, double *qall)
{
	size_t len = b - a, ms = w->min_seg;
	*q = -INFINITY;
	if (len < 2 * ms)
		return 0;
	const double *v = w->v + a;
	const uint32_t *r = w->r + a;
	double c = 0;
	for (size_t i = 0; i < len; i++)
		c += v[i];
	c /= (double)len;
	cp_within_sums(w, v, r, len, c, 1, w->wpre);
	cp_within_sums(w, v, r, len, c, 0, w->wsuf);
	double all = w->wpre[len];
	size_t best = 0;
	for (size_t tau = ms; tau <= len - ms; tau++) {
		double m = (double)tau, k = (double)(len - tau);
		double wx = w->wpre[tau], wy = w->wsuf[tau];
		double cross = all - wx - wy;
		double energy = 2 * cross / (m * k) - 2 * wx / (m * (m - 1)) - 2 * wy / (k * (k - 1));
		double qh = m * k / (m + k) * energy;
		if (qall)
			qall[tau] = qh;
		if (qh > *q) {
			*q = qh;
			best = tau;
		}
	}
	return best;
}

static void cp_work_init(struct cp_work *w, const double *x, size_t n, size_t min_seg)
{
	w->n = n;
	w->min_seg = min_seg;
	w->x = x;
	w->rank = xcalloc(n + 1, sizeof(*w->rank));
	w->v = xcalloc(n + 1, sizeof(*w->v));
	w->r = xcalloc(n + 1, sizeof(*w->r));
	w->fc = xcalloc(n + 1, sizeof(*w->fc));
	w->fs = xcalloc(n + 1, sizeof(*w->fs));
	w->wpre = xcalloc(n + 1, sizeof(*w->wpre));
	w->wsuf = xcalloc(n + 1, sizeof(*w->wsuf));
}

static void cp_work_release(struct cp_work *w)
{
	free(w->rank);
	free(w->v);
	free(w->r);
	free(w->fc);
	free(w->fs);
	free(w->wpre);
	free(w->wsuf);
}

/* The working arrays back to the series as given. */
static void cp_work_reset(struct cp_work *w)
{
	memcpy(w->v, w->x, w->n * sizeof(double));
	memcpy(w->r, w->rank, w->n * sizeof(uint32_t));
}

size_t changepoint_qhat(const double *x, size_t n, size_t min_segment, double *q)
{
	for (size_t i = 0; i < n; i++)
		q[i] = NAN;
	if (min_segment < 2 || n < 2 * min_segment)
		return 0;
	struct cp_work w;
	cp_work_init(&w, x, n, min_segment);
	cp_rank_segment(&w, 0, n);
	cp_work_reset(&w);
	double best;
	size_t tau = cp_best(&w, 0, n, &best, q);
	cp_work_release(&w);
	return tau;
}

/* One segment of the current partition and its best split on the data as given. */
struct cp_seg {
	size_t a, b, tau;
	double q;
};

static void cp_seg_eval(struct cp_work *w, struct cp_seg *s)
{
	cp_rank_segment(w, s->a, s->b);
	memcpy(w->v + s->a, w->x + s->a, (s->b - s->a) * sizeof(double));
	memcpy(w->r + s->a, w->rank + s->a, (s->b - s->a) * sizeof(uint32_t));
	s->tau = cp_best(w, s->a, s->b, &s->q, NULL);
}

/* Permutation p-value of the largest Q̂ q_obs over the partition: the share of
 * permutations (within every segment, as in the paper) whose largest Q̂
 * reaches it. Stops early, returning a p above alpha, once alpha is out of
 * reach. */
static double cp_permutation_p(struct cp_work *w, const struct cp_seg *segs, size_t nsegs,
			       double q_obs, const struct changepoint_opts *o, struct stats_rng *rng)
{
	cp_work_reset(w);
	size_t hits = 0, reps = o->permutations;
	double total = (double)reps + 1;
	double tol = 1e-9 * fabs(q_obs);
	for (size_t rep = 0; rep < reps; rep++) {
		double top = -INFINITY;
		for (size_t s = 0; s < nsegs; s++) {
			size_t a = segs[s].a, len = segs[s].b - segs[s].a;
			if (len < 2 * w->min_seg)
				continue;
			for (size_t i = len - 1; i > 0; i--) {
				size_t j = (size_t)stats_rng_below(rng, (uint64_t)i + 1);
				double tv = w->v[a + i];
				w->v[a + i] = w->v[a + j];
				w->v[a + j] = tv;
				uint32_t tr = w->r[a + i];
				w->r[a + i] = w->r[a + j];
				w->r[a + j] = tr;
			}
			double q;
			cp_best(w, segs[s].a, segs[s].b, &q, NULL);
			if (q > top)
				top = q;
		}
		if (top >= q_obs - tol)
			hits++;
		if ((double)(hits + 1) > o->alpha * total)
			return (double)(hits + 1) / (double)(rep + 2);
	}
	return (double)(hits + 1) / total;
}

static double cp_rel(double before, double after)
{
	if (before == 0)
		return after == 0 ? 0 : after > 0 ? INFINITY : -INFINITY;
	return (after - before) / fabs(before);
}

struct cp_found {
	size_t index;
	double q, p;
};

static int cp_found_cmp(const void *pa, const void *pb)
{
	const struct cp_found *a = pa, *b = pb;
	return (a->index > b->index) - (a->index < b->index);
}

/* Removes, one at a time, the change point with the smallest shift of the
 * median while it is under min_magnitude; the two segments around it merge. */
static size_t cp_merge_small(const double *x, size_t n, struct cp_found *f, size_t *nf, double min_mag)
{
	size_t merged = 0;
	while (*nf > 0 && min_mag > 0) {
		size_t weakest = 0;
		double weakest_abs = INFINITY;
		for (size_t i = 0; i < *nf; i++) {
			size_t a = i ? f[i - 1].index : 0, k = f[i].index, b = i + 1 < *nf ? f[i + 1].index : n;
			double rel = fabs(cp_rel(stats_median(x + a, k - a), stats_median(x + k, b - k)));
			if (rel < weakest_abs) {
				weakest_abs = rel;
				weakest = i;
			}
		}
		if (!(weakest_abs < min_mag))
			break;
		memmove(&f[weakest], &f[weakest + 1], (*nf - weakest - 1) * sizeof(*f));
		(*nf)--;
		merged++;
	}
	return merged;
}

int changepoint_detect(const double *x, size_t n, const struct changepoint_opts *o,
		       struct changepoint_result *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	if (!(o->alpha > 0 && o->alpha < 1))
		return err_set(e, "alpha must be between 0 and 1 (exclusive), not %g", o->alpha);
	if (o->min_segment < 2)
		return err_set(e, "the minimum segment must be at least 2 points, not %zu", o->min_segment);
	if (o->permutations < 1)
		return err_set(e, "at least one permutation is needed");
	if (!(o->min_magnitude >= 0))
		return err_set(e, "the minimum magnitude must be a non-negative fraction");
	if (n > UINT32_MAX - 1)
		return err_set(e, "series of %zu points is too long", n);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return err_set(e, "point %zu of the series is not a finite number", i + 1);
	if (n < 2 * o->min_segment)
		return 0;

	struct cp_work w;
	cp_work_init(&w, x, n, o->min_segment);
	struct stats_rng rng;
	stats_rng_init(&rng, o->seed);
	size_t cap = n / o->min_segment + 2, nsegs = 1, nf = 0;
	struct cp_seg *segs = xcalloc(cap, sizeof(*segs));
	struct cp_found *found = xcalloc(cap, sizeof(*found));
	segs[0] = (struct cp_seg){ .a = 0, .b = n };
	cp_seg_eval(&w, &segs[0]);
	for (;;) {
		size_t pick = nsegs;
		for (size_t s = 0; s < nsegs; s++)
			if (segs[s].tau && segs[s].q > 0 && (pick == nsegs || segs[s].q > segs[pick].q))
				pick = s;
		if (pick == nsegs)
			break;
		out->tests++;
		double p = cp_permutation_p(&w, segs, nsegs, segs[pick].q, o, &rng);
		if (p > o->alpha)
			break;
		struct cp_seg old = segs[pick];
		size_t cut = old.a + old.tau;
		found[nf++] = (struct cp_found){ .index = cut, .q = old.q, .p = p };
		memmove(&segs[pick + 2], &segs[pick + 1], (nsegs - pick - 1) * sizeof(*segs));
		nsegs++;
		segs[pick] = (struct cp_seg){ .a = old.a, .b = cut };
		segs[pick + 1] = (struct cp_seg){ .a = cut, .b = old.b };
		cp_seg_eval(&w, &segs[pick]);
		cp_seg_eval(&w, &segs[pick + 1]);
	}
	qsort(found, nf, sizeof(*found), cp_found_cmp);
	out->merged = cp_merge_small(x, n, found, &nf, o->min_magnitude);

	out->items = xcalloc(nf ? nf : 1, sizeof(*out->items));
	out->n = nf;
	for (size_t i = 0; i < nf; i++) {
		struct changepoint *c = &out->items[i];
		c->index = found[i].index;
		c->before_start = i ? found[i - 1].index : 0;
		c->after_end = i + 1 < nf ? found[i + 1].index : n;
		c->q = found[i].q;
		c->p_value = found[i].p;
		size_t nb = c->index - c->before_start, na = c->after_end - c->index;
		c->before_median = stats_median(x + c->before_start, nb);
		c->before_mad = stats_mad(x + c->before_start, nb);
		c->after_median = stats_median(x + c->index, na);
		c->after_mad = stats_mad(x + c->index, na);
		c->rel_change = cp_rel(c->before_median, c->after_median);
	}
	free(found);
	free(segs);
	cp_work_release(&w);
	return 0;
}

void changepoint_result_release(struct changepoint_result *r)
{
	free(r->items);
	memset(r, 0, sizeof(*r));
}
