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

int bench_csv_write(const json_t *rec, FILE *out, struct err *e)
{
	struct names params = { 0 }, metrics = { 0 };
	json_t *cmds = json_object_get(rec, "commands"), *cmd, *run, *v;
	size_t i, j;
	const char *key;
	int rc = 0;

	json_array_foreach(cmds, i, cmd) {
		json_object_foreach(json_object_get(cmd, "parameters"), key, v)
			names_add(&params, key);
		json_array_foreach(json_object_get(cmd, "runs"), j, run) {
			struct metrics_set ms;
			if (metrics_from_records(&run, 1, &ms, e) < 0) {
				rc = err_wrap(e, "bench command %zu, run %zu", i + 1, j + 1);
				goto out;
			}
			for (size_t k = 0; k < ms.n; k++)
				names_add(&metrics, ms.items[k].name);
			metrics_set_release(&ms);
		}
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
		const char *name = json_string_value(json_object_get(cmd, "name"));
		json_array_foreach(json_object_get(cmd, "runs"), j, run) {
			struct metrics_set ms;
			if (metrics_from_records(&run, 1, &ms, e) < 0) {
				rc = -1;
				goto out;
			}
			field(out, name ? name : "", true);
			for (size_t k = 0; k < params.n; k++) {
				const char *pv = json_string_value(json_object_get(json_object_get(cmd, "parameters"), params.v[k]));
				field(out, pv ? pv : "", false);
			}
			const char *started = json_string_value(json_object_get(run, "started_at"));
			fprintf(out, ",%zu,", j + 1);
			field(out, started ? started : "", true);
			fprintf(out, ",%lld", (long long)json_integer_value(json_object_get(json_object_get(run, "exit"), "status")));
			for (size_t k = 0; k < metrics.n; k++) {
				const struct metrics_series *m = metrics_find(&ms, metrics.v[k]);
				char num[UNITS_SHORTEST_MAX];
				if (m && m->n)
					fprintf(out, ",%s", units_shortest(m->values[0], num, sizeof(num)));
				else
					fputs(strncmp(metrics.v[k], "phase:", 6) ? "," : ",0", out);
			}
			fputc('\n', out);
			metrics_set_release(&ms);
		}
	}
	if (ferror(out))
		rc = err_set(e, "write error");
out:
	names_release(&params);
	names_release(&metrics);
	return rc;
}
