/* fuzz_options: libFuzzer target for option parsing, without running anything.
 *
 * The command functions spawn and record, so this target fuzzes the layer
 * they all parse with: parseopt_parse over a table holding the shared
 * recording options of run (record_opts_rows, every callback) and one row of
 * each other type, and the strict number and duration parsers behind the
 * values. The input is a command line, one word a line; it is parsed three
 * times (options anywhere, stopping at the first operand, keeping "--"); each
 * word is also written as a GNU time format (run -f) of a fixed record. No process is
 * spawned and no file is written (an -e list reads sysfs and tracefs, as
 * perf does, through libpfm4 too). Checked: an error is one non-empty line;
 * the operands are input words, in order; accepted values are in range.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/record_opts.h"
#include "export/time_format.h"
#include "util/parse.h"
#include "util/parseopt.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_WORDS = 64 };

static void check(int ok)
{
	if (!ok)
		abort();
}

static void parse_numbers(const char *arg)
{
	struct err e;
	int64_t i;
	double d;
	if (parse_i64(arg, -5, 3600000, &i, "--n", &e) == 0)
		check(i >= -5 && i <= 3600000);
	if (parse_i64(arg, INT64_MIN, INT64_MAX, &i, "--n", &e) < 0)
		check(e.msg[0] != 0);
	if (parse_double(arg, 0, 1e6, &d, "--x", &e) == 0)
		check(isfinite(d) && d >= 0 && d <= 1e6);
	if (parse_duration_ms(arg, 1000, &d, "--duration", &e) == 0)
		check(isfinite(d) && d >= 0);
	else
		check(e.msg[0] != 0);
	const char *p = arg, *end = arg + strlen(arg);
	uint64_t u;
	if (parse_u64_at(&p, end, &u))
		check(p > arg && p <= end);
	else
		check(p == arg);
}

/* A callback with an optional value, as bench --shell[=SHELL] */
static int optional_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	(void)e;
	*(const char **)row->value = arg ? arg : "";
	return 0;
}

/* A callback that takes a second word, as bench -L does. */
static int pair_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	if (!strchr(arg, '=') && !parseopt_take_word(st))
		return err_set(e, "-L %s: no values", arg);
	(*(int *)row->value)++;
	return 0;
}

static void parse_once(char **words, int nwords, unsigned flags)
{
	struct record_opts o;
	record_opts_init(&o);
	struct parseopt shared[RECORD_OPTS_NROWS];
	record_opts_rows(&o, RECORD_OPTS_FOR_RUN, shared);
	struct parseopt_list metrics = { 0 };
	int64_t runs = 10;
	int pairs = 0;
	bool shell = false;
	const char *name = NULL, *sh = NULL;
	double idle_ms = 500;
	const struct parseopt table[] = {
		PARSEOPT_DURATION(0, "idle-ms", &idle_ms, "TIME", "a duration", 1, 0, 3600000),
		{ .type = PARSEOPT_TYPE_CALLBACK, .short_name = 'S', .long_name = "sh", .value = &sh, .argh = "SHELL",
		  .help = "a shell", .flags = PARSEOPT_OPTIONAL, .cb = optional_opt },
		PARSEOPT_INCLUDE(shared),
		PARSEOPT_I64('n', "runs", &runs, "N", "runs", 1, 1000000),
		PARSEOPT_LIST(0, "metric", &metrics, "NAME", "a metric"),
		PARSEOPT_CALLBACK('L', "parameter-list", &pairs, "NAME V1,V2", "a list", pair_opt),
		PARSEOPT_FLAG(0, "shell", &shell, "a shell"),
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "name", .value = &name, .argh = "S",
		  .flags = PARSEOPT_NONEMPTY | PARSEOPT_HIDDEN },
		PARSEOPT_END(),
	};
	struct err e;
	check(parseopt_check(table, &e) == 0);

	char *argv[MAX_WORDS + 2];
	argv[0] = "fuzz";
	memcpy(argv + 1, words, (size_t)nwords * sizeof(*words));
	argv[nwords + 1] = NULL;
	e.msg[0] = 0;
	int n = -1;
	enum parseopt_result rc = parseopt_parse(table, nwords + 1, argv, flags, &n, &e);
	check(rc == PARSEOPT_OK || rc == PARSEOPT_ERROR || rc == PARSEOPT_HELP || rc == PARSEOPT_HELP_OPTIONS);
	if (rc == PARSEOPT_ERROR)
		check(e.msg[0] != 0 && !strchr(e.msg, '\n'));
	if (rc == PARSEOPT_OK) {
		check(n >= 0 && n <= nwords && argv[n] == NULL);
		/* the operands are input words, in their order */
		int k = 0;
		for (int i = 0; i < n; i++) {
			while (k < nwords && words[k] != argv[i])
				k++;
			check(k < nwords);
			k++;
		}
	}
	check(o.interval_ms >= 1 && o.interval_ms <= 3600000);
	check(runs >= 1 && runs <= 1000000);
	check(o.tags[o.ntags] == NULL && o.probe_logs[o.nlogs] == NULL);
	check(o.push_labels[o.npush_labels] == NULL && o.npush_labels % 2 == 0);
	check(!metrics.items || metrics.items[metrics.n] == NULL);
	check(!name || *name);
	check(idle_ms >= 0 && idle_ms <= 3600000);
	parseopt_list_release(&metrics);
	record_opts_release(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The words outlive the parse: options keep pointers to them. */
	char *words[MAX_WORDS];
	int nwords = 0;
	const char *p = (const char *)data, *end = p + size;
	while (p < end && nwords < MAX_WORDS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		words[nwords] = xstrndup(p, (size_t)(line_end - p));
		parse_numbers(words[nwords]);
		nwords++;
		p = nl ? nl + 1 : end;
	}
	parse_once(words, nwords, 0);
	parse_once(words, nwords, PARSEOPT_STOP_AT_OPERAND);
	parse_once(words, nwords, PARSEOPT_STOP_AT_OPERAND | PARSEOPT_KEEP_DASHDASH);
	json_t *rec = json_pack("{s:[s,s], s:{s:i, s:i}, s:{s:f, s:f, s:f, s:i}}", "command", "sh", "-c", "exit", "code",
				3, "signal", 0, "summary", "wall_s", 12.5, "user_s", 3600.0, "sys_s", 0.01, "peak_rss_kb", 1000);
	FILE *null = fopen("/dev/null", "w");
	for (int i = 0; i < nwords && null; i++)
		check(time_format_write(rec, words[i], null) == 0);
	if (null)
		fclose(null);
	json_decref(rec);
	for (int i = 0; i < nwords; i++)
		free(words[i]);
	return 0;
}
