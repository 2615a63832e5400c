/* timeline: constant-memory downsampling of a run's samples.
 *
 * The CSV gets every sample; the JSON record gets at most `cap` rows. Merging
 * keeps the larger-rss row of each pair so the downsampled memory line never
 * hides the peak, and adds the per-interval deltas so rates stay right.
 */
#include "monitor/sample.h"

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

void sample_merge(struct sample *a, const struct sample *b)
{
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
	if (tl->pending_n == 0)
		tl->pending = *s;
	else
		sample_merge(&tl->pending, s);
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
