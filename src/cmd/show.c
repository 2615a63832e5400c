/* show: perfhunt show RUN.json | REF — a stored run on the terminal.
 *
 * The same summary `run` prints at exit (one printer for both), then a
 * sparkline of the tree's RSS over time from the record's samples.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "export/summary.h"
#include "record/jsonio.h"
#include "record/recshape.h"
#include "store/store_ref.h"
#include "store/store.h"

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

int cmd_show(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs("usage: perfhunt show RUN.json | REF\n\n"
		      "Prints a recorded run's summary (as 'perfhunt run' does at exit), its phase\n"
		      "and lane tables, and a sparkline of the tree's RSS over time. REF is a history\n"
		      "reference: a run ID, @last, @tag:NAME, ...\n", stdout);
		return cmd_finish_stdout(PH_EXIT_OK);
	}
	if (argc != 2)
		return cmd_usage_error("show", "expected one run record or history reference");
	/* show has no options: "--jsn" is a typo, not a file name to report as unreadable */
	if (argv[1][0] == '-' && argv[1][1])
		return cmd_usage_error("show", "unknown option '%s'", argv[1]);
	json_t *rec;
	struct err e;
	if (load_record(argv[1], &rec, &e) < 0)
		return cmd_fail(PH_EXIT_FAIL, &e);
	if (recshape_check(rec, RECSHAPE_SUMMARY, &e) < 0) {
		err_wrap(&e, "cannot read '%s'", argv[1]);
		json_decref(rec);
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	summary_print(rec, stdout);
	summary_print_sparkline(rec, stdout);
	json_decref(rec);
	return cmd_finish_stdout(PH_EXIT_OK);
}
