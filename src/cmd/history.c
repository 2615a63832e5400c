/* history: perfhunt history [list|show|trend|import|export|detect|site] — the stored runs.
 *
 * The database and its queries are src/store; this file parses options,
 * picks the subcommand (list when none is named), and prints: a table of
 * runs, one run's key figures (or its JSON record), a metric's median per
 * commit with a sparkline, what an import added, the change points of every
 * series (src/stats/changepoint), or writes the trend site (src/export).
 */
#include "cmd/cmd.h"
#include "export/detect_json.h"
#include "export/detect_markdown.h"
#include "export/detect_text.h"
#include "export/report.h"
#include "export/report_site.h"
#include "export/sparkline.h"
#include "export/summary.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/command.h"
#include "record/git.h"
#include "record/hyperfine.h"
#include "record/jsonio.h"
#include "stats/metrics.h"
#include "stats/stats.h"
#include "store/store.h"
#include "store/store_series.h"
#include "util/fsafe.h"
#include "util/parse.h"
#include "util/quote.h"
#include "util/units.h"
#include "util/url.h"
#include "util/xalloc.h"

static const char usage_text[] =
	"usage: perfhunt history [list] [--command S] [--tag T] [--commit C] [-n N]\n"
	"       perfhunt history --path\n"
	"       perfhunt history show [--json] ID|REF\n"
	"       perfhunt history trend [--command S] METRIC\n"
	"       perfhunt history import [--tag T]... FILE.json...\n"
	"       perfhunt history export [--out FILE]\n"
	"       perfhunt history detect [--metric M] [--phase P] [--bench S] [--since REF] ...\n"
	"       perfhunt history site [options] DIR\n"
	"\n"
	"The runs that 'run' and 'bench' stored, newest first. The database is\n"
	"$PERFHUNT_DB, else .perfhunt/history.db at the git top level, else (outside\n"
	"a work tree) the per-user $XDG_DATA_HOME/perfhunt/history.db (default\n"
	"~/.local/share/perfhunt/); '--path' prints which, and why. It is plain SQLite\n"
	"(tables runs, metrics, phases, tags, benches), or a team's PostgreSQL when\n"
	"$PERFHUNT_DB is a postgresql:// URL. A database or directory that another\n"
	"user owns or may write is refused ($PERFHUNT_SAFE_DIRECTORY=DIR trusts DIR).\n"
	"'perfhunt history SUBCOMMAND --help' describes each subcommand.\n"
	"\n"
	"REF: @last (newest run, or the whole newest bench), @last~N, @tag:NAME,\n"
	"@bench:ID, @commit:PREFIX, or a run ID.\n"
	"\n"
	"Exit status: 0 on success, 1 when the database cannot be read or written\n"
	"(missing, locked, corrupt, read-only) or nothing matches, 2 on a usage error.\n"
	"\n"
	"The options of list, the default:\n";

static const char list_usage[] =
	"usage: perfhunt history [list] [--command S] [--tag T] [--commit C] [-n N]\n"
	"\n"
	"Lists stored runs, newest (last stored) first.\n"
	"\n";

static const char show_usage[] =
	"usage: perfhunt history show [--json] ID|REF\n"
	"\n"
	"Prints the key figures of a stored run (every run, for a REF naming several).\n"
	"REF: @last, @last~N, @tag:NAME, @bench:ID, @commit:PREFIX.\n"
	"\n";

static const char trend_usage[] =
	"usage: perfhunt history trend [--command S] METRIC\n"
	"\n"
	"One line per commit, oldest first: the commit ('+' when the tree was dirty),\n"
	"the number of runs, the median of METRIC over them, and a sparkline across\n"
	"commits. METRIC is a name in the metrics table: wall_s, user_s, sys_s,\n"
	"peak_rss_kb, minflt, a counter name, phase:NAME (total ms per run), ...\n"
	"\n";

static const char import_usage[] =
	"usage: perfhunt history import [--tag T]... FILE.json...\n"
	"\n"
	"Adds perfhunt.run/1 and perfhunt.bench/1 records to the history, each record\n"
	"in one transaction. A file holds one record, or many, one per line, as\n"
	"'history export' writes them (or a JSON array of records). FILE '-' is stdin.\n"
	"A file of hyperfine's --export-json results is stored as a bench.\n"
	"Records are stored as they are read (a file of 10^5 runs in a few MB): a\n"
	"record the history refuses is named and skipped; a value that is not JSON\n"
	"ends its file, the records before it stored.\n"
	"\n";

static const char detect_usage[] =
	"usage: perfhunt history detect [options]\n"
	"\n"
	"Finds where each series shifted: one series per benchmark (command) and\n"
	"metric, one point per commit (the median of its runs), in the first-parent\n"
	"order of HEAD when run in the repository (else by recording time); change\n"
	"points by E-Divisive means with a seeded permutation test, so the same\n"
	"history always gives the same answer. Each change: the first commit of the\n"
	"new segment and the last of the old, median and spread (MAD) on both sides,\n"
	"the relative change, the p-value and whether it is a regression; where\n"
	"commits between the two have no runs, the git bisect lines that find it.\n"
	"\n";

static const char detect_footer[] =
	"Runs in a dirty work tree, runs at commits off the first-parent history and\n"
	"non-finite values are left out (and counted). Exit status: 0, 1 when the\n"
	"history cannot be read, no series matches, or (with --fail-on-regression) a\n"
	"regression was found, 2 on a usage error.\n";

static const char site_usage[] =
	"usage: perfhunt history site [options] DIR\n"
	"\n"
	"Writes a static, self-contained trend site into DIR (created if missing):\n"
	"index.html lists the benchmarks and every change point; bench-N.html has a\n"
	"chart per metric and phase over the commits (the median of each commit's\n"
	"runs as a line over the band of their min-max spread, one column per pixel\n"
	"past the chart's width, segment medians, change points marked and\n"
	"labelled); the points either side of a change and the latest 5 are marked\n"
	"and link to runs/ID.html, the report of their run (--all-runs: every\n"
	"point). A benchmark's charts come in the order of what changed last:\n"
	"regressions, then improvements, largest first (a change point's shift, or\n"
	"the latest commit's against the one before when it moved beyond the spread\n"
	"of the commits before it), then the unchanged; the constant series are\n"
	"listed, folded, at the end. Bytes are drawn in IEC units (KiB, MiB, GiB),\n"
	"counts on whole ticks, times in ms, s, min.\n"
	"No server, no network: open DIR/index.html or publish DIR as it is.\n"
	"\n";

static const char export_usage[] =
	"usage: perfhunt history export [--out FILE]\n"
	"\n"
	"Writes every stored run as JSON Lines, oldest first: one perfhunt.bench/1\n"
	"record (with its runs) per bench, one perfhunt.run/1 record per other run,\n"
	"each on one line, tags included — what 'history import' reads, to move runs\n"
	"between a laptop's SQLite and a team's PostgreSQL:\n"
	"  PERFHUNT_DB=postgresql://... perfhunt history import runs.jsonl\n"
	"\n";

/* Parses a subcommand's options (argv[0] its name, or "history" for the
 * default list); returns the number of operands, or -1 with *status. */
static int history_options(const char *usage, const struct parseopt *table, int argc, char **argv, int *status)
{
	char help_name[32];
	snprintf(help_name, sizeof(help_name), "history%s%s", strcmp(argv[0], "history") ? " " : "",
		 strcmp(argv[0], "history") ? argv[0] : "");
	const struct cmd_options opts = { .name = "history", .help_name = help_name, .usage = usage,
					  .table = table };
	return cmd_parse_options(&opts, argc, argv, status);
}

/* "2026-11-30T08:12:31.123Z" -> "2026-11-30 08:12:31" */
static void history_time(const char *iso, char *buf, size_t n)
{
	snprintf(buf, n, "%.19s", iso ? iso : "-");
	char *t = strchr(buf, 'T');
	if (t)
		*t = ' ';
}

/* A commit for a table cell: 10 hex digits, '+' when dirty, "-" when none. */
static void history_commit(const char *commit, int dirty, char *buf, size_t n)
{
	if (!commit || !*commit)
		snprintf(buf, n, "-");
	else if (quote_needed(commit)) { /* not hex: an imported record's, shown quoted */
		char *q = quote_c(commit);
		snprintf(buf, n, "%.10s%s", q, dirty ? "+" : "");
		free(q);
	} else
		snprintf(buf, n, "%.10s%s", commit, dirty ? "+" : "");
}

/* A metric value in human units, by its name. */
static void history_value(const char *metric, double v, char *buf, size_t n)
{
	size_t len = strlen(metric);
	if (!strncmp(metric, "phase:", 6) || (len > 3 && !strcmp(metric + len - 3, "_ms")))
		units_ms(v, buf, n);
	else if (len > 2 && !strcmp(metric + len - 2, "_s"))
		units_ms(v * 1000, buf, n);
	else if (len > 3 && !strcmp(metric + len - 3, "_kb"))
		units_kb(v, buf, n);
	else if (len > 4 && !strcmp(metric + len - 4, "_mib"))
		units_kb(v * 1024, buf, n);
	else
		snprintf(buf, n, "%.6g", v);
}

/* history --path: the database the other subcommands use (stdout, for
 * scripts), why that one (stderr), and whether perfhunt may write it; said
 * once the file alone holds every run (no fold of a run's WAL running). */
static int history_path(void)
{
	char path[PATH_MAX];
	enum store_origin origin;
	struct err e = { 0 };
	if (store_locate(NULL, path, sizeof(path), &origin, &e))
		return cmd_fail(PH_EXIT_FAIL, &e);
	store_settle(path);
	char *shown = url_redact(path);
	printf("%s\n", shown);
	free(shown);
	int status = cmd_finish_stdout(PH_EXIT_OK);
	fprintf(stderr, "(%s)\n", store_origin_text(origin));
	if (status == PH_EXIT_OK && store_check_location(path, &e))
		return cmd_fail(PH_EXIT_FAIL, &e);
	return status;
}

static int history_list(int argc, char **argv)
{
	struct store_filter f = { .limit = 20 };
	struct err e = { 0 };
	int status = 0;
	bool path = false;
	const struct parseopt table[] = {
		PARSEOPT_FLAG(0, "path", &path, "print which history database is used, and why"),
		PARSEOPT_STRING('c', "command", &f.command, "S", "runs whose command contains S"),
		PARSEOPT_STRING('t', "tag", &f.tag, "T", "runs tagged T"),
		PARSEOPT_STRING(0, "commit", &f.commit, "C", "runs recorded at a commit starting with C"),
		PARSEOPT_I64('n', "runs", &f.limit, "N", "at most N runs (default 20; 0 = all)", 0, INT64_MAX),
		PARSEOPT_END(),
	};
	/* "perfhunt history --help" is the overview, with the options of list */
	int nargs = history_options(strcmp(argv[0], "list") ? usage_text : list_usage, table, argc, argv, &status);
	if (nargs < 0)
		return status;
	if (nargs > 0)
		return cmd_usage_error("history", "unexpected argument '%s'", argv[0]);
	if (path)
		return history_path();
	struct store *s = NULL;
	struct store_row *rows = NULL;
	size_t n = 0;
	if (store_open_existing(&s, NULL, &e) || store_list(s, &f, &rows, &n, &e)) {
		store_close(s);
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	if (n == 0)
		fprintf(stderr, "perfhunt: no stored run matches (in %s)\n", store_path(s));
	else
		printf("%5s  %-19s  %-11s  %4s  %9s  %10s  %5s  %-12s  %s\n", "ID", "STARTED",
		       "COMMIT", "EXIT", "WALL", "PEAK RSS", "BENCH", "TAGS", "COMMAND");
	struct quote_pool q = { 0 }; /* user text reaches the terminal quoted */
	for (size_t i = 0; i < n; i++) {
		const struct store_row *r = &rows[i];
		char when[32], commit[16], wall[32] = "-", peak[32] = "-", bench[24] = "-";
		history_time(r->started_at, when, sizeof(when));
		history_commit(r->git_commit, r->git_dirty, commit, sizeof(commit));
		if (!isnan(r->wall_s))
			units_ms(r->wall_s * 1000, wall, sizeof(wall));
		if (r->peak_rss_kb >= 0)
			units_kb((double)r->peak_rss_kb, peak, sizeof(peak));
		if (r->bench_id)
			snprintf(bench, sizeof(bench), "%" PRId64, r->bench_id);
		printf("%5" PRId64 "  %-19s  %-11s  %4d  %9s  %10s  %5s  %-12s  %s\n", r->id,
		       quote_pool_c(&q, when), commit, r->exit_status, wall, peak, bench,
		       *r->tags ? quote_pool_c(&q, r->tags) : "-", quote_pool_c(&q, r->command));
	}
	quote_pool_release(&q);
	store_rows_free(rows, n);
	store_close(s);
	return cmd_finish_stdout(PH_EXIT_OK);
}

static json_t *history_get(json_t *obj, const char *key)
{
	return json_object_get(obj, key);
}

/* A stored run: what the history knows of it (its IDs, when, where, which
 * commit, its tags, each once), then the same summary `run` and `show` print. */
static void history_show_one(json_t *rec)
{
	json_t *git = history_get(rec, "git");
	struct quote_pool q = { 0 }; /* user text reaches the terminal quoted */
	printf("run %" JSON_INTEGER_FORMAT, json_integer_value(history_get(rec, "history_id")));
	if (history_get(rec, "history_bench_id"))
		printf(" (bench %" JSON_INTEGER_FORMAT ")",
		       json_integer_value(history_get(rec, "history_bench_id")));
	putchar('\n');
	const char *host = json_string_value(history_get(history_get(rec, "host"), "hostname"));
	const char *started = json_string_value(history_get(rec, "started_at"));
	printf("  %-17s %s%s%s\n", "started", started ? quote_pool_c(&q, started) : "?", host ? " on " : "",
	       host ? quote_pool_c(&q, host) : "");
	const char *commit = json_string_value(history_get(git, "commit"));
	if (commit)
		printf("  %-17s %s%s\n", "commit", quote_pool_c(&q, commit), json_is_true(history_get(git, "dirty")) ? " (dirty)" : "");
	json_t *tags = history_get(rec, "tags");
	if (json_array_size(tags)) {
		printf("  %-17s", "tags");
		size_t i, shown = 0;
		json_t *t;
		json_array_foreach(tags, i, t) {
			const char *tag = json_string_value(t);
			bool again = false;
			for (size_t k = 0; k < i && tag && !again; k++)
				again = json_equal(t, json_array_get(tags, k));
			if (tag && !again)
				printf("%s%s", shown++ ? ", " : " ", quote_pool_c(&q, tag));
		}
		putchar('\n');
	}
	quote_pool_release(&q);
	summary_print(rec, stdout);
}

static int history_show(int argc, char **argv)
{
	bool json = false;
	int status = 0;
	const struct parseopt table[] = {
		PARSEOPT_FLAG('j', "json", &json, "print the stored perfhunt.run/1 record (an array for several)"),
		PARSEOPT_END(),
	};
	int n = history_options(show_usage, table, argc, argv, &status);
	if (n < 0)
		return status;
	if (n != 1)
		return cmd_usage_error("history", n == 0 ? "show needs a run ID or reference"
						       : "show takes one run ID or reference");
	struct store *s = NULL;
	struct err e = { 0 };
	json_t **recs = NULL;
	size_t nrecs = 0;
	if (store_open_existing(&s, NULL, &e) || store_resolve(s, argv[0], &recs, &nrecs, &e)) {
		store_close(s);
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	store_close(s);
	if (json) {
		json_t *out = json_array();
		for (size_t i = 0; i < nrecs; i++)
			json_array_append(out, recs[i]);
		json_dumpf(nrecs == 1 ? recs[0] : out, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(out);
	} else {
		for (size_t i = 0; i < nrecs; i++) {
			if (i)
				putchar('\n');
			history_show_one(recs[i]);
		}
	}
	store_records_free(recs, nrecs);
	return cmd_finish_stdout(PH_EXIT_OK);
}

/* One block character per value, ▁ (lowest) to █ (highest). */
static int history_trend(int argc, char **argv)
{
	const char *command = NULL;
	int status = 0;
	const struct parseopt table[] = {
		PARSEOPT_STRING('c', "command", &command, "S", "only runs whose command contains S"),
		PARSEOPT_END(),
	};
	int nargs = history_options(trend_usage, table, argc, argv, &status);
	if (nargs < 0)
		return status;
	if (nargs != 1)
		return cmd_usage_error("history", nargs == 0 ? "trend needs a METRIC" : "trend takes one METRIC");
	const char *metric = argv[0];
	struct store *s = NULL;
	struct err e = { 0 };
	struct store_trend_point *p = NULL;
	size_t n = 0;
	if (store_open_existing(&s, NULL, &e) || store_trend(s, metric, command, &p, &n, &e)) {
		store_close(s);
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	store_close(s);
	double *medians = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		medians[i] = stats_median(p[i].values, p[i].n);
	size_t cap = 3 * n + 1;
	char *spark = xmalloc(cap);
	sparkline(medians, n, n, spark, cap);
	printf("%s, median per commit, oldest first\n", metric);
	printf("%-11s  %5s  %12s\n", "COMMIT", "RUNS", "MEDIAN");
	for (size_t i = 0; i < n; i++) {
		char commit[16], val[32];
		history_commit(p[i].commit, p[i].dirty, commit, sizeof(commit));
		history_value(metric, medians[i], val, sizeof(val));
		printf("%-11s  %5zu  %12s  %.3s\n", commit, p[i].n, val, spark + 3 * i);
	}
	printf("trend %s\n", spark);
	free(spark);
	free(medians);
	store_trend_free(p, n);
	return cmd_finish_stdout(PH_EXIT_OK);
}

struct history_import {
	struct store *s;
	const char *const *tags;
	const char *path;
	int status;
};

/* Stores one record as it is read: a file of 10^5 runs is imported in the
 * memory of one. A record the history refuses is reported and skipped. */
static int history_import_one(json_t *rec, size_t index, void *arg)
{
	struct history_import *x = arg;
	struct err e = { 0 };
	int64_t id = 0;
	json_t *converted = NULL;
	if (hyperfine_is(rec) && hyperfine_to_bench(rec, &converted, &e) < 0) /* stored as the bench it is */
		goto failed;
	if (converted)
		rec = converted;
	const char *schema = json_string_value(json_object_get(rec, "schema"));
	int bench = schema && !strcmp(schema, "perfhunt.bench/1");
	if ((bench ? store_add_bench(x->s, rec, NULL, x->tags, &id, &e) : store_add_run(x->s, rec, x->tags, 0, &id, &e)) == 0) {
		printf("%s: stored as %s %" PRId64 "\n", x->path, bench ? "bench" : "run", id);
		json_decref(converted);
		return 0;
	}
failed:
	json_decref(converted);
	if (index)
		err_wrap(&e, "%s: record %zu", x->path, index + 1);
	else
		err_wrap(&e, "%s", x->path);
	x->status = cmd_fail(PH_EXIT_FAIL, &e);
	return 0;
}

static int history_import(int argc, char **argv)
{
	struct parseopt_list tags = { 0 };
	int status = 0;
	const struct parseopt table[] = {
		{ .type = PARSEOPT_TYPE_LIST, .short_name = 't', .long_name = "tag", .value = &tags, .argh = "T",
		  .help = "tag every imported run T (repeatable)", .flags = PARSEOPT_NONEMPTY },
		PARSEOPT_END(),
	};
	int nfiles = history_options(import_usage, table, argc, argv, &status);
	if (nfiles < 0) {
		parseopt_list_release(&tags);
		return status;
	}
	if (nfiles == 0) {
		parseopt_list_release(&tags);
		return cmd_usage_error("history", "import needs at least one FILE.json");
	}
	struct store *s = NULL;
	struct err e = { 0 };
	if (store_open(&s, NULL, &e)) {
		parseopt_list_release(&tags);
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	struct history_import x = { .s = s, .tags = tags.items, .status = PH_EXIT_OK };
	for (int i = 0; i < nfiles; i++) {
		x.path = argv[i];
		if (jsonio_read_each(argv[i], history_import_one, &x, &e) < 0)
			x.status = cmd_fail(PH_EXIT_FAIL, &e);
	}
	status = x.status;
	store_close(s);
	parseopt_list_release(&tags);
	return cmd_finish_stdout(status);
}

struct history_export {
	FILE *out;
	size_t runs, benches;
};

static int history_export_one(json_t *rec, void *arg)
{
	struct history_export *x = arg;
	const char *schema = json_string_value(json_object_get(rec, "schema"));
	if (schema && !strcmp(schema, "perfhunt.bench/1")) {
		x->benches++;
		size_t i;
		json_t *c;
		json_array_foreach(json_object_get(rec, "commands"), i, c)
			x->runs += json_array_size(json_object_get(c, "runs"));
	} else {
		x->runs++;
	}
	/* One line per record: compact JSON never holds a raw newline. */
	return json_dumpf(rec, x->out, JSON_COMPACT) != 0 || fputc('\n', x->out) == EOF;
}

static int history_export(int argc, char **argv)
{
	const char *out = "-";
	int status = 0;
	const struct parseopt table[] = {
		PARSEOPT_STRING('o', "out", &out, "FILE", "write to FILE, atomically (default: stdout)"),
		PARSEOPT_END(),
	};
	int n = history_options(export_usage, table, argc, argv, &status);
	if (n < 0)
		return status;
	if (n > 0)
		return cmd_usage_error("history", "unexpected argument '%s'", argv[0]);
	struct store *s = NULL;
	struct err e = { 0 };
	if (store_open_existing(&s, NULL, &e))
		return cmd_fail(PH_EXIT_FAIL, &e);
	/* Built in memory, then written whole (atomically for a file). */
	char *buf = NULL;
	size_t len = 0;
	struct history_export x = { .out = open_memstream(&buf, &len) };
	if (!x.out) {
		store_close(s);
		err_sys(&e, "cannot export");
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	int rc = store_export(s, history_export_one, &x, &e);
	if (fclose(x.out) != 0 && rc == 0)
		rc = err_sys(&e, "cannot export");
	if (rc > 0)
		rc = err_set(&e, "cannot export: out of memory");
	if (rc == 0)
		rc = jsonio_write_bytes(out, buf, len, &e);
	if (rc == 0 && strcmp(out, "-"))
		fprintf(stderr, "perfhunt: exported %zu run%s (%zu bench%s) from %s to %s\n", x.runs,
			x.runs == 1 ? "" : "s", x.benches, x.benches == 1 ? "" : "es", store_path(s), out);
	free(buf);
	store_close(s);
	if (rc)
		return cmd_fail(PH_EXIT_FAIL, &e);
	return cmd_finish_stdout(PH_EXIT_OK);
}

/* Options shared by detect and site: which series, and how to detect. */
struct history_detect_opts {
	struct store_series_filter filter;
	struct changepoint_opts cp;
	const char *since;
};

/* The options detect and site share: which series, and how to detect. */
struct history_detect_args {
	struct history_detect_opts o;
	struct parseopt_list metrics, phases;
	int64_t min_segment;
};

static void history_detect_args_init(struct history_detect_args *a)
{
	memset(a, 0, sizeof(*a));
	changepoint_opts_init(&a->o.cp);
	a->min_segment = (int64_t)a->o.cp.min_segment;
}

/* After the parse: the lists and numbers where the detector reads them. */
static void history_detect_args_finish(struct history_detect_args *a)
{
	a->o.filter.metrics = a->metrics.items;
	a->o.filter.n_metrics = a->metrics.n;
	a->o.filter.phases = a->phases.items;
	a->o.filter.n_phases = a->phases.n;
	a->o.cp.min_segment = (size_t)a->min_segment;
}

static void history_detect_args_release(struct history_detect_args *a)
{
	parseopt_list_release(&a->metrics);
	parseopt_list_release(&a->phases);
}

#define HISTORY_DETECT_ROWS(a) \
	PARSEOPT_LIST('m', "metric", &(a)->metrics, "NAME", \
		      "only this metric (repeatable; NAME* a prefix), e.g.\nwall_s, peak_rss_kb, 'phase:*'"), \
	PARSEOPT_LIST('p', "phase", &(a)->phases, "NAME", "phase:NAME and its per-phase metrics (repeatable)"), \
	PARSEOPT_STRING('b', "bench", &(a)->o.filter.bench, "S", "only benchmarks whose command contains S"), \
	PARSEOPT_STRING(0, "since", &(a)->o.since, "REF", \
			"report only changes after commit REF (the history\nbefore it is still the baseline)"), \
	PARSEOPT_CALLBACK(0, "alpha", &(a)->o.cp.alpha, "A", "significance level of each split (default 0.01)", \
			  cmd_opt_alpha), \
	PARSEOPT_CALLBACK(0, "min-magnitude", &(a)->o.cp.min_magnitude, "PCT", \
			  "ignore shifts of the median under PCT percent (default 1)", cmd_opt_threshold), \
	PARSEOPT_I64(0, "min-segment", &(a)->min_segment, "N", "fewest commits on each side of a change (default 5)", \
		     2, 1000000)

/* The index of the first point after commit since (full hex): by
 * first-parent position, else by recording time (after the last run of
 * since anywhere in the history, last_ref_at). */
static size_t history_since_index(const struct detect_series *s, int64_t since_pos, const char *last_ref_at)
{
	for (size_t i = 0; i < s->n; i++) {
		if (since_pos >= 0 ? s->points[i].position > since_pos
				   : strcmp(s->points[i].started_at, last_ref_at) > 0)
			return i;
	}
	return s->n;
}

/* Reads the series of o from s and runs the detector on each; fills ctx.
 * Errors are printed; returns PH_EXIT_OK or the exit status. */
static int history_detect_load(struct store *st, struct history_detect_opts *o, struct detect_series **out,
			       size_t *n, struct detect_context *ctx, char *since_buf, size_t since_len)
{
	struct err e = { 0 };
	char top[4096];
	char **order = NULL;
	size_t norder = 0;
	int in_repo = git_toplevel(top, sizeof(top)) == 0;
	if (in_repo && git_first_parent(top, &order, &norder))
		norder = 0;
	o->filter.order = (const char *const *)order;
	o->filter.n_order = norder;
	memset(ctx, 0, sizeof(*ctx));
	ctx->opts = o->cp;
	int status = PH_EXIT_OK;
	if (store_series_load(st, &o->filter, out, n, ctx, &e)) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	if (*n == 0) {
		err_set(&e, "no stored run has %s%s%s in '%s'",
			o->filter.n_metrics || o->filter.n_phases ? "the selected metrics" : "any metric",
			o->filter.bench ? " for that benchmark" : "", "", store_path(st));
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	int64_t since_pos = -1;
	const char *last_ref_at = NULL;
	if (o->since) {
		/* git names it when it can; else a commit prefix among the stored runs */
		if (!(in_repo && git_resolve_commit(top, o->since, since_buf, since_len) == 0))
			snprintf(since_buf, since_len, "%s", o->since);
		for (size_t i = 0; i < norder && ctx->first_parent; i++)
			if (!strcmp(order[i], since_buf))
				since_pos = (int64_t)i;
		for (size_t i = 0; i < *n; i++)
			for (size_t p = 0; p < (*out)[i].n; p++) {
				const struct detect_point *pt = &(*out)[i].points[p];
				if (*pt->commit && !strncmp(pt->commit, since_buf, strlen(since_buf)) &&
				    (!last_ref_at || strcmp(pt->started_at, last_ref_at) > 0))
					last_ref_at = pt->started_at;
			}
		if (ctx->first_parent ? since_pos < 0 : !last_ref_at) {
			err_set(&e, "--since: '%s' is %s", o->since,
				ctx->first_parent ? "not a commit on the first-parent history of HEAD"
						  : "no commit of a stored run");
			status = cmd_fail(PH_EXIT_FAIL, &e);
			goto out;
		}
		ctx->since = since_buf;
	}
	for (size_t i = 0; i < *n; i++) {
		if (detect_series_run(&(*out)[i], &o->cp, &e)) {
			status = cmd_fail(PH_EXIT_FAIL, &e);
			goto out;
		}
		if (o->since)
			(*out)[i].report_from = history_since_index(&(*out)[i], since_pos, last_ref_at);
	}
out:
	for (size_t i = 0; i < norder; i++)
		free(order[i]);
	free(order);
	o->filter.order = NULL;
	o->filter.n_order = 0;
	return status;
}

static int history_write_export(const char *path, int json, const struct detect_series *s, size_t n,
				const struct detect_context *ctx, struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = 0;
	if (json) {
		json_t *rec = detect_json_record(s, n, ctx);
		char *text = rec ? json_dumps(rec, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
		json_decref(rec);
		if (!text)
			return err_set(e, "cannot write '%s': a name is not valid UTF-8", path);
		buf = xasprintf("%s\n", text);
		free(text);
		len = strlen(buf);
	} else {
		FILE *f = open_memstream(&buf, &len);
		if (!f)
			return err_sys(e, "cannot write '%s'", path);
		rc = detect_markdown_write(s, n, ctx, f);
		if (fclose(f) != 0 || rc < 0) {
			free(buf);
			return err_sys(e, "cannot write '%s'", path);
		}
	}
	rc = jsonio_write_bytes(path, buf, len, e); /* atomic */
	free(buf);
	return rc;
}

static int history_detect(int argc, char **argv)
{
	struct history_detect_args a;
	history_detect_args_init(&a);
	struct history_detect_opts *o = &a.o;
	const char *json_path = NULL, *md_path = NULL;
	bool fail_on_regression = false, quiet = false;
	struct detect_series *series = NULL;
	size_t n = 0;
	struct store *st = NULL;
	struct err e = { 0 };
	int status = 0;
	const struct parseopt table[] = {
		HISTORY_DETECT_ROWS(&a),
		PARSEOPT_STRING(0, "export-json", &json_path, "FILE", "write a perfhunt.detect/1 record"),
		PARSEOPT_STRING(0, "export-markdown", &md_path, "FILE", "write a markdown table"),
		PARSEOPT_FLAG(0, "fail-on-regression", &fail_on_regression, "exit 1 when a regression is reported"),
		PARSEOPT_FLAG('q', "quiet", &quiet, "print nothing (exports are still written)"),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "history", .help_name = "history detect", .usage = detect_usage,
					  .footer = detect_footer, .table = table };
	int nargs = cmd_parse_options(&opts, argc, argv, &status);
	if (nargs < 0)
		goto out;
	if (nargs > 0) {
		status = cmd_usage_error("history", "unexpected argument '%s'", argv[0]);
		goto out;
	}
	history_detect_args_finish(&a);
	const char *files[] = { json_path, md_path };
	const struct session_outputs outputs = { .files = files, .nfiles = 2 };
	if ((status = cmd_check_outputs(&outputs)) != 0)
		goto out;
	if (store_open_existing(&st, NULL, &e)) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	struct detect_context ctx;
	char since[128];
	if ((status = history_detect_load(st, o, &series, &n, &ctx, since, sizeof(since))) != PH_EXIT_OK)
		goto out;
	if (!quiet && detect_text_write(series, n, &ctx, cmd_use_color(1), stdout) < 0)
		status = PH_EXIT_FAIL;
	if (json_path && history_write_export(json_path, 1, series, n, &ctx, &e))
		status = cmd_fail(PH_EXIT_FAIL, &e);
	if (md_path && history_write_export(md_path, 0, series, n, &ctx, &e))
		status = cmd_fail(PH_EXIT_FAIL, &e);
	size_t changes, regressions;
	detect_text_count(series, n, &changes, &regressions);
	if (status == PH_EXIT_OK && fail_on_regression && regressions > 0)
		status = PH_EXIT_FAIL;
	status = cmd_finish_stdout(status);
out:
	detect_series_free(series, n);
	store_close(st);
	history_detect_args_release(&a);
	return status;
}

/* Writes one page of the site; 0 or -1. */
static int history_site_page(const char *dir, const char *name, const struct svg *page, struct err *e)
{
	char *path = xasprintf("%s/%s", dir, name);
	int rc = svg_save(page, path, e);
	free(path);
	return rc;
}

static int history_site_mkdir(const char *path, struct err *e)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST) {
		struct stat st;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		return err_set(e, "cannot write the site: '%s' is not a directory", path);
	}
	return err_sys(e, "cannot create '%s'", path);
}

static int history_id_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

/* The report of every run a point links to (report_site_linked):
 * runs/ID.html, each once. */
static int history_site_runs(struct store *st, const char *dir, const struct detect_series *s, size_t n,
			     int all_runs, size_t *written, struct err *e)
{
	int64_t *ids = NULL;
	size_t nids = 0, cap = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t p = 0; p < s[i].n; p++)
			if (report_site_linked(&s[i], p, all_runs)) {
				xgrow((void **)&ids, &cap, nids + 1, sizeof(*ids));
				ids[nids++] = s[i].points[p].run_ids[0];
			}
	if (nids)
		qsort(ids, nids, sizeof(*ids), history_id_cmp);
	int rc = 0;
	*written = 0;
	for (size_t k = 0; k < nids && rc == 0; k++) {
		if (k && ids[k] == ids[k - 1])
			continue;
		json_t *rec = NULL;
		struct svg page;
		svg_init(&page);
		char name[48];
		snprintf(name, sizeof(name), "runs/%" PRId64 ".html", ids[k]);
		rc = store_get_run(st, ids[k], &rec, e);
		if (rc == 0 && report_html(rec, &page, e) == 0)
			rc = history_site_page(dir, name, &page, e);
		else if (rc == 0)
			rc = err_wrap(e, "run %" PRId64, ids[k]);
		json_decref(rec);
		svg_release(&page);
		*written += rc == 0;
	}
	free(ids);
	return rc;
}

static int history_site(int argc, char **argv)
{
	struct history_detect_args a;
	history_detect_args_init(&a);
	struct history_detect_opts *o = &a.o;
	struct detect_series *series = NULL;
	size_t n = 0, *starts = NULL;
	struct store *st = NULL;
	struct err e = { 0 };
	int status = 0;
	bool all_runs = false;
	const struct parseopt table[] = {
		HISTORY_DETECT_ROWS(&a),
		PARSEOPT_FLAG(0, "all-runs", &all_runs, "a run report for every point, not only those either\n"
			      "side of a change and the latest 5"),
		PARSEOPT_END(),
	};
	int nargs = history_options(site_usage, table, argc, argv, &status);
	if (nargs < 0)
		goto out;
	if (nargs != 1) {
		status = cmd_usage_error("history", nargs == 0 ? "site needs a DIR" : "site takes one DIR");
		goto out;
	}
	history_detect_args_finish(&a);
	const char *dir = argv[0];
	if (store_open_existing(&st, NULL, &e)) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	struct detect_context ctx;
	char since[128];
	if ((status = history_detect_load(st, o, &series, &n, &ctx, since, sizeof(since))) != PH_EXIT_OK)
		goto out;
	char *runs_dir = xasprintf("%s/runs", dir);
	/* checked before anything is made: another user's link as DIR must
	 * not get a runs/ made in its target first */
	int rc = fsafe_check_output(runs_dir, &e) || history_site_mkdir(dir, &e) || history_site_mkdir(runs_dir, &e)
			 ? -1
			 : 0;
	free(runs_dir);
	starts = xcalloc(n + 1, sizeof(*starts));
	size_t nbench = report_site_benches(series, n, starts), reports = 0;
	struct svg page;
	svg_init(&page);
	for (size_t b = 0; b < nbench && rc == 0; b++) {
		char name[48];
		snprintf(name, sizeof(name), "bench-%zu.html", b + 1);
		page.len = 0;
		page.buf[0] = 0;
		report_site_bench(series, starts[b], starts[b + 1], &ctx, all_runs, &page);
		rc = history_site_page(dir, name, &page, &e);
	}
	if (rc == 0)
		rc = history_site_runs(st, dir, series, n, all_runs, &reports, &e);
	if (rc == 0) {
		page.len = 0;
		page.buf[0] = 0;
		report_site_index(series, &ctx, starts, nbench, &page);
		rc = history_site_page(dir, "index.html", &page, &e); /* last: a complete site when it appears */
	}
	svg_release(&page);
	if (rc) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	fprintf(stderr, "perfhunt: wrote %s/index.html: %zu benchmark%s, %zu series, %zu run report%s\n", dir,
		nbench, nbench == 1 ? "" : "s", n, reports, reports == 1 ? "" : "s");
	status = cmd_finish_stdout(PH_EXIT_OK);
out:
	free(starts);
	detect_series_free(series, n);
	store_close(st);
	history_detect_args_release(&a);
	return status;
}

int cmd_history(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} subs[] = {
		{ "list", history_list },
		{ "show", history_show },
		{ "trend", history_trend },
		{ "import", history_import },
		{ "export", history_export },
		{ "detect", history_detect },
		{ "site", history_site },
	};
	if (argc > 1 && argv[1][0] != '-') {
		for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
			if (!strcmp(argv[1], subs[i].name))
				return subs[i].fn(argc - 1, argv + 1);
		return cmd_usage_error("history", "unknown subcommand '%s'", argv[1]);
	}
	return history_list(argc, argv);
}
