/* bench: perfhunt bench [options] -- CMD [ARG...] [::: CMD2 ...]
 *
 * Parses options, expands parameter lists and plans the interleaved schedule
 * (src/stats/bench_plan.c), runs every slot through record_opts_capture so
 * each run is a full run record (exact peaks, faults, phases of that run
 * alone), then hands the finished perfhunt.bench/1 record to the exporters
 * and the history. Nothing here computes a statistic.
 */
#include "cmd/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/record_opts.h"
#include "monitor/monitor.h"
#include "export/bench_csv.h"
#include "export/bench_gobench.h"
#include "export/bench_markdown.h"
#include "export/bench_text.h"
#include "record/benchspool.h"
#include "record/command.h"
#include "record/jsonio.h"
#include "stats/bench_plan.h"
#include "stats/bisectpair.h"
#include "stats/bench_record.h"
#include "session/profbatch.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/quote.h"
#include "util/units.h"
#include "util/xalloc.h"

extern char **environ;

static const char usage_text[] =
	"usage: perfhunt bench [options] 'CMD1' ['CMD2' ...]\n"
	"       perfhunt bench [options] -- CMD [ARG...] [::: CMD2 [ARG...] ...]\n"
	"\n"
	"As hyperfine does, each argument is one command, run by the shell (-S, -N);\n"
	"one made of plain words only runs directly (the shell would only exec it).\n"
	"After --, the words are the command itself, commands separated by :::.\n"
	"\n"
	"Runs each command N times, every run recorded as `perfhunt run` records it\n"
	"(wall and CPU time, exact memory peaks, faults, phases), and prints per\n"
	"command the median, mean ± σ, min … max, peak RSS, user/sys and top phases,\n"
	"with outliers flagged and, for several commands, how much faster the\n"
	"fastest ran. Several commands run interleaved in shuffled blocks, so drift\n"
	"hits each alike. The command's output is discarded (--output, --show-output);\n"
	"its probes are parsed.\n"
	"\n"
	"options:\n";

static const char usage_footer[] =
	"Exit status: 0; 1 when a command exits non-zero or a run times out (without\n"
	"-i), or a file or the history cannot be written; 126/127 when a command\n"
	"cannot be started; 2 on a usage error.\n";

struct bench_cli {
	struct record_opts ro;
	int64_t runs, warmup, min_runs, max_runs;
	bool runs_given;
	bool interleave, shell, ignore_failure, show_output;
	bool shell_none;              /* -N, --shell=none: command strings split into words */
	const char *shell_prog;       /* -S SHELL: command strings run by SHELL -c */
	struct parseopt_list names;   /* -n, --command-name: the commands' names, in order */
	const char *scan[3];          /* -P NAME MIN MAX */
	const char *scan_step;        /* -D STEP */
	int color, progress;          /* --style: 1 on, 0 off, -1 when a terminal */
	bool no_results;              /* --style=none: no results on stdout */
	const char *input;            /* --input FILE: every run's stdin, from its start */
	const char *output;           /* --output FILE: each run's stdout, the file truncated first */
	const char *time_unit;        /* -u: one of bench_text_time_units */
	enum bench_text_sort sort;    /* --sort */
	bool *tmpl_shell;             /* per template: run by launch's sh -c (argv[0] the script) */
	char **tmpl_name;             /* per template: its name, {NAME}s unsubstituted (NULL: from argv) */
	uint64_t seed;
	const char *prepare, *conclude, *setup, *cleanup;
	const char *json_path, *csv_path, *md_path, *go_path, *adoc_path, *org_path;
	const char *attach_name, *attach_pidfile;
	size_t timed_out;             /* runs killed at --timeout */
	struct bench_profiles *profiles; /* --profile: the runs' one perf, and where each run went */
	struct bench_params params;
	bool until_decided;           /* add runs until each command is decided against the first */
};

/* -L NAME V1,V2,... (two words) or -L NAME=V1,V2,... */
static int parameter_list_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg,
			      struct err *e)
{
	const char *eq = strchr(arg, '=');
	const char *list = eq ? eq + 1 : parseopt_take_word(st);
	if (!list)
		return err_set(e, "-L %s: no values (-L NAME V1,V2,...)", arg);
	char *name = eq ? xstrndup(arg, (size_t)(eq - arg)) : xstrdup(arg);
	int rc = bench_params_add(row->value, name, list, e);
	free(name);
	return rc;
}

/* -r N, and -n N: perfhunt's -n was the number of runs before it took
 * hyperfine's meaning; a whole number there still is. */
static int runs_opt(struct bench_cli *b, const char *shown, const char *arg, struct err *e)
{
	if (parse_i64(arg, 1, 1000000, &b->runs, shown, e) < 0)
		return -1;
	b->runs_given = true;
	return 0;
}

static int runs_row(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	return runs_opt(row->value, "--runs", arg, e);
}

static int command_name_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	struct bench_cli *b = row->value;
	bool number = *arg != '\0';
	for (const char *p = arg; *p; p++)
		number &= *p >= '0' && *p <= '9';
	if (number)
		return runs_opt(b, "-n", arg, e);
	b->names.items = xrealloc(b->names.items, (b->names.n + 2) * sizeof(*b->names.items));
	b->names.items[b->names.n++] = arg;
	b->names.items[b->names.n] = NULL;
	return 0;
}

/* -S SHELL, --shell=SHELL; --shell alone: the words after -- are one shell command */
static int shell_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	struct bench_cli *b = row->value;
	if (!arg) {
		b->shell = true;
		return 0;
	}
	if (!*arg)
		return err_set(e, "--shell: expected a shell, or none");
	b->shell_none = !strcmp(arg, "none");
	b->shell_prog = b->shell_none ? NULL : arg;
	return 0;
}

/* -u UNIT, as hyperfine's: the terminal's wall times in one unit */
static int time_unit_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	for (size_t k = 0; k < 3; k++)
		if (!strcmp(arg, bench_text_time_units[k])) {
			((struct bench_cli *)row->value)->time_unit = bench_text_time_units[k];
			return 0;
		}
	return err_set(e, "--time-unit: expected microsecond, millisecond or second, got '%s'", arg);
}

/* --sort, as hyperfine's */
static int sort_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	static const char *const names[] = { "auto", "command", "mean-time" };
	for (size_t k = 0; k < 3; k++)
		if (!strcmp(arg, names[k])) {
			((struct bench_cli *)row->value)->sort = (enum bench_text_sort)k;
			return 0;
		}
	return err_set(e, "--sort: expected auto, command or mean-time, got '%s'", arg);
}

/* --style, as hyperfine's: what of the terminal output is shown */
static int style_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	struct bench_cli *b = row->value;
	static const char *const names[] = { "auto", "basic", "full", "nocolor", "color", "none" };
	static const int color[] = { -1, 0, 1, 0, 1, 0 }, progress[] = { -1, 0, 1, -1, 0, 0 };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i])) {
			b->color = color[i];
			b->progress = progress[i];
			b->no_results = i == 5;
			return 0;
		}
	return err_set(e, "--style: expected auto, basic, full, nocolor, color or none, got '%s'", arg);
}

/* --input FILE: opened on perfhunt's stdin, which every run inherits, and
 * rewound before each run; a pipe cannot be rewound, so it is refused. */
static int open_input(const char *path, struct err *e)
{
	const char *file = strcmp(path, "null") ? path : "/dev/null";
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, "--input: cannot open '%s'", file);
	int rc = 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		rc = err_set(e, "--input: '%s' cannot be read again from its start (a pipe?): give a file", file);
	else if (dup2(fd, STDIN_FILENO) < 0) /* dup2 leaves the copy open across exec */
		rc = err_sys(e, "--input: cannot make '%s' stdin", file);
	close(fd);
	return rc;
}

/* -P NAME MIN MAX: three words */
static int scan_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	struct bench_cli *b = row->value;
	b->scan[0] = arg;
	b->scan[1] = parseopt_take_word(st);
	b->scan[2] = b->scan[1] ? parseopt_take_word(st) : NULL;
	if (!b->scan[2])
		return err_set(e, "-P %s: expected NAME MIN MAX", arg);
	return 0;
}

/* -P NAME MIN MAX [-D STEP] as the list -L NAME MIN,MIN+STEP,...,MAX. As in
 * hyperfine, MIN and MAX are whole numbers unless a STEP is given. */
static int scan_to_list(struct bench_cli *b, struct err *e)
{
	double lo, hi, step = 1;
	if (!b->scan[0])
		return b->scan_step ? err_set(e, "-D/--parameter-step-size needs -P") : 0;
	if (parse_double(b->scan[1], -1e15, 1e15, &lo, "-P MIN", e) < 0 ||
	    parse_double(b->scan[2], -1e15, 1e15, &hi, "-P MAX", e) < 0)
		return -1;
	if (b->scan_step) {
		if (parse_double(b->scan_step, 0, 1e15, &step, "-D", e) < 0 || step == 0)
			return err_set(e, "-D: expected a positive step, got '%s'", b->scan_step);
	} else if (lo != (double)(int64_t)lo || hi != (double)(int64_t)hi) {
		return err_set(e, "-P %s %s %s: MIN and MAX are whole numbers without -D STEP", b->scan[0], b->scan[1],
			       b->scan[2]);
	}
	if (hi < lo)
		return err_set(e, "-P %s: MAX %s is below MIN %s", b->scan[0], b->scan[2], b->scan[1]);
	double n = floor((hi - lo) / step * (1 + 1e-12)) + 1;
	if (n > BENCH_PLAN_MAX_COMMANDS)
		return err_set(e, "-P %s: %.0f values (at most %d)", b->scan[0], n, BENCH_PLAN_MAX_COMMANDS);
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);
	for (size_t i = 0; i < (size_t)n; i++)
		fprintf(f, "%s%.12g", i ? "," : "", lo + (double)i * step);
	fclose(f);
	int rc = bench_params_add(&b->params, b->scan[0], list, e);
	free(list);
	return rc;
}

/* hyperfine's run counts: -r exactly; else 10 at least -m and at most -M. */
static int settle_runs(struct bench_cli *b, struct err *e)
{
	if (b->runs_given && (b->min_runs || b->max_runs))
		return err_set(e, "give either --runs or --min-runs/--max-runs");
	if (b->min_runs && b->max_runs && b->min_runs > b->max_runs)
		return err_set(e, "--min-runs %lld is above --max-runs %lld", (long long)b->min_runs,
			       (long long)b->max_runs);
	if (b->min_runs && b->runs < b->min_runs)
		b->runs = b->min_runs;
	if (b->max_runs && b->runs > b->max_runs)
		b->runs = b->max_runs;
	return 0;
}

/* hyperfine's --output WHERE (run's -o/--output row, read here): null and
 * pipe discard the commands' output, inherit shows it, a path (it must hold
 * a '/', as hyperfine asks, so a misspelt word is no file) gets each run's
 * stdout, stderr dropped. The output is read for probes in every case.
 * Returns 0, or -1 with *status set. */
static int output_opt(struct bench_cli *b, int *status)
{
	const char *where = b->ro.json_path;
	b->ro.json_path = NULL;
	if (!where)
		return 0;
	if (b->show_output) {
		*status = cmd_usage_error("bench", "give --show-output or --output, not both");
		return -1;
	}
	if (!strcmp(where, "null") || !strcmp(where, "pipe"))
		return 0;
	if (!strcmp(where, "inherit")) {
		b->show_output = true;
		b->ro.discard_output = false;
	} else if (strchr(where, '/')) {
		b->output = where;
	} else {
		*status = cmd_usage_error("bench", "--output: expected null, pipe, inherit or a file path, got '%s' "
					  "(a file in this directory: ./%s)", where, where);
		return -1;
	}
	return 0;
}

/* Parses the options; returns the number of command words (moved to
 * argv[0..n)), or -1 when cmd_bench is done with *status. */
static int parse_options(struct bench_cli *b, int argc, char **argv, int *status)
{
	int64_t seed = -1, attach = 0;
	struct parseopt shared[RECORD_OPTS_NROWS];
	record_opts_rows(&b->ro, RECORD_OPTS_FOR_BENCH, shared);
	struct parseopt attach_rows[RECORD_OPTS_ATTACH_NROWS];
	record_opts_attach_rows(&b->ro, &attach, &b->attach_name, &b->attach_pidfile, attach_rows);
	const struct parseopt table[] = {
		PARSEOPT_CALLBACK('r', "runs", b, "N", "timed runs per command (default 10)", runs_row),
		PARSEOPT_I64('m', "min-runs", &b->min_runs, "N", "at least N runs (default 10 runs)", 1, 1000000),
		PARSEOPT_I64('M', "max-runs", &b->max_runs, "N", "at most N runs", 1, 1000000),
		PARSEOPT_CALLBACK('n', "command-name", b, "NAME",
				  "the next command's name (repeatable; {NAME}s are\nreplaced); -n N with a whole number is -r N",
				  command_name_opt),
		PARSEOPT_FLAG(0, "until-decided", &b->until_decided,
			      "start with --min-runs (default 5), then add\n"
			      "interleaved runs until each command is different\n"
			      "from the first or the same (the rule of 'perfhunt\n"
			      "bisect': wall time and phases, 10 %), at most\n"
			      "--max-runs (default 30)"),
		PARSEOPT_I64('w', "warmup", &b->warmup, "N", "untimed runs per command first (default 0)", 0, 1000000),
		PARSEOPT_CALLBACK('L', "parameter-list", &b->params, "NAME V1,V2,...",
				  "run once per value with {NAME} replaced in every\n"
				  "argument (also NAME=V1,V2); repeatable: every\ncombination", parameter_list_opt),
		PARSEOPT_CALLBACK('P', "parameter-scan", b, "NAME MIN MAX",
				  "run once per value MIN, MIN+STEP, ... MAX with {NAME}\nreplaced (whole numbers unless -D)",
				  scan_opt),
		PARSEOPT_STRING('D', "parameter-step-size", &b->scan_step, "STEP", "the step of -P (default 1)"),
		PARSEOPT_STRING(0, "prepare", &b->prepare, "CMD", "shell command before every run (not measured)"),
		PARSEOPT_STRING(0, "conclude", &b->conclude, "CMD", "shell command after every run (not measured)"),
		PARSEOPT_STRING(0, "setup", &b->setup, "CMD", "shell command once before the bench"),
		PARSEOPT_STRING(0, "cleanup", &b->cleanup, "CMD", "shell command once after the bench"),
		{ .type = PARSEOPT_TYPE_CALLBACK, .short_name = 'S', .long_name = "shell", .value = b, .argh = "SHELL",
		  .help = "run the command strings with SHELL -c (default sh;\nnone: as -N); --shell alone after --: the words\n"
			  "(between :::) joined are one shell command",
		  .flags = PARSEOPT_OPTIONAL, .cb = shell_opt },
		PARSEOPT_FLAG('N', NULL, &b->shell_none, "no shell: each command string split into words"),
		PARSEOPT_FLAG(0, "show-output", &b->show_output, "show the commands' output (default: discarded)"),
		PARSEOPT_STRING(0, "input", &b->input, "FILE",
				"every run reads FILE from its start on stdin\n(null: /dev/null), as hyperfine's"),
		PARSEOPT_CALLBACK('u', "time-unit", b, "UNIT",
				  "the wall times on the terminal in microsecond,\nmillisecond or second (default: each its own)",
				  time_unit_opt),
		PARSEOPT_CALLBACK(0, "sort", b, "ORDER",
				  "auto (default: the summary by median time), command\n(as given), mean-time (all by mean time)",
				  sort_opt),
		PARSEOPT_CALLBACK(0, "style", b, "STYLE",
				  "auto (default), basic (no color, no progress bar),\nfull (both), nocolor, color (no progress bar),\n"
				  "none (no progress bar, no results on stdout)", style_opt),
		PARSEOPT_FLAG('i', "ignore-failure", &b->ignore_failure, "keep going when a command exits non-zero"),
		PARSEOPT_CLEAR(0, "no-interleave", &b->interleave, "all runs of the first command, then the next"),
		PARSEOPT_I64(0, "seed", &seed, "N", "seed of the interleaved order (default: random,\nrecorded)", 0,
			     INT64_MAX),
		PARSEOPT_STRING(0, "export-json", &b->json_path, "FILE", "perfhunt.bench/1 record with every run"),
		PARSEOPT_STRING(0, "export-csv", &b->csv_path, "FILE", "one row per run: parameters and every metric"),
		PARSEOPT_STRING(0, "export-markdown", &b->md_path, "FILE", "the results table in markdown"),
		PARSEOPT_STRING(0, "export-asciidoc", &b->adoc_path, "FILE", "the results table in AsciiDoc"),
		PARSEOPT_STRING(0, "export-orgmode", &b->org_path, "FILE", "the results table in Org mode"),
		PARSEOPT_STRING(0, "export-gobench", &b->go_path, "FILE", "Go benchmark format, for benchstat"),
		PARSEOPT_INCLUDE(attach_rows),
		PARSEOPT_CALLBACK(0, "timeout", &b->ro.timeout_ms, "TIME",
				  "kill a run's tree after TIME (e.g. 30s): recorded as\nfailed, with its partial timeline; the bench goes on",
				  cmd_opt_duration),
		PARSEOPT_GROUP("recording options, as for 'perfhunt run':"),
		PARSEOPT_INCLUDE(shared),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "bench", .usage = usage_text, .footer = usage_footer,
					  .table = table, .flags = PARSEOPT_KEEP_DASHDASH };
	int n = cmd_parse_options(&opts, argc, argv, status);
	if (n < 0)
		return -1;
	struct err e;
	if (settle_runs(b, &e) < 0 || scan_to_list(b, &e) < 0) {
		*status = cmd_usage_error("bench", "%s", e.msg);
		return -1;
	}
	b->ro.discard_output = !b->show_output;
	if (b->until_decided) {
		if (b->runs_given) {
			*status = cmd_usage_error("bench", "--until-decided takes --min-runs and --max-runs, not --runs");
			return -1;
		}
		b->runs = b->min_runs ? b->min_runs : 5;
		if (!b->max_runs)
			b->max_runs = 30;
		if (b->runs > b->max_runs)
			b->runs = b->max_runs;
	}
	if (seed >= 0)
		b->seed = (uint64_t)seed;
	b->ro.daemon_pid = (pid_t)attach;
	if (output_opt(b, status) < 0)
		return -1;
	if (b->ro.csv_path) {
		*status = cmd_usage_error("bench", "--csv is per run; use --export-csv");
		return -1;
	}
	if ((b->ro.daemon_pid > 0) + (b->attach_name != NULL) + (b->attach_pidfile != NULL) > 1) {
		*status = cmd_usage_error("bench", "give one of --attach, --attach-name, --attach-pidfile");
		return -1;
	}
	if (b->runs * (b->warmup + 1) > 10000000) {
		*status = cmd_usage_error("bench", "--runs %lld with --warmup %lld is too many runs",
					  (long long)b->runs, (long long)b->warmup);
		return -1;
	}
	return n;
}

/* Appends the words of s (split at spaces and tabs) to the NULL-terminated
 * argv of *n words; returns how many it added. */
static size_t add_words(char ***argv, size_t *n, const char *s)
{
	size_t added = 0;
	for (const char *p = s; *p;) {
		p += strspn(p, " \t");
		size_t len = strcspn(p, " \t");
		if (!len)
			break;
		*argv = xrealloc(*argv, (*n + 2) * sizeof(**argv));
		(*argv)[(*n)++] = xstrndup(p, len);
		(*argv)[*n] = NULL;
		added++;
		p += len;
	}
	return added;
}

/* s split into words, after shell's words and "-c" when shell is given;
 * NULL when s (or shell) has no word. */
static char **split_words(const char *shell, const char *s)
{
	char **argv = xcalloc(1, sizeof(*argv));
	size_t n = 0;
	bool ok = true;
	if (shell) {
		ok = add_words(&argv, &n, shell) > 0;
		argv = xrealloc(argv, (n + 3) * sizeof(*argv));
		argv[n++] = xstrdup("-c");
		argv[n++] = xstrdup(s);
		argv[n] = NULL;
	} else {
		ok = add_words(&argv, &n, s) > 0;
	}
	if (!ok) {
		xstrv_free(argv);
		return NULL;
	}
	return argv;
}

/* true when name is a program the shell would find: a path to an executable,
 * or one in a $PATH directory. */
static bool on_path(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");
		char *full = xasprintf("%.*s/%s", (int)len, len ? p : ".", name);
		bool ok = access(full, X_OK) == 0;
		free(full);
		if (ok)
			return true;
		p += len + (p[len] == ':');
	}
	return false;
}

/* true when sh -c s would only split s into words and exec the first: s holds
 * no character the shell acts on (quotes, $, globs, ~, operators, braces for
 * {NAME}), the first word assigns nothing and names a program on $PATH (a
 * builtin such as cd has none). Such a command runs directly, so a bench of
 * 'true' measures true, not a shell as well. */
static bool plain_words(const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:+@%= \t";
	if (s[strspn(s, plain)])
		return false;
	char **argv = split_words(NULL, s);
	bool ok = argv && !strchr(argv[0], '=') && on_path(argv[0]);
	xstrv_free(argv);
	return ok;
}

/* Adds a template: argv (consumed) named name (NULL: its argv), run through
 * launch's shell when shell. */
static void add_template(struct bench_cli *b, char ***tmpl, size_t *ntmpl, char **argv, const char *name, bool shell)
{
	b->tmpl_shell[*ntmpl] = shell;
	b->tmpl_name[*ntmpl] = name ? xstrdup(name) : NULL;
	tmpl[(*ntmpl)++] = argv;
}

/* The words after "--": command templates separated by ":::"; with --shell,
 * each group joined into one script, or each word a script when there is
 * no ":::". */
static int split_argv(struct bench_cli *b, char **words, int n, char ***tmpl, size_t *ntmpl)
{
	bool sep = false;
	for (int i = 0; i < n; i++)
		sep |= !strcmp(words[i], ":::");
	for (int i = 0; i < n;) {
		int j = i;
		if (b->shell && !sep)
			j = i + 1;
		else
			while (j < n && strcmp(words[j], ":::"))
				j++;
		if (j == i)
			return cmd_usage_error("bench", "an empty command around ':::'");
		char **argv;
		if (b->shell) {
			char *script = xjoin(words + i, (size_t)(j - i), " ");
			argv = b->shell_prog ? split_words(b->shell_prog, script) : xcalloc(2, sizeof(*argv));
			if (!argv)
				return cmd_usage_error("bench", "-S: no shell given");
			if (b->shell_prog)
				free(script);
			else
				argv[0] = script;
			add_template(b, tmpl, ntmpl, argv, b->shell_prog ? argv[2] : NULL, !b->shell_prog);
		} else {
			argv = xcalloc((size_t)(j - i) + 1, sizeof(*argv));
			for (int k = i; k < j; k++)
				argv[k - i] = xstrdup(words[k]);
			add_template(b, tmpl, ntmpl, argv, NULL, false);
		}
		bool at_sep = j < n && !strcmp(words[j], ":::");
		if (at_sep && j + 1 == n)
			return cmd_usage_error("bench", "an empty command after ':::'");
		i = j + at_sep;
	}
	return 0;
}

/* Splits the operands into command templates (NULL-terminated argv each). As
 * in hyperfine, each operand before "--" is one command string: run by the
 * shell (-S), split into words (-N), or run directly when the shell would
 * only exec it. The words after "--" (all of them when ":::" is among them,
 * as before perfhunt took hyperfine's habit) are commands as split_argv
 * reads them. */
static int split_commands(struct bench_cli *b, char **words, int n, char ***tmpl, size_t *ntmpl)
{
	*ntmpl = 0;
	int strings = 0; /* the operands before "--" */
	bool sep = false;
	while (strings < n && strcmp(words[strings], "--"))
		sep |= !strcmp(words[strings++], ":::");
	if (sep)
		strings = 0;
	for (int i = 0; i < strings; i++) {
		const char *s = words[i];
		if (!s[strspn(s, " \t")])
			return cmd_usage_error("bench", "an empty command (argument %d)", i + 1);
		char **argv = NULL;
		bool direct = b->shell_none || (!b->shell_prog && plain_words(s));
		if (direct)
			argv = split_words(NULL, s);
		else if (b->shell_prog)
			argv = split_words(b->shell_prog, s);
		else
			argv = xcalloc(2, sizeof(*argv)), argv[0] = xstrdup(s);
		if (!argv)
			return cmd_usage_error("bench", "-S: no shell given");
		add_template(b, tmpl, ntmpl, argv, s, !direct && !b->shell_prog);
	}
	int rc = 0, rest = strings + (strings < n && !strcmp(words[strings], "--"));
	if (rest < n)
		rc = split_argv(b, words + rest, n - rest, tmpl, ntmpl);
	if (rc == 0 && *ntmpl == 0)
		rc = cmd_usage_error("bench", "no command given");
	if (rc == 0 && b->names.n > *ntmpl)
		rc = cmd_usage_error("bench", "%zu names (-n) for %zu commands", b->names.n, *ntmpl);
	for (size_t i = 0; rc == 0 && i < b->names.n; i++) {
		free(b->tmpl_name[i]);
		b->tmpl_name[i] = xstrdup(b->names.items[i]);
	}
	return rc;
}

/* Runs a --prepare/--conclude/--setup/--cleanup shell command, its stdout
 * discarded and stderr shown; 0 when it exited 0, else prints why and -1. */
static int run_hook(const char *what, const char *script)
{
	char sh[] = "sh", dash_c[] = "-c";
	char *script_copy = xstrdup(script);
	char *argv[] = { sh, dash_c, script_copy, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = 0;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(script_copy);
	if (rc != 0) {
		fprintf(stderr, "perfhunt bench: cannot run the %s command: %s\n", what, strerror(rc));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	fprintf(stderr, "perfhunt bench: the %s command failed (status %d): %s\n", what,
		WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), script);
	return -1;
}

struct progress {
	bool on;
	size_t done, total;
	int64_t start_ns;
};

static void progress_draw(struct progress *p, const char *name, bool warmup)
{
	enum { WIDTH = 24 };
	if (!p->on)
		return;
	char bar[WIDTH + 1], eta[48] = "";
	size_t fill = p->total ? p->done * WIDTH / p->total : 0;
	for (size_t i = 0; i < WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[WIDTH] = '\0';
	if (p->done > 0) {
		double left_ms = (double)(clock_mono_ns() - p->start_ns) / 1e6 / (double)p->done *
				 (double)(p->total - p->done);
		char t[32];
		snprintf(eta, sizeof(eta), "  ETA %s", units_ms(left_ms, t, sizeof(t)));
	}
	/* the end of a long command tells most; never cut a UTF-8 sequence */
	size_t len = strlen(name);
	const char *tail = len > 40 ? name + len - 39 : name;
	while ((*tail & 0xC0) == 0x80)
		tail++;
	fprintf(stderr, "\r\033[K  [%s] %zu/%zu%s  %s%s%s", bar, p->done, p->total, eta, warmup ? "warmup: " : "",
		tail != name ? "…" : "", tail);
	fflush(stderr);
}

static void progress_clear(struct progress *p)
{
	if (p->on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

static int markdown_fn(const json_t *rec, FILE *f, struct err *e)
{
	return bench_markdown_write(rec, f) < 0 ? err_set(e, "write error") : 0;
}

static int asciidoc_fn(const json_t *rec, FILE *f, struct err *e)
{
	return bench_asciidoc_write(rec, f) < 0 ? err_set(e, "write error") : 0;
}

static int orgmode_fn(const json_t *rec, FILE *f, struct err *e)
{
	return bench_orgmode_write(rec, f) < 0 ? err_set(e, "write error") : 0;
}

/* An export that reads every run (CSV, Go benchmark lines): written as it
 * reads them back, one at a time, never whole in memory. */
typedef int (*runs_export_fn)(const json_t *rec, const struct bench_runs *src, FILE *f, struct err *e);

struct runs_export {
	runs_export_fn fn;
	const json_t *rec;
	const struct bench_runs *src;
	struct err *e;
};

static int write_runs_export(FILE *f, const void *ctx)
{
	const struct runs_export *x = ctx;
	return x->fn(x->rec, x->src, f, x->e);
}

/* Writes path (when asked) as cmd_write_exports does; returns the status. */
static int export_runs(const char *path, runs_export_fn fn, const json_t *rec, const struct bench_runs *src,
		       int status)
{
	if (!path)
		return status;
	struct err e, why = { 0 };
	const struct runs_export x = { fn, rec, src, &why };
	if (jsonio_write_with(path, write_runs_export, &x, &e) < 0) {
		if (why.msg[0]) /* the exporter's reason, not only the write's */
			err_set(&e, "cannot write '%s': %s", path, why.msg);
		status = cmd_fail(status ? status : PH_EXIT_FAIL, &e);
	}
	return status;
}

static json_t *options_json(const struct bench_cli *b)
{
	json_t *o = json_pack("{s:I, s:I, s:b, s:I, s:b, s:b, s:i}", "runs", (json_int_t)b->runs, "warmup",
			      (json_int_t)b->warmup, "interleave", b->interleave, "seed", (json_int_t)b->seed, "shell",
			      b->shell, "ignore_failure", b->ignore_failure, "interval_ms", b->ro.interval_ms);
	if (b->ro.timeout_ms > 0)
		json_object_set_new(o, "timeout_s", json_real(b->ro.timeout_ms / 1000));
	if (b->ro.daemon_pid > 0) /* each run attaches to this daemon for the command's lifetime */
		json_object_set_new(o, "attach_pid", json_integer(b->ro.daemon_pid));
	const char *keys[] = { "prepare", "conclude", "setup", "cleanup" };
	const char *vals[] = { b->prepare, b->conclude, b->setup, b->cleanup };
	for (size_t i = 0; i < 4; i++)
		if (vals[i])
			json_object_set_new(o, keys[i], json_string(vals[i]));
	return o;
}

/* Name of a planned command: its -n name or command string with the
 * parameters substituted, the script itself, or the argv shell-quoted. */
static char *command_name(const struct bench_cli *b, const struct bench_plan_cmd *c, json_t *jargv)
{
	const char *name = b->tmpl_name[c->template_i];
	if (name)
		return bench_params_subst(&b->params, c->combo, name);
	if (b->tmpl_shell[c->template_i])
		return xstrdup(c->argv[0]);
	char *s = command_text(jargv);
	return s ? s : xstrdup("?");
}

/* --output FILE: opened afresh (truncated) for each run, as hyperfine does,
 * so the file holds the last run's stdout; the descriptor in b->ro.stdout_fd
 * (above perfhunt's own three). Returns 0, or -1 with the error said. */
static int open_output(struct bench_cli *b, struct progress *pr)
{
	int fd = open(b->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd >= 0 && fd <= STDERR_FILENO) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
		close(fd);
		fd = high;
	}
	if (fd < 0) {
		progress_clear(pr);
		fprintf(stderr, "perfhunt bench: --output: cannot open '%s': %s\n", b->output, strerror(errno));
		return -1;
	}
	b->ro.stdout_fd = fd;
	return 0;
}

/* Runs the schedule; returns the exit status (0 when every slot ran). */
/* --profile: one perf serves every run (session/profbatch.h) and is read
 * after the last; each run kept in the spool is noted where it went, so its
 * profile can be put in its record then. */
struct bench_profiles {
	struct benchspool *spool;
	const json_t *rec;
	struct { size_t cmd, k; } *at; /* by the run's number in the batch; cmd SIZE_MAX: not kept */
	size_t n;
	int status;
};

static void profiles_kept(struct bench_profiles *p, size_t run, size_t cmd, struct benchspool *spool,
			  const json_t *rec)
{
	if (run == PROFBATCH_NONE)
		return;
	const struct bench_runs src = benchspool_runs(spool);
	p->spool = spool;
	p->rec = rec;
	if (run >= p->n) {
		p->at = xrealloc(p->at, (run + 1) * sizeof(*p->at));
		for (; p->n <= run; p->n++)
			p->at[p->n].cmd = SIZE_MAX; /* warmups between: not kept */
	}
	p->at[run].cmd = cmd;
	p->at[run].k = bench_runs_count(&src, rec, cmd) - 1;
}

/* A run's profile read: into its record in the spool. */
static void profile_read(void *arg, size_t run, json_t *profile, const char *why)
{
	struct bench_profiles *p = arg;
	struct err e;
	if (run >= p->n || p->at[run].cmd == SIZE_MAX) {
		json_decref(profile);
		return;
	}
	const struct bench_runs src = benchspool_runs(p->spool);
	json_t *rec = bench_runs_load(&src, p->rec, p->at[run].cmd, p->at[run].k, &e);
	if (rec && profile)
		json_object_set_new(rec, "profile", profile);
	else if (rec && json_is_array(json_object_get(rec, "notes")))
		json_array_append_new(json_object_get(rec, "notes"), json_string(why));
	else
		json_decref(profile);
	if (!rec || benchspool_replace(p->spool, p->at[run].cmd, p->at[run].k, rec, &e) < 0)
		p->status = cmd_fail(PH_EXIT_FAIL, &e);
	json_decref(rec);
}

static void profile_warning(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "perfhunt: %s\n", msg);
}

/* After the last run: perf read once, every kept run given its profile. */
static int read_profiles(struct bench_cli *b)
{
	struct profbatch_sink sink = { .arg = b->profiles, .profile = profile_read, .warn = profile_warning };
	struct err e;
	if (profbatch_finish(b->ro.profile_batch, &sink, &e) < 0)
		profile_warning(NULL, e.msg);
	return b->profiles->status;
}

static int execute(struct bench_cli *b, struct bench_plan_cmd *cmds, size_t ncmd, json_t *rec,
		   struct benchspool *spool)
{
	size_t nslots = ncmd * (size_t)(b->runs + b->warmup);
	struct bench_slot *slots = xcalloc(nslots, sizeof(*slots));
	size_t *done = xcalloc(2 * ncmd, sizeof(*done)); /* timed, warmup runs per command */
	bench_plan_schedule(ncmd, (size_t)b->runs, (size_t)b->warmup, b->interleave, b->seed, slots);
	struct progress pr = { .on = !b->ro.quiet && (b->progress < 0 ? isatty(STDERR_FILENO) : b->progress), .total = nslots,
			       .start_ns = clock_mono_ns() };
	json_t *order = json_object_get(rec, "order"); /* --until-decided: a later batch adds to it */
	order = order ? json_incref(order) : json_array();
	int status = PH_EXIT_OK;
	monitor_keep_sockets(true); /* one family lookup and registration for all runs */
	for (size_t s = 0; s < nslots && status == PH_EXIT_OK; s++) {
		struct bench_plan_cmd *c = &cmds[slots[s].cmd];
		const json_t *jc = json_array_get(json_object_get(rec, "commands"), slots[s].cmd);
		const char *name = json_string_value(json_object_get(jc, "name"));
		progress_draw(&pr, name, slots[s].warmup);
		if (b->prepare) {
			char *script = bench_params_subst(&b->params, c->combo, b->prepare);
			int rc = run_hook("--prepare", script);
			free(script);
			if (rc < 0) {
				status = PH_EXIT_FAIL;
				break;
			}
		}
		bool shell = b->tmpl_shell[c->template_i];
		if (b->input && lseek(STDIN_FILENO, 0, SEEK_SET) < 0) { /* each run reads the whole file */
			progress_clear(&pr);
			fprintf(stderr, "perfhunt bench: --input: cannot rewind stdin: %s\n", strerror(errno));
			status = PH_EXIT_FAIL;
			break;
		}
		struct launch_opts lo = { .argv = c->argv, .shell = shell, .capture = true,
					  .probe_fd = b->ro.probes };
		json_t *run = NULL;
		if (b->output && open_output(b, &pr) < 0) {
			status = PH_EXIT_FAIL;
			break;
		}
		const size_t profiled = profbatch_last(b->ro.profile_batch);
		int st = record_opts_capture(&b->ro, &lo, c->argv, false, &run, NULL);
		if (b->output) {
			close(b->ro.stdout_fd);
			b->ro.stdout_fd = 0;
		}
		pr.done++;
		if (!run) { /* not startable (126/127, message printed) or the monitor failed */
			progress_clear(&pr);
			status = st ? st : PH_EXIT_FAIL;
			break;
		}
		if (b->conclude) {
			char *script = bench_params_subst(&b->params, c->combo, b->conclude);
			int rc = run_hook("--conclude", script);
			free(script);
			if (rc < 0)
				status = PH_EXIT_FAIL;
		}
		bool interrupted = st == 128 + SIGINT || st == 128 + SIGTERM;
		if (json_is_true(json_object_get(json_object_get(run, "exit"), "timed_out"))) {
			/* killed at --timeout: kept apart with its timeline, and the bench goes on */
			progress_clear(&pr);
			if (!b->ro.quiet)
				fprintf(stderr, "perfhunt bench: '%s' timed out (%s %zu of %lld): its tree was killed\n", name,
					slots[s].warmup ? "warmup" : "run", done[2 * slots[s].cmd + slots[s].warmup] + 1,
					(long long)(slots[s].warmup ? b->warmup : b->runs));
			done[2 * slots[s].cmd + slots[s].warmup]++;
			b->timed_out++;
			if (slots[s].warmup)
				json_decref(run);
			else
				bench_record_add_failed(rec, slots[s].cmd, run);
			continue;
		}
		if (st != 0 && (!b->ignore_failure || interrupted)) {
			progress_clear(&pr);
			fprintf(stderr, "perfhunt bench: '%s' %s with status %d (%s %zu of %lld)%s\n", name,
				interrupted ? "was interrupted" : "exited", st, slots[s].warmup ? "warmup" : "run",
				done[2 * slots[s].cmd + slots[s].warmup] + 1, (long long)(slots[s].warmup ? b->warmup : b->runs),
				interrupted ? "" : "; pass -i to ignore failures");
			if (!interrupted && b->output) {
				fprintf(stderr, "perfhunt bench: its stdout is in '%s'\n", b->output);
			} else if (!interrupted && !b->show_output) {
				struct quote_line l = { 0 };
				for (char **a = c->argv; *a; a++)
					quote_shell(&l, *a, true);
				fprintf(stderr, "perfhunt bench: its output was discarded (--show-output shows it); "
					"see it with: perfhunt run%s -- %s\n", shell ? " --shell" : "", l.s);
				free(l.s);
			}
			json_decref(run);
			status = PH_EXIT_FAIL;
			break;
		}
		done[2 * slots[s].cmd + slots[s].warmup]++;
		if (slots[s].warmup) {
			json_decref(run);
			continue;
		}
		/* the run is kept in the spool, not in memory: the bench holds only
		 * where it is (and, at the end, a value per run per metric) */
		struct err e;
		bench_record_prepare_run(rec, run);
		int kept = benchspool_add(spool, slots[s].cmd, run, &e);
		json_decref(run);
		if (kept == 0 && profbatch_last(b->ro.profile_batch) != profiled)
			profiles_kept(b->profiles, profbatch_last(b->ro.profile_batch), slots[s].cmd, spool, rec);
		if (kept < 0) {
			progress_clear(&pr);
			status = cmd_fail(PH_EXIT_FAIL, &e);
			break;
		}
		json_array_append_new(order, json_integer((json_int_t)slots[s].cmd));
	}
	monitor_keep_sockets(false);
	progress_clear(&pr);
	json_object_set_new(rec, "order", order);
	free(slots);
	free(done);
	return status;
}

/* Each command after the first judged against it (stats/bisectpair.c):
 * the least decided verdict, and its line in why. */
static enum bisectrule_verdict judge_commands(const json_t *rec, const struct bench_runs *src, size_t ncmd,
					      size_t *fewest, json_t *verdicts, char *why, size_t why_n)
{
	enum bisectrule_verdict worst = BISECTRULE_SAME;
	struct bisectrule r;
	bisectrule_init(&r);
	size_t n0 = bench_runs_count(src, rec, 0);
	*fewest = n0;
	*why = 0;
	for (size_t i = 1; i < ncmd; i++) {
		size_t ni = bench_runs_count(src, rec, i);
		struct metrics_set a, b;
		struct err e;
		struct bisectpair p = { .verdict = BISECTRULE_NOT_YET };
		if (bench_record_metrics(src, rec, 0, &a, &e) == 0) {
			if (bench_record_metrics(src, rec, i, &b, &e) == 0) {
				bisectpair_judge(&r, &a, &b, NULL, 0, &p);
				metrics_set_release(&b);
			}
			metrics_set_release(&a);
		}
		char line[256];
		bisectpair_why(&p, line, sizeof(line));
		const char *name = json_string_value(json_object_get(json_array_get(json_object_get(rec, "commands"), i), "name"));
		json_array_append_new(verdicts, json_pack("{s:I, s:I, s:s, s:I}", "command", (json_int_t)i, "against",
							  (json_int_t)0, "verdict", bisectrule_name(p.verdict), "runs",
							  (json_int_t)(ni < n0 ? ni : n0)));
		if (p.verdict == BISECTRULE_NOT_YET || (worst == BISECTRULE_SAME && p.verdict == BISECTRULE_DIFFERENT) ||
		    !*why) {
			snprintf(why, why_n, "'%s' %s the first%s", name ? name : "?",
				 p.verdict == BISECTRULE_DIFFERENT ? "differs from"
				 : p.verdict == BISECTRULE_SAME	  ? "is the same as"
								  : "is not yet decided against",
				 line);
			if (p.verdict == BISECTRULE_NOT_YET)
				worst = BISECTRULE_NOT_YET;
			else if (worst == BISECTRULE_SAME)
				worst = p.verdict;
		}
		if (ni < *fewest)
			*fewest = ni;
		bisectpair_release(&p);
	}
	return worst;
}

/* --until-decided: batches of interleaved runs of every command until each
 * is decided against the first, or --max-runs; says why it stopped (stderr)
 * and keeps it in the record ("until_decided"). Returns the exit status. */
static int until_decided(struct bench_cli *b, struct bench_plan_cmd *cmds, size_t ncmd, json_t *rec,
			 struct benchspool *spool)
{
	for (;;) {
		size_t fewest;
		char why[512];
		json_t *verdicts = json_array();
		const struct bench_runs src = benchspool_runs(spool);
		enum bisectrule_verdict v = judge_commands(rec, &src, ncmd, &fewest, verdicts, why, sizeof(why));
		bool done = v != BISECTRULE_NOT_YET, full = fewest >= (size_t)b->max_runs;
		if (done || full) {
			json_object_set_new(rec, "until_decided",
					    json_pack("{s:s, s:I, s:I, s:o}", "stopped", done ? "decided" : "max_runs",
						      "max_runs", (json_int_t)b->max_runs, "runs", (json_int_t)fewest,
						      "verdicts", verdicts));
			fprintf(stderr, "bench: %s after %zu runs a command: %s\n",
				done ? "decided" : "stopped at --max-runs, undecided", fewest, why);
			return PH_EXIT_OK;
		}
		json_decref(verdicts);
		size_t step = fewest / 2 > 3 ? fewest / 2 : 3;
		if (step > (size_t)b->max_runs - fewest)
			step = (size_t)b->max_runs - fewest;
		if (!b->ro.quiet)
			fprintf(stderr, "bench: %s: %zu more runs a command\n", why, step);
		b->runs = (int64_t)step;
		b->warmup = 0;
		int status = execute(b, cmds, ncmd, rec, spool);
		if (status != PH_EXIT_OK)
			return status;
	}
}

static int save(const struct bench_cli *b, json_t *rec, const struct bench_runs *src)
{
	struct err e;
	struct store *st;
	int64_t id;
	if (store_open(&st, NULL, &e) < 0 || (store_add_bench(st, rec, src, b->ro.tags, &id, &e) < 0 && (store_close(st), 1))) {
		fprintf(stderr, "perfhunt: bench not saved to the history: %s\n", e.msg);
		return PH_EXIT_FAIL;
	}
	store_close_detached(st);
	if (!b->ro.quiet)
		fprintf(stderr, "saved bench %lld (compare with @bench:%lld or @last, see 'perfhunt history')\n",
			(long long)id, (long long)id);
	return PH_EXIT_OK;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_cli b = { .runs = 10, .interleave = true, .color = -1, .progress = -1 };
	b.tmpl_shell = xcalloc((size_t)argc + 1, sizeof(*b.tmpl_shell));
	b.tmpl_name = xcalloc((size_t)argc + 1, sizeof(*b.tmpl_name));
	record_opts_init(&b.ro);
	bench_params_init(&b.params);
	b.ro.discard_output = true;
	b.seed = (uint64_t)(clock_epoch_ms() ^ getpid()) & 0x7fffffff;
	char ***tmpl = xcalloc((size_t)argc + 1, sizeof(*tmpl));
	size_t ntmpl = 0, ncmd = 0;
	struct bench_plan_cmd *cmds = NULL;
	json_t *rec = NULL;
	struct benchspool *spool = NULL;
	struct bench_profiles profiles = { .status = PH_EXIT_OK };
	struct err e;
	int status = PH_EXIT_USAGE;

	int nwords = parse_options(&b, argc, argv, &status);
	if (nwords < 0)
		goto out;
	if ((status = split_commands(&b, argv, nwords, tmpl, &ntmpl)) != 0)
		goto out;
	bool any_shell = false;
	for (size_t i = 0; i < ntmpl; i++)
		any_shell |= b.tmpl_shell[i];
	b.ro.target = (struct record_opts_target){ any_shell, b.ro.daemon_pid, b.attach_name, b.attach_pidfile };
	if ((status = cmd_find_daemon(b.attach_name, b.attach_pidfile, &b.ro.daemon_pid, &e)) != 0) {
		cmd_fail(status, &e);
		goto out;
	}
	if (bench_plan_expand(tmpl, ntmpl, &b.params, &cmds, &ncmd, &e) < 0) {
		status = cmd_usage_error("bench", "%s", e.msg);
		goto out;
	}
	const char *files[] = { b.json_path, b.csv_path, b.md_path, b.go_path, b.adoc_path, b.org_path, b.output };
	if ((status = record_opts_check_outputs(&b.ro, files, sizeof(files) / sizeof(files[0]))) != 0)
		goto out;
	char started[40];
	clock_format_rfc3339(clock_epoch_ms(), started, sizeof(started));
	rec = bench_record_new(started, options_json(&b));
	for (size_t i = 0; i < ncmd; i++) {
		json_t *jargv = json_array(), *params = json_object();
		for (char **a = cmds[i].argv; *a; a++)
			json_array_append_new(jargv, json_string(*a));
		for (size_t k = 0; k < b.params.n; k++)
			json_object_set_new(params, b.params.items[k].name,
					    json_string(bench_params_value(&b.params, cmds[i].combo, k)));
		char *name = command_name(&b, &cmds[i], jargv);
		bench_record_add_command(rec, name, jargv, params);
		free(name);
	}
	if (b.input && open_input(b.input, &e) < 0) {
		status = cmd_fail(PH_EXIT_USAGE, &e);
		goto out;
	}
	if (b.setup && run_hook("--setup", b.setup) < 0) {
		status = PH_EXIT_FAIL;
		goto out;
	}
	if (benchspool_new(&spool, ncmd, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	const struct bench_runs src = benchspool_runs(spool);
	if (b.ro.profile) {
		b.ro.profile_batch = profbatch_new();
		b.profiles = &profiles;
	}
	status = execute(&b, cmds, ncmd, rec, spool);
	if (status == PH_EXIT_OK && b.until_decided && ncmd > 1)
		status = until_decided(&b, cmds, ncmd, rec, spool);
	if (b.cleanup && run_hook("--cleanup", b.cleanup) < 0 && status == PH_EXIT_OK)
		status = PH_EXIT_FAIL;
	if (status == PH_EXIT_OK && b.ro.profile_batch)
		status = read_profiles(&b);
	if (status != PH_EXIT_OK)
		goto out;
	if (bench_record_finish(rec, &src, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	const struct bench_text_style style = { .color = b.color < 0 ? cmd_use_color(STDOUT_FILENO) : b.color,
						 .time_unit = b.time_unit, .sort = b.sort };
	if (!b.no_results && bench_text_write(rec, &src, &style, stdout) < 0)
		status = PH_EXIT_FAIL;
	if (b.json_path && benchspool_write_record(b.json_path, rec, &src, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		/* a long bench's record is not lost to a full disk */
		char *elsewhere = benchspool_write_elsewhere(rec, &src, &e);
		if (elsewhere)
			fprintf(stderr, "perfhunt: the bench record was written to '%s' instead\n", elsewhere);
		else
			cmd_fail(status, &e);
		free(elsewhere);
	}
	const struct cmd_export ex[] = { { b.md_path, markdown_fn }, { b.adoc_path, asciidoc_fn },
					 { b.org_path, orgmode_fn } };
	status = cmd_write_exports(ex, sizeof(ex) / sizeof(ex[0]), rec, status);
	status = export_runs(b.csv_path, bench_csv_write, rec, &src, status);
	status = export_runs(b.go_path, bench_gobench_write, rec, &src, status);
	if (b.timed_out && !b.ignore_failure && status == PH_EXIT_OK)
		status = PH_EXIT_FAIL; /* recorded and reported, but the bench did not run clean */
	fflush(stdout);
	if (b.ro.save && save(&b, rec, &src) != PH_EXIT_OK)
		status = PH_EXIT_FAIL;
	/* local records first, then the network: a gateway that is down loses nothing */
	if ((b.ro.fleet.openmetrics_path || b.ro.fleet.push_url) && fleet_after_record(&b.ro.fleet, rec, &src, &e) < 0)
		status = cmd_fail(PH_EXIT_FAIL, &e);
	status = cmd_finish_stdout(status);
out:
	profbatch_free(b.ro.profile_batch);
	free(profiles.at);
	json_decref(rec);
	benchspool_free(spool);
	bench_plan_free(cmds, ncmd);
	for (size_t i = 0; i < ntmpl; i++) {
		for (char **a = tmpl[i]; *a; a++)
			free(*a);
		free(tmpl[i]);
		free(b.tmpl_name[i]);
	}
	free(tmpl);
	free(b.tmpl_name);
	free(b.tmpl_shell);
	free(b.names.items);
	bench_params_release(&b.params);
	record_opts_release(&b.ro);
	return status;
}
