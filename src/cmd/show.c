/* show: perfhunt show RUN.json | REF — a stored run on the terminal.
 *
 * The same summary `run` prints at exit (one printer for both), then a
 * sparkline of the tree's RSS over time from the record's samples.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "export/sparkline.h"
#include "export/summary.h"
#include "record/jsonio.h"
#include "store/store_ref.h"
#include "store/store.h"
#include "util/units.h"
#include "util/xalloc.h"

static int load_record(const char *arg, json_t **out, struct err *e)
{
	if (!store_ref_is_history(arg))
		return jsonio_read(arg, "perfhunt.run/", out, e);
	json_t **recs;
	size_t n;
	int rc = store_resolve_default(arg, &recs, &n, e);
	if (rc == 0 && n == 0)
		rc = err_set(e, "'%s' names no run", arg);
	if (rc == 0)
		*out = json_incref(recs[n - 1]); /* of a bench: its last run */
	store_records_free(recs, n);
	return rc;
}

/* RSS over time as one terminal line, with its scale. */
static void print_sparkline(const json_t *rec, FILE *out)
{
	const json_t *samples = json_object_get(rec, "samples");
	const json_t *cols = json_object_get(samples, "columns");
	const json_t *rows = json_object_get(samples, "rows");
	size_t n = json_array_size(rows), t_col = (size_t)-1, rss_col = (size_t)-1, i;
	json_t *c;
	json_array_foreach(cols, i, c) {
		const char *name = json_string_value(c);
		if (name && !strcmp(name, "t_ms"))
			t_col = i;
		if (name && !strcmp(name, "rss_kb"))
			rss_col = i;
	}
	if (n < 2 || t_col == (size_t)-1 || rss_col == (size_t)-1)
		return;
	double *v = xcalloc(n, sizeof(*v));
	double max = 0, max_t = 0;
	for (i = 0; i < n; i++) {
		const json_t *row = json_array_get(rows, i);
		v[i] = json_number_value(json_array_get(row, rss_col));
		if (v[i] > max) {
			max = v[i];
			max_t = json_number_value(json_array_get(row, t_col));
		}
	}
	double end = json_number_value(json_array_get(json_array_get(rows, n - 1), t_col));
	char line[64 * 3 + 1], a[32], b[32], d[32];
	sparkline(v, n, 64, line, sizeof(line));
	fprintf(out, "  %-17s %s\n  %-17s 0 .. %s; max %s at %s\n", "RSS", line, "", units_ms(end, a, sizeof a),
		units_kb(max, b, sizeof b), units_ms(max_t, d, sizeof d));
	free(v);
}

int cmd_show(int argc, char **argv)
{
	static const struct parseopt table[] = { PARSEOPT_END() };
	const struct cmd_options opts = {
		.name = "show", .table = table,
		.usage = "usage: perfhunt show RUN.json | REF\n\n"
			 "Prints a recorded run's summary (as 'perfhunt run' does at exit), its phase\n"
			 "and lane tables, and a sparkline of the tree's RSS over time. REF is a history\n"
			 "reference: a run ID, @last, @tag:NAME, ...\n\n",
	};
	int status;
	int n = cmd_parse_options(&opts, argc, argv, &status);
	if (n < 0)
		return status;
	if (n != 1)
		return cmd_usage_error("show", "expected one run record or history reference");
	json_t *rec;
	struct err e;
	if (load_record(argv[0], &rec, &e) < 0)
		return cmd_fail(PH_EXIT_FAIL, &e);
	summary_print(rec, stdout);
	print_sparkline(rec, stdout);
	json_decref(rec);
	return cmd_finish_stdout(PH_EXIT_OK);
}
