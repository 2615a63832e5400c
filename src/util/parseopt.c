/* parseopt: the option parser and help writer behind every command.
 *
 * One walk over argv: a word is "--" (the end of the options), a long option
 * (exact name, else an unambiguous prefix, as getopt_long allows), a bundle of
 * short options, or an operand, which is moved down to the front of argv (or,
 * with PARSEOPT_STOP_AT_OPERAND, ends the walk). Tables nest through INCLUDE
 * rows, so the recording options shared by run, watch and bench are one table
 * included by each; an iterator walks the nesting in help order.
 */
#include "util/parseopt.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/xalloc.h"

enum { MAX_DEPTH = 8, HELP_COLUMN_MAX = 26 };

/* The rows of a table and of the tables it includes, in order. */
struct rows {
	const struct parseopt *stack[MAX_DEPTH];
	int depth;
};

static void rows_start(struct rows *it, const struct parseopt *table)
{
	it->stack[0] = table;
	it->depth = table ? 1 : 0;
}

static const struct parseopt *rows_next(struct rows *it)
{
	while (it->depth > 0) {
		const struct parseopt *r = it->stack[it->depth - 1]++;
		if (r->type == PARSEOPT_TYPE_END) {
			it->depth--;
		} else if (r->type == PARSEOPT_TYPE_INCLUDE) {
			if (r->value && it->depth < MAX_DEPTH)
				it->stack[it->depth++] = r->value;
		} else {
			return r;
		}
	}
	return NULL;
}

static bool is_option(const struct parseopt *r)
{
	return r->type != PARSEOPT_TYPE_GROUP;
}

void parseopt_list_release(struct parseopt_list *l)
{
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

const char *parseopt_take_word(struct parseopt_state *st)
{
	if (st->next >= st->argc || !strcmp(st->argv[st->next], "--"))
		return NULL;
	return st->argv[st->next++];
}

/* Stores arg (NULL for an option without a value) as row r says. shown is
 * the option as the user chose it ("-n" or "--runs"), for messages. */
static int apply(struct parseopt_state *st, const struct parseopt *r, const char *shown, const char *arg,
		 struct err *e)
{
	int64_t v;
	if ((r->flags & PARSEOPT_NONEMPTY) && arg && !*arg)
		return err_set(e, "option '%s' needs a non-empty value", shown);
	switch (r->type) {
	case PARSEOPT_TYPE_FLAG:
		*(bool *)r->value = r->defval != 0;
		return 0;
	case PARSEOPT_TYPE_STRING:
		*(const char **)r->value = arg;
		return 0;
	case PARSEOPT_TYPE_INT:
		if (parse_i64(arg, r->min, r->max, &v, shown, e) < 0)
			return -1;
		*(int *)r->value = (int)v;
		return 0;
	case PARSEOPT_TYPE_I64:
		if (parse_i64(arg, r->min, r->max, &v, shown, e) < 0)
			return -1;
		*(int64_t *)r->value = v;
		return 0;
	case PARSEOPT_TYPE_LIST: {
		struct parseopt_list *l = r->value;
		l->items = xrealloc(l->items, (l->n + 2) * sizeof(*l->items));
		l->items[l->n++] = arg;
		l->items[l->n] = NULL;
		return 0;
	}
	case PARSEOPT_TYPE_CALLBACK:
		return r->cb(st, r, arg, e) < 0 ? -1 : 0;
	case PARSEOPT_TYPE_DURATION: {
		double ms;
		if (parse_duration_ms(arg, (double)r->defval, &ms, shown, e) < 0)
			return -1;
		if (ms < (double)r->min || ms > (double)r->max)
			return err_set(e, "%s: '%s' is out of range (%lld ms to %lld ms)", shown, arg, (long long)r->min,
				       (long long)r->max);
		/* perfhunt's clocks and intervals count whole milliseconds: 1.5 is
		 * refused rather than rounded to 2 behind the user's back */
		if (ms != floor(ms))
			return err_set(e, "%s: '%s' is not a whole number of milliseconds", shown, arg);
		*(double *)r->value = ms;
		return 0;
	}
	default:
		return err_set(e, "option '%s' has no action", shown);
	}
}

/* The row of a long option: its exact name, else the one name it begins. */
static const struct parseopt *find_long(const struct parseopt *table, const char *name, size_t len,
					bool *is_help, struct err *e)
{
	struct rows it;
	const struct parseopt *r, *found = NULL;
	size_t matches = 0;
	*is_help = false;
	rows_start(&it, table);
	while ((r = rows_next(&it)))
		if (is_option(r) && r->long_name && strlen(r->long_name) == len && !strncmp(r->long_name, name, len))
			return r;
	rows_start(&it, table);
	while ((r = rows_next(&it)))
		if (is_option(r) && r->long_name && !strncmp(r->long_name, name, len)) {
			found = r;
			matches++;
		}
	bool help_prefix = len > 0 && !strncmp("help", name, len);
	if (len > 0 && matches + help_prefix == 1) {
		*is_help = help_prefix;
		return found; /* NULL when it is --help */
	}
	if (len == 0 || matches + help_prefix == 0)
		return err_set(e, "unknown option '--%.*s'", (int)len, name), NULL;
	char list[400] = "";
	size_t used = 0;
	rows_start(&it, table);
	while ((r = rows_next(&it)) && used < sizeof(list))
		if (is_option(r) && r->long_name && !strncmp(r->long_name, name, len)) {
			int n = snprintf(list + used, sizeof(list) - used, "%s--%s", used ? ", " : "", r->long_name);
			used += n > 0 ? (size_t)n : 0;
		}
	if (help_prefix && used < sizeof(list))
		snprintf(list + used, sizeof(list) - used, ", --help");
	return err_set(e, "option '--%.*s' is ambiguous (%s)", (int)len, name, list), NULL;
}

static const struct parseopt *find_short(const struct parseopt *table, char c)
{
	struct rows it;
	const struct parseopt *r;
	rows_start(&it, table);
	while ((r = rows_next(&it)))
		if (is_option(r) && r->short_name == c)
			return r;
	return NULL;
}

static enum parseopt_result long_option(const struct parseopt *table, struct parseopt_state *st,
					const char *word, struct err *e)
{
	const char *name = word + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	if (len == 12 && !strncmp(name, "help-options", 12))
		return PARSEOPT_HELP_OPTIONS;
	bool is_help;
	const struct parseopt *r = find_long(table, name, len, &is_help, e);
	if (is_help)
		return PARSEOPT_HELP;
	if (!r)
		return PARSEOPT_ERROR;
	char shown[160];
	snprintf(shown, sizeof(shown), "--%s", r->long_name);
	const char *arg = NULL;
	if (!r->argh || ((r->flags & PARSEOPT_OPTIONAL) && !eq)) {
		if (eq)
			return err_set(e, "option '%s' takes no value", shown), PARSEOPT_ERROR;
	} else if (eq) {
		arg = eq + 1;
	} else if (st->next < st->argc) {
		arg = st->argv[st->next++];
	} else {
		return err_set(e, "option '%s' needs a value", shown), PARSEOPT_ERROR;
	}
	return apply(st, r, shown, arg, e) < 0 ? PARSEOPT_ERROR : PARSEOPT_OK;
}

static enum parseopt_result short_options(const struct parseopt *table, struct parseopt_state *st,
					  const char *word, struct err *e)
{
	for (const char *p = word + 1; *p; p++) {
		const struct parseopt *r = find_short(table, *p);
		if (!r && *p == 'h')
			return PARSEOPT_HELP;
		if (!r) {
			unsigned char c = (unsigned char)*p;
			if (c < 0x21 || c > 0x7e) /* not a character to show alone: the whole word */
				return err_set(e, "unknown option '%s'", word), PARSEOPT_ERROR;
			return err_set(e, "unknown option '-%c'", *p), PARSEOPT_ERROR;
		}
		char shown[4] = { '-', *p, 0, 0 };
		if (!r->argh) {
			if (apply(st, r, shown, NULL, e) < 0)
				return PARSEOPT_ERROR;
			continue;
		}
		const char *arg;
		if (p[1])
			arg = p + 1;
		else if (st->next < st->argc)
			arg = st->argv[st->next++];
		else
			return err_set(e, "option '%s' needs a value", shown), PARSEOPT_ERROR;
		return apply(st, r, shown, arg, e) < 0 ? PARSEOPT_ERROR : PARSEOPT_OK;
	}
	return PARSEOPT_OK;
}

enum parseopt_result parseopt_parse(const struct parseopt *table, int argc, char **argv, unsigned flags,
				    int *nargs, struct err *e)
{
	struct parseopt_state st = { .argc = argc, .argv = argv, .next = 1 };
	int out = 0;
	enum parseopt_result rc = PARSEOPT_OK;
	*nargs = 0;
	while (st.next < argc) {
		const char *word = argv[st.next];
		if (!strcmp(word, "--")) {
			if (!(flags & PARSEOPT_KEEP_DASHDASH))
				st.next++;
			break;
		}
		if (word[0] != '-' || !word[1]) { /* an operand; "-" is stdin */
			if (flags & PARSEOPT_STOP_AT_OPERAND)
				break;
			argv[out++] = argv[st.next++];
			continue;
		}
		st.next++;
		rc = word[1] == '-' ? long_option(table, &st, word, e) : short_options(table, &st, word, e);
		if (rc != PARSEOPT_OK)
			return rc;
	}
	while (st.next < argc)
		argv[out++] = argv[st.next++];
	argv[out] = NULL;
	*nargs = out;
	return PARSEOPT_OK;
}

/* The help text as it is built. */
struct text {
	char *p;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static int text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	xgrow((void **)&t->p, &t->cap, t->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
	return n;
}

static char *text_done(struct text *t)
{
	return t->p ? t->p : xstrdup("");
}

/* "  -o, --output FILE", "      --csv FILE", "  -q" */
static int row_left(const struct parseopt *r, char *buf, size_t n)
{
	char s[8] = "    ";
	if (r->short_name)
		snprintf(s, sizeof(s), "-%c%s", r->short_name, r->long_name ? ", " : "");
	bool opt = (r->flags & PARSEOPT_OPTIONAL) && r->long_name;
	return snprintf(buf, n, "  %s%s%s%s%s%s", s, r->long_name ? "--" : "", r->long_name ? r->long_name : "",
			r->argh ? (opt ? "[=" : " ") : "", r->argh ? r->argh : "", r->argh && opt ? "]" : "");
}

static void put_help(struct text *f, const char *left, const char *help, int col)
{
	int len = text_add(f, "%s", left);
	if (len + 2 > col) {
		text_add(f, "\n");
		len = 0;
	}
	for (const char *h = help ? help : ""; ; ) {
		const char *nl = strchr(h, '\n');
		int n = nl ? (int)(nl - h) : (int)strlen(h);
		text_add(f, "%*s%.*s\n", col - len, "", n, h);
		len = 0;
		if (!nl)
			break;
		h = nl + 1;
	}
}

char *parseopt_help(const struct parseopt *table)
{
	char left[256];
	struct text f = { 0 };
	struct rows it;
	const struct parseopt *r;
	int widest = (int)strlen("  -h, --help");
	rows_start(&it, table);
	while ((r = rows_next(&it))) {
		if (!is_option(r) || (r->flags & PARSEOPT_HIDDEN))
			continue;
		int n = row_left(r, left, sizeof(left));
		if (n <= HELP_COLUMN_MAX && n > widest)
			widest = n;
	}
	int col = widest + 2;
	bool first = true;
	rows_start(&it, table);
	while ((r = rows_next(&it))) {
		if (r->flags & PARSEOPT_HIDDEN)
			continue;
		if (!is_option(r)) {
			text_add(&f, "%s%s\n", first ? "" : "\n", r->help ? r->help : "");
		} else {
			row_left(r, left, sizeof(left));
			put_help(&f, left, r->help, col);
		}
		first = false;
	}
	put_help(&f, "  -h, --help", "show this help", col);
	return text_done(&f);
}

char *parseopt_names(const struct parseopt *table)
{
	struct text f = { 0 };
	struct rows it;
	const struct parseopt *r;
	rows_start(&it, table);
	while ((r = rows_next(&it))) {
		if (!is_option(r) || (r->flags & PARSEOPT_HIDDEN))
			continue;
		if (r->short_name)
			text_add(&f, "-%c\n", r->short_name);
		if (r->long_name)
			text_add(&f, "--%s\n", r->long_name);
	}
	return text_done(&f);
}

static int check_row(const struct parseopt *r, struct err *e)
{
	const char *name = r->long_name ? r->long_name : "";
	if (!r->short_name && !r->long_name)
		return err_set(e, "a row has no name");
	if (r->long_name && (!*name || *name == '-' || strchr(name, '=') || !strcmp(name, "help") ||
			     !strcmp(name, "help-options")))
		return err_set(e, "bad long name '%s'", name);
	if (r->short_name && (r->short_name == 'h' || r->short_name == '-' || r->short_name < 0x21 ||
			      r->short_name > 0x7e))
		return err_set(e, "bad short name of '%s'", name);
	bool needs_value = r->type != PARSEOPT_TYPE_FLAG && r->type != PARSEOPT_TYPE_CALLBACK;
	if (r->type == PARSEOPT_TYPE_FLAG && r->argh)
		return err_set(e, "flag '%s' has a value name", name);
	if (needs_value && !r->argh)
		return err_set(e, "option '%s' takes a value but names none", name);
	if (r->type != PARSEOPT_TYPE_CALLBACK && !r->value)
		return err_set(e, "option '%s' has no target", name);
	if (r->type == PARSEOPT_TYPE_CALLBACK && !r->cb)
		return err_set(e, "option '%s' has no callback", name);
	if ((r->type == PARSEOPT_TYPE_INT || r->type == PARSEOPT_TYPE_I64) && r->min > r->max)
		return err_set(e, "option '%s': min > max", name);
	if (r->type == PARSEOPT_TYPE_INT && (r->min < INT32_MIN || r->max > INT32_MAX))
		return err_set(e, "option '%s': range beyond int", name);
	if (!(r->flags & PARSEOPT_HIDDEN) && (!r->help || !*r->help))
		return err_set(e, "option '%s' has no help", name);
	if ((r->flags & PARSEOPT_OPTIONAL) && (r->type != PARSEOPT_TYPE_CALLBACK || !r->argh))
		return err_set(e, "option '%s': only a callback with a value name takes an optional value", name);
	if ((r->type == PARSEOPT_TYPE_DURATION) && (r->min < 0 || r->min > r->max || r->defval <= 0))
		return err_set(e, "option '%s': bad duration range or unit", name);
	if (r->type < PARSEOPT_TYPE_FLAG || r->type > PARSEOPT_TYPE_DURATION)
		return err_set(e, "option '%s' has a bad type", name);
	return 0;
}

int parseopt_check(const struct parseopt *table, struct err *e)
{
	struct rows it, it2;
	const struct parseopt *r, *q;
	rows_start(&it, table);
	while ((r = rows_next(&it))) {
		if (!is_option(r))
			continue;
		if (check_row(r, e) < 0)
			return -1;
		it2 = it; /* the rows after r */
		while ((q = rows_next(&it2)))
			if (is_option(q) && ((r->short_name && q->short_name == r->short_name) ||
					     (r->long_name && q->long_name && !strcmp(r->long_name, q->long_name))))
				return err_set(e, "option '%s' twice", r->long_name ? r->long_name : "");
	}
	return 0;
}
