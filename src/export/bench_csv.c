/* bench_csv: RFC 4180 rows (util/escape's fields), columns decided before the first row.
 *
 * Two passes: the first collects every parameter and metric name in order
 * of first appearance (runs of different commands may have different
 * phases), the second writes each run's values. A phase a run did not have
 * is 0 ms, as in compare; any other missing figure is an empty cell.
 */
#include "export/bench_csv.h"

#include <stdlib.h>
#include <string.h>

#include "stats/bench_record.h"
#include "stats/metrics.h"
#include "util/escape.h"
#include "util/units.h"
#include "util/xalloc.h"

struct names {
	char **v;
	size_t n, cap;
};

static void names_add(struct names *ns, const char *s)
{
	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], s))
			return;
	xgrow((void **)&ns->v, &ns->cap, ns->n + 1, sizeof(*ns->v));
	ns->v[ns->n++] = xstrdup(s);
}

static void names_release(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

static void field(FILE *out, const char *s, bool first)
{
	if (!first)
		fputc(',', out);
	escape_csv_fputs(s, out);
}

static int metric_names(const json_t *run, const struct metrics_set *ms, size_t k, void *arg)
{
	(void)run;
	(void)k;
	for (size_t i = 0; i < ms->n; i++)
		names_add(arg, ms->items[i].name);
	return 0;
}

struct row_arg {
	FILE *out;
	const json_t *cmd;
	const struct names *params, *metrics;
};

static int run_row(const json_t *run, const struct metrics_set *ms, size_t j, void *arg)
{
	const struct row_arg *r = arg;
	FILE *out = r->out;
	const char *name = json_string_value(json_object_get(r->cmd, "name"));
	field(out, name ? name : "", true);
	for (size_t k = 0; k < r->params->n; k++) {
		const char *pv = json_string_value(json_object_get(json_object_get(r->cmd, "parameters"), r->params->v[k]));
		field(out, pv ? pv : "", false);
	}
	const char *started = json_string_value(json_object_get(run, "started_at"));
	fprintf(out, ",%zu,", j + 1);
	field(out, started ? started : "", true);
	fprintf(out, ",%lld", (long long)json_integer_value(json_object_get(json_object_get(run, "exit"), "status")));
	for (size_t k = 0; k < r->metrics->n; k++) {
		const struct metrics_series *m = metrics_find(ms, r->metrics->v[k]);
		char num[UNITS_SHORTEST_MAX];
		if (m && m->n)
			fprintf(out, ",%s", units_shortest(m->values[0], num, sizeof(num)));
		else
			fputs(strncmp(r->metrics->v[k], "phase:", 6) ? "," : ",0", out);
	}
	fputc('\n', out);
	return 0;
}

int bench_csv_write(const json_t *rec, const struct bench_runs *src, FILE *out, struct err *e)
{
	struct names params = { 0 }, metrics = { 0 };
	json_t *cmds = json_object_get(rec, "commands"), *cmd, *v;
	size_t i;
	const char *key;
	int rc = 0;

	json_array_foreach(cmds, i, cmd) {
		json_object_foreach(json_object_get(cmd, "parameters"), key, v)
			names_add(&params, key);
		if ((rc = bench_record_each_run(src, rec, i, metric_names, &metrics, e)) < 0)
			goto out;
	}

	field(out, "command", true);
	for (size_t k = 0; k < params.n; k++) {
		char *name = xasprintf("parameter_%s", params.v[k]);
		field(out, name, false);
		free(name);
	}
	fputs(",run,started_at,exit_status", out);
	for (size_t k = 0; k < metrics.n; k++)
		field(out, metrics.v[k], false);
	fputc('\n', out);

	json_array_foreach(cmds, i, cmd) {
		struct row_arg r = { out, cmd, &params, &metrics };
		if ((rc = bench_record_each_run(src, rec, i, run_row, &r, e)) < 0)
			goto out;
	}
	if (ferror(out))
		rc = err_set(e, "write error");
out:
	names_release(&params);
	names_release(&metrics);
	return rc;
}
