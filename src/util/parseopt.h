/* parseopt: one table-driven option parser for every command.
 *
 * git's parse-options is the model: a command describes each option once, as
 * a row of a table (type, short and long name, target, value name, help), and
 * the same table parses argv, checks values and writes the --help option
 * list, so parsing and help cannot drift apart. getopt_long's habits are kept
 * (bundled short options, -ovalue, --opt=value and --opt value, unambiguous
 * prefixes of long names, "--" ends the options). Pure: it never prints; an
 * error comes back in struct err as one line naming the option.
 */
#ifndef PERFHUNT_PARSEOPT_H
#define PERFHUNT_PARSEOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

enum parseopt_type {
	PARSEOPT_TYPE_END = 0,  /* closes a table */
	PARSEOPT_TYPE_GROUP,    /* a heading line of the help; parses nothing */
	PARSEOPT_TYPE_INCLUDE,  /* value: another table, parsed and listed in place */
	PARSEOPT_TYPE_FLAG,     /* no value: *(bool *)value = defval */
	PARSEOPT_TYPE_STRING,   /* *(const char **)value = the value (the last one given wins) */
	PARSEOPT_TYPE_INT,      /* *(int *)value: a whole number in [min, max] */
	PARSEOPT_TYPE_I64,      /* *(int64_t *)value: a whole number in [min, max] */
	PARSEOPT_TYPE_LIST,     /* repeatable: each value appended to a struct parseopt_list */
	PARSEOPT_TYPE_CALLBACK, /* cb(state, row, value or NULL, e) */
	PARSEOPT_TYPE_DURATION, /* *(double *)value in ms, in [min, max] ms: "50ms", "2s", "1m"; a bare
	                         * number is in defval ms (1: milliseconds, 1000: seconds) */
};

/* Row flags. */
#define PARSEOPT_HIDDEN   0x1u /* accepted, but not in --help nor --help-options */
#define PARSEOPT_NONEMPTY 0x2u /* an empty value is refused (STRING, LIST) */
#define PARSEOPT_OPTIONAL 0x4u /* CALLBACK: the long form takes a value only as --opt=VALUE
                                * (arg NULL without one); the short form needs one */

/* Parse flags. */
#define PARSEOPT_STOP_AT_OPERAND 0x1u /* the first operand ends the options (a CMD follows) */
#define PARSEOPT_KEEP_DASHDASH   0x2u /* a "--" that ends the options is kept as the first operand */

struct parseopt;
struct parseopt_state;
/* A CALLBACK row's action: 0, or -1 with e filled. arg is NULL for a row without a value. */
typedef int parseopt_fn(struct parseopt_state *st, const struct parseopt *row, const char *arg,
			struct err *e);

struct parseopt {
	enum parseopt_type type;
	char short_name;        /* 0: none */
	const char *long_name;  /* NULL: none */
	void *value;
	const char *argh;       /* the value's name in the help ("FILE"); NULL: takes no value */
	const char *help;       /* one line; "\n" continues it, aligned, on the next */
	unsigned flags;         /* PARSEOPT_HIDDEN, PARSEOPT_NONEMPTY */
	int64_t min, max;       /* INT, I64 */
	intptr_t defval;        /* FLAG: the value stored; CALLBACK: the callback's own */
	parseopt_fn *cb;
};

/* The repeatable values of a LIST row, NULL-terminated; parseopt_list_release frees the array. */
struct parseopt_list {
	const char **items;
	size_t n;
};
void parseopt_list_release(struct parseopt_list *l);

/* What a callback may see of the parse: the words and where it stands. */
struct parseopt_state {
	int argc;
	char **argv;
	int next; /* index of the next word */
};
/* For a callback whose option takes two words (bench -L NAME V1,V2): takes the
 * next word, or returns NULL when there is none or it is "--". */
const char *parseopt_take_word(struct parseopt_state *st);

/* The rows, as git writes them; a target of the wrong type does not compile. */
#define PARSEOPT_TARGET(v, type) _Generic((v), type *: (v))
#define PARSEOPT_END() { .type = PARSEOPT_TYPE_END }
#define PARSEOPT_GROUP(h) { .type = PARSEOPT_TYPE_GROUP, .help = (h) }
#define PARSEOPT_INCLUDE(t) { .type = PARSEOPT_TYPE_INCLUDE, .value = (t) }
#define PARSEOPT_FLAG(s, l, v, h) \
	{ .type = PARSEOPT_TYPE_FLAG, .short_name = (s), .long_name = (l), .value = PARSEOPT_TARGET(v, bool), \
	  .help = (h), .defval = 1 }
#define PARSEOPT_CLEAR(s, l, v, h) \
	{ .type = PARSEOPT_TYPE_FLAG, .short_name = (s), .long_name = (l), .value = PARSEOPT_TARGET(v, bool), \
	  .help = (h), .defval = 0 }
#define PARSEOPT_STRING(s, l, v, a, h) \
	{ .type = PARSEOPT_TYPE_STRING, .short_name = (s), .long_name = (l), \
	  .value = PARSEOPT_TARGET(v, const char *), .argh = (a), .help = (h) }
#define PARSEOPT_INT(s, l, v, a, h, lo, hi) \
	{ .type = PARSEOPT_TYPE_INT, .short_name = (s), .long_name = (l), .value = PARSEOPT_TARGET(v, int), \
	  .argh = (a), .help = (h), .min = (lo), .max = (hi) }
#define PARSEOPT_I64(s, l, v, a, h, lo, hi) \
	{ .type = PARSEOPT_TYPE_I64, .short_name = (s), .long_name = (l), .value = PARSEOPT_TARGET(v, int64_t), \
	  .argh = (a), .help = (h), .min = (lo), .max = (hi) }
#define PARSEOPT_LIST(s, l, v, a, h) \
	{ .type = PARSEOPT_TYPE_LIST, .short_name = (s), .long_name = (l), \
	  .value = PARSEOPT_TARGET(v, struct parseopt_list), .argh = (a), .help = (h) }
#define PARSEOPT_DURATION(s, l, v, a, h, unit_ms, lo, hi) \
	{ .type = PARSEOPT_TYPE_DURATION, .short_name = (s), .long_name = (l), .value = PARSEOPT_TARGET(v, double), \
	  .argh = (a), .help = (h), .defval = (unit_ms), .min = (lo), .max = (hi) }
#define PARSEOPT_CALLBACK(s, l, v, a, h, fn) \
	{ .type = PARSEOPT_TYPE_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
	  .help = (h), .cb = (fn) }

/* What parseopt_parse found. */
enum parseopt_result {
	PARSEOPT_OK = 0,
	PARSEOPT_ERROR = -1,       /* e says what, naming the option */
	PARSEOPT_HELP = 1,         /* -h or --help: print the help */
	PARSEOPT_HELP_OPTIONS = 2, /* --help-options: print parseopt_names() */
};

/* Parses argv[1..argc) (argv[0] is the command's name) against table. Options
 * may come anywhere among the operands, unless PARSEOPT_STOP_AT_OPERAND; "--"
 * ends them. The operands are moved, in order, to argv[0..*nargs), and
 * argv[*nargs] = NULL. -h, --help and --help-options are understood in every
 * table and end the parse where they stand. */
enum parseopt_result parseopt_parse(const struct parseopt *table, int argc, char **argv, unsigned flags,
				    int *nargs, struct err *e);

/* The option list of the help, one option a line with its help text in an
 * aligned column, "-h, --help" last; caller frees. */
char *parseopt_help(const struct parseopt *table);
/* Every visible option's names, one a line ("-o", "--output"), for the docs check; caller frees. */
char *parseopt_names(const struct parseopt *table);

/* Checks a table's own consistency (names, value names, targets, duplicates):
 * 0, or -1 with e naming the first bad row. For tests. */
int parseopt_check(const struct parseopt *table, struct err *e);

#endif
