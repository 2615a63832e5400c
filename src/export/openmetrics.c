/* openmetrics: records to OpenMetrics text (see openmetrics.h for the contract).
 *
 * The figures come from stats/metrics, the one place that reads a record's
 * numbers (so compare, the history and this text never disagree); only what
 * metrics does not keep apart — peaks per method, phases per lane, the exit
 * status — is read here. A family is written only when some run has it, with
 * its # TYPE, # HELP and # UNIT lines first, and all its samples together.
 */
#include "export/openmetrics.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/command.h"
#include "record/jsonio.h"
#include "stats/bench_record.h"
#include "stats/metrics.h"
#include "stats/stats.h"
#include "util/units.h"
#include "util/xalloc.h"

/* Per-run values of one labelled sample (a peak method, a phase lane, ...). */
struct om_series {
	char *key;    /* extra label pairs, escaped */
	double *v;    /* one per run; NAN where the run lacks it */
};

struct om_keyed {
	struct om_series *items;
	size_t n, cap;
};

/* A run, or one command of a bench: what its samples summarise, gathered
 * as its runs are read one at a time (a value per run per metric, never
 * the runs themselves: a bench of 10 000 runs reads them from its spool). */
struct om_group {
	char *labels; /* command="...",host="...",commit="..." (escaped, no braces) */
	size_t n;     /* runs */
	struct metrics_set ms;
	bool exit_found;
	double exit_worst;   /* the worst status of the runs */
	double started_ms;   /* the first run's start, NAN when none says */
	struct om_keyed peaks, phases, events, event_seconds;
};

void openmetrics_escape(FILE *f, const char *v)
{
	for (const char *p = v; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '"')
			fputs("\\\"", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
	}
}

/* The shortest decimal that reads back as v. */
static void om_number(FILE *f, double v)
{
	char buf[UNITS_SHORTEST_MAX];
	fputs(units_shortest(v, buf, sizeof(buf)), f);
}

/* name{extra,labels} value — extra and labels may be empty or NULL. */
static void om_sample(FILE *f, const char *name, const char *extra, const char *labels, double v)
{
	int has_extra = extra && *extra, has_labels = labels && *labels;
	fputs(name, f);
	if (has_extra || has_labels)
		fprintf(f, "{%s%s%s}", has_extra ? extra : "", has_extra && has_labels ? "," : "",
			has_labels ? labels : "");
	fputc(' ', f);
	om_number(f, v);
	fputc('\n', f);
}

/* Appends key="value" (escaped) to a label list being built in f. */
static void om_label(FILE *f, int *first, const char *key, const char *value)
{
	if (!value)
		return;
	fprintf(f, "%s%s=\"", *first ? "" : ",", key);
	openmetrics_escape(f, value);
	fputc('"', f);
	*first = 0;
}

/* Renders label pairs (NULL-terminated key, value list; NULL values skipped). */
static char *om_labels(const char *const *kv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return xstrdup("");
	int first = 1;
	for (; kv[0]; kv += 2)
		om_label(f, &first, kv[0], kv[1]);
	fclose(f);
	return buf;
}

/* The values of key's series, made with every run at fill when new. */
static double *om_series_get(struct om_keyed *k, const char *key, size_t nruns, double fill)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->items[i].key, key))
			return k->items[i].v;
	xgrow((void **)&k->items, &k->cap, k->n + 1, sizeof(*k->items));
	struct om_series *s = &k->items[k->n++];
	s->key = xstrdup(key);
	s->v = xmalloc(nruns * sizeof(double));
	for (size_t i = 0; i < nruns; i++)
		s->v[i] = fill;
	return s->v;
}

static void om_keyed_release(struct om_keyed *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->items[i].key);
		free(k->items[i].v);
	}
	free(k->items);
}

/* Median of the values that are not NAN; NAN when there are none. */
static double om_median(const double *v, size_t n)
{
	double *x = xmalloc((n ? n : 1) * sizeof(double));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			x[m++] = v[i];
	double r = m ? stats_median(x, m) : NAN;
	free(x);
	return r;
}

/* Writes every keyed series of k as samples of name for group g. */
static void om_keyed_write(FILE *f, const char *name, const struct om_keyed *k, const struct om_group *g)
{
	for (size_t i = 0; i < k->n; i++) {
		double v = om_median(k->items[i].v, g->n);
		if (!isnan(v))
			om_sample(f, name, k->items[i].key, g->labels, v);
	}
}

/* A metric of the metrics set, times scale, as one sample. */
static void om_metric(FILE *f, const char *name, const char *extra, const struct om_group *g,
		      const char *metric, double scale)
{
	const struct metrics_series *s = metrics_find(&g->ms, metric);
	if (s && s->n)
		om_sample(f, name, extra, g->labels, stats_median(s->values, s->n) * scale);
}

static void fam_runs(FILE *f, const char *name, const struct om_group *g)
{
	om_sample(f, name, NULL, g->labels, (double)g->n);
}

static void fam_exit(FILE *f, const char *name, const struct om_group *g)
{
	/* The worst status of the runs: one failing run of a bench shows. */
	if (g->exit_found)
		om_sample(f, name, NULL, g->labels, g->exit_worst);
}

static void fam_started(FILE *f, const char *name, const struct om_group *g)
{
	if (!isnan(g->started_ms))
		om_sample(f, name, NULL, g->labels, g->started_ms / 1000.0);
}

static void fam_wall(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, NULL, g, "wall_s", 1);
}

/* An attached daemon's figure (metrics "daemon.*") as a sample with tree="daemon". */
#define OM_DAEMON "tree=\"daemon\""

static void fam_user(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, NULL, g, "user_s", 1);
	om_metric(f, name, OM_DAEMON, g, "daemon.user_s", 1);
}

static void fam_sys(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, NULL, g, "sys_s", 1);
	om_metric(f, name, OM_DAEMON, g, "daemon.sys_s", 1);
}

static void fam_daemon_idle(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, NULL, g, "daemon.idle_rss_kb", 1024.0);
}

static void fam_daemon_above_idle(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, NULL, g, "daemon.peak_above_idle_kb", 1024.0);
}

static void fam_daemon_cs(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, "kind=\"voluntary\"", g, "daemon.vcsw", 1);
	om_metric(f, name, "kind=\"involuntary\"", g, "daemon.ivcsw", 1);
}

static void fam_daemon_io(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, "direction=\"read\"", g, "daemon.read_bytes", 1);
	om_metric(f, name, "direction=\"written\"", g, "daemon.write_bytes", 1);
}

static void fam_peaks(FILE *f, const char *name, const struct om_group *g)
{
	om_keyed_write(f, name, &g->peaks, g);
}

static void fam_gpu(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, NULL, g, "gpu_peak_mib", 1048576.0);
	om_metric(f, name, OM_DAEMON, g, "daemon.gpu_peak_mib", 1048576.0);
}

static void fam_faults(FILE *f, const char *name, const struct om_group *g)
{
	om_metric(f, name, "kind=\"minor\"", g, "minflt", 1);
	om_metric(f, name, "kind=\"major\"", g, "majflt", 1);
	om_metric(f, name, "kind=\"minor\"," OM_DAEMON, g, "daemon.minflt", 1);
	om_metric(f, name, "kind=\"major\"," OM_DAEMON, g, "daemon.majflt", 1);
}

static void fam_phases(FILE *f, const char *name, const struct om_group *g)
{
	om_keyed_write(f, name, &g->phases, g);
}

static void fam_events(FILE *f, const char *name, const struct om_group *g)
{
	om_keyed_write(f, name, &g->events, g);
}

static void fam_event_seconds(FILE *f, const char *name, const struct om_group *g)
{
	om_keyed_write(f, name, &g->event_seconds, g);
}

/* ---- what metrics does not keep apart, read from each run ---- */

static void gather_exit(struct om_group *g, const json_t *run)
{
	json_t *ex = json_object_get(run, "exit");
	json_t *st = json_object_get(ex, "status");
	if (!json_is_number(st))
		st = json_object_get(ex, "code");
	if (json_is_number(st)) {
		double v = json_number_value(st);
		g->exit_worst = !g->exit_found || v > g->exit_worst ? v : g->exit_worst;
		g->exit_found = true;
	}
	json_t *t = json_object_get(run, "started_epoch_ms");
	if (json_is_number(t) && (isnan(g->started_ms) || json_number_value(t) < g->started_ms))
		g->started_ms = json_number_value(t);
}

/* The largest peak of run r per scope and method. */
static void gather_peaks(struct om_group *g, const json_t *run, size_t r)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(run, "peaks"), i, p) {
		json_t *kb = json_object_get(p, "kb");
		const char *method = json_string_value(json_object_get(p, "method"));
		if (!json_is_number(kb) || json_number_value(kb) < 0 || !method)
			continue;
		const char *scope = json_string_value(json_object_get(p, "scope"));
		char *key = om_labels((const char *const[]){ "scope", scope, "method", method, NULL });
		double *v = om_series_get(&g->peaks, key, g->n, NAN);
		double bytes = json_number_value(kb) * 1024.0;
		if (isnan(v[r]) || bytes > v[r])
			v[r] = bytes;
		free(key);
	}
}

/* Total per phase name and lane; a run without it counts 0, as in compare. */
static void gather_phases(struct om_group *g, const json_t *run, size_t r)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(run, "phases"), i, p) {
		const char *ph = json_string_value(json_object_get(p, "name"));
		const char *lane = json_string_value(json_object_get(p, "lane"));
		json_t *st = json_object_get(p, "start_ms"), *en = json_object_get(p, "end_ms");
		if (!ph || !*ph || !json_is_number(st) || !json_is_number(en))
			continue;
		char *key = om_labels((const char *const[]){ "phase", ph, "lane", lane ? lane : "", NULL });
		om_series_get(&g->phases, key, g->n, 0)[r] += (json_number_value(en) - json_number_value(st)) / 1000.0;
		free(key);
	}
}

/* Counters: nanosecond events (task-clock, cpu-clock) in seconds, the rest
 * counts; the run's, then an attached daemon's (tree="daemon"). */
static void gather_counters(struct om_group *g, const json_t *run, size_t r)
{
	for (int daemon = 0; daemon < 2; daemon++) {
		json_t *counters = daemon ? json_object_get(json_object_get(json_object_get(run, "trees"), "daemon"), "counters")
					  : json_object_get(run, "counters");
		const char *ev;
		json_t *c;
		json_object_foreach(counters, ev, c) {
			const char *unit = json_string_value(json_object_get(c, "unit"));
			bool is_ns = unit && !strcmp(unit, "ns");
			json_t *v = json_object_get(c, "value");
			if (!json_is_number(v) || json_is_false(json_object_get(c, "supported")))
				continue;
			char *key = om_labels((const char *const[]){ "event", ev, "tree", daemon ? "daemon" : NULL, NULL });
			om_series_get(is_ns ? &g->event_seconds : &g->events, key, g->n, NAN)[r] =
				json_number_value(v) / (is_ns ? 1e9 : 1);
			free(key);
		}
	}
}

struct gather_arg {
	struct om_group *g;
	struct err *e;
};

static int gather_chunk(json_t *const *runs, size_t n, size_t first, void *arg)
{
	struct gather_arg *a = arg;
	for (size_t i = 0; i < n; i++) {
		gather_exit(a->g, runs[i]);
		gather_peaks(a->g, runs[i], first + i);
		gather_phases(a->g, runs[i], first + i);
		gather_counters(a->g, runs[i], first + i);
	}
	return metrics_add_records(&a->g->ms, runs, n, a->e);
}

static const struct om_family {
	const char *name, *unit, *help;
	void (*write)(FILE *f, const char *name, const struct om_group *g);
} om_families[] = {
	{ "perfhunt_runs", NULL, "Runs summarised (a bench gives the median over them).", fam_runs },
	{ "perfhunt_exit_status", NULL, "Exit status of the command (128+N for signal N; the worst run of a bench).", fam_exit },
	{ "perfhunt_started_timestamp_seconds", "seconds", "When the (first) run started, Unix time.", fam_started },
	{ "perfhunt_wall_seconds", "seconds", "Wall-clock time of the run.", fam_wall },
	{ "perfhunt_user_seconds", "seconds", "User CPU time of the whole process tree.", fam_user },
	{ "perfhunt_sys_seconds", "seconds", "System CPU time of the whole process tree.", fam_sys },
	{ "perfhunt_peak_rss_bytes", "bytes", "Peak resident memory, by scope and by the method that measured it.", fam_peaks },
	{ "perfhunt_gpu_peak_bytes", "bytes", "Peak GPU memory of the tree's processes (NVML).", fam_gpu },
	{ "perfhunt_page_faults", NULL, "Page faults of the whole process tree during the run.", fam_faults },
	{ "perfhunt_daemon_idle_rss_bytes", "bytes", "The attached daemon's idle resident memory before the run.", fam_daemon_idle },
	{ "perfhunt_daemon_peak_above_idle_bytes", "bytes", "The attached daemon's sampled peak above its idle level.", fam_daemon_above_idle },
	{ "perfhunt_daemon_context_switches", NULL, "Context switches of the attached daemon's tree during the run.", fam_daemon_cs },
	{ "perfhunt_daemon_io_bytes", "bytes", "Bytes the attached daemon's tree read and wrote during the run.", fam_daemon_io },
	{ "perfhunt_phase_seconds", "seconds", "Total time of the phases the program reported, per name and lane.", fam_phases },
	{ "perfhunt_perf_events", NULL, "perf_event counts over the whole tree.", fam_events },
	{ "perfhunt_perf_event_seconds", "seconds", "perf_event clocks (task-clock, cpu-clock) over the whole tree.", fam_event_seconds },
};

/* Writes a family's metadata and samples, or nothing when it has no sample. */
static void om_family_write(FILE *f, const struct om_family *fam, const struct om_group *g, size_t ng)
{
	char *body = NULL;
	size_t len = 0;
	FILE *b = open_memstream(&body, &len);
	if (!b)
		return;
	for (size_t i = 0; i < ng; i++)
		fam->write(b, fam->name, &g[i]);
	fclose(b);
	if (len) {
		fprintf(f, "# TYPE %s gauge\n", fam->name);
		if (fam->unit)
			fprintf(f, "# UNIT %s %s\n", fam->name, fam->unit);
		fprintf(f, "# HELP %s %s\n", fam->name, fam->help);
		fwrite(body, 1, len, f);
	}
	free(body);
}

static char *om_group_labels(json_t *command, json_t *host_of, json_t *git_of)
{
	char *cmd = json_is_string(command) ? xstrdup(json_string_value(command))
					    : command_text(command);
	const char *host = json_string_value(json_object_get(json_object_get(host_of, "host"), "hostname"));
	const char *commit = json_string_value(json_object_get(json_object_get(git_of, "git"), "commit"));
	char *l = om_labels((const char *const[]){ "command", cmd, "host", host, "commit", commit, NULL });
	free(cmd);
	return l;
}

int openmetrics_from_record(json_t *rec, const struct bench_runs *src, char **out, size_t *len, struct err *e)
{
	*out = NULL;
	*len = 0;
	const char *schema = json_string_value(json_object_get(rec, "schema"));
	if (!json_is_object(rec) || !schema)
		return err_set(e, "not a perfhunt record (no \"schema\")");
	json_t *cmds = json_object_get(rec, "commands");
	int bench = !strcmp(schema, "perfhunt.bench/1");
	if (!bench && strcmp(schema, "perfhunt.run/1"))
		return err_set(e, "unsupported schema '%.64s' (expected perfhunt.run/1 or perfhunt.bench/1)",
			       schema);
	if (bench && (!json_is_array(cmds) || json_array_size(cmds) == 0))
		return err_set(e, "bench record has no commands");
	size_t ng = bench ? json_array_size(cmds) : 1, nms = 0;
	struct om_group *g = xcalloc(ng, sizeof(*g));
	int rc = -1;
	/* the runs of each command one chunk at a time, into values per run */
	for (; nms < ng; nms++) {
		struct om_group *gi = &g[nms];
		json_t *c = json_array_get(cmds, nms);
		json_t *name = json_object_get(c, "name");
		gi->labels = om_group_labels(!bench ? json_object_get(rec, "command")
					     : json_is_string(name) ? name : json_object_get(c, "command"),
					     rec, rec);
		gi->n = bench ? bench_runs_count(src, rec, nms) : 1;
		gi->started_ms = NAN;
		metrics_set_init(&gi->ms);
		struct gather_arg ga = { gi, e };
		int bad = bench ? bench_runs_each(src, rec, nms, gather_chunk, &ga, e) : gather_chunk(&rec, 1, 0, &ga);
		if (bad) {
			metrics_set_release(&gi->ms);
			if (bench)
				err_wrap(e, "bench command %zu", nms + 1);
			goto out;
		}
	}
	FILE *f = open_memstream(out, len);
	if (!f) {
		err_sys(e, "cannot build the OpenMetrics text");
		goto out;
	}
	for (size_t i = 0; i < sizeof(om_families) / sizeof(om_families[0]); i++)
		om_family_write(f, &om_families[i], g, ng);
	fputs("# EOF\n", f);
	if (fclose(f) != 0) {
		err_sys(e, "cannot build the OpenMetrics text");
		free(*out);
		*out = NULL;
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < ng; i++) {
		if (i < nms)
			metrics_set_release(&g[i].ms);
		free(g[i].labels);
		om_keyed_release(&g[i].peaks);
		om_keyed_release(&g[i].phases);
		om_keyed_release(&g[i].events);
		om_keyed_release(&g[i].event_seconds);
	}
	free(g);
	return rc;
}

int openmetrics_write(const char *path, json_t *record, const struct bench_runs *src, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	if (openmetrics_from_record(record, src, &text, &len, e))
		return -1;
	int rc = jsonio_write_bytes(path, text, len, e);
	free(text);
	return rc;
}

int openmetrics_live(const struct sample *s, double interval_ms, const char *command,
		     const char *host, char **out, size_t *len, struct err *e)
{
	*out = NULL;
	*len = 0;
	if (!(interval_ms > 0))
		return err_set(e, "live sample needs a positive interval (got %g ms)", interval_ms);
	char *labels = om_labels((const char *const[]){ "command", command, "host", host, NULL });
	FILE *f = open_memstream(out, len);
	if (!f) {
		free(labels);
		return err_sys(e, "cannot build the OpenMetrics text");
	}
	/* rates over the time the sample's deltas cover (a late or a marker's
	 * sample is not one nominal interval) */
	double per_s = 1000.0 / (s->span_ms > 0 ? s->span_ms : interval_ms);
	fputs("# TYPE perfhunt_live_memory_bytes gauge\n# UNIT perfhunt_live_memory_bytes bytes\n"
	      "# HELP perfhunt_live_memory_bytes Memory of the whole watched tree, a page its processes share counted once.\n", f);
	static const char *const mem_methods[] = {
		[SAMPLE_MEM_RSS] = "method=\"rss_sum\"", [SAMPLE_MEM_CGROUP] = "method=\"cgroup\"",
		[SAMPLE_MEM_PSS] = "method=\"pss\"",
	};
	om_sample(f, "perfhunt_live_memory_bytes", mem_methods[s->mem_method], labels, (double)s->mem_kb * 1024.0);
	fputs("# TYPE perfhunt_live_rss_bytes gauge\n# UNIT perfhunt_live_rss_bytes bytes\n"
	      "# HELP perfhunt_live_rss_bytes Resident memory of the watched tree's processes summed, a shared page once per process.\n", f);
	om_sample(f, "perfhunt_live_rss_bytes", NULL, labels, (double)s->rss_kb * 1024.0);
	fputs("# TYPE perfhunt_live_cpu_ratio gauge\n# UNIT perfhunt_live_cpu_ratio ratio\n"
	      "# HELP perfhunt_live_cpu_ratio CPU seconds per second of the tree over the last interval.\n", f);
	om_sample(f, "perfhunt_live_cpu_ratio", NULL, labels, (s->user_ms + s->sys_ms) * per_s / 1000.0);
	fputs("# TYPE perfhunt_live_page_faults_per_second gauge\n"
	      "# HELP perfhunt_live_page_faults_per_second Page faults per second of the tree over the last interval.\n", f);
	om_sample(f, "perfhunt_live_page_faults_per_second", "kind=\"minor\"", labels,
		  (double)s->minflt * per_s);
	om_sample(f, "perfhunt_live_page_faults_per_second", "kind=\"major\"", labels,
		  (double)s->majflt * per_s);
	fputs("# TYPE perfhunt_live_procs gauge\n"
	      "# HELP perfhunt_live_procs Processes in the watched tree.\n", f);
	om_sample(f, "perfhunt_live_procs", NULL, labels, s->procs);
	fputs("# TYPE perfhunt_live_threads gauge\n"
	      "# HELP perfhunt_live_threads Threads in the watched tree.\n", f);
	om_sample(f, "perfhunt_live_threads", NULL, labels, s->threads);
	if (s->gpu_valid) {
		fputs("# TYPE perfhunt_live_gpu_bytes gauge\n# UNIT perfhunt_live_gpu_bytes bytes\n"
		      "# HELP perfhunt_live_gpu_bytes GPU memory of the tree's processes (NVML).\n", f);
		om_sample(f, "perfhunt_live_gpu_bytes", NULL, labels, s->gpu_mib * 1048576.0);
	}
	if (s->phase[0]) {
		fputs("# TYPE perfhunt_live_phase_active gauge\n"
		      "# HELP perfhunt_live_phase_active 1 for each phase active at the last sample.\n", f);
		/* The sample joins active phases with '+'; one series per phase. */
		char phases[sizeof(s->phase)];
		snprintf(phases, sizeof(phases), "%s", s->phase);
		char *save = NULL;
		for (char *p = strtok_r(phases, "+", &save); p; p = strtok_r(NULL, "+", &save)) {
			char *extra = om_labels((const char *const[]){ "phase", p, NULL });
			om_sample(f, "perfhunt_live_phase_active", extra, labels, 1);
			free(extra);
		}
	}
	fputs("# EOF\n", f);
	free(labels);
	if (fclose(f) != 0) {
		free(*out);
		*out = NULL;
		*len = 0;
		return err_sys(e, "cannot build the OpenMetrics text");
	}
	return 0;
}
