/* timeline: constant-memory downsampling of a run's samples.
 *
 * The CSV gets every sample; the JSON record gets at most `cap` rows. Merging
 * keeps the larger-rss row of each pair so the downsampled memory line never
 * hides the peak, adds the per-interval deltas so rates stay right, and keeps
 * each row's envelope (the least and most memory and rates of its samples),
 * so a day at 100 ms in 2 048 rows still shows its dips and bursts.
 */
#include "monitor/sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void timeline_init(struct timeline *tl, size_t cap)
{
	memset(tl, 0, sizeof(*tl));
	tl->cap = cap < 2 ? 2 : cap & ~(size_t)1;
	tl->rows = xcalloc(tl->cap, sizeof(*tl->rows));
	tl->stride = 1;
}

void timeline_release(struct timeline *tl)
{
	free(tl->rows);
	memset(tl, 0, sizeof(*tl));
}

/* A sample's own envelope: its values, and its interval's rates. */
static void envelope_own(struct sample *s)
{
	struct sample_envelope *e = &s->env;
	e->mem_min_kb = e->mem_max_kb = s->mem_kb;
	e->rss_min_kb = e->rss_max_kb = s->rss_kb;
	double cpu = s->span_ms > 0 ? s->oncpu_ms / s->span_ms * 100 : NAN;
	double minflt = s->span_ms > 0 ? (double)s->minflt / s->span_ms * 1000 : NAN;
	e->cpu_min_pct = e->cpu_max_pct = cpu;
	e->minflt_min_per_s = e->minflt_max_per_s = minflt;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* fmin and fmax keep the number where one side is NAN (no interval) */
static struct sample_envelope envelope_span(const struct sample_envelope *a, const struct sample_envelope *b)
{
	return (struct sample_envelope){
		.mem_min_kb = min_u64(a->mem_min_kb, b->mem_min_kb),
		.mem_max_kb = max_u64(a->mem_max_kb, b->mem_max_kb),
		.rss_min_kb = min_u64(a->rss_min_kb, b->rss_min_kb),
		.rss_max_kb = max_u64(a->rss_max_kb, b->rss_max_kb),
		.cpu_min_pct = fmin(a->cpu_min_pct, b->cpu_min_pct),
		.cpu_max_pct = fmax(a->cpu_max_pct, b->cpu_max_pct),
		.minflt_min_per_s = fmin(a->minflt_min_per_s, b->minflt_min_per_s),
		.minflt_max_per_s = fmax(a->minflt_max_per_s, b->minflt_max_per_s),
	};
}

void sample_merge(struct sample *a, const struct sample *b)
{
	struct sample_envelope env = envelope_span(&a->env, &b->env);
	double user = a->user_ms + b->user_ms, sys = a->sys_ms + b->sys_ms;
	uint64_t minf = a->minflt + b->minflt, majf = a->majflt + b->majflt;
	uint64_t vcsw = a->vcsw + b->vcsw, ivcsw = a->ivcsw + b->ivcsw;
	uint64_t rd = a->read_bytes + b->read_bytes, wr = a->write_bytes + b->write_bytes;
	uint64_t mint = b->minflt_total, majt = b->majflt_total;
	double oncpu = a->oncpu_ms + b->oncpu_ms, runnable = a->runnable_ms + b->runnable_ms;
	double alive = a->alive_ms + b->alive_ms, iowait = a->iowait_ms + b->iowait_ms;
	uint32_t threads_max = a->threads_max > b->threads_max ? a->threads_max : b->threads_max;
	double span = a->span_ms + b->span_ms;
	if (b->mem_kb > a->mem_kb)
		*a = *b;
	a->oncpu_ms = oncpu;
	a->runnable_ms = runnable;
	a->alive_ms = alive;
	a->iowait_ms = iowait;
	a->threads_max = threads_max;
	a->span_ms = span;
	a->user_ms = user;
	a->sys_ms = sys;
	a->minflt = minf;
	a->majflt = majf;
	a->vcsw = vcsw;
	a->ivcsw = ivcsw;
	a->read_bytes = rd;
	a->write_bytes = wr;
	a->minflt_total = mint;
	a->majflt_total = majt;
	a->env = env;
}

static void append(struct timeline *tl, const struct sample *s)
{
	if (tl->n == tl->cap) {
		for (size_t i = 0; i < tl->n / 2; i++) {
			tl->rows[i] = tl->rows[2 * i];
			sample_merge(&tl->rows[i], &tl->rows[2 * i + 1]);
		}
		tl->n /= 2;
		tl->stride *= 2;
	}
	tl->rows[tl->n++] = *s;
}

void timeline_push(struct timeline *tl, const struct sample *s)
{
	struct sample own = *s;
	own.gpu_procs = NULL; /* the monitor's, gone after this sample */
	own.ngpu_procs = 0;
	envelope_own(&own);
	if (tl->pending_n == 0)
		tl->pending = own;
	else
		sample_merge(&tl->pending, &own);
	if (++tl->pending_n >= tl->stride) {
		append(tl, &tl->pending);
		tl->pending_n = 0;
	}
}

void timeline_flush(struct timeline *tl)
{
	if (tl->pending_n) {
		append(tl, &tl->pending);
		tl->pending_n = 0;
	}
}
