/* Unit tests of src/export/phase_table.c: the nesting of phase names on the
 * shapes that made the pairwise search cubic (all phases at one instant,
 * fully nested, 100 000 of one name, overlapping bursts), each result checked
 * against the definition computed pairwise on random nested records, and the
 * rows a table lists past its bound. Nothing here is timed: a quadratic
 * regression shows in t-scale, which renders records at perfhunt's bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export/phase_table.h"
#include "export/phases_text.h"

static void add(json_t *phases, const char *name, double start_ms, double end_ms)
{
	json_array_append_new(phases, json_pack("{s:s, s:s, s:f, s:f}", "name", name, "lane", "",
						"start_ms", start_ms, "end_ms", end_ms));
}

static const char *parent_of(const json_t *phases, const char *name)
{
	struct phase_nest *t = phase_nest_new(phases);
	const char *p = phase_nest_parent(t, name);
	phase_nest_free(t);
	return p;
}

static void assert_parent(const char *want, const char *got)
{
	if (!want || !got)
		assert_ptr_equal(want, got);
	else
		assert_string_equal(want, got);
}

static void test_at_one_instant(void **state)
{
	(void)state;
	/* begin=mark, step_ms=1, end=mark a thousand times in one chunk: every
	 * mark is [10, 10], every step [9, 10]; a mark lies inside a step (a
	 * strictly longer phase), a step inside nothing */
	json_t *phases = json_array();
	for (int i = 0; i < 1000; i++) {
		add(phases, "step", 9, 10);
		add(phases, "mark", 10, 10);
	}
	struct phase_nest *t = phase_nest_new(phases);
	assert_parent("step", phase_nest_parent(t, "mark"));
	assert_null(phase_nest_parent(t, "step"));
	assert_null(phase_nest_parent(t, "absent"));
	phase_nest_free(t);
	/* equal intervals hold nothing: a phase is never its own twin's child */
	json_array_clear(phases);
	for (int i = 0; i < 1000; i++)
		add(phases, i % 2 ? "a" : "b", 5, 5);
	assert_null(parent_of(phases, "a"));
	assert_null(parent_of(phases, "b"));
	json_decref(phases);
}

static void test_fully_nested(void **state)
{
	(void)state;
	/* 5 000 distinct names, each holding the next: n0 [0, 10000] holds n1 [1, 9999] ... */
	enum { N = 5000 };
	json_t *phases = json_array();
	char name[32];
	for (int i = N - 1; i >= 0; i--) { /* the innermost first, as they end */
		snprintf(name, sizeof(name), "n%d", i);
		add(phases, name, i, 2 * N - i);
	}
	struct phase_nest *t = phase_nest_new(phases);
	assert_null(phase_nest_parent(t, "n0"));
	for (int i = 1; i < N; i++) {
		char want[32];
		snprintf(name, sizeof(name), "n%d", i);
		snprintf(want, sizeof(want), "n%d", i - 1);
		assert_parent(want, phase_nest_parent(t, name));
	}
	phase_nest_free(t);
	/* one name nested in itself 5 000 deep, inside "run", around "leaf" */
	json_array_clear(phases);
	add(phases, "leaf", N, N + 1);
	for (int i = N - 1; i >= 0; i--)
		add(phases, "rec", i, 2 * N - i);
	add(phases, "run", -1, 2 * N + 1);
	t = phase_nest_new(phases);
	assert_parent("rec", phase_nest_parent(t, "leaf"));
	assert_parent("run", phase_nest_parent(t, "rec"));
	assert_null(phase_nest_parent(t, "run"));
	phase_nest_free(t);
	json_decref(phases);
}

static void test_many_of_one_name(void **state)
{
	(void)state;
	/* 100 000 requests of one name, overlapping in bursts, inside one "serve";
	 * one "tick" outside it: a name with one instance outside has no parent */
	enum { N = 100000 };
	json_t *phases = json_array();
	add(phases, "serve", 0, N + 100);
	for (int i = 0; i < N; i++)
		add(phases, "req", 1 + i, 1 + i + 50);
	add(phases, "tick", 10, 11);
	add(phases, "tick", N + 200, N + 201);
	struct phase_nest *t = phase_nest_new(phases);
	assert_parent("serve", phase_nest_parent(t, "req"));
	assert_null(phase_nest_parent(t, "serve"));
	assert_null(phase_nest_parent(t, "tick"));
	phase_nest_free(t);
	json_decref(phases);
}

/* The definition, pairwise: among the names whose instances hold each of
 * name's (strictly longer), the one whose instance around name's first
 * instance is innermost (latest start, then earliest end, then latest in
 * the array). */
static const char *reference(const json_t *phases, const char *name)
{
	size_t n = json_array_size(phases), first = SIZE_MAX;
#define S(i) json_number_value(json_object_get(json_array_get(phases, i), "start_ms"))
#define E(i) json_number_value(json_object_get(json_array_get(phases, i), "end_ms"))
#define NM(i) json_string_value(json_object_get(json_array_get(phases, i), "name"))
	for (size_t i = 0; i < n; i++)
		if (!strcmp(NM(i), name) && (first == SIZE_MAX || S(i) < S(first)))
			first = i;
	if (first == SIZE_MAX)
		return NULL;
	const char *best = NULL;
	size_t best_at = 0;
	for (size_t c = 0; c < n; c++) { /* c: an instance around the first */
		const char *m = NM(c);
		if (!strcmp(m, name) || !(S(c) <= S(first) && E(first) <= E(c)))
			continue;
		bool all = true;
		for (size_t a = 0; a < n && all; a++) {
			if (strcmp(NM(a), name))
				continue;
			bool in = false;
			for (size_t b = 0; b < n && !in; b++)
				in = !strcmp(NM(b), m) && S(b) <= S(a) && E(a) <= E(b) && E(b) - S(b) > E(a) - S(a);
			all = in;
		}
		if (!all)
			continue;
		if (!best || S(c) > S(best_at) || (S(c) == S(best_at) && E(c) < E(best_at)) ||
		    (S(c) == S(best_at) && E(c) == E(best_at) && c > best_at)) {
			best = m;
			best_at = c;
		}
	}
	return best;
#undef S
#undef E
#undef NM
}

/* Random nested phases inside [lo, hi): children split it, each with a margin. */
static void gen(json_t *phases, unsigned *seed, int lo, int hi, int depth)
{
	static const char *const names[] = { "load", "prove", "msm", "ntt", "pin", "sync" };
	int at = lo;
	while (depth < 6 && hi - at > 8 && rand_r(seed) % 4) {
		int len = 4 + rand_r(seed) % (hi - at - 4), start = at + 1 + rand_r(seed) % 2;
		int end = start + len - 2 < hi ? start + len - 2 : hi - 1;
		if (end <= start)
			break;
		gen(phases, seed, start, end, depth + 1);
		add(phases, names[rand_r(seed) % 6], start, end);
		at = end;
	}
}

static void test_matches_definition(void **state)
{
	(void)state;
	unsigned seed = 12345;
	static const char *const names[] = { "load", "prove", "msm", "ntt", "pin", "sync", "absent" };
	size_t nested = 0;
	for (int trial = 0; trial < 300; trial++) {
		json_t *phases = json_array();
		gen(phases, &seed, 0, 400, 0);
		struct phase_nest *t = phase_nest_new(phases);
		for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++) {
			const char *want = reference(phases, names[k]), *got = phase_nest_parent(t, names[k]);
			if ((want == NULL) != (got == NULL) || (want && strcmp(want, got)))
				fail_msg("trial %d, %s: parent %s, expected %s", trial, names[k], got ? got : "(none)",
					 want ? want : "(none)");
			nested += want != NULL;
		}
		phase_nest_free(t);
		json_decref(phases);
	}
	assert_true(nested > 100); /* the random records do nest */
}

static json_t *stat(const char *name, double count, double total_ms)
{
	return json_pack("{s:s, s:f, s:f, s:f, s:f, s:f}", "name", name, "count", count, "total_ms", total_ms,
			 "median_ms", total_ms / count, "min_ms", 1.0, "max_ms", total_ms);
}

static void test_rows_past_bound(void **state)
{
	(void)state;
	/* 300 names, n0 .. n299 with totals 1 .. 300 ms, all inside "all" */
	json_t *stats = json_array(), *phases = json_array();
	json_array_append_new(stats, stat("all", 1, 1000));
	json_array_append_new(stats, json_string("not an object"));
	add(phases, "all", 0, 1000);
	char name[32];
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		json_array_append_new(stats, stat(name, 2, i + 1));
		add(phases, name, i + 1, i + 2);
	}
	struct phase_rows pr;
	phase_rows_init(&pr, stats, phases, PHASE_TABLE_ROWS_MAX);
	assert_int_equal(pr.n, PHASE_TABLE_ROWS_MAX);
	/* "all" and the 199 largest, in the record's order: n101 .. n299 */
	assert_string_equal(json_string_value(json_object_get(pr.stat[0], "name")), "all");
	assert_string_equal(json_string_value(json_object_get(pr.stat[1], "name")), "n101");
	assert_int_equal(pr.parent[0], PHASE_ROWS_NONE);
	for (size_t k = 1; k < pr.n; k++)
		assert_int_equal(pr.parent[k], 0);
	assert_int_equal(pr.left_out, 101);
	assert_float_equal(pr.left_out_count, 202, 1e-9);
	assert_float_equal(pr.left_out_ms, 101 * 102 / 2, 1e-9);
	phase_rows_release(&pr);

	/* the text table says what it left out */
	json_t *rec = json_pack("{s:O, s:O}", "phase_stats", stats, "phases", phases);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(phases_text_print(rec, f, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\n  n299 "));
	assert_null(strstr(buf, " n100 "));
	assert_non_null(strstr(buf, "... and 101 more phase names (202 instances, 5.151 s in all), listed in the record\n"));
	free(buf);
	json_decref(rec);
	json_decref(stats);
	json_decref(phases);
}

static void test_table_order(void **state)
{
	(void)state;
	/* a child listed before its parent in phase_stats still prints under it */
	json_t *stats = json_array(), *phases = json_array();
	json_array_append_new(stats, stat("inner", 1, 1));
	json_array_append_new(stats, stat("other", 1, 1));
	json_array_append_new(stats, stat("outer", 1, 10));
	add(phases, "outer", 0, 10);
	add(phases, "inner", 2, 3);
	add(phases, "other", 20, 21);
	json_t *rec = json_pack("{s:o, s:o}", "phase_stats", stats, "phases", phases);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(phases_text_print(rec, f, NULL), 0);
	fclose(f);
	char *outer = strstr(buf, "\nouter "), *inner = strstr(buf, "\n  inner "), *other = strstr(buf, "\nother ");
	assert_non_null(outer);
	assert_non_null(inner);
	assert_non_null(other);
	assert_true(other < outer && outer < inner);
	free(buf);
	json_decref(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_at_one_instant),
		cmocka_unit_test(test_fully_nested),
		cmocka_unit_test(test_many_of_one_name),
		cmocka_unit_test(test_matches_definition),
		cmocka_unit_test(test_rows_past_bound),
		cmocka_unit_test(test_table_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
