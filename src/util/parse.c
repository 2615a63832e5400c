/* parse: strict number and duration parsing shared by every option and reader. */
#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out, const char *what, struct err *e)
{
	if (!s || !*s || isspace((unsigned char)*s))
		return err_set(e, "%s: expected an integer, got '%s'", what, s ? s : "");
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end)
		return err_set(e, "%s: expected an integer, got '%s'", what, s);
	if (errno == ERANGE || v < min || v > max)
		return err_set(e, "%s: %s is out of range [%lld, %lld]", what, s,
			       (long long)min, (long long)max);
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out, const char *what, struct err *e)
{
	if (!s || !*s || isspace((unsigned char)*s))
		return err_set(e, "%s: expected a number, got '%s'", what, s ? s : "");
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || !isfinite(v))
		return err_set(e, "%s: expected a finite number, got '%s'", what, s);
	if (errno == ERANGE || v < min || v > max)
		return err_set(e, "%s: %s is out of range [%g, %g]", what, s, min, max);
	*out = v;
	return 0;
}

int parse_duration_ms(const char *s, double default_unit_ms, double *out_ms, const char *what, struct err *e)
{
	if (!s || !*s || isspace((unsigned char)*s))
		return err_set(e, "%s: expected a duration, got '%s'", what, s ? s : "");
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || errno == ERANGE)
		return err_set(e, "%s: expected a duration like 500ms, 2s or 1h, got '%s'", what, s);
	double unit;
	if (!*end)
		unit = default_unit_ms;
	else if (!strcmp(end, "ns"))
		unit = 1e-6;
	else if (!strcmp(end, "us"))
		unit = 1e-3;
	else if (!strcmp(end, "ms"))
		unit = 1;
	else if (!strcmp(end, "s"))
		unit = 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		unit = 60000;
	else if (!strcmp(end, "h"))
		unit = 3600000;
	else
		return err_set(e, "%s: unknown unit in '%s' (use ms, s, m or h)", what, s);
	if (v < 0)
		return err_set(e, "%s: must not be negative, got '%s'", what, s);
	/* "1e308h" is a finite number of hours but not of milliseconds. */
	if (!isfinite(v * unit))
		return err_set(e, "%s: %s is too long", what, s);
	*out_ms = v * unit;
	return 0;
}

bool parse_u64_at(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (s >= end || (unsigned)(*s - '0') > 9)
		return false;
	while (s < end && (unsigned)(*s - '0') <= 9) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			v = UINT64_MAX; /* saturate: kernel counters never get here */
		else
			v = v * 10 + d;
		s++;
	}
	*p = s;
	*out = v;
	return true;
}
