/* phases_json: serialises a phase set with jansson for the run record.
 *
 * Numbers keep their written form where it matters to a reader: a probe's
 * fields and a phase's values are the numbers the program printed
 * (pin_abc_ms stays 5733), integers stay integers, and times are rounded
 * to the microsecond so records do not carry float noise.
 */
#include "record/phases_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record/phase_pid.h"
#include "stats/stats.h"
#include "util/xalloc.h"

json_t *phases_json_number(double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(round(v * 1000) / 1000);
}

#define number phases_json_number

/* Numbers as numbers, words as strings. */
static json_t *fields_json(const struct probe *p)
{
	json_t *o = json_object();
	for (size_t i = 0; i < p->n_fields; i++) {
		const struct probe_field *f = &p->fields[i];
		json_object_set_new(o, f->key, f->numeric ? number(f->value) : json_string(f->text));
	}
	return o;
}

/* Phase indices by start, then by arrival (phases[] is in order of ending). */
static int cmp_start(const void *a, const void *b, void *ctx)
{
	const struct phase *ph = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	if (ph[i].start_ms != ph[j].start_ms)
		return ph[i].start_ms < ph[j].start_ms ? -1 : 1;
	return (i > j) - (i < j);
}

static json_t *phases_json(const struct phase_set *s)
{
	json_t *a = json_array();
	size_t *idx = xmalloc((s->n_phases ? s->n_phases : 1) * sizeof(*idx));
	for (size_t i = 0; i < s->n_phases; i++)
		idx[i] = i;
	qsort_r(idx, s->n_phases, sizeof(*idx), cmp_start, s->phases);
	for (size_t i = 0; i < s->n_phases; i++) {
		const struct phase *ph = &s->phases[idx[i]];
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:s, s:b, s:b, s:o}",
			"name", ph->name,
			"lane", ph->lane >= 0 ? s->lanes[ph->lane] : "",
			"start_ms", number(ph->start_ms),
			"end_ms", number(ph->end_ms),
			"duration_ms", number(ph->duration_ms),
			"source", ph->source == PHASE_DURATION ? "duration" : ph->source == PHASE_NVTX ? "nvtx" : "marker",
			"clamped", ph->clamped,
			"unfinished", ph->unfinished,
			"values", fields_json(&ph->values)));
	}
	free(idx);
	return a;
}

static json_t *stats_json(const struct phase_set *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->n_stats; i++) {
		const struct phase_stat *st = &s->stats[i];
		json_array_append_new(a, json_pack("{s:s, s:I, s:o, s:o, s:o, s:o}",
			"name", st->name, "count", (json_int_t)st->count,
			"total_ms", number(st->total_ms), "median_ms", number(st->median_ms),
			"min_ms", number(st->min_ms), "max_ms", number(st->max_ms)));
	}
	return a;
}

static json_t *lanes_json(const struct phase_set *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->n_lane_stats; i++) {
		const struct lane_stat *l = &s->lane_stats[i];
		json_array_append_new(a, json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:I, s:o}",
			"lane", l->lane, "phases", (json_int_t)l->phases,
			"start_ms", number(l->start_ms), "busy_ms", number(l->busy_ms),
			"busy_pct", number(round(l->busy_pct * 100) / 100),
			"span_ms", number(l->span_ms), "gaps", (json_int_t)l->gaps,
			"longest_gap_ms", number(l->longest_gap_ms)));
	}
	return a;
}

static json_t *probes_json(const struct phase_set *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->n_probes; i++) {
		const struct stored_probe *sp = &s->probes[i];
		json_t *o = json_pack("{s:o, s:s, s:s, s:o}",
			"t_ms", number(sp->t_ms), "prefix", sp->p.prefix ? sp->p.prefix : "",
			"stream", sp->stream, "fields", fields_json(&sp->p));
		if (o && sp->p.ignored)
			json_object_set_new(o, "ignored", json_integer((json_int_t)sp->p.ignored));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *unparsed_json(const struct phase_set *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->n_unparsed_first; i++) {
		const struct unparsed_line *u = &s->unparsed_first[i];
		json_array_append_new(a, json_pack("{s:s, s:I, s:s}", "stream", u->stream,
						   "line", (json_int_t)u->line, "text", u->text));
	}
	return a;
}

json_t *phase_set_to_json(const struct phase_set *s)
{
	json_t *info = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
		"probes", (json_int_t)s->probes_seen,
		"probes_stored", (json_int_t)s->n_probes,
		"probes_dropped", (json_int_t)s->probes_dropped,
		"phases_dropped", (json_int_t)s->phases_dropped,
		"phases_aggregated", (json_int_t)s->phases_aggregated,
		"unmatched_ends", (json_int_t)s->unmatched_ends,
		"ignored_tokens", (json_int_t)s->ignored_tokens,
		"clamped", (json_int_t)s->clamped,
		"unfinished", (json_int_t)s->unfinished,
		"unparsed", (json_int_t)s->unparsed,
		"stamps_ignored", (json_int_t)s->stamps_ignored,
		"unparsed_lines", unparsed_json(s));
	return json_pack("{s:o, s:o, s:o, s:o, s:o}",
		"phases", phases_json(s), "phase_stats", stats_json(s),
		"lanes", lanes_json(s), "probes", probes_json(s), "probe_info", info);
}

/* ---- per-phase resources ---- */

static json_t *ms(double v)
{
	return number(round(v * 1000) / 1000);
}

/* Where the window's thread time went: on a CPU, waiting for one, blocked,
 * and the part of blocked waiting for block I/O (iowait_ms: absent where
 * delay accounting is off). */
static json_t *thread_states_json(const struct track_window *w)
{
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:i}", "oncpu_ms", ms(w->oncpu_ms), "runnable_ms",
			      ms(w->runnable_ms), "blocked_ms", ms(w->blocked_ms), "parallelism",
			      number(round(w->parallelism * 1000) / 1000), "threads_max", (int)w->threads_max);
	if (w->iowait_ms >= 0)
		json_object_set_new(o, "iowait_ms", ms(w->iowait_ms));
	return o;
}

/* The figures of one window as the record names them. */
static json_t *window_json(const struct track_window *w)
{
	json_t *o = json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b}",
		"user_ms", number(round(w->user_ms * 1000) / 1000), "sys_ms", number(round(w->sys_ms * 1000) / 1000),
		"minflt", (json_int_t)w->minflt, "majflt", (json_int_t)w->majflt,
		"vcsw", (json_int_t)w->vcsw, "ivcsw", (json_int_t)w->ivcsw,
		"read_bytes", (json_int_t)w->read_bytes, "write_bytes", (json_int_t)w->write_bytes,
		"rss_start_kb", (json_int_t)w->rss_start_kb, "rss_end_kb", (json_int_t)w->rss_end_kb,
		"rss_max_kb", (json_int_t)w->rss_max_kb, "rss_growth_kb", (json_int_t)w->rss_growth_kb,
		"approximate", w->approximate);
	json_object_update_new(o, thread_states_json(w));
	if (w->sample_lag_ms >= 0)
		json_object_set_new(o, "sample_lag_ms", number(round(w->sample_lag_ms * 1000) / 1000));
	if (w->acknowledged) /* absent: false (10 000 listed phases: no member to spare) */
		json_object_set_new(o, "acknowledged", json_true());
	if (w->gpu) {
		json_object_set_new(o, "gpu_max_mib", number(round(w->gpu_max_mib * 1000) / 1000));
		json_object_set_new(o, "gpu_growth_mib", number(round(w->gpu_growth_mib * 1000) / 1000));
		if (w->gpu_pid) /* one process's GPU memory, not the tree's */
			json_object_set_new(o, "gpu_pid", json_integer(w->gpu_pid));
	}
	return o;
}

/* The figures that add up over a phase's instances (and get a median). */
static const char *const additive[] = { "user_ms", "sys_ms", "minflt", "majflt", "vcsw", "ivcsw",
					"read_bytes", "write_bytes", "rss_growth_kb", "gpu_growth_mib",
					"oncpu_ms", "runnable_ms", "blocked_ms", "iowait_ms" };
static const char *const maxima[] = { "rss_max_kb", "gpu_max_mib", "threads_max" };

/* A listed phase and its place in the array. */
struct listed {
	json_t *ph;
	const char *name;
	size_t index;
};

/* The phases of one name, group[0 .. n) in the record's order. */
static json_t *aggregate_json(const struct listed *group, size_t n, const char *member)
{
	size_t approx = 0;
	double *v = xcalloc(n ? n : 1, sizeof(*v));
	json_t *total = json_object(), *median = json_object();
	for (size_t k = 0; k < sizeof(additive) / sizeof(additive[0]); k++) {
		size_t m = 0;
		double sum = 0;
		for (size_t i = 0; i < n; i++) {
			const json_t *x = json_object_get(json_object_get(group[i].ph, member), additive[k]);
			if (!json_is_number(x))
				continue;
			v[m++] = json_number_value(x);
			sum += json_number_value(x);
		}
		if (!m)
			continue;
		json_object_set_new(total, additive[k], number(round(sum * 1000) / 1000));
		json_object_set_new(median, additive[k], number(round(stats_median(v, m) * 1000) / 1000));
	}
	for (size_t k = 0; k < sizeof(maxima) / sizeof(maxima[0]); k++) {
		bool any = false;
		double max = 0;
		for (size_t i = 0; i < n; i++) {
			const json_t *x = json_object_get(json_object_get(group[i].ph, member), maxima[k]);
			if (!json_is_number(x))
				continue;
			if (!any || json_number_value(x) > max)
				max = json_number_value(x);
			any = true;
		}
		if (any)
			json_object_set_new(total, maxima[k], number(max));
	}
	/* parallelism: the instances' on-CPU time over their wall time, and the median instance's */
	size_t m = 0;
	double oncpu = 0, wall = 0;
	for (size_t i = 0; i < n; i++) {
		const json_t *r = json_object_get(group[i].ph, member);
		const json_t *x = json_object_get(r, "parallelism");
		if (!json_is_number(x))
			continue;
		v[m++] = json_number_value(x);
		oncpu += json_number_value(json_object_get(r, "oncpu_ms"));
		wall += json_number_value(json_object_get(group[i].ph, "duration_ms"));
	}
	if (m) {
		json_object_set_new(total, "parallelism", number(round((wall > 0 ? oncpu / wall : 0) * 1000) / 1000));
		json_object_set_new(median, "parallelism", number(round(stats_median(v, m) * 1000) / 1000));
	}
	for (size_t i = 0; i < n; i++)
		approx += json_is_true(json_object_get(json_object_get(group[i].ph, member), "approximate"));
	free(v);
	return json_pack("{s:o, s:o, s:I}", "total", total, "median", median, "approximate",
			 (json_int_t)approx);
}

static int cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int cmp_listed_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct listed *)elem)->name);
}

/* phase_stats[].resources (member): totals over each name's instances, the
 * maxima, per-instance medians, and how many instances were approximate.
 * The phases are grouped by name once (a sort), so 10 000 phases of 5 000
 * names cost one pass, not one per name. */
static void add_aggregates(json_t *phases, json_t *stats, const char *member)
{
	size_t n = 0, i;
	struct listed *by_name = xcalloc(json_array_size(phases) + 1, sizeof(*by_name));
	json_t *ph, *st;
	json_array_foreach(phases, i, ph) {
		const char *name = json_string_value(json_object_get(ph, "name"));
		if (name)
			by_name[n++] = (struct listed){ .ph = ph, .name = name, .index = i };
	}
	qsort(by_name, n, sizeof(*by_name), cmp_listed);
	json_array_foreach(stats, i, st) {
		const char *name = json_string_value(json_object_get(st, "name"));
		if (!name)
			continue;
		const struct listed *from = bsearch(name, by_name, n, sizeof(*by_name), cmp_listed_name), *to;
		if (!from) {
			from = to = by_name;
		} else {
			while (from > by_name && !strcmp(from[-1].name, name))
				from--;
			for (to = from; to < by_name + n && !strcmp(to->name, name); to++)
				;
		}
		json_object_set_new(st, member, aggregate_json(from, (size_t)(to - from), member));
	}
	free(by_name);
}

/* Whether NVML listed pid in the track (phase_pid's rule binds no other). */
static bool gpu_listed(void *arg, long pid)
{
	const struct track *t = arg;
	for (size_t k = 0; k < t->ngpu_procs; k++)
		if (t->gpu_procs[k].pid == pid)
			return true;
	return false;
}

/* The process whose GPU memory a phase is charged: the one its GPU trace
 * figures are of (phases[].gpu.pid: an NVTX range's own too), else the one
 * it or its lane names among those NVML listed; 0: the tree. */
static uint32_t gpu_pid(const struct phase_pids *l, const json_t *ph)
{
	json_int_t traced = json_integer_value(json_object_get(json_object_get(ph, "gpu"), "pid"));
	if (traced > 0)
		return (uint32_t)traced;
	return (uint32_t)phase_pids_of(l, ph);
}

static void add_windows(json_t *phases, const struct track *t, const char *member)
{
	size_t i;
	json_t *ph;
	struct phase_pids l;
	phase_pids_bind(&l, phases, gpu_listed, (void *)t);
	json_array_foreach(phases, i, ph) {
		struct track_window w;
		/* a duration probe's start is its line's arrival less its
		 * duration; an NVTX range's ends are the GPU tracer's */
		const char *source = json_string_value(json_object_get(ph, "source"));
		bool marker = !source || !strcmp(source, "marker"), duration = source && !strcmp(source, "duration");
		double from = json_number_value(json_object_get(ph, "start_ms"));
		double to = json_number_value(json_object_get(ph, "end_ms"));
		if (duration) { /* the window ends when its line was written, not read */
			double written = track_written_ms(t, to);
			from -= to - written;
			to = written;
		}
		track_window_pid(t, gpu_pid(&l, ph), from < 0 ? 0 : from, to, marker, marker || duration, &w);
		json_object_set_new(ph, member, window_json(&w));
	}
	phase_pids_release(&l);
}

void phases_json_add_resources(json_t *obj, const struct track *measured, const struct track *client)
{
	json_t *phases = json_object_get(obj, "phases"), *stats = json_object_get(obj, "phase_stats");
	if (!json_is_array(phases))
		return;
	add_windows(phases, measured, "resources");
	if (client)
		add_windows(phases, client, "client_resources");
	add_aggregates(phases, stats, "resources");
	if (client)
		add_aggregates(phases, stats, "client_resources");
}
