/* bench_record: assembling perfhunt.bench/1 and summarising its commands.
 *
 * Statistics come from the metrics module (the same extraction compare uses)
 * and stats_summarize, never recomputed here; this file only decides where
 * each figure lives in the record.
 */
#include "stats/bench_record.h"

#include <math.h>
#include <stdlib.h>

#include "stats/metrics.h"
#include "stats/stats.h"
#include "util/xalloc.h"

json_t *bench_record_new(const char *started_at, json_t *options)
{
	return json_pack("{s:s, s:s, s:n, s:n, s:o, s:[]}", "schema", "perfhunt.bench/1", "started_at",
			 started_at, "host", "git", "options", options ? options : json_object(), "commands");
}

size_t bench_record_add_command(json_t *rec, const char *name, json_t *argv, json_t *parameters)
{
	json_t *cmds = json_object_get(rec, "commands");
	json_array_append_new(cmds, json_pack("{s:s, s:o, s:o, s:[]}", "name", name, "command", argv,
					      "parameters", parameters ? parameters : json_object(), "runs"));
	return json_array_size(cmds) - 1;
}

size_t bench_runs_count(const struct bench_runs *src, const json_t *rec, size_t cmd)
{
	if (src)
		return src->count(src->ctx, cmd);
	return json_array_size(json_object_get(json_array_get(json_object_get(rec, "commands"), cmd), "runs"));
}

json_t *bench_runs_load(const struct bench_runs *src, const json_t *rec, size_t cmd, size_t k, struct err *e)
{
	if (src)
		return src->load(src->ctx, cmd, k, e);
	json_t *run = json_array_get(json_object_get(json_array_get(json_object_get(rec, "commands"), cmd), "runs"), k);
	if (!run)
		err_set(e, "bench command %zu has no run %zu", cmd + 1, k + 1);
	return json_incref(run);
}

int bench_runs_each(const struct bench_runs *src, const json_t *rec, size_t cmd,
		    int (*fn)(json_t *const *runs, size_t n, size_t first, void *arg), void *arg, struct err *e)
{
	size_t total = bench_runs_count(src, rec, cmd);
	json_t *chunk[BENCH_RUNS_CHUNK];
	int rc = 0;
	for (size_t first = 0; first < total && rc == 0; first += BENCH_RUNS_CHUNK) {
		size_t n = 0, want = total - first < BENCH_RUNS_CHUNK ? total - first : BENCH_RUNS_CHUNK;
		while (n < want && (chunk[n] = bench_runs_load(src, rec, cmd, first + n, e)))
			n++;
		rc = n < want ? -1 : fn(chunk, n, first, arg);
		for (size_t k = 0; k < n; k++)
			json_decref(chunk[k]);
	}
	return rc;
}

struct metrics_arg {
	struct metrics_set *ms;
	struct err *e;
};

static int add_metrics(json_t *const *runs, size_t n, size_t first, void *arg)
{
	(void)first;
	struct metrics_arg *m = arg;
	return metrics_add_records(m->ms, runs, n, m->e);
}

int bench_record_metrics(const struct bench_runs *src, const json_t *rec, size_t cmd, struct metrics_set *out,
			 struct err *e)
{
	metrics_set_init(out);
	struct metrics_arg m = { out, e };
	if (bench_runs_each(src, rec, cmd, add_metrics, &m, e) < 0) {
		metrics_set_release(out);
		return err_wrap(e, "bench command %zu", cmd + 1);
	}
	return 0;
}

int bench_record_each_run(const struct bench_runs *src, const json_t *rec, size_t cmd,
			  int (*fn)(const json_t *run, const struct metrics_set *ms, size_t k, void *arg), void *arg,
			  struct err *e)
{
	size_t n = bench_runs_count(src, rec, cmd);
	for (size_t k = 0; k < n; k++) {
		json_t *run = bench_runs_load(src, rec, cmd, k, e);
		struct metrics_set ms;
		if (!run || metrics_from_records(&run, 1, &ms, e) < 0) {
			json_decref(run);
			return err_wrap(e, "bench command %zu, run %zu", cmd + 1, k + 1);
		}
		int rc = fn(run, &ms, k, arg);
		metrics_set_release(&ms);
		json_decref(run);
		if (rc < 0)
			return -1;
	}
	return 0;
}

void bench_record_prepare_run(json_t *rec, json_t *run)
{
	json_object_del(json_object_get(run, "samples"), "rows");
	if (json_is_null(json_object_get(rec, "host"))) {
		json_t *host = json_object_get(run, "host"), *git = json_object_get(run, "git");
		if (host)
			json_object_set(rec, "host", host);
		if (git)
			json_object_set(rec, "git", git);
	}
}

void bench_record_add_run(json_t *rec, size_t i, json_t *run)
{
	bench_record_prepare_run(rec, run);
	json_t *cmd = json_array_get(json_object_get(rec, "commands"), i);
	json_array_append_new(json_object_get(cmd, "runs"), run);
}

void bench_record_add_failed(json_t *rec, size_t i, json_t *run)
{
	json_t *cmd = json_array_get(json_object_get(rec, "commands"), i);
	json_t *failed = json_object_get(cmd, "failed");
	if (!failed) {
		failed = json_array();
		json_object_set_new(cmd, "failed", failed);
	}
	json_array_append_new(failed, run);
}

static json_t *summary_json(const struct stats_summary *s)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:I}", "median", s->median, "mean", s->mean, "stddev",
			 s->stddev, "mad", s->mad, "min", s->min, "max", s->max, "n", (json_int_t)s->n);
}

/* The mean of a metric over the runs, or null where the runs lack it. */
static json_t *mean_of(const struct metrics_set *ms, const char *name)
{
	const struct metrics_series *m = metrics_find(ms, name);
	struct stats_summary s;
	if (!m || m->n == 0)
		return json_null();
	stats_summarize(m->values, m->n, &s);
	return json_real(s.mean);
}

/* The command as hyperfine's --export-json writes one of its results, so a
 * tool that reads hyperfine's files reads perfhunt's: wall times in
 * seconds, the sample standard deviation (null for one run), the mean user
 * and system time, each run's time and exit code, the parameters. */
static json_t *hyperfine_result(const json_t *cmd, const struct metrics_set *ms, json_t *codes)
{
	const struct metrics_series *wall = metrics_find(ms, "wall_s");
	struct stats_summary s;
	stats_summarize(wall->values, wall->n, &s);
	json_t *times = json_array();
	for (size_t i = 0; i < wall->n; i++)
		json_array_append_new(times, json_real(wall->values[i]));
	json_t *r = json_pack("{s:O, s:f, s:o, s:f, s:o, s:o, s:f, s:f, s:o, s:o}", "command",
			      json_object_get(cmd, "name"), "mean", s.mean, "stddev",
			      s.n > 1 ? json_real(s.stddev) : json_null(), "median", s.median, "user",
			      mean_of(ms, "user_s"), "system", mean_of(ms, "sys_s"), "min", s.min, "max", s.max,
			      "times", times, "exit_codes", codes);
	json_t *params = json_object_get(cmd, "parameters");
	if (json_object_size(params))
		json_object_set(r, "parameters", params);
	return r;
}

struct finish_arg {
	struct metrics_set ms;
	json_t *codes; /* each run's exit code, as hyperfine keeps them */
	struct err *e;
};

static int finish_chunk(json_t *const *runs, size_t n, size_t first, void *arg)
{
	(void)first;
	struct finish_arg *f = arg;
	for (size_t i = 0; i < n; i++) {
		json_t *code = json_object_get(json_object_get(runs[i], "exit"), "code");
		json_t *sig = json_object_get(json_object_get(runs[i], "exit"), "signal");
		/* hyperfine has no code for a run a signal ended */
		json_array_append_new(f->codes, json_integer_value(sig) ? json_null() : json_copy(code ? code : json_null()));
	}
	return metrics_add_records(&f->ms, runs, n, f->e);
}

/* The command's statistics from its runs, read a chunk at a time. */
static int finish_command(json_t *rec, const struct bench_runs *src, json_t *cmd, size_t index, json_t *results,
			  struct err *e)
{
	if (bench_runs_count(src, rec, index) == 0)
		return 0;
	struct finish_arg f = { .codes = json_array(), .e = e };
	metrics_set_init(&f.ms);
	if (bench_runs_each(src, rec, index, finish_chunk, &f, e) < 0) {
		metrics_set_release(&f.ms);
		json_decref(f.codes);
		return err_wrap(e, "bench command %zu", index + 1);
	}
	struct metrics_set *ms = &f.ms;
	json_t *stats = json_object();
	for (size_t i = 0; i < ms->n; i++) {
		struct stats_summary s;
		stats_summarize(ms->items[i].values, ms->items[i].n, &s);
		json_object_set_new(stats, ms->items[i].name, summary_json(&s));
	}
	json_object_set_new(cmd, "stats", stats);
	json_array_append_new(results, hyperfine_result(cmd, ms, f.codes));

	const struct metrics_series *wall = metrics_find(ms, "wall_s");
	double *z = xcalloc(wall->n, sizeof(*z)), max_z = 0;
	bool *flag = xcalloc(wall->n, sizeof(*flag));
	stats_outliers(wall->values, wall->n, z, flag);
	json_t *which = json_array();
	for (size_t i = 0; i < wall->n; i++) {
		if (flag[i])
			json_array_append_new(which, json_integer((json_int_t)i + 1));
		if (fabs(z[i]) > max_z)
			max_z = fabs(z[i]);
	}
	json_object_set_new(cmd, "outliers", json_pack("{s:s, s:f, s:f, s:o, s:f}", "metric", "wall_s", "threshold_z",
						      STATS_OUTLIER_Z, "min_deviation_pct", 100 * STATS_OUTLIER_MIN_REL,
						      "runs", which, "max_abs_z", max_z));
	free(z);
	free(flag);
	metrics_set_release(ms);
	return 0;
}

int bench_record_finish(json_t *rec, const struct bench_runs *src, struct err *e)
{
	size_t i;
	json_t *cmd, *results = json_array();
	json_array_foreach(json_object_get(rec, "commands"), i, cmd)
		if (finish_command(rec, src, cmd, i, results, e) < 0) {
			json_decref(results);
			return -1;
		}
	json_object_set_new(rec, "results", results);
	return 0;
}

double bench_record_stat(const json_t *rec, size_t i, const char *metric, const char *what)
{
	const json_t *cmd = json_array_get(json_object_get(rec, "commands"), i);
	const json_t *v = json_object_get(json_object_get(json_object_get(cmd, "stats"), metric), what);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

size_t bench_record_fastest(const json_t *rec)
{
	size_t best = 0, n = json_array_size(json_object_get(rec, "commands"));
	double best_median = INFINITY;
	for (size_t i = 0; i < n; i++) {
		double m = bench_record_stat(rec, i, "wall_s", "median");
		if (m < best_median) {
			best_median = m;
			best = i;
		}
	}
	return best;
}

bool bench_record_relative(const json_t *rec, size_t i, size_t ref, double *ratio, double *sd)
{
	double mi = bench_record_stat(rec, i, "wall_s", "median"), si = bench_record_stat(rec, i, "wall_s", "mad");
	double mr = bench_record_stat(rec, ref, "wall_s", "median"), sr = bench_record_stat(rec, ref, "wall_s", "mad");
	if (!(mi > 0) || !(mr > 0) || isnan(si) || isnan(sr))
		return false;
	*ratio = mi / mr;
	*sd = *ratio * sqrt((si / mi) * (si / mi) + (sr / mr) * (sr / mr));
	return true;
}
