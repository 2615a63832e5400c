/* changepoint: E-Divisive means with a seeded permutation test (see changepoint.h).
 *
 * Q̂ of every split of a segment comes from the sums of pairwise distances of
 * its prefixes and suffixes. One pass with a Fenwick tree over the values'
 * ranks gives each point's distance to the points before it (sum |x - y| =
 * x * (count below) - (sum below) + (sum above) - x * (count above)); its
 * distance to the points after it is its distance to the whole segment, a
 * closed form of its rank over the sorted values, less that. A permutation
 * moves ranks only: each rank's value and total distance sit in the Fenwick
 * node it is inserted at (one cache line), so ranks are sorted once per
 * segment, never per permutation. A permutation is first bounded in one
 * linear pass over its ranks (cp_below); the exact pass runs only where the
 * bound could reach the observed Q̂, so a clear change's 499 permutations
 * cost little more than their shuffles. A test stops as soon as its p-value
 * can no longer reach alpha, so a series without a change costs a few
 * permutations, not hundreds.
 */
#include "stats/changepoint.h"

#include <math.h>
#include <stdbool.h>
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

/* Node a + 1 + k of the segment [a, b): the value of rank k, and the
 * segment's Fenwick tree over ranks at 1 + k. The pass over a permuted
 * segment reads a value where it then inserts it, in one cache line. */
struct cp_node {
	double count, sum; /* of the inserted values in this node's range of ranks */
	double v;          /* the value of rank k less the segment's mean */
	double spread;     /* sum of |v - y| over the segment's values y */
};

struct cp_work {
	size_t n, min_seg;
	const double *x;        /* the series, as given */
	uint32_t *given;        /* rank of x[i] within its current segment (ties by position) */
	uint32_t *r;            /* the same ranks, permuted inside segments */
	struct cp_node *node;   /* n + 1 */
	double *wpre;           /* within-sums of prefixes, n + 1 */
	double *after;          /* each position's distance to the points after it, n */
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

/* The points of x[a..b) within that segment: values centred on the segment's
 * mean (which leaves distances unchanged and keeps the sums exact), ranks, and
 * each one's distance to the whole segment from the sorted values. */
static void cp_rank_segment(struct cp_work *w, size_t a, size_t b)
{
	size_t len = b - a;
	struct cp_ranked *t = xmalloc(len * sizeof(*t));
	double c = 0;
	for (size_t i = 0; i < len; i++) {
		t[i] = (struct cp_ranked){ w->x[a + i], (uint32_t)i };
		c += w->x[a + i];
	}
	c /= (double)len;
	qsort(t, len, sizeof(*t), cp_ranked_cmp);
	double total = 0;
	for (size_t k = 0; k < len; k++)
		total += t[k].v - c;
	/* below rank k: k * v - (sum below); above: (sum above) - (len - 1 - k) * v,
	 * the sum above being total - (sum below) - v */
	double below = 0;
	for (size_t k = 0; k < len; k++) {
		double v = t[k].v - c;
		w->given[a + t[k].i] = (uint32_t)k;
		w->node[a + 1 + k].v = v;
		w->node[a + 1 + k].spread = v * (2 * (double)k - (double)len) + total - 2 * below;
		below += v;
	}
	free(t);
}

/* Best split of the working segment [a, b): returns its tau (relative to a,
 * 0 when the segment is too short) and Q̂ in *q; every Q̂ into qall[tau]
 * when qall is non-NULL. Ties go to the smallest tau. */
static size_t cp_best(struct cp_work *w, size_t a, size_t b, double *q, double *qall)
{
	size_t len = b - a, ms = w->min_seg;
	*q = -INFINITY;
	if (len < 2 * ms)
		return 0;
	const uint32_t *r = w->r + a;
	struct cp_node *fen = w->node + a;
	double *wpre = w->wpre, *after = w->after;
	for (size_t i = 1; i <= len; i++)
		fen[i].count = fen[i].sum = 0;
	double total = 0;
	wpre[0] = 0;
	for (size_t k = 0; k < len; k++) {
		uint32_t rk = r[k];
		double x = fen[rk + 1].v, cl = 0, sl = 0;
		for (size_t i = rk; i > 0; i -= i & (~i + 1)) {
			cl += fen[i].count;
			sl += fen[i].sum;
		}
		double d = (x * cl - sl) + ((total - sl) - x * ((double)k - cl));
		wpre[k + 1] = wpre[k] + d;
		after[k] = fen[rk + 1].spread - d;
		for (size_t i = (size_t)rk + 1; i <= len; i += i & (~i + 1)) {
			fen[i].count += 1;
			fen[i].sum += x;
		}
		total += x;
	}
	double all = wpre[len], wy = 0;
	size_t best = 0;
	for (size_t tau = len - 1; tau >= ms; tau--) {
		wy += after[tau];
		if (tau > len - ms)
			continue;
		double m = (double)tau, k = (double)(len - tau);
		double wx = wpre[tau];
		double cross = all - wx - wy;
		double energy = 2 * cross / (m * k) - 2 * wx / (m * (m - 1)) - 2 * wy / (k * (k - 1));
		double qh = m * k / (m + k) * energy;
		if (qall)
			qall[tau] = qh;
		if (qh >= *q) {
			*q = qh;
			best = tau;
		}
	}
	return best;
}

/* Whether no split of the working (permuted) segment [a, b) can reach Q̂ =
 * cut, from a bound that costs one pass over the ranks without the tree.
 * With F the segment's empirical distribution (fixed under permutation) and
 * B_tau(t) = #{i < tau: x_i <= t} - tau F(t), the energy with alpha = 1 in
 * one dimension is 2 ∫ (F_X - F_Y)^2 dt for V-statistics, which is at least
 * the U-statistic Q̂ uses, and F_X - F_Y = n B_tau / (m k); so
 * Q̂(tau) <= 2 n / (m k) ∫ B_tau(t)^2 dt. The ranks fall in CP_BOUND_BINS
 * bins of equal count; over a bin and a block of taus, B lies between what
 * the counts at the bin's edges and the block's ends allow. Blocks are a
 * 1/CP_BOUND_BLOCK share of the distance to the nearer end of the segment,
 * where the factor 2 n / (m k) is largest. A change far above what a
 * permutation gives is thus tested at a linear cost per permutation; nearer
 * to it the bound fails and the exact pass decides, so every answer is the
 * one the exact pass gives. */
#define CP_BOUND_BINS 32
#define CP_BOUND_BLOCK 32
/* shorter segments cost the exact pass less than their blocks of taus */
#define CP_BOUND_MIN 1024
/* the bound is compared with 0.999 of the cut: far more than the rounding
 * of either side */
#define CP_BOUND_MARGIN 0.999
static bool cp_below(const struct cp_work *w, size_t a, size_t b, double cut)
{
	size_t len = b - a, ms = w->min_seg;
	if (len < 2 * ms)
		return true;
	if (!(cut > 0))
		return false;
	const uint32_t *r = w->r + a;
	const struct cp_node *byrank = w->node + a + 1;
	/* bin(rank) = rank * k >> 32 rises with rank, below CP_BOUND_BINS;
	 * edge[j] is the first rank of bin j, edge[CP_BOUND_BINS] = len */
	uint64_t k32 = ((uint64_t)CP_BOUND_BINS << 32) / len;
	size_t edge[CP_BOUND_BINS + 1];
	double width[CP_BOUND_BINS];
	for (size_t j = 0; j <= CP_BOUND_BINS; j++) {
		uint64_t e = (((uint64_t)j << 32) + k32 - 1) / k32;
		edge[j] = e < len ? (size_t)e : len;
	}
	for (size_t j = 0; j < CP_BOUND_BINS; j++) {
		size_t hi = edge[j + 1] < len ? edge[j + 1] : len - 1;
		width[j] = edge[j] < len ? byrank[hi].v - byrank[edge[j]].v : 0;
	}
	/* below_lo[j], below_hi[j]: ranks under edge[j] among the first tau0, tau1 */
	double count[CP_BOUND_BINS] = { 0 }, below_lo[CP_BOUND_BINS + 1], below_hi[CP_BOUND_BINS + 1];
	size_t tau0 = ms, k = 0;
	for (; k < tau0; k++)
		count[(r[k] * k32) >> 32]++;
	below_lo[0] = 0;
	for (size_t j = 0; j < CP_BOUND_BINS; j++)
		below_lo[j + 1] = below_lo[j] + count[j];
	double n = (double)len;
	for (;;) {
		size_t near = tau0 < len - tau0 ? tau0 : len - tau0, step = near / CP_BOUND_BLOCK;
		size_t tau1 = tau0 + (step ? step : 1);
		if (tau1 > len - ms)
			tau1 = len - ms;
		for (; k < tau1; k++)
			count[(r[k] * k32) >> 32]++;
		below_hi[0] = 0;
		for (size_t j = 0; j < CP_BOUND_BINS; j++)
			below_hi[j + 1] = below_hi[j] + count[j];
		double t0 = (double)tau0, t1 = (double)tau1;
		double f0 = 2 * n / (t0 * (n - t0)), f1 = 2 * n / (t1 * (n - t1));
		double sum = 0;
		for (size_t j = 0; j < CP_BOUND_BINS; j++) {
			/* B = C - tau F, C the count among the first tau ... */
			double e0 = (double)edge[j], e1 = (double)edge[j + 1];
			double hi = below_hi[j + 1] - t0 * e0 / n, lo = below_lo[j] - t1 * e1 / n;
			double u = hi > -lo ? hi : -lo;
			/* ... = (n - tau) F - C', C' the count among the others: tighter near the end */
			double hi2 = (n - t0) * e1 / n - (e0 - below_hi[j]);
			double lo2 = (n - t1) * e0 / n - (e1 - below_lo[j + 1]);
			double u2 = hi2 > -lo2 ? hi2 : -lo2;
			if (u2 < u)
				u = u2;
			sum += width[j] * u * u;
		}
		if ((f0 > f1 ? f0 : f1) * sum >= cut)
			return false;
		if (tau1 >= len - ms)
			return true;
		tau0 = tau1;
		memcpy(below_lo, below_hi, sizeof(below_lo));
	}
}

static void cp_work_init(struct cp_work *w, const double *x, size_t n, size_t min_seg)
{
	w->n = n;
	w->min_seg = min_seg;
	w->x = x;
	w->given = xcalloc(n + 1, sizeof(*w->given));
	w->r = xcalloc(n + 1, sizeof(*w->r));
	w->node = xcalloc(n + 1, sizeof(*w->node));
	w->wpre = xcalloc(n + 1, sizeof(*w->wpre));
	w->after = xcalloc(n + 1, sizeof(*w->after));
}

static void cp_work_release(struct cp_work *w)
{
	free(w->given);
	free(w->r);
	free(w->node);
	free(w->wpre);
	free(w->after);
}

/* The working points back to the series as given. */
static void cp_work_reset(struct cp_work *w)
{
	memcpy(w->r, w->given, w->n * sizeof(*w->r));
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

/* relative to the largest Q̂ a segment's range allows: rounding, not energy */
#define CP_ZERO 1e-9

/* One segment of the current partition and its best split on the data as given. */
struct cp_seg {
	size_t a, b, tau;
	double q;
};

static void cp_seg_eval(struct cp_work *w, struct cp_seg *s)
{
	cp_rank_segment(w, s->a, s->b);
	memcpy(w->r + s->a, w->given + s->a, (s->b - s->a) * sizeof(*w->r));
	s->tau = cp_best(w, s->a, s->b, &s->q, NULL);
	/* Q̂ is at most len / 2 times the range; one within rounding of 0 (equal
	 * values, or equal values and one outlier, where every split's energy
	 * is 0) is no split to test */
	size_t len = s->b - s->a;
	double range = s->tau ? w->node[s->a + len].v - w->node[s->a + 1].v : 0;
	if (s->tau && !(range > 0 && s->q > CP_ZERO * (double)len * range))
		s->tau = 0;
}

/* Permutation p-value of the largest Q̂ q_obs over the partition: the share of
 * permutations (within every segment, as in the paper) whose largest Q̂
 * reaches it. Stops early, returning a p above alpha, once alpha is out of
 * reach. */
static double cp_permutation_p(struct cp_work *w, const struct cp_seg *segs, size_t nsegs,
			       double q_obs, const struct changepoint_opts *o, struct stats_rng *rng)
{
	cp_work_reset(w);
	size_t hits = 0, reps = o->permutations, bounded = 0, ruled_out = 0;
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
				uint32_t tr = w->r[a + i];
				w->r[a + i] = w->r[a + j];
				w->r[a + j] = tr;
			}
			/* the bound is tried on long segments while it rules out at
			 * least half the time (a change near the permutations' own Q̂
			 * only adds its cost) */
			if (len >= CP_BOUND_MIN && (bounded < 8 || 2 * ruled_out >= bounded)) {
				bounded++;
				if (cp_below(w, segs[s].a, segs[s].b, CP_BOUND_MARGIN * (q_obs - tol))) {
					ruled_out++;
					continue; /* top stays under q_obs - tol whatever this segment's Q̂ */
				}
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
