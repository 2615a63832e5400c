/* gputrace_json: what the GPU did in each phase, as the run record says it.
 *
 * A phase's window on the trace's clock is its start_ms/end_ms plus the run's
 * monotonic start, so the GPU figures of a phase are read the way its CPU
 * figures are: by time. Whose activity counts is the phase's process where it
 * has one — an NVTX range's own, a probe phase that names a traced process
 * (`pid=N` on its lines or its lane), or any phase of a lane bound to one by
 * such a line — else the whole tree's. Per name, every instance's window is
 * summed into one accumulator, so a kernel outside each instance's top still
 * counts in the name's totals.
 */
#include "record/gputrace_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record/phase_pid.h"
#include "record/phases_json.h"
#include "util/xalloc.h"

#define MIB (1024.0 * 1024.0)

static const char *const copy_key[] = { "h2d", "d2h", "d2d" };

static json_t *kernels_json(const struct gputrace *t, const struct gputrace_sum *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->n_top; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:I}", "name", t->names[s->top[i].name],
						   "ms", phases_json_number(s->top[i].ms),
						   "launches", (json_int_t)s->top[i].launches));
	return a;
}

static json_t *sum_json(const struct gputrace *t, const struct gputrace_sum *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "busy_ms", phases_json_number(s->busy_ms));
	json_object_set_new(o, "kernel_ms", phases_json_number(s->kernel_ms));
	json_object_set_new(o, "launches", json_integer((json_int_t)s->launches));
	json_object_set_new(o, "kernels", kernels_json(t, s));
	for (int k = GPUTRACE_H2D; k <= GPUTRACE_D2D; k++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_bytes", copy_key[k]);
		json_object_set_new(o, key, json_integer((json_int_t)(s->copy_bytes[k] + 0.5)));
		if (s->copy_bytes[k] > 0 && s->copy_ms[k] > 0) {
			snprintf(key, sizeof(key), "%s_gbps", copy_key[k]);
			json_object_set_new(o, key, phases_json_number(s->copy_bytes[k] / s->copy_ms[k] / 1e6));
		}
	}
	json_object_set_new(o, "h2d_pageable_bytes", json_integer((json_int_t)(s->h2d_pageable_bytes + 0.5)));
	json_object_set_new(o, "sync_ms", phases_json_number(s->sync_ms));
	if (s->mem) {
		json_object_set_new(o, "mem_start_mib", phases_json_number((double)s->mem_start_bytes / MIB));
		json_object_set_new(o, "mem_end_mib", phases_json_number((double)s->mem_end_bytes / MIB));
		json_object_set_new(o, "mem_max_mib", phases_json_number((double)s->mem_max_bytes / MIB));
		json_object_set_new(o, "mem_growth_mib", phases_json_number((double)s->mem_growth_bytes / MIB));
	}
	return o;
}

/* The process of an NVTX phase: the range that starts where it starts (the
 * record keeps microseconds), with its name and domain; 0 for any other phase
 * or when none matches. */
static int nvtx_pid(const struct gputrace *t, const json_t *ph, int64_t a)
{
	const char *src = json_string_value(json_object_get(ph, "source"));
	const char *name = json_string_value(json_object_get(ph, "name"));
	const char *lane = json_string_value(json_object_get(ph, "lane"));
	if (!src || strcmp(src, "nvtx") || !name || !lane)
		return 0;
	const char *domain = !strncmp(lane, "nvtx=", 5) ? lane + 5 : "";
	size_t lo = 0, hi = t->n_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->ranges[mid].start_ns < a - 2000)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n_ranges && t->ranges[lo].start_ns <= a + 2000; lo++)
		if (!strcmp(t->ranges[lo].name, name) && !strcmp(t->ranges[lo].domain, domain))
			return t->ranges[lo].pid;
	return 0;
}

/* Whether pid is a traced process (phase_pid's rule names no other). */
static bool traced(void *arg, long pid)
{
	const struct gputrace *t = arg;
	for (size_t i = 0; i < t->n_procs; i++)
		if (t->procs[i].pid == pid)
			return true;
	return false;
}

/* A phase's window on the trace's clock, and whose activity counts in it
 * (0: the whole tree's). */
static int window(const struct gputrace *t, const struct phase_pids *l, const json_t *ph, int64_t t0_ns, int64_t *a,
		  int64_t *b)
{
	*a = t0_ns + (int64_t)(json_number_value(json_object_get(ph, "start_ms")) * 1e6);
	*b = t0_ns + (int64_t)(json_number_value(json_object_get(ph, "end_ms")) * 1e6);
	int pid = nvtx_pid(t, ph, *a);
	return pid ? pid : phase_pids_of(l, ph);
}

struct named {
	const char *name;
	const json_t *ph;
};

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* Each name's instances in one accumulator; the phases are grouped by name
 * once (sorted), not searched once per name. */
static void add_stats(json_t *phases, json_t *stats, const struct gputrace *t, const struct phase_pids *l,
		      int64_t t0_ns)
{
	size_t n = 0, i, j;
	json_t *ph, *st;
	struct named *by_name = xcalloc(json_array_size(phases) + 1, sizeof(*by_name));
	json_array_foreach(phases, i, ph) {
		const char *name = json_string_value(json_object_get(ph, "name"));
		if (name && !json_is_true(json_object_get(ph, "unfinished")))
			by_name[n++] = (struct named){ .name = name, .ph = ph };
	}
	qsort(by_name, n, sizeof(*by_name), cmp_named);
	json_array_foreach(stats, j, st) {
		struct named key = { .name = json_string_value(json_object_get(st, "name")) };
		if (!key.name)
			continue;
		struct named *hit = bsearch(&key, by_name, n, sizeof(*by_name), cmp_named);
		if (!hit)
			continue;
		while (hit > by_name && !strcmp(hit[-1].name, key.name))
			hit--;
		struct gputrace_sum s;
		gputrace_sum_init(&s, t);
		for (; hit < by_name + n && !strcmp(hit->name, key.name); hit++) {
			int64_t a, b;
			int pid = window(t, l, hit->ph, t0_ns, &a, &b);
			gputrace_sum_add(&s, t, a, b, pid);
		}
		gputrace_sum_finish(&s);
		json_object_set_new(st, "gpu", sum_json(t, &s));
		gputrace_sum_release(&s);
	}
	free(by_name);
}

void gputrace_json_add_phases(json_t *obj, const struct gputrace *t, int64_t t0_ns)
{
	json_t *phases = json_object_get(obj, "phases"), *stats = json_object_get(obj, "phase_stats");
	size_t i;
	json_t *ph;
	struct phase_pids l;
	phase_pids_bind(&l, phases, traced, (void *)t);
	json_array_foreach(phases, i, ph) {
		struct gputrace_sum s;
		int64_t a, b;
		int pid = window(t, &l, ph, t0_ns, &a, &b);
		gputrace_sum_init(&s, t);
		gputrace_sum_add(&s, t, a, b, pid);
		gputrace_sum_finish(&s);
		json_t *g = sum_json(t, &s);
		if (pid > 0) /* charged one process's activity, not the tree's */
			json_object_set_new(g, "pid", json_integer(pid));
		json_object_set_new(ph, "gpu", g);
		gputrace_sum_release(&s);
	}
	add_stats(phases, stats, t, &l, t0_ns);
	phase_pids_release(&l);
}

static json_t *process_json(const struct gputrace *t, const struct gputrace_proc *p, int64_t t0_ns, int64_t end_ns)
{
	struct gputrace_sum s;
	gputrace_sum_init(&s, t);
	gputrace_sum_add(&s, t, t0_ns, end_ns, p->pid);
	gputrace_sum_finish(&s);
	json_t *o = sum_json(t, &s);
	gputrace_sum_release(&s);
	json_object_set_new(o, "pid", json_integer(p->pid));
	json_object_set_new(o, "ppid", json_integer(p->ppid));
	json_object_set_new(o, "mem_peak_mib", phases_json_number((double)p->mem_max_bytes / MIB));
	json_object_set_new(o, "records", json_integer((json_int_t)p->records));
	json_object_set_new(o, "dropped", json_integer((json_int_t)(p->dropped + p->cupti_dropped)));
	json_object_set_new(o, "complete", json_boolean(p->complete));
	json_object_set_new(o, "clock", json_string(p->clock_ok ? "monotonic" : "cupti"));
	return o;
}

/* One GPU slice: a kernel or a copy, by start. */
struct slice {
	int64_t start_ns, end_ns;
	uint32_t dev;
	const char *kind, *name;
	int pid;
	uint32_t corr;
};

static int longer(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	int64_t dx = x->end_ns - x->start_ns, dy = y->end_ns - y->start_ns;
	return dx != dy ? (dx < dy) - (dx > dy) : (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static int earlier(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* An interval's start and duration in ms at the record's microseconds, both
 * ends rounded so that intervals one after the other on a track never
 * overlap once rounded (start and duration rounded apart could by 1 µs). */
static void span_ms(int64_t start_ns, int64_t end_ns, int64_t t0_ns, json_t **start, json_t **dur)
{
	double a = round((double)(start_ns - t0_ns) / 1e3), b = round((double)(end_ns - t0_ns) / 1e3);
	*start = phases_json_number(a / 1e3);
	*dur = phases_json_number((b > a ? b - a : 0) / 1e3);
}

/* The host call that launched a slice, [tid, name, start_ms, duration_ms],
 * or null when none was recorded. */
static json_t *launch_json(const struct gputrace *t, const struct slice *sl, int64_t t0_ns)
{
	const struct gputrace_launch *l = gputrace_launch_of(t, sl->pid, sl->corr);
	if (!l)
		return json_null();
	json_t *start, *dur;
	span_ms(l->start_ns, l->end_ns, t0_ns, &start, &dur);
	return json_pack("[I, s, o, o]", (json_int_t)l->tid, t->calls[l->name], start, dur);
}

/* The kernels and copies as [device, kind, name, start_ms, duration_ms, pid,
 * launch], the GPUTRACE_JSON_SLICES longest of them in time order; *left_out
 * counts the rest. */
static json_t *slices_json(const struct gputrace *t, int64_t t0_ns, size_t *left_out)
{
	static const char *const copy_kind[] = { "h2d", "d2h", "d2d", "copy" };
	size_t n = t->n_kernels + t->n_copies, k = 0;
	struct slice *sl = xcalloc(n + 1, sizeof(*sl));
	for (size_t i = 0; i < t->n_kernels; i++)
		sl[k++] = (struct slice){ t->kernels[i].start_ns, t->kernels[i].end_ns, t->kernels[i].dev, "kernel",
					  t->names[t->kernels[i].name], t->kernels[i].pid, t->kernels[i].corr };
	for (size_t i = 0; i < t->n_copies; i++)
		sl[k++] = (struct slice){ t->copies[i].start_ns, t->copies[i].end_ns, t->copies[i].dev,
					  copy_kind[t->copies[i].kind], copy_kind[t->copies[i].kind], t->copies[i].pid,
					  t->copies[i].corr };
	*left_out = 0;
	if (n > GPUTRACE_JSON_SLICES) {
		qsort(sl, n, sizeof(*sl), longer);
		*left_out = n - GPUTRACE_JSON_SLICES;
		n = GPUTRACE_JSON_SLICES;
	}
	if (n)
		qsort(sl, n, sizeof(*sl), earlier);
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *start, *dur;
		span_ms(sl[i].start_ns, sl[i].end_ns, t0_ns, &start, &dur);
		json_array_append_new(a, json_pack("[I, s, s, o, o, i, o]", (json_int_t)sl[i].dev, sl[i].kind, sl[i].name,
						   start, dur, sl[i].pid, launch_json(t, &sl[i], t0_ns)));
	}
	free(sl);
	return a;
}

json_t *gputrace_json_run(const struct gputrace *t, int64_t t0_ns, int64_t end_ns)
{
	struct gputrace_sum s;
	gputrace_sum_init(&s, t);
	gputrace_sum_add(&s, t, t0_ns, end_ns, 0);
	gputrace_sum_finish(&s);
	json_t *o = sum_json(t, &s);
	gputrace_sum_release(&s);
	json_t *procs = json_array();
	for (size_t i = 0; i < t->n_procs; i++)
		json_array_append_new(procs, process_json(t, &t->procs[i], t0_ns, end_ns));
	json_object_set_new(o, "processes", procs);
	json_object_set_new(o, "nvtx_ranges", json_integer((json_int_t)t->n_ranges));
	json_object_set_new(o, "unmatched_ranges", json_integer((json_int_t)t->unmatched_ranges));
	json_object_set_new(o, "bad_lines", json_integer((json_int_t)t->bad_lines));
	json_object_set_new(o, "skipped", json_integer((json_int_t)t->skipped));
	size_t left_out;
	json_object_set_new(o, "slices", slices_json(t, t0_ns, &left_out));
	json_object_set_new(o, "slices_left_out", json_integer((json_int_t)left_out));
	return o;
}
