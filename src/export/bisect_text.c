/* bisect_text: a perfhunt.bisect/1 record as the terminal shows it (see
 * bisect_text.h). Values are written in their metric's unit through
 * compare_text_value, the one place that knows the units, so a culprit's
 * "+30.2 ms" reads as compare would write it.
 */
#include "export/bisect_text.h"

#include <math.h>
#include <string.h>

#include "export/compare_text.h"

enum { SHORT = 12 };

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static double num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "+30.2 ms" in the metric's unit. */
static char *signed_value(const char *metric, double v, char *buf, size_t n)
{
	char abs_buf[48];
	compare_text_value(metric, fabs(v), abs_buf, sizeof(abs_buf));
	snprintf(buf, n, "%s%s", v < 0 ? "-" : "+", abs_buf);
	return buf;
}

/* A metric without "phase:", as a culprit line names it. */
static const char *short_name(const char *metric)
{
	return strncmp(metric, "phase:", 6) ? metric : metric + 6;
}

static void write_tested(const json_t *rec, FILE *out)
{
	size_t i;
	const json_t *c;
	fprintf(out, "tested:\n");
	json_array_foreach(json_object_get(rec, "tested"), i, c) {
		fprintf(out, "  %.*s  %3lld runs (%lld stored before)  %s", SHORT, str(c, "commit"),
			(long long)json_integer_value(json_object_get(c, "runs")),
			(long long)json_integer_value(json_object_get(c, "reused")), str(c, "subject"));
		if (json_object_get(c, "verdict"))
			fprintf(out, "\n      %s from the next tested commit %.*s", str(c, "verdict"), SHORT, str(c, "next"));
		fputc('\n', out);
	}
	const json_t *sk = json_object_get(rec, "skipped");
	if (json_array_size(sk)) {
		fprintf(out, "skipped:\n");
		json_array_foreach(sk, i, c)
			fprintf(out, "  %.*s  %s: %s\n", SHORT, str(c, "commit"), str(c, "subject"), str(c, "why"));
	}
}

static void write_culprit(const json_t *rec, const json_t *c, FILE *out)
{
	const json_t *range = json_object_get(c, "range");
	fprintf(out, "  %.*s  %s (%s)\n", SHORT, str(c, "commit"), str(c, "subject"), str(c, "author"));
	if (json_array_size(range) > 1)
		fprintf(out, "      a range: after %.*s, up to %.*s (%zu commits, the others skipped)\n", SHORT,
			str(c, "after"), SHORT, str(c, "commit"), json_array_size(range));
	size_t i;
	const json_t *ph;
	json_array_foreach(json_object_get(c, "phases"), i, ph) {
		const char *name = str(ph, "name");
		const json_t *med = json_object_get(ph, "medians"), *ci = json_object_get(ph, "interval");
		char a[64], b[64], d[64];
		compare_text_value_pair(name, num(json_array_get(med, 0)), num(json_array_get(med, 1)), a, b, sizeof(a));
		fprintf(out, "      %-24s %s -> %s  %s  CI of ratio %.3f–%.3f  p %.2g\n", name, a, b,
			signed_value(name, num(json_object_get(ph, "delta")), d, sizeof(d)), num(json_array_get(ci, 0)),
			num(json_array_get(ci, 1)), num(json_object_get(ph, "p")));
		double share = num(json_object_get(ph, "share_pct"));
		if (isfinite(share))
			fprintf(out, "        %.0f %% of its good→bad change\n", compare_text_round(share));
		if (*str(ph, "reason"))
			fprintf(out, "        why: %s\n", str(ph, "reason"));
		if (*str(ph, "code"))
			fprintf(out, "        code: %s\n", str(ph, "code"));
	}
	double share = num(json_object_get(c, "share_pct"));
	if (isfinite(share))
		fprintf(out, "      explains %.0f %% of the good→bad change of %s (%s)\n", compare_text_round(share),
			str(json_object_get(rec, "headline"), "metric"), str(c, "leading"));
}

/* "revert A (spin: +30 ms) and B (...): together N % of the +T" */
static void write_revert(const json_t *rec, FILE *out)
{
	const json_t *culprits = json_object_get(rec, "culprits"), *headline = json_object_get(rec, "headline");
	const char *metric = str(headline, "metric");
	double total = num(json_object_get(headline, "delta")), sum = 0;
	size_t i;
	const json_t *c;
	fputs("revert ", out);
	json_array_foreach(culprits, i, c) {
		const json_t *best = NULL, *ph;
		size_t j;
		json_array_foreach(json_object_get(c, "phases"), j, ph)
			if (!strcmp(str(ph, "name"), str(c, "leading")))
				best = ph;
		char d[64] = "";
		if (best)
			signed_value(str(best, "name"), num(json_object_get(best, "delta")), d, sizeof(d));
		fprintf(out, "%s%.7s (%s: %s)", i == 0 ? "" : i + 1 == json_array_size(culprits) ? " and " : ", ",
			str(c, "commit"), best ? short_name(str(best, "name")) : "?", d);
		sum += num(json_object_get(c, "headline_delta"));
	}
	char t[64];
	if (isfinite(total) && total != 0)
		fprintf(out, ": together %.0f %% of the %s %s\n", compare_text_round(100 * sum / total),
			signed_value(metric, total, t, sizeof(t)), metric);
	else
		fputc('\n', out);
}

int bisect_text_write(const json_t *rec, FILE *out)
{
	const json_t *headline = json_object_get(rec, "headline");
	const char *metric = str(headline, "metric");
	char t[64];
	fprintf(out, "bisect: %.*s (good) to %.*s (bad): %s %s, ends %s; %zu commits tested, %zu skipped, %lld runs "
		     "(%lld added)\n",
		SHORT, str(rec, "good"), SHORT, str(rec, "bad"), metric,
		signed_value(metric, num(json_object_get(headline, "delta")), t, sizeof(t)), str(rec, "ends"),
		json_array_size(json_object_get(rec, "tested")), json_array_size(json_object_get(rec, "skipped")),
		(long long)json_integer_value(json_object_get(rec, "runs")),
		(long long)json_integer_value(json_object_get(rec, "runs_added")));
	write_tested(rec, out);
	const json_t *culprits = json_object_get(rec, "culprits"), *undecided = json_object_get(rec, "undecided");
	size_t i;
	const json_t *c;
	if (strcmp(str(rec, "ends"), "different")) {
		fprintf(out, "no culprit: good and bad are %s (raise --max-runs when not yet decided)\n",
			str(rec, "ends"));
	} else if (json_array_size(culprits)) {
		fprintf(out, "culprits:\n");
		json_array_foreach(culprits, i, c)
			write_culprit(rec, c, out);
	} else if (json_is_true(json_object_get(rec, "finished"))) {
		fprintf(out, "no culprit found between two adjacent tested commits\n");
	}
	json_array_foreach(undecided, i, c)
		fprintf(out, "undecided: %.*s..%.*s (neither different nor same at --max-runs; raise it)\n", SHORT,
			str(c, "from"), SHORT, str(c, "to"));
	if (json_array_size(culprits))
		write_revert(rec, out);
	return ferror(out) ? -1 : 0;
}
