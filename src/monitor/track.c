/* track: cumulative figures per sample, and windows read off them. */
#include "monitor/track.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* The monitor takes at most one marker sample per millisecond: a marker
 * point asked for within this of a window's end serves that end (a log line
 * stamped with its own, earlier time is not served: it is interpolated). */
#define TRACK_MARKER_SLACK_MS 1.0
/* A served end is exact when the program waited for its sample (probe.h's
 * acknowledgement, which it waits for at most 1 s, PH_ACK_TIMEOUT_MS), or
 * when the reading was over within TRACK_MARKER_LAG_MS of the line: a printed
 * marker's program runs on meanwhile, and what it does in that lag counts
 * in the phase before. */
#define TRACK_MARKER_LAG_MS 1.0
#define TRACK_ACK_WAIT_MS 1000.0

void track_init(struct track *t, size_t max_points, double interval_ms)
{
	memset(t, 0, sizeof(*t));
	t->max_points = max_points < 4 ? 4 : max_points;
	t->interval_ms = interval_ms;
}

void track_release(struct track *t)
{
	for (size_t k = 0; k < t->ngpu_procs; k++) {
		free(t->gpu_procs[k].mib);
		free(t->gpu_procs[k].max_mib);
	}
	free(t->gpu_procs);
	free(t->pts);
	memset(t, 0, sizeof(*t));
}

/* Drops every other point but the first and the last, folding the maxima of
 * each dropped point into its successor. Marker points are kept when they
 * fit: they are what makes a marked phase exact. */
static void thin(struct track *t)
{
	size_t w = 1;
	for (size_t r = 1; r < t->n; r++) {
		struct track_point *p = &t->pts[r];
		bool drop = (r % 2 == 1) && r + 1 < t->n && !(p->exact && r % 4 == 1);
		if (drop) {
			struct track_point *next = &t->pts[r + 1];
			if (p->mem_max_kb > next->mem_max_kb)
				next->mem_max_kb = p->mem_max_kb;
			if (p->threads_max > next->threads_max)
				next->threads_max = p->threads_max;
			if (p->gpu_valid && p->gpu_max_mib > next->gpu_max_mib)
				next->gpu_max_mib = p->gpu_max_mib;
			next->gpu_valid |= p->gpu_valid;
			for (size_t k = 0; k < t->ngpu_procs; k++) {
				double *max = t->gpu_procs[k].max_mib;
				if (p->gpu_valid && max[r] > max[r + 1])
					max[r + 1] = max[r];
			}
			continue;
		}
		for (size_t k = 0; k < t->ngpu_procs; k++) {
			t->gpu_procs[k].mib[w] = t->gpu_procs[k].mib[r];
			t->gpu_procs[k].max_mib[w] = t->gpu_procs[k].max_mib[r];
		}
		t->pts[w++] = *p;
	}
	t->n = w;
}

/* The column of pid, or NULL. */
static const struct track_gpu_proc *gpu_column(const struct track *t, uint32_t pid)
{
	for (size_t k = 0; k < t->ngpu_procs; k++)
		if (t->gpu_procs[k].pid == pid)
			return &t->gpu_procs[k];
	return NULL;
}

/* Point i's entry of every process column: the sample's figure of each
 * process it lists, 0 for the others (NVML lists a process while it holds
 * GPU memory); a process listed for the first time gets a column, 0 at every
 * point before. Columns follow the points' capacity. */
static void push_gpu_procs(struct track *t, size_t i, size_t old_cap, const struct sample *s)
{
	if (t->cap != old_cap)
		for (size_t k = 0; k < t->ngpu_procs; k++) {
			t->gpu_procs[k].mib = xrealloc(t->gpu_procs[k].mib, t->cap * sizeof(double));
			t->gpu_procs[k].max_mib = xrealloc(t->gpu_procs[k].max_mib, t->cap * sizeof(double));
		}
	for (size_t k = 0; k < t->ngpu_procs; k++)
		t->gpu_procs[k].mib[i] = t->gpu_procs[k].max_mib[i] = 0;
	for (uint32_t j = 0; s->gpu_valid && j < s->ngpu_procs; j++) {
		struct track_gpu_proc *c = (struct track_gpu_proc *)gpu_column(t, s->gpu_procs[j].pid);
		if (!c && t->ngpu_procs < SAMPLE_GPU_PROCS) {
			t->gpu_procs = xrealloc(t->gpu_procs, (t->ngpu_procs + 1) * sizeof(*t->gpu_procs));
			c = &t->gpu_procs[t->ngpu_procs++];
			c->pid = s->gpu_procs[j].pid;
			c->mib = xcalloc(t->cap, sizeof(double));
			c->max_mib = xcalloc(t->cap, sizeof(double));
		}
		if (c)
			c->mib[i] = c->max_mib[i] = s->gpu_procs[j].mib;
	}
}

void track_push(struct track *t, const struct sample *s)
{
	struct track_point *c = &t->sum;
	c->t_ms = s->t_ms;
	c->user_ms += s->user_ms;
	c->sys_ms += s->sys_ms;
	c->minflt += (double)s->minflt;
	c->majflt += (double)s->majflt;
	c->vcsw += (double)s->vcsw;
	c->ivcsw += (double)s->ivcsw;
	c->read_bytes += (double)s->read_bytes;
	c->write_bytes += (double)s->write_bytes;
	c->oncpu_ms += s->oncpu_ms;
	c->runnable_ms += s->runnable_ms;
	c->alive_ms += s->alive_ms;
	c->iowait_ms += s->iowait_ms;
	c->iowait = s->iowait_valid;
	c->threads_max = s->threads;
	/* a sample of a tree that has exited says nothing of the memory a phase
	 * ended with (a cgroup keeps the page cache charged): the last one seen stays */
	if (s->procs > 0 || t->n == 0)
		c->mem_kb = s->mem_kb;
	c->mem_max_kb = c->mem_kb;
	c->gpu_valid = s->gpu_valid;
	c->gpu_mib = c->gpu_max_mib = s->gpu_valid ? s->gpu_mib : 0;
	c->exact = s->at_marker;
	c->acked = s->at_marker && s->acked;
	c->since_ms = s->at_marker ? s->marker_since_ms : 0;
	c->marker_ms = s->at_marker ? s->marker_ms : 0;
	c->read_end_ms = s->at_marker && s->marker_read_end_ms > s->t_ms ? s->marker_read_end_ms : s->t_ms;
	if (t->n && s->t_ms < t->pts[t->n - 1].t_ms)
		return; /* time never goes back on the monotonic clock; a bad point is not kept */
	if (t->n == t->max_points)
		thin(t);
	size_t old_cap = t->cap;
	xgrow((void **)&t->pts, &t->cap, t->n + 1, sizeof(*t->pts));
	push_gpu_procs(t, t->n, old_cap, s);
	t->pts[t->n++] = *c;
}

/* The first point at or after t_ms (n when none). */
static size_t first_at_or_after(const struct track *t, double t_ms)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->pts[mid].t_ms < t_ms)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How one end of a window was read. */
struct track_end {
	size_t a, b;     /* the points it lies between (a == b: at one) */
	double f;        /* and how far from a to b */
	bool served;     /* by a marker point */
	bool acked;      /* that point answered the program's wait */
	bool late;       /* a line's own instant, interpolated: read after a marker
	                  * point taken later (a log line stamped earlier than
	                  * perfhunt woke for it), lag_ms after its instant */
	double lag_ms;   /* between the end and the point's reading */
	double gap_ms;   /* interpolated: the length of the interval that holds it */
	bool exact;
};

/* The end at t_ms served by marker point p; acked: the program waited for
 * p (its acknowledged sample). Its lag runs from when the line can have
 * been written (before the monitor woke and read it, p->since_ms) to the
 * reading's end (a program that did not wait ran on while the monitor read
 * its tree, preempted or not), or from p's reading to a line read after it. */
static void serve(const struct track_point *p, double t_ms, bool acked, struct track_end *e)
{
	e->served = true;
	e->acked = acked;
	e->lag_ms = p->t_ms >= t_ms ? p->read_end_ms - fmin(t_ms, p->since_ms) : t_ms - p->t_ms;
	e->exact = e->lag_ms <= (acked ? TRACK_ACK_WAIT_MS : TRACK_MARKER_LAG_MS);
}

/* The cumulative figures at t_ms: a marker point's that serves it, else
 * linear inside the interval that holds it. Only a line's own instant
 * (marked) can be served: a computed one (a duration probe's start) falls
 * anywhere in the time its line's sample covers, and is interpolated. e
 * also says where: pts[e->a] + (pts[e->b] - pts[e->a]) * e->f. */
static void at(const struct track *t, double t_ms, bool marked, struct track_point *out, struct track_end *e)
{
	size_t i = first_at_or_after(t, t_ms);
	memset(e, 0, sizeof(*e));
	if (i == t->n) {
		*out = t->pts[t->n - 1];
		e->a = e->b = t->n - 1;
		return;
	}
	e->a = e->b = i;
	if (i == 0 || t->pts[i].t_ms == t_ms) {
		*out = t->pts[i];
		if (marked && t->pts[i].exact && t->pts[i].marker_ms - t_ms <= TRACK_MARKER_SLACK_MS)
			serve(&t->pts[i], t_ms, t->pts[i].acked, e);
		return;
	}
	const struct track_point *a = &t->pts[i - 1], *b = &t->pts[i];
	/* b serves a line read in its own step (its lines can have been
	 * written since then) or asked for at once after it; else a serves a
	 * line just after it that got no sample of its own (one a millisecond:
	 * the monitor skips it only for lines written after a's reading, so a
	 * line with a sample of its own may have been written before a's). A
	 * log line dated by its own earlier time is served by neither. */
	bool by_b = marked && b->exact && (b->since_ms <= t_ms || b->marker_ms - t_ms <= TRACK_MARKER_SLACK_MS);
	if (by_b || (marked && a->exact && t_ms - a->t_ms <= TRACK_MARKER_SLACK_MS)) {
		*out = by_b ? *b : *a;
		out->t_ms = t_ms;
		serve(by_b ? b : a, t_ms, by_b && b->acked, e);
		e->a = e->b = by_b ? i : i - 1;
		return;
	}
	if (marked && b->exact) {
		/* what the program did between its line and that reading is
		 * spread over the interval by time, and may belong to either side */
		e->late = true;
		e->lag_ms = b->read_end_ms - t_ms;
	}
	e->gap_ms = b->t_ms - a->t_ms;
	double f = b->t_ms > a->t_ms ? (t_ms - a->t_ms) / (b->t_ms - a->t_ms) : 1;
	e->a = i - 1;
	e->f = f;
	*out = *b;
	out->t_ms = t_ms;
#define LERP(x) out->x = a->x + (b->x - a->x) * f
	LERP(user_ms);
	LERP(sys_ms);
	LERP(minflt);
	LERP(majflt);
	LERP(vcsw);
	LERP(ivcsw);
	LERP(read_bytes);
	LERP(write_bytes);
	LERP(oncpu_ms);
	LERP(runnable_ms);
	LERP(alive_ms);
	LERP(iowait_ms);
#undef LERP
	out->mem_kb = (uint64_t)llround((double)a->mem_kb + ((double)b->mem_kb - (double)a->mem_kb) * f);
	out->gpu_mib = a->gpu_mib + (b->gpu_mib - a->gpu_mib) * f;
}

double track_written_ms(const struct track *t, double t_ms)
{
	size_t i = first_at_or_after(t, t_ms);
	if (!isfinite(t_ms) || i == t->n)
		return t_ms;
	const struct track_point *p = &t->pts[i];
	bool serves = p->exact && p->marker_ms - t_ms <= TRACK_MARKER_SLACK_MS && p->since_ms <= t_ms;
	return serves ? p->since_ms : t_ms;
}

/* Thread states between two cumulative points: blocked is what is left of
 * the threads' alive time once on-CPU and runnable time are taken out. */
static void thread_time(const struct track_point *a, const struct track_point *b, double span_ms,
			struct track_window *w)
{
	w->oncpu_ms = b->oncpu_ms > a->oncpu_ms ? b->oncpu_ms - a->oncpu_ms : 0;
	w->runnable_ms = b->runnable_ms > a->runnable_ms ? b->runnable_ms - a->runnable_ms : 0;
	double alive = b->alive_ms > a->alive_ms ? b->alive_ms - a->alive_ms : 0;
	w->blocked_ms = alive > w->oncpu_ms + w->runnable_ms ? alive - w->oncpu_ms - w->runnable_ms : 0;
	w->parallelism = span_ms > 0 ? w->oncpu_ms / span_ms : 0;
	/* waits for I/O are counted in whole ticks when they end: never more than blocked */
	w->iowait_ms = !a->iowait || !b->iowait ? -1
		       : b->iowait_ms > a->iowait_ms ? fmin(b->iowait_ms - a->iowait_ms, w->blocked_ms) : 0;
	/* the threads alive at the ends; the points inside add theirs */
	w->threads_max = a->threads_max > b->threads_max ? a->threads_max : b->threads_max;
}

static uint64_t count(double later, double earlier)
{
	double d = later - earlier;
	return d > 0 && isfinite(d) ? (uint64_t)llround(d) : 0;
}

/* The window [from_ms, to_ms]'s GPU memory from process column c: its
 * figures at the two ends, as the tree's are read, and the maxima of the
 * points inside. */
static void gpu_of(const struct track *t, const struct track_gpu_proc *c, double from_ms, double to_ms,
		   const struct track_end *ea, const struct track_end *eb, struct track_window *w)
{
	double start = c->mib[ea->a] + (c->mib[ea->b] - c->mib[ea->a]) * ea->f;
	double end = c->mib[eb->a] + (c->mib[eb->b] - c->mib[eb->a]) * eb->f;
	w->gpu = t->pts[ea->b].gpu_valid || t->pts[eb->b].gpu_valid;
	w->gpu_max_mib = start > end ? start : end;
	for (size_t i = first_at_or_after(t, from_ms); i < t->n && t->pts[i].t_ms <= to_ms; i++)
		if (t->pts[i].gpu_valid) {
			w->gpu = true;
			if (c->max_mib[i] > w->gpu_max_mib)
				w->gpu_max_mib = c->max_mib[i];
		}
	w->gpu_growth_mib = w->gpu ? end - start : 0;
	if (!w->gpu)
		w->gpu_max_mib = 0;
	w->gpu_pid = c->pid;
}

static void window_of(const struct track *t, const struct track_gpu_proc *c, double from_ms, double to_ms,
		      bool from_marked, bool to_marked, struct track_window *w);

void track_window(const struct track *t, double from_ms, double to_ms, bool from_marked, bool to_marked,
		  struct track_window *w)
{
	window_of(t, NULL, from_ms, to_ms, from_marked, to_marked, w);
}

bool track_window_pid(const struct track *t, uint32_t pid, double from_ms, double to_ms, bool from_marked,
		      bool to_marked, struct track_window *w)
{
	const struct track_gpu_proc *c = pid ? gpu_column(t, pid) : NULL;
	window_of(t, c, from_ms, to_ms, from_marked, to_marked, w);
	return c != NULL;
}

static void window_of(const struct track *t, const struct track_gpu_proc *c, double from_ms, double to_ms,
		      bool from_marked, bool to_marked, struct track_window *w)
{
	memset(w, 0, sizeof(*w));
	if (!isfinite(from_ms) || !isfinite(to_ms) || t->n == 0) {
		w->empty = w->approximate = true;
		w->iowait_ms = -1;
		return;
	}
	if (to_ms < from_ms) {
		double x = from_ms;
		bool m = from_marked;
		from_ms = to_ms;
		to_ms = x;
		from_marked = to_marked;
		to_marked = m;
	}
	struct track_point a, b;
	struct track_end ea, eb;
	at(t, from_ms, from_marked, &a, &ea);
	at(t, to_ms, to_marked, &b, &eb);
	w->user_ms = b.user_ms > a.user_ms ? b.user_ms - a.user_ms : 0;
	w->sys_ms = b.sys_ms > a.sys_ms ? b.sys_ms - a.sys_ms : 0;
	w->minflt = count(b.minflt, a.minflt);
	w->majflt = count(b.majflt, a.majflt);
	w->vcsw = count(b.vcsw, a.vcsw);
	w->ivcsw = count(b.ivcsw, a.ivcsw);
	w->read_bytes = count(b.read_bytes, a.read_bytes);
	w->write_bytes = count(b.write_bytes, a.write_bytes);
	thread_time(&a, &b, to_ms - from_ms, w);
	w->rss_start_kb = a.mem_kb;
	w->rss_end_kb = b.mem_kb;
	w->rss_max_kb = a.mem_kb > b.mem_kb ? a.mem_kb : b.mem_kb;
	w->gpu = a.gpu_valid || b.gpu_valid;
	w->gpu_max_mib = a.gpu_mib > b.gpu_mib ? a.gpu_mib : b.gpu_mib;
	/* the points strictly inside, with the maxima they carry */
	size_t i = first_at_or_after(t, from_ms);
	size_t inside = 0;
	for (; i < t->n && t->pts[i].t_ms <= to_ms; i++) {
		const struct track_point *p = &t->pts[i];
		inside++;
		if (p->threads_max > w->threads_max)
			w->threads_max = p->threads_max;
		if (p->mem_max_kb > w->rss_max_kb)
			w->rss_max_kb = p->mem_max_kb;
		if (p->gpu_valid) {
			w->gpu = true;
			if (p->gpu_max_mib > w->gpu_max_mib)
				w->gpu_max_mib = p->gpu_max_mib;
		}
	}
	w->rss_growth_kb = (int64_t)w->rss_end_kb - (int64_t)w->rss_start_kb;
	w->gpu_growth_mib = w->gpu ? b.gpu_mib - a.gpu_mib : 0;
	if (!w->gpu)
		w->gpu_max_mib = 0;
	double span = to_ms - from_ms;
	bool exact = ea.exact && eb.exact;
	/* how late a marked end's sample came where the program did not wait
	 * for it (served, or read late and interpolated) */
	w->sample_lag_ms = -1;
	if (ea.served || eb.served || ea.late || eb.late)
		w->sample_lag_ms = fmax(ea.acked ? 0 : ea.lag_ms, eb.acked ? 0 : eb.lag_ms);
	w->acknowledged = ea.acked && eb.acked;
	/* an interpolated end may take anything of the interval that holds it:
	 * shorter than two of those (a starved monitor's stretch, not only the
	 * nominal interval), the window is approximate */
	w->approximate = (span < 2 * t->interval_ms && !exact) || span < 2 * fmax(ea.gap_ms, eb.gap_ms) ||
			 (ea.served && !ea.exact) || (eb.served && !eb.exact) ||
			 (ea.late && ea.lag_ms > TRACK_MARKER_LAG_MS) || (eb.late && eb.lag_ms > TRACK_MARKER_LAG_MS);
	w->empty = inside == 0 && !exact && (from_ms > t->pts[t->n - 1].t_ms || to_ms < t->pts[0].t_ms);
	if (w->empty)
		w->approximate = true;
	if (c)
		gpu_of(t, c, from_ms, to_ms, &ea, &eb, w);
}
