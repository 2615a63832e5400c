/* history: perfhunt history [list|show|trend|import] — the stored runs.
 *
 * The database and its queries are src/store; this file parses options,
 * picks the subcommand (list when none is named), and prints: a table of
 * runs, one run's key figures (or its JSON record), a metric's median per
 * commit with a sparkline, or what an import added.
 */
#include "cmd/cmd.h"
#include "export/sparkline.h"
#include "export/summary.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/command.h"
#include "record/jsonio.h"
#include "stats/metrics.h"
#include "stats/stats.h"
#include "store/store.h"
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
	"(missing, locked, corrupt, read-only) or nothing matches, 2 on a usage error.\n";

static const char list_usage[] =
	"usage: perfhunt history [list] [--command S] [--tag T] [--commit C] [-n N]\n"
	"\n"
	"Lists stored runs, newest (last stored) first.\n"
	"\n"
	"  -c, --command S   runs whose command contains S\n"
	"  -t, --tag T       runs tagged T\n"
	"      --commit C    runs recorded at a commit starting with C\n"
	"  -n, --runs N      at most N runs (default 20; 0 = all)\n"
	"  -h, --help        show this help\n";

static const char show_usage[] =
	"usage: perfhunt history show [--json] ID|REF\n"
	"\n"
	"Prints the key figures of a stored run (every run, for a REF naming several).\n"
	"REF: @last, @last~N, @tag:NAME, @bench:ID, @commit:PREFIX.\n"
	"\n"
	"  -j, --json        print the stored perfhunt.run/1 record (an array for several)\n"
	"  -h, --help        show this help\n";

static const char trend_usage[] =
	"usage: perfhunt history trend [--command S] METRIC\n"
	"\n"
	"One line per commit, oldest first: the commit ('+' when the tree was dirty),\n"
	"the number of runs, the median of METRIC over them, and a sparkline across\n"
	"commits. METRIC is a name in the metrics table: wall_s, user_s, sys_s,\n"
	"peak_rss_kb, minflt, a counter name, phase:NAME (total ms per run), ...\n"
	"\n"
	"  -c, --command S   only runs whose command contains S\n"
	"  -h, --help        show this help\n";

static const char import_usage[] =
	"usage: perfhunt history import [--tag T]... FILE.json...\n"
	"\n"
	"Adds perfhunt.run/1 and perfhunt.bench/1 records to the history, each record\n"
	"in one transaction. A file holds one record, or many, one per line, as\n"
	"'history export' writes them (or a JSON array of records). FILE '-' is stdin.\n"
	"\n"
	"  -t, --tag T       tag every imported run T (repeatable)\n"
	"  -h, --help        show this help\n";

static const char export_usage[] =
	"usage: perfhunt history export [--out FILE]\n"
	"\n"
	"Writes every stored run as JSON Lines, oldest first: one perfhunt.bench/1\n"
	"record (with its runs) per bench, one perfhunt.run/1 record per other run,\n"
	"each on one line, tags included — what 'history import' reads, to move runs\n"
	"between a laptop's SQLite and a team's PostgreSQL:\n"
	"  PERFHUNT_DB=postgresql://... perfhunt history import runs.jsonl\n"
	"\n"
	"  -o, --out FILE    write to FILE, atomically (default: stdout)\n"
	"  -h, --help        show this help\n";

/* getopt_long over argv with the conventions of every command; returns the
 * option, -1 at the end, or -2 after printing a usage error into *status. */
static int history_getopt(int argc, char **argv, const char *shortopts,
			  const struct option *longopts, int *status)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c == ':') {
		*status = cmd_usage_error("history", "option '%s' needs a value", argv[optind - 1]);
		return -2;
	}
	if (c == '?') {
		if (optopt)
			*status = cmd_usage_error("history", "unknown option '-%c'", optopt);
		else
			*status = cmd_usage_error("history", "unknown option '%s'", argv[optind - 1]);
		return -2;
	}
	return c;
}

static int history_help(const char *text)
{
	fputs(text, stdout);
	return cmd_finish_stdout(PH_EXIT_OK);
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
 * scripts), why that one (stderr), and whether perfhunt may write it. */
static int history_path(int argc, char **argv)
{
	if (argc > 1)
		return cmd_usage_error("history", "unexpected argument '%s'", argv[1]);
	char path[PATH_MAX];
	enum store_origin origin;
	struct err e = { 0 };
	if (store_locate(NULL, path, sizeof(path), &origin, &e))
		return cmd_fail(PH_EXIT_FAIL, &e);
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
	static const struct option longopts[] = {
		{ "command", required_argument, NULL, 'c' },
		{ "tag", required_argument, NULL, 't' },
		{ "commit", required_argument, NULL, 'C' },
		{ "runs", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct store_filter f = { .limit = 20 };
	struct err e = { 0 };
	int c, status = 0;
	while ((c = history_getopt(argc, argv, "+:c:t:n:h", longopts, &status)) != -1) {
		switch (c) {
		case -2:
			return status;
		case 'c':
			f.command = optarg;
			break;
		case 't':
			f.tag = optarg;
			break;
		case 'C':
			f.commit = optarg;
			break;
		case 'n':
			if (parse_i64(optarg, 0, INT64_MAX, &f.limit, "-n", &e))
				return cmd_usage_error("history", "%s", e.msg);
			break;
		case 'h':
			return history_help(list_usage);
		}
	}
	if (optind < argc)
		return cmd_usage_error("history", "unexpected argument '%s'", argv[optind]);
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
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool json = false;
	int c, status = 0;
	while ((c = history_getopt(argc, argv, ":jh", longopts, &status)) != -1) {
		switch (c) {
		case -2:
			return status;
		case 'j':
			json = true;
			break;
		case 'h':
			return history_help(show_usage);
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("history", argc == optind ? "show needs a run ID or reference"
								 : "show takes one run ID or reference");
	struct store *s = NULL;
	struct err e = { 0 };
	json_t **recs = NULL;
	size_t n = 0;
	if (store_open_existing(&s, NULL, &e) || store_resolve(s, argv[optind], &recs, &n, &e)) {
		store_close(s);
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	store_close(s);
	if (json) {
		json_t *out = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append(out, recs[i]);
		json_dumpf(n == 1 ? recs[0] : out, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(out);
	} else {
		for (size_t i = 0; i < n; i++) {
			if (i)
				putchar('\n');
			history_show_one(recs[i]);
		}
	}
	store_records_free(recs, n);
	return cmd_finish_stdout(PH_EXIT_OK);
}

/* One block character per value, ▁ (lowest) to █ (highest). */
static int history_trend(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "command", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *command = NULL;
	int c, status = 0;
	while ((c = history_getopt(argc, argv, ":c:h", longopts, &status)) != -1) {
		switch (c) {
		case -2:
			return status;
		case 'c':
			command = optarg;
			break;
		case 'h':
			return history_help(trend_usage);
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("history", argc == optind ? "trend needs a METRIC"
								 : "trend takes one METRIC");
	const char *metric = argv[optind];
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

static int history_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tag", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char **tags = xcalloc((size_t)argc + 1, sizeof(*tags));
	size_t ntags = 0;
	int c, status = 0;
	while ((c = history_getopt(argc, argv, ":t:h", longopts, &status)) != -1) {
		switch (c) {
		case -2:
			free(tags);
			return status;
		case 't':
			if (!*optarg) {
				free(tags);
				return cmd_usage_error("history", "--tag needs a non-empty name");
			}
			tags[ntags++] = optarg;
			break;
		case 'h':
			free(tags);
			return history_help(import_usage);
		}
	}
	if (optind >= argc) {
		free(tags);
		return cmd_usage_error("history", "import needs at least one FILE.json");
	}
	struct store *s = NULL;
	struct err e = { 0 };
	if (store_open(&s, NULL, &e)) {
		free(tags);
		return cmd_fail(PH_EXIT_FAIL, &e);
	}
	status = PH_EXIT_OK;
	for (int i = optind; i < argc; i++) {
		json_t **recs = NULL;
		size_t nrecs = 0;
		if (jsonio_read_many(argv[i], &recs, &nrecs, &e)) {
			status = cmd_fail(PH_EXIT_FAIL, &e);
			continue;
		}
		for (size_t k = 0; k < nrecs; k++) {
			json_t *rec = recs[k];
			int64_t id = 0;
			const char *schema = json_string_value(json_object_get(rec, "schema"));
			int rc;
			if (schema && !strcmp(schema, "perfhunt.bench/1"))
				rc = store_add_bench(s, rec, tags, &id, &e);
			else
				rc = store_add_run(s, rec, tags, 0, &id, &e);
			if (rc && nrecs > 1) {
				err_wrap(&e, "%s: record %zu", argv[i], k + 1);
				status = cmd_fail(PH_EXIT_FAIL, &e);
			} else if (rc) {
				err_wrap(&e, "%s", argv[i]);
				status = cmd_fail(PH_EXIT_FAIL, &e);
			} else {
				printf("%s: stored as %s %" PRId64 "\n", argv[i],
				       schema && !strcmp(schema, "perfhunt.bench/1") ? "bench" : "run", id);
			}
		}
		jsonio_values_free(recs, nrecs);
	}
	store_close(s);
	free(tags);
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
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = "-";
	int c, status = 0;
	while ((c = history_getopt(argc, argv, ":o:h", longopts, &status)) != -1) {
		switch (c) {
		case -2:
			return status;
		case 'o':
			out = optarg;
			break;
		case 'h':
			return history_help(export_usage);
		}
	}
	if (optind < argc)
		return cmd_usage_error("history", "unexpected argument '%s'", argv[optind]);
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
	};
	opterr = 0;
	optind = 1;
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return history_help(usage_text);
	if (argc > 1 && !strcmp(argv[1], "--path"))
		return history_path(argc - 1, argv + 1);
	if (argc > 1 && argv[1][0] != '-') {
		for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
			if (!strcmp(argv[1], subs[i].name))
				return subs[i].fn(argc - 1, argv + 1);
		return cmd_usage_error("history", "unknown subcommand '%s'", argv[1]);
	}
	return history_list(argc, argv);
}
