/* fuzz_options: libFuzzer target for option parsing, without running anything.
 *
 * The command functions spawn and record, so this target fuzzes the parse-only
 * layer they are built on: record_opts_parse (every shared option of run and
 * watch, called with arbitrary option codes and values) and the strict number
 * and duration parsers behind every other option. The input is a list of
 * lines, each one byte choosing the option code and the rest its value; no
 * process is spawned and no file is opened. Accepted values must be in range.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/record_opts.h"
#include "util/parse.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

/* A byte below 128 is that character as a short option ('o', 'q', 'e', or
 * none of ours); above, one of the long-option codes (500 onwards) and a few
 * past them, so unknown codes are exercised too. */
static int option_code(uint8_t b)
{
	return b < 128 ? b : 500 + (b - 128) % 20;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_opts o;
	record_opts_init(&o);
	/* Values outlive the parse: --tag and --output keep pointers to them. */
	char **args = NULL;
	size_t nargs = 0;
	const char *p = (const char *)data, *end = p + size;
	while (p < end && nargs < 64) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		int c = option_code((uint8_t)*p);
		char *arg = xstrndup(p + 1, (size_t)(line_end - p - 1 < 0 ? 0 : line_end - p - 1));
		args = xrealloc(args, (nargs + 1) * sizeof(*args));
		args[nargs++] = arg;
		struct err e;
		e.msg[0] = 0;
		int rc = record_opts_parse(&o, c, arg, &e);
		check(rc >= -1 && rc <= 1);
		if (rc < 0)
			check(e.msg[0] != 0);
		check(o.interval_ms >= 1 && o.interval_ms <= 3600000);
		check(o.tags[o.ntags] == NULL);
		parse_numbers(arg);
		p = nl ? nl + 1 : end;
	}
	record_opts_release(&o);
	for (size_t i = 0; i < nargs; i++)
		free(args[i]);
	free(args);
	return 0;
}
