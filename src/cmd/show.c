/* show: perfhunt show RUN.json | REF — a stored run on the terminal.
 *
 * The same summary `run` prints at exit (one printer for both), then a
 * sparkline of the tree's RSS over time from the record's samples. The
 * exports of one run (folded stacks, speedscope, trace) are written from the
 * stored record by the same options and writer as run's and watch's, so a run
 * recorded without them can still be opened in flamegraph.pl or Perfetto.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/record_opts.h"
#include "export/bench_text.h"
#include "export/summary.h"
#include "fleet/fleet.h"
#include "record/jsonio.h"
#include "record/recshape.h"
#include "store/store_ref.h"
#include "store/store.h"
#include "util/quote.h"

static const char show_usage[] =
	"usage: perfhunt show [-q] [--export-folded FILE] [--export-speedscope FILE]\n"
	"                     [--export-trace FILE] [--export-openmetrics FILE] RECORD.json | REF\n\n"
	"Prints a recorded run's summary (as 'perfhunt run' does at exit), its phase\n"
	"and lane tables, and a sparkline of the tree's RSS over time; a bench record\n"
	"as 'perfhunt bench' prints it. REF is a history reference: a run ID, @last,\n"
	"@tag:NAME, @bench:ID, ... (several runs are shown as a bench). The exports\n"
	"write the stored run's files as 'perfhunt run' writes them.\n\n";

/* "perfhunt show: ARG ...why": the one-line refusal of an export (exit 1). */
static int refuse(const char *arg, const char *why)
{
	char *shown = quote_message(arg);
	fprintf(stderr, "perfhunt show: %s %s\n", shown, why);
	free(shown);
	return PH_EXIT_FAIL;
}

/* The exports of one run need a run record, the profile ones its profile:
 * checked before anything is written, so a refusal leaves no file. */
static int check_exports(const struct record_opts_exports *x, const char *arg, const json_t *rec, bool bench)
{
	const char *one_run = x->folded_path ? "--export-folded"
			    : x->speedscope_path ? "--export-speedscope"
			    : x->trace_path ? "--export-trace" : NULL;
	if (!one_run)
		return 0;
	if (bench) {
		char why[200];
		snprintf(why, sizeof(why), "is a bench record and %s writes one run: name that run by its ID "
			 "(see 'perfhunt history')", one_run);
		return refuse(arg, why);
	}
	const json_t *stacks = json_object_get(json_object_get(json_object_get(rec, "profile"), "run"), "stacks");
	if ((x->folded_path || x->speedscope_path) && !json_is_array(stacks))
		return refuse(arg, "has no profile (record it with --profile)");
	return 0;
}

int cmd_show(int argc, char **argv)
{
	struct record_opts_exports x = { 0 };
	struct fleet_opts fleet;
	fleet_opts_init(&fleet);
	bool quiet = false;
	struct parseopt export_rows[RECORD_OPTS_EXPORT_NROWS];
	record_opts_export_rows(&x, 0, export_rows);
	const struct parseopt table[] = {
		PARSEOPT_FLAG('q', "quiet", &quiet, "print nothing: only write the exports"),
		PARSEOPT_INCLUDE(export_rows),
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "export-openmetrics", .value = &fleet.openmetrics_path,
		  .argh = "FILE", .flags = PARSEOPT_NONEMPTY,
		  .help = "the summary as OpenMetrics text (node_exporter\ntextfile; a bench: medians per command)" },
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "show", .table = table, .usage = show_usage };
	int status;
	int n = cmd_parse_options(&opts, argc, argv, &status);
	if (n < 0)
		return status;
	if (n != 1)
		return cmd_usage_error("show", "expected one run record or history reference");
	json_t *rec;
	struct err e;
	if (store_ref_record(argv[0], &rec, &e) < 0)
		return cmd_fail(PH_EXIT_FAIL, &e);
	const char *schema = json_string_value(json_object_get(rec, "schema"));
	bool bench = schema && !strcmp(schema, "perfhunt.bench/1");
	if ((schema && !bench && strcmp(schema, "perfhunt.run/1")) ||
	    recshape_check(rec, bench ? 0 : RECSHAPE_SUMMARY, &e) < 0) {
		if (schema && !bench && strcmp(schema, "perfhunt.run/1"))
			err_set(&e, "schema is '%s', expected perfhunt.run/1 or perfhunt.bench/1", schema);
		err_wrap(&e, "cannot read '%s'", argv[0]);
		json_decref(rec);
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	status = check_exports(&x, argv[0], rec, bench);
	if (status != PH_EXIT_OK) {
		json_decref(rec);
		return status;
	}
	if (!quiet && bench) {
		const struct bench_text_style style = { .color = cmd_use_color(STDOUT_FILENO) };
		if (bench_text_write(rec, NULL, &style, stdout) < 0)
			status = PH_EXIT_FAIL;
	} else if (!quiet) {
		summary_print(rec, stdout);
		summary_print_sparkline(rec, stdout);
	}
	if (x.trace_path && !json_array_size(json_object_get(json_object_get(rec, "samples"), "rows"))) {
		char *shown = quote_message(argv[0]);
		fprintf(stderr, "perfhunt show: note: %s holds no sample rows (the history keeps none): the trace has "
			"no counters; the run's -o record has them\n", shown);
		free(shown);
	}
	status = record_opts_write_exports(&x, rec, status);
	if (fleet.openmetrics_path && fleet_after_record(&fleet, rec, NULL, &e) < 0)
		status = cmd_fail(PH_EXIT_FAIL, &e);
	json_decref(rec);
	return cmd_finish_stdout(status);
}
