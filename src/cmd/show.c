/* show: perfhunt show RUN.json | REF — a stored run on the terminal.
 *
 * The same summary `run` prints at exit (one printer for both), then a
 * sparkline of the tree's RSS over time from the record's samples.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "export/bench_text.h"
#include "export/summary.h"
#include "record/jsonio.h"
#include "record/recshape.h"
#include "store/store_ref.h"
#include "store/store.h"

int cmd_show(int argc, char **argv)
{
	static const struct parseopt table[] = { PARSEOPT_END() };
	const struct cmd_options opts = {
		.name = "show", .table = table,
		.usage = "usage: perfhunt show RECORD.json | REF\n\n"
			 "Prints a recorded run's summary (as 'perfhunt run' does at exit), its phase\n"
			 "and lane tables, and a sparkline of the tree's RSS over time; a bench record\n"
			 "as 'perfhunt bench' prints it. REF is a history reference: a run ID, @last,\n"
			 "@tag:NAME, @bench:ID, ... (several runs are shown as a bench).\n\n",
	};
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
	status = PH_EXIT_OK;
	if (bench) {
		if (bench_text_write(rec, cmd_use_color(STDOUT_FILENO), stdout) < 0)
			status = PH_EXIT_FAIL;
	} else {
		summary_print(rec, stdout);
		summary_print_sparkline(rec, stdout);
	}
	json_decref(rec);
	return cmd_finish_stdout(status);
}
