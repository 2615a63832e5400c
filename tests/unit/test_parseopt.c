/* Unit tests of src/util/parseopt: every row type, getopt's spellings
 * (bundles, -ovalue, --opt=value, prefixes), operands in any position or
 * stopping at the first, the one-line errors, and the help written from the
 * same table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/parseopt.h"

struct fixture {
	bool quiet, probes, shell;
	const char *out, *name;
	int interval;
	int64_t runs;
	struct parseopt_list tags;
	char pairs[256];
	int called;
	double idle_ms;
	const char *shell_prog; /* --sh[=SHELL]: "" alone */
};

/* -L NAME VALUES, or -L NAME=VALUES: a callback that takes a second word. */
static int pair_cb(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	struct fixture *f = row->value;
	const char *values = strchr(arg, '=');
	if (!values && !(values = parseopt_take_word(st)))
		return err_set(e, "-L %s: no values", arg);
	size_t n = strlen(f->pairs);
	snprintf(f->pairs + n, sizeof(f->pairs) - n, "[%s|%s]", arg, values);
	return 0;
}

static int count_cb(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	(void)e;
	assert_null(arg);
	((struct fixture *)row->value)->called += (int)row->defval;
	return 0;
}

/* --shell[=SHELL], -S SHELL: an optional value */
static int shell_cb(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	(void)e;
	((struct fixture *)row->value)->shell_prog = arg ? arg : "";
	return 0;
}

static struct fixture fx;
static struct parseopt shared_rows[] = {
	PARSEOPT_INT(0, "interval", &fx.interval, "MS", "sampling interval", 1, 3600000),
	PARSEOPT_CLEAR(0, "no-probes", &fx.probes, "parse no probes"),
	PARSEOPT_END(),
};
static struct parseopt table[] = {
	PARSEOPT_FLAG('q', "quiet", &fx.quiet, "no summary"),
	PARSEOPT_STRING('o', "output", &fx.out, "FILE", "write the record to FILE"),
	PARSEOPT_I64('n', "runs", &fx.runs, "N", "runs (default 10)", 1, 1000000),
	PARSEOPT_INCLUDE(shared_rows),
	PARSEOPT_LIST('t', "tag", &fx.tags, "NAME", "a tag (repeatable)"),
	PARSEOPT_CALLBACK('L', "parameter-list", &fx, "NAME V1,V2", "a parameter list\nrepeatable", pair_cb),
	{ .type = PARSEOPT_TYPE_CALLBACK, .long_name = "count", .value = &fx, .help = "count", .defval = 2,
	  .cb = count_cb },
	{ .type = PARSEOPT_TYPE_STRING, .long_name = "name", .value = &fx.name, .argh = "S",
	  .flags = PARSEOPT_NONEMPTY | PARSEOPT_HIDDEN },
	PARSEOPT_FLAG(0, "push", &fx.shell, "push"),
	PARSEOPT_FLAG(0, "push-job", &fx.shell, "push job"),
	PARSEOPT_DURATION(0, "idle", &fx.idle_ms, "TIME", "idle time", 1, 0, 60000),
	{ .type = PARSEOPT_TYPE_CALLBACK, .short_name = 'S', .long_name = "sh", .value = &fx, .argh = "SHELL",
	  .help = "the shell", .flags = PARSEOPT_OPTIONAL, .cb = shell_cb },
	PARSEOPT_END(),
};

static int setup(void **state)
{
	(void)state;
	parseopt_list_release(&fx.tags);
	memset(&fx, 0, sizeof(fx));
	fx.probes = true;
	fx.interval = 100;
	fx.runs = 10;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	parseopt_list_release(&fx.tags);
	return 0;
}

/* Parses the words (argv[0] "cmd" added); returns the result, *n the operands. */
static enum parseopt_result parse(char **words, unsigned flags, int *n, struct err *e)
{
	static char *argv[64];
	int argc = 1;
	argv[0] = "cmd";
	while (words[argc - 1])
		argv[argc] = words[argc - 1], argc++;
	argv[argc] = NULL;
	e->msg[0] = 0;
	enum parseopt_result rc = parseopt_parse(table, argc, argv, flags, n, e);
	memcpy(words, argv, sizeof(*words) * (size_t)(*n + 1));
	return rc;
}

#define WORDS(...) ((char *[]){ __VA_ARGS__, NULL })

static void test_types(void **state)
{
	(void)state;
	struct err e;
	int n;
	char **w = WORDS("-q", "--output", "x.json", "--runs=7", "--interval", "50", "--no-probes", "-t", "a",
			 "--tag=b", "--count", "--count");
	assert_int_equal(parse(w, 0, &n, &e), PARSEOPT_OK);
	assert_int_equal(n, 0);
	assert_null(w[0]);
	assert_true(fx.quiet);
	assert_string_equal(fx.out, "x.json");
	assert_int_equal(fx.runs, 7);
	assert_int_equal(fx.interval, 50);
	assert_false(fx.probes);
	assert_int_equal(fx.tags.n, 2);
	assert_string_equal(fx.tags.items[0], "a");
	assert_string_equal(fx.tags.items[1], "b");
	assert_null(fx.tags.items[2]);
	assert_int_equal(fx.called, 4);
}

static void test_short_spellings(void **state)
{
	(void)state;
	struct err e;
	int n;
	/* a bundle whose last option takes the next word; -ovalue; -n7 */
	assert_int_equal(parse(WORDS("-qo", "out.json", "-n7"), 0, &n, &e), PARSEOPT_OK);
	assert_true(fx.quiet);
	assert_string_equal(fx.out, "out.json");
	assert_int_equal(fx.runs, 7);
	assert_int_equal(parse(WORDS("-qoother"), 0, &n, &e), PARSEOPT_OK);
	assert_string_equal(fx.out, "other");
	/* a value is taken whatever it looks like, as getopt does */
	assert_int_equal(parse(WORDS("-o", "--", "x"), 0, &n, &e), PARSEOPT_OK);
	assert_string_equal(fx.out, "--");
	assert_int_equal(n, 1);
	assert_int_equal(parse(WORDS("--interval", "--"), 0, &n, &e), PARSEOPT_ERROR);
	assert_string_equal(e.msg, "--interval: expected an integer, got '--'");
}

static void test_prefixes(void **state)
{
	(void)state;
	struct err e;
	int n;
	assert_int_equal(parse(WORDS("--int=20", "--qu", "--out", "f"), 0, &n, &e), PARSEOPT_OK);
	assert_int_equal(fx.interval, 20);
	assert_true(fx.quiet);
	assert_string_equal(fx.out, "f");
	/* an exact name wins over the longer names it begins */
	assert_int_equal(parse(WORDS("--push"), 0, &n, &e), PARSEOPT_OK);
	assert_int_equal(parse(WORDS("--pu"), 0, &n, &e), PARSEOPT_ERROR);
	assert_string_equal(e.msg, "option '--pu' is ambiguous (--push, --push-job)");
	assert_int_equal(parse(WORDS("--hel"), 0, &n, &e), PARSEOPT_HELP);
}

static void test_operands(void **state)
{
	(void)state;
	struct err e;
	int n;
	char **w = WORDS("a.json", "-q", "-", "-o", "x.html", "b.json", "--", "-n", "--tag");
	assert_int_equal(parse(w, 0, &n, &e), PARSEOPT_OK);
	assert_int_equal(n, 5);
	assert_string_equal(w[0], "a.json");
	assert_string_equal(w[1], "-");
	assert_string_equal(w[2], "b.json");
	assert_string_equal(w[3], "-n");
	assert_string_equal(w[4], "--tag");
	assert_null(w[5]);
	assert_string_equal(fx.out, "x.html");
	assert_int_equal(fx.runs, 10);

	/* a command follows: its own options are its own */
	w = WORDS("-q", "sleep", "-n", "1", "--", "x");
	setup(NULL);
	assert_int_equal(parse(w, PARSEOPT_STOP_AT_OPERAND, &n, &e), PARSEOPT_OK);
	assert_int_equal(n, 5);
	assert_string_equal(w[0], "sleep");
	assert_string_equal(w[3], "--");
	assert_int_equal(fx.runs, 10);
	w = WORDS("-q", "--", "--runs", "3");
	assert_int_equal(parse(w, PARSEOPT_STOP_AT_OPERAND, &n, &e), PARSEOPT_OK);
	assert_int_equal(n, 2);
	assert_string_equal(w[0], "--runs");
	assert_int_equal(parse(WORDS("x"), 0, &n, &e), PARSEOPT_OK);
	assert_int_equal(n, 1);
	assert_int_equal(parse(WORDS("--"), 0, &n, &e), PARSEOPT_OK);
	assert_int_equal(n, 0);
}

/* A duration with units (a bare number in the row's unit), an optional
 * value only after '=', and a "--" kept for a command that reads it. */
static void test_habits(void **state)
{
	(void)state;
	struct err e;
	int n;
	assert_int_equal(parse(WORDS("--idle", "0.25s"), 0, &n, &e), PARSEOPT_OK);
	assert_true(fx.idle_ms == 250);
	assert_int_equal(parse(WORDS("--idle=40"), 0, &n, &e), PARSEOPT_OK);
	assert_true(fx.idle_ms == 40);
	assert_int_equal(parse(WORDS("--idle", "2m"), 0, &n, &e), PARSEOPT_ERROR);
	assert_non_null(strstr(e.msg, "out of range"));
	assert_int_equal(parse(WORDS("--idle", "5 s"), 0, &n, &e), PARSEOPT_ERROR);
	char **w = WORDS("--sh", "x");
	assert_int_equal(parse(w, 0, &n, &e), PARSEOPT_OK);
	assert_string_equal(fx.shell_prog, "");
	assert_int_equal(n, 1);
	assert_string_equal(w[0], "x");
	assert_int_equal(parse(WORDS("--sh=bash"), 0, &n, &e), PARSEOPT_OK);
	assert_string_equal(fx.shell_prog, "bash");
	assert_int_equal(parse(WORDS("-S", "zsh"), 0, &n, &e), PARSEOPT_OK);
	assert_string_equal(fx.shell_prog, "zsh");
	w = WORDS("a", "-q", "--", "-n", "1");
	assert_int_equal(parse(w, PARSEOPT_KEEP_DASHDASH, &n, &e), PARSEOPT_OK);
	assert_int_equal(n, 4);
	assert_string_equal(w[0], "a");
	assert_string_equal(w[1], "--");
	assert_string_equal(w[2], "-n");
	char *help = parseopt_help(table);
	assert_non_null(strstr(help, "-S, --sh[=SHELL]"));
	assert_non_null(strstr(help, "--idle TIME"));
	free(help);
}

static void test_callback_words(void **state)
{
	(void)state;
	struct err e;
	int n;
	assert_int_equal(parse(WORDS("-L", "T", "1,2", "-LN=3", "--parameter-list", "U", "x,y", "cmd"), 0, &n, &e),
			 PARSEOPT_OK);
	assert_string_equal(fx.pairs, "[T|1,2][N=3|=3][U|x,y]");
	assert_int_equal(n, 1);
	assert_int_equal(parse(WORDS("-L", "T", "--", "true"), 0, &n, &e), PARSEOPT_ERROR);
	assert_string_equal(e.msg, "-L T: no values");
}

static void test_errors(void **state)
{
	(void)state;
	struct err e;
	int n;
	struct {
		char **words;
		const char *msg;
	} cases[] = {
		{ WORDS("--bogus"), "unknown option '--bogus'" },
		{ WORDS("--bogus=1"), "unknown option '--bogus'" },
		{ WORDS("x", "-x"), "unknown option '-x'" },
		{ WORDS("-qx"), "unknown option '-x'" },
		{ WORDS("-\xc3\xa9"), "unknown option '-\xc3\xa9'" },
		{ WORDS("--=x"), "unknown option '--'" },
		{ WORDS("--runs"), "option '--runs' needs a value" },
		{ WORDS("-n"), "option '-n' needs a value" },
		{ WORDS("-qn"), "option '-n' needs a value" },
		{ WORDS("--quiet=yes"), "option '--quiet' takes no value" },
		{ WORDS("--count=1"), "option '--count' takes no value" },
		{ WORDS("--runs", "0"), "--runs: 0 is out of range [1, 1000000]" },
		{ WORDS("-n", "x"), "-n: expected an integer, got 'x'" },
		{ WORDS("--ru=x"), "--runs: expected an integer, got 'x'" },
		{ WORDS("--interval=99999999999"), "--interval: 99999999999 is out of range [1, 3600000]" },
		{ WORDS("--name", ""), "option '--name' needs a non-empty value" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].words, 0, &n, &e), PARSEOPT_ERROR);
		assert_string_equal(e.msg, cases[i].msg);
	}
	/* a hidden option is still accepted */
	assert_int_equal(parse(WORDS("--name", "x"), 0, &n, &e), PARSEOPT_OK);
	assert_string_equal(fx.name, "x");
}

static void test_help_requests(void **state)
{
	(void)state;
	struct err e;
	int n;
	assert_int_equal(parse(WORDS("-h"), 0, &n, &e), PARSEOPT_HELP);
	assert_int_equal(parse(WORDS("x", "--help"), 0, &n, &e), PARSEOPT_HELP);
	assert_int_equal(parse(WORDS("-qh"), 0, &n, &e), PARSEOPT_HELP);
	assert_int_equal(parse(WORDS("--help-options"), 0, &n, &e), PARSEOPT_HELP_OPTIONS);
	/* after the command's name, --help is the command's */
	assert_int_equal(parse(WORDS("true", "--help"), PARSEOPT_STOP_AT_OPERAND, &n, &e), PARSEOPT_OK);
	assert_int_equal(n, 2);
	/* an error before --help is reported */
	assert_int_equal(parse(WORDS("--bogus", "--help"), 0, &n, &e), PARSEOPT_ERROR);
}

static void test_help_text(void **state)
{
	(void)state;
	char *h = parseopt_help(table);
	assert_string_equal(h,
			    "  -q, --quiet        no summary\n"
			    "  -o, --output FILE  write the record to FILE\n"
			    "  -n, --runs N       runs (default 10)\n"
			    "      --interval MS  sampling interval\n"
			    "      --no-probes    parse no probes\n"
			    "  -t, --tag NAME     a tag (repeatable)\n"
			    "  -L, --parameter-list NAME V1,V2\n"
			    "                     a parameter list\n"
			    "                     repeatable\n"
			    "      --count        count\n"
			    "      --push         push\n"
			    "      --push-job     push job\n"
			    "      --idle TIME    idle time\n"
			    "  -S, --sh[=SHELL]   the shell\n"
			    "  -h, --help         show this help\n");
	free(h);
	char *names = parseopt_names(table);
	assert_string_equal(names, "-q\n--quiet\n-o\n--output\n-n\n--runs\n--interval\n--no-probes\n-t\n--tag\n"
				   "-L\n--parameter-list\n--count\n--push\n--push-job\n--idle\n-S\n--sh\n");
	free(names);
	struct parseopt grouped[] = {
		PARSEOPT_GROUP("options:"),
		PARSEOPT_FLAG('j', NULL, &fx.quiet, "json"),
		PARSEOPT_END(),
	};
	h = parseopt_help(grouped);
	assert_string_equal(h, "options:\n  -j          json\n  -h, --help  show this help\n");
	free(h);
}

static void test_check(void **state)
{
	(void)state;
	struct err e;
	assert_int_equal(parseopt_check(table, &e), 0);
	int x;
	bool flag;
	const char *s;
	struct parseopt bad[][3] = {
		{ PARSEOPT_STRING('o', "output", &s, NULL, "no value name"), PARSEOPT_END() },
		{ PARSEOPT_FLAG('q', "quiet", &flag, "a"), PARSEOPT_FLAG('q', "other", &flag, "b"), PARSEOPT_END() },
		{ PARSEOPT_FLAG(0, "quiet", &flag, "a"), PARSEOPT_FLAG(0, "quiet", &flag, "b"), PARSEOPT_END() },
		{ PARSEOPT_FLAG('h', "hush", &flag, "a"), PARSEOPT_END() },
		{ PARSEOPT_FLAG(0, "help", &flag, "a"), PARSEOPT_END() },
		{ PARSEOPT_FLAG(0, NULL, &flag, "a"), PARSEOPT_END() },
		{ PARSEOPT_INT(0, "n", &x, "N", "a", 5, 1), PARSEOPT_END() },
		{ PARSEOPT_INT(0, "n", &x, "N", "a", 0, INT64_MAX), PARSEOPT_END() },
		{ PARSEOPT_FLAG(0, "x", &flag, NULL), PARSEOPT_END() },
		{ PARSEOPT_CALLBACK(0, "x", &x, NULL, "a", NULL), PARSEOPT_END() },
		{ PARSEOPT_INCLUDE(shared_rows), PARSEOPT_INT(0, "interval", &x, "MS", "again", 1, 2), PARSEOPT_END() },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.msg[0] = 0;
		assert_int_equal(parseopt_check(bad[i], &e), -1);
		assert_true(e.msg[0] != 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_spellings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefixes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_operands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_habits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
