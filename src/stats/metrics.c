/* metrics: extraction of per-run metric vectors from run and bench records.
 *
 * JSON is parsed by jansson only; this file walks the parsed tree. Summary
 * fields are read in a fixed order so every table lists wall_s first; counters
 * follow, then an attached daemon's figures ("daemon.user_s", "daemon.peak_rss_kb",
 * "daemon.<event>": trees.daemon of the record under one prefix), then phases, whose per-run totals are zero-padded so that every
 * phase series has exactly one value per run.
 */
#include "stats/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/nesting.h"
#include "util/parse.h"
#include "util/strindex.h"
#include "util/xalloc.h"

static const char *const summary_fields[] = {
	"wall_s", "user_s", "sys_s", "peak_rss_kb", "peak_tree_rss_kb",
	"cgroup_peak_kb", "minflt", "majflt", "gpu_peak_mib",
};

/* An attached daemon's figures (trees.daemon), named "daemon.FIELD". */
static const char *const daemon_fields[] = {
	"user_s", "sys_s", "peak_rss_kb", "peak_above_idle_kb", "idle_rss_kb", "hwm_kb",
	"minflt", "majflt", "vcsw", "ivcsw", "read_bytes", "write_bytes", "gpu_peak_mib",
};

void metrics_set_init(struct metrics_set *s)
{
	memset(s, 0, sizeof(*s));
}

void metrics_set_release(struct metrics_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].name);
		free(s->items[i].values);
		free(s->items[i].spans);
		free(s->items[i].parent);
	}
	free(s->items);
	strindex_release(&s->index);
	json_decref(s->command);
	json_decref(s->hostname);
	json_decref(s->profiles);
	metrics_set_init(s);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

bool metrics_is_measurement(const char *name)
{
	static const char *const not_measured[] = {
		"peak_rss_pid", "samples", "monitor_cpu_s", "interval_ms", "peak_at_ms", "effective_interval_ms",
		"samples_stretched",
	};
	const char *base = !strncmp(name, "daemon.", 7) ? name + 7 : name;
	for (size_t i = 0; i < sizeof(not_measured) / sizeof(not_measured[0]); i++)
		if (!strcmp(base, not_measured[i]))
			return false;
	return true;
}

enum metrics_unit metrics_unit(const char *name)
{
	if (!strncmp(name, "phase:", 6) && !metrics_phase_resource(name))
		return METRICS_MS;
	const char *base = !strncmp(name, "daemon.", 7) ? name + 7 : name;
	if (!strcmp(base, "task-clock") || !strcmp(base, "cpu-clock"))
		return METRICS_NS;
	static const struct {
		const char *suffix;
		enum metrics_unit unit;
	} suffixes[] = {
		{ "_ms", METRICS_MS }, { "_s", METRICS_S }, { "_kb", METRICS_KB }, { "_mib", METRICS_MIB },
		{ "_bytes", METRICS_BYTES }, { "_pct", METRICS_PCT },
	};
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (ends_with(base, suffixes[i].suffix))
			return suffixes[i].unit;
	return METRICS_COUNT;
}

const struct metrics_series *metrics_find(const struct metrics_set *s, const char *name)
{
	size_t i = strindex_get(&s->index, name);
	return i == STRINDEX_NONE ? NULL : &s->items[i];
}

/* Finds or appends the series called name; consumes name. The index of
 * names keeps this O(1): a compare of 5 000 phase names has 70 000 series. */
static struct metrics_series *series_get(struct metrics_set *s, char *name, bool is_phase)
{
	struct metrics_series *m = (struct metrics_series *)metrics_find(s, name);
	if (m) {
		free(name);
		return m;
	}
	xgrow((void **)&s->items, &s->cap, s->n + 1, sizeof(*s->items));
	m = &s->items[s->n++];
	memset(m, 0, sizeof(*m));
	m->name = name;
	m->is_phase = is_phase;
	strindex_put(&s->index, m->name, s->n - 1);
	return m;
}

static void series_push(struct metrics_series *m, double v)
{
	xgrow((void **)&m->values, &m->cap, m->n + 1, sizeof(*m->values));
	m->values[m->n++] = v;
}

/* A present, non-null field must be a non-negative number; 1 if read, 0 if absent. */
static int read_number(json_t *obj, const char *key, double *out, size_t run,
		       const char *where, struct err *e)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_is_null(v))
		return 0;
	double d = json_is_number(v) ? json_number_value(v) : -1;
	if (!(d >= 0 && d <= 1e300))
		return err_set(e, "run %zu: %s%s must be a non-negative number", run, where, key);
	*out = d;
	return 1;
}

static int add_summary(struct metrics_set *s, json_t *rec, size_t run, struct err *e)
{
	json_t *sum = json_object_get(rec, "summary");
	if (!json_is_object(sum))
		return err_set(e, "run %zu: no \"summary\" object", run);
	for (size_t i = 0; i < sizeof(summary_fields) / sizeof(summary_fields[0]); i++) {
		double v = 0;
		int r = read_number(sum, summary_fields[i], &v, run, "summary.", e);
		if (r < 0)
			return r;
		if (r == 0 && i == 0)
			return err_set(e, "run %zu: summary.wall_s is missing", run);
		if (r)
			series_push(series_get(s, xstrdup(summary_fields[i]), false), v);
	}
	return 0;
}

/* The counters object at where (prefix "" for the run's, "daemon." for the daemon's). */
static int add_counter_set(struct metrics_set *s, json_t *counters, const char *prefix, size_t run,
			   struct err *e)
{
	if (!counters || json_is_null(counters))
		return 0;
	if (!json_is_object(counters))
		return err_set(e, "run %zu: \"%scounters\" must be an object", run, prefix);
	const char *name;
	json_t *c;
	json_object_foreach(counters, name, c) {
		if (!json_is_object(c))
			return err_set(e, "run %zu: counters.%s must be an object", run, name);
		if (json_is_false(json_object_get(c, "supported")))
			continue;
		double v = 0;
		char where[200];
		snprintf(where, sizeof(where), "%scounters.%.128s.", prefix, name);
		int r = read_number(c, "value", &v, run, where, e);
		if (r < 0)
			return r;
		if (r && *name)
			series_push(series_get(s, xasprintf("%s%s", prefix, name), false), v);
	}
	return 0;
}

static int add_counters(struct metrics_set *s, json_t *rec, size_t run, struct err *e)
{
	return add_counter_set(s, json_object_get(rec, "counters"), "", run, e);
}

/* run --attach: the daemon's tree under "daemon.", its counters too. */
static int add_daemon(struct metrics_set *s, json_t *rec, size_t run, struct err *e)
{
	json_t *d = json_object_get(json_object_get(rec, "trees"), "daemon");
	if (!d || json_is_null(d))
		return 0;
	if (!json_is_object(d))
		return err_set(e, "run %zu: \"trees.daemon\" must be an object", run);
	for (size_t i = 0; i < sizeof(daemon_fields) / sizeof(daemon_fields[0]); i++) {
		double v = 0;
		int r = read_number(d, daemon_fields[i], &v, run, "trees.daemon.", e);
		if (r < 0)
			return r;
		if (r)
			series_push(series_get(s, xasprintf("daemon.%s", daemon_fields[i]), false), v);
	}
	return add_counter_set(s, json_object_get(d, "counters"), "daemon.", run, e);
}

/* Per-phase resources as metrics: "phase:NAME.KEY", summed over the phase's
 * instances in a run (record key, metric key, scale); parallelism, a ratio,
 * is the instances' mean weighted by their durations (their on-CPU thread
 * time over their wall time). */
static const struct {
	const char *record, *metric;
	double scale;
} phase_resources[] = {
	{ "oncpu_ms", "oncpu_ms", 1 }, { "runnable_ms", "runnable_ms", 1 }, { "blocked_ms", "blocked_ms", 1 },
	{ "iowait_ms", "iowait_ms", 1 },
	{ "parallelism", "parallelism", 1 },
	{ "user_ms", "user_s", 1e-3 }, { "sys_ms", "sys_s", 1e-3 }, { "minflt", "minflt", 1 },
	{ "majflt", "majflt", 1 }, { "vcsw", "vcsw", 1 }, { "ivcsw", "ivcsw", 1 },
	{ "read_bytes", "read_bytes", 1 }, { "write_bytes", "write_bytes", 1 },
	{ "rss_growth_kb", "rss_growth_kb", 1 }, { "gpu_growth_mib", "gpu_growth_mib", 1 },
};

/* The GPU side of a phase (run --gpu-trace, phases[].gpu), summed over the
 * instances like the resources; each of the instance's top kernels adds
 * "kernel:NAME_ms" and "kernel:NAME_launches" (a kernel outside an instance's
 * top five counts nothing there). */
static const struct {
	const char *record, *metric;
} phase_gpu[] = {
	{ "busy_ms", "gpu_busy_ms" }, { "launches", "gpu_launches" }, { "h2d_bytes", "h2d_bytes" },
	{ "d2h_bytes", "d2h_bytes" }, { "d2d_bytes", "d2d_bytes" }, { "h2d_pageable_bytes", "h2d_pageable_bytes" },
	{ "sync_ms", "gpu_sync_ms" }, { "mem_growth_mib", "gpu_mem_growth_mib" },
};

const char *metrics_phase_resource(const char *name)
{
	if (strncmp(name, "phase:", 6))
		return NULL;
	const char *kernel = strstr(name + 6, ".kernel:");
	if (kernel)
		return kernel + 1;
	const char *dot = strrchr(name + 6, '.');
	if (!dot)
		return NULL;
	for (size_t i = 0; i < sizeof(phase_resources) / sizeof(*phase_resources); i++)
		if (!strcmp(dot + 1, phase_resources[i].metric))
			return dot + 1;
	for (size_t i = 0; i < sizeof(phase_gpu) / sizeof(*phase_gpu); i++)
		if (!strcmp(dot + 1, phase_gpu[i].metric))
			return dot + 1;
	return !strcmp(dot + 1, "h2d_copy_ms") ? dot + 1 : NULL;
}

/* Adds x to run's value of the phase series called name (consumed). */
static void phase_add(struct metrics_set *s, char *name, size_t run, double x)
{
	struct metrics_series *m = series_get(s, name, true);
	while (m->n <= run)
		series_push(m, 0);
	m->values[run] += x;
}

static void add_phase_gpu(struct metrics_set *s, const char *name, const json_t *gpu, size_t run)
{
	if (!json_is_object(gpu))
		return;
	for (size_t k = 0; k < sizeof(phase_gpu) / sizeof(*phase_gpu); k++) {
		const json_t *v = json_object_get(gpu, phase_gpu[k].record);
		if (json_is_number(v) && fabs(json_number_value(v)) <= 1e300)
			phase_add(s, xasprintf("phase:%s.%s", name, phase_gpu[k].metric), run, json_number_value(v));
	}
	/* the H2D copies' time, from their bytes and throughput */
	const json_t *bytes = json_object_get(gpu, "h2d_bytes"), *gbps = json_object_get(gpu, "h2d_gbps");
	if (json_is_number(bytes) && json_is_number(gbps) && json_number_value(gbps) > 0 &&
	    json_number_value(bytes) >= 0 && json_number_value(bytes) <= 1e300)
		phase_add(s, xasprintf("phase:%s.h2d_copy_ms", name), run,
			  json_number_value(bytes) / json_number_value(gbps) / 1e6);
	size_t i;
	const json_t *kern;
	json_array_foreach(json_object_get(gpu, "kernels"), i, kern) {
		const char *k = json_string_value(json_object_get(kern, "name"));
		const json_t *ms = json_object_get(kern, "ms"), *launches = json_object_get(kern, "launches");
		if (!k || !*k || !json_is_number(ms) || !(fabs(json_number_value(ms)) <= 1e300))
			continue;
		phase_add(s, xasprintf("phase:%s.kernel:%s_ms", name, k), run, json_number_value(ms));
		if (json_is_number(launches) && fabs(json_number_value(launches)) <= 1e300)
			phase_add(s, xasprintf("phase:%s.kernel:%s_launches", name, k), run, json_number_value(launches));
	}
}

/* One phase instance's resources into its name's series (growths may be
 * negative); dur_ms is the instance's, total_ms the run's instances' so far, it included. */
static void add_phase_resources(struct metrics_set *s, const char *name, const json_t *res, size_t run,
				double dur_ms, double total_ms)
{
	if (!json_is_object(res))
		return;
	for (size_t k = 0; k < sizeof(phase_resources) / sizeof(*phase_resources); k++) {
		const json_t *v = json_object_get(res, phase_resources[k].record);
		if (!json_is_number(v) || !(fabs(json_number_value(v)) <= 1e300))
			continue;
		struct metrics_series *m =
			series_get(s, xasprintf("phase:%s.%s", name, phase_resources[k].metric), true);
		while (m->n <= run)
			series_push(m, 0);
		double x = json_number_value(v) * phase_resources[k].scale;
		if (!strcmp(phase_resources[k].metric, "parallelism"))
			m->values[run] = total_ms > 0 ? (m->values[run] * (total_ms - dur_ms) + x * dur_ms) / total_ms : x;
		else
			m->values[run] += x;
	}
}

/* Instances kept per phase name for nesting; past it, the phase is top-level. */
enum { METRICS_MAX_SPANS = 4096 };

void metrics_find_parents(struct metrics_set *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->items[i].n_spans < METRICS_MAX_SPANS)
			n += s->items[i].n_spans;
	struct nesting_span *spans = xcalloc(n + 1, sizeof(*spans));
	size_t *parent = xcalloc(s->n + 1, sizeof(*parent)), k = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct metrics_series *m = &s->items[i];
		for (size_t j = 0; j < m->n_spans && m->n_spans < METRICS_MAX_SPANS; j++)
			spans[k++] = (struct nesting_span){ .name = i, .group = m->spans[j].run,
							    .start_ms = m->spans[j].start_ms,
							    .end_ms = m->spans[j].end_ms };
	}
	nesting_parents(spans, n, s->n, parent);
	for (size_t i = 0; i < s->n; i++) {
		struct metrics_series *a = &s->items[i];
		free(a->parent);
		a->parent = a->n_spans && parent[i] != NESTING_NONE ? xstrdup(s->items[parent[i]].name + 6) : NULL;
	}
	free(spans);
	free(parent);
}

/* Adds run's phase totals; run is the index in s (phase series hold s->runs values). */
static int add_phases(struct metrics_set *s, json_t *rec, size_t run, size_t label, struct err *e)
{
	json_t *phases = json_object_get(rec, "phases");
	if (!phases || json_is_null(phases))
		return 0;
	if (!json_is_array(phases))
		return err_set(e, "run %zu: \"phases\" must be an array", label);
	size_t i;
	json_t *p;
	json_array_foreach(phases, i, p) {
		const char *name = json_string_value(json_object_get(p, "name"));
		if (!json_is_object(p) || !name || !*name)
			return err_set(e, "run %zu: phases[%zu] has no name", label, i);
		double start = 0, end = 0;
		if (read_number(p, "start_ms", &start, label, "phases[].", e) != 1 ||
		    read_number(p, "end_ms", &end, label, "phases[].", e) != 1 || end < start)
			return err_set(e, "run %zu: phases[%zu] ('%s') needs start_ms <= end_ms, both non-negative numbers",
				       label, i, name);
		struct metrics_series *m = series_get(s, xasprintf("phase:%s", name), true);
		if (!m->is_phase)
			return err_set(e, "run %zu: phase name '%s' clashes with a metric", label, name);
		while (m->n <= run)
			series_push(m, 0);
		m->values[run] += end - start;
		if (m->n_spans < METRICS_MAX_SPANS) {
			xgrow((void **)&m->spans, &m->cap_spans, m->n_spans + 1, sizeof(*m->spans));
			m->spans[m->n_spans++] = (struct metrics_span){ run, start, end };
		}
		add_phase_resources(s, name, json_object_get(p, "resources"), run, end - start, m->values[run]);
		add_phase_gpu(s, name, json_object_get(p, "gpu"), run);
	}
	return 0;
}

/* A run's command: its argv, or for a shell run (options.words holds
 * --shell; argv[0] is the script) the script as the shell string it is, as
 * hyperfine's results hold it. */
static json_t *run_command(const json_t *rec)
{
	json_t *cmd = json_object_get(rec, "command");
	if (json_array_size(cmd) != 1)
		return cmd;
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(json_object_get(rec, "options"), "words"), i, w)
		if (json_is_string(w) && !strcmp(json_string_value(w), "--shell"))
			return json_array_get(cmd, 0);
	return cmd;
}

/* metrics_add_records less the phases' parents. */
static int add_records(struct metrics_set *s, json_t *const *records, size_t n, struct err *e)
{
	/* Pass 1: summary and counters, so they come before phases in the set.
	 * Errors count the runs from the first the set was given. */
	for (size_t i = 0; i < n; i++) {
		size_t label = s->runs + i + 1;
		json_t *rec = records[i];
		if (!json_is_object(rec))
			return err_set(e, "run %zu: not a JSON object", label);
		json_t *schema = json_object_get(rec, "schema");
		if (schema && (!json_is_string(schema) || strcmp(json_string_value(schema), "perfhunt.run/1")))
			return err_set(e, "run %zu: schema is not perfhunt.run/1", label);
		json_t *cmd = run_command(rec);
		if (cmd && !s->command)
			s->command = json_incref(cmd);
		else if (cmd && !json_equal(cmd, s->command))
			s->mixed_commands = true;
		json_t *host = json_object_get(json_object_get(rec, "host"), "hostname");
		if (json_is_string(host) && !s->hostname)
			s->hostname = json_incref(host);
		if (!s->profiles)
			s->profiles = json_array();
		json_t *prof = json_object_get(rec, "profile");
		json_array_append(s->profiles, json_is_object(prof) ? prof : json_null());
		if (add_summary(s, rec, label, e) < 0 || add_counters(s, rec, label, e) < 0 ||
		    add_daemon(s, rec, label, e) < 0)
			return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (add_phases(s, records[i], s->runs + i, s->runs + i + 1, e) < 0)
			return -1;
	s->runs += n;
	for (size_t i = 0; i < s->n; i++)
		while (s->items[i].is_phase && s->items[i].n < s->runs)
			series_push(&s->items[i], 0);
	return 0;
}

int metrics_add_records(struct metrics_set *s, json_t *const *records, size_t n, struct err *e)
{
	if (add_records(s, records, n, e) < 0)
		return -1;
	metrics_find_parents(s);
	return 0;
}

int metrics_stream_add(struct metrics_set *s, json_t *record, struct err *e)
{
	return add_records(s, &record, 1, e);
}

void metrics_stream_end(struct metrics_set *s, size_t first)
{
	/* the series added since first, phases after the rest (a stable
	 * partition), as metrics_add_records orders them */
	size_t n = s->n - first, k = 0;
	struct metrics_series *tmp = xmalloc((n + 1) * sizeof(*tmp));
	for (int phase = 0; phase < 2; phase++)
		for (size_t i = first; i < s->n; i++)
			if (s->items[i].is_phase == phase)
				tmp[k++] = s->items[i];
	memcpy(s->items + first, tmp, n * sizeof(*tmp));
	free(tmp);
	strindex_release(&s->index);
	for (size_t i = 0; i < s->n; i++)
		strindex_put(&s->index, s->items[i].name, i);
	metrics_find_parents(s);
}

int metrics_from_records(json_t *const *records, size_t n, struct metrics_set *out, struct err *e)
{
	metrics_set_init(out);
	if (metrics_add_records(out, records, n, e) < 0) {
		metrics_set_release(out);
		return -1;
	}
	return 0;
}

static json_t *bench_command(json_t *root, const char *command, struct err *e)
{
	json_t *cmds = json_object_get(root, "commands");
	size_t n = json_array_size(cmds);
	if (!json_is_array(cmds) || n == 0) {
		err_set(e, "bench record has no \"commands\"");
		return NULL;
	}
	if (!command)
		return json_array_get(cmds, 0);
	for (size_t i = 0; i < n; i++) {
		const char *name = json_string_value(json_object_get(json_array_get(cmds, i), "name"));
		if (name && !strcmp(name, command))
			return json_array_get(cmds, i);
	}
	int64_t idx;
	if (parse_i64(command, 1, (int64_t)n, &idx, "--command", NULL) == 0)
		return json_array_get(cmds, (size_t)idx - 1);
	err_set(e, "no command '%s' in the bench record (it has %zu)", command, n);
	return NULL;
}

int metrics_command_index(json_t *root, const char *command, size_t *index, struct err *e)
{
	json_t *cmd = bench_command(root, command, e), *cmds = json_object_get(root, "commands");
	if (!cmd)
		return -1;
	for (*index = 0; json_array_get(cmds, *index) != cmd; ++*index)
		;
	return 0;
}

int metrics_runs_of(json_t *root, const char *command, json_t ***runs, size_t *n, struct err *e)
{
	*runs = NULL;
	*n = 0;
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!json_is_object(root) || !schema)
		return err_set(e, "not a perfhunt record (no \"schema\")");
	if (!strcmp(schema, "perfhunt.run/1")) {
		*runs = xmalloc(sizeof(**runs));
		(*runs)[0] = root;
		*n = 1;
		return 0;
	}
	if (strcmp(schema, "perfhunt.bench/1"))
		return err_set(e, "unsupported schema '%.64s' (expected perfhunt.run/1 or perfhunt.bench/1)", schema);
	json_t *cmd = bench_command(root, command, e);
	if (!cmd)
		return -1;
	json_t *arr = json_object_get(cmd, "runs");
	size_t count = json_array_size(arr);
	if (!json_is_array(arr) || count == 0)
		return err_set(e, "bench command has no runs");
	*runs = xmalloc(count * sizeof(**runs));
	for (size_t i = 0; i < count; i++)
		(*runs)[i] = json_array_get(arr, i);
	*n = count;
	return 0;
}

static void add_zero_phases(struct metrics_set *to, const struct metrics_set *from)
{
	for (size_t i = 0; i < from->n; i++) {
		if (!from->items[i].is_phase || metrics_find(to, from->items[i].name))
			continue;
		struct metrics_series *m = series_get(to, xstrdup(from->items[i].name), true);
		while (m->n < to->runs)
			series_push(m, 0);
	}
}

void metrics_align_phases(struct metrics_set *a, struct metrics_set *b)
{
	add_zero_phases(a, b);
	add_zero_phases(b, a);
}
