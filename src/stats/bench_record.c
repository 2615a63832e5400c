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

void bench_record_add_run(json_t *rec, size_t i, json_t *run)
{
	json_object_del(json_object_get(run, "samples"), "rows");
	if (json_is_null(json_object_get(rec, "host"))) {
		json_t *host = json_object_get(run, "host"), *git = json_object_get(run, "git");
		if (host)
			json_object_set(rec, "host", host);
		if (git)
			json_object_set(rec, "git", git);
	}
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
static json_t *hyperfine_result(const json_t *cmd, const struct metrics_set *ms)
{
	const struct metrics_series *wall = metrics_find(ms, "wall_s");
	struct stats_summary s;
	stats_summarize(wall->values, wall->n, &s);
	json_t *times = json_array(), *codes = json_array();
	for (size_t i = 0; i < wall->n; i++)
		json_array_append_new(times, json_real(wall->values[i]));
	size_t i;
	json_t *run;
	json_array_foreach(json_object_get(cmd, "runs"), i, run) {
		json_t *code = json_object_get(json_object_get(run, "exit"), "code");
		json_t *sig = json_object_get(json_object_get(run, "exit"), "signal");
		/* hyperfine has no code for a run a signal ended */
		json_array_append_new(codes, json_integer_value(sig) ? json_null() : json_copy(code ? code : json_null()));
	}
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

static int finish_command(json_t *cmd, size_t index, json_t *results, struct err *e)
{
	json_t *runs = json_object_get(cmd, "runs");
	size_t n = json_array_size(runs);
	if (n == 0)
		return 0;
	json_t **recs = xmalloc(n * sizeof(*recs));
	for (size_t i = 0; i < n; i++)
		recs[i] = json_array_get(runs, i);
	struct metrics_set ms;
	int rc = metrics_from_records(recs, n, &ms, e);
	free(recs);
	if (rc < 0)
		return err_wrap(e, "bench command %zu", index + 1);
	json_t *stats = json_object();
	for (size_t i = 0; i < ms.n; i++) {
		struct stats_summary s;
		stats_summarize(ms.items[i].values, ms.items[i].n, &s);
		json_object_set_new(stats, ms.items[i].name, summary_json(&s));
	}
	json_object_set_new(cmd, "stats", stats);
	json_array_append_new(results, hyperfine_result(cmd, &ms));

	const struct metrics_series *wall = metrics_find(&ms, "wall_s");
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
	metrics_set_release(&ms);
	return 0;
}

int bench_record_finish(json_t *rec, struct err *e)
{
	size_t i;
	json_t *cmd, *results = json_array();
	json_array_foreach(json_object_get(rec, "commands"), i, cmd)
		if (finish_command(cmd, i, results, e) < 0) {
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
