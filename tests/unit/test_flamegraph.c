/* test_flamegraph: the report's flame graphs, from folded stacks to SVG.
 *
 * On a real profile (data/flamegraph/phpin-bad.folded: --export-folded of
 * `phpin --mib 96 --bad` with --profile, kernel frames included): every
 * node's width is the sum of the stacks under its path, min_fraction merges
 * narrow frames, kernel/user/perfhunt frames get their classes; then hostile
 * input: names with <&", a 10 000-frame stack, 100 000 stacks, counts and
 * values that are 0, negative or not finite, nodes out of preorder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/flamegraph.h"
#include "util/xalloc.h"

#define FOLDED "data/flamegraph/phpin-bad.folded"

/* "frame;frame count" lines as the record's [{"stack", "count"}] */
static json_t *load_folded(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	json_t *a = json_array();
	char line[16384];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		json_array_append_new(a, json_pack("{s:s, s:I}", "stack", line, "count", (json_int_t)atoll(sp + 1)));
	}
	fclose(f);
	assert_true(json_array_size(a) > 10);
	return a;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The sum of the counts of the stacks whose path starts with path (whole frames). */
static double under(const json_t *stacks, const char *path)
{
	double sum = 0;
	size_t i, n = strlen(path);
	json_t *st;
	json_array_foreach(stacks, i, st) {
		const char *s = json_string_value(json_object_get(st, "stack"));
		if (!strncmp(s, path, n) && (s[n] == ';' || s[n] == '\0'))
			sum += (double)json_integer_value(json_object_get(st, "count"));
	}
	return sum;
}

static void render(const struct flamegraph_node *v, size_t n, const struct flamegraph_opts *o, struct svg *s)
{
	svg_init(s);
	flamegraph_write(s, v, n, o);
	assert_int_equal(count(s->buf, "<figure"), 1);
	assert_int_equal(count(s->buf, "</figure>"), 1);
	assert_null(strstr(s->buf, "nan"));
	assert_null(strstr(s->buf, "inf\""));
}

static void test_widths_are_the_stacks_under_each_path(void **state)
{
	(void)state;
	json_t *stacks = load_folded(FOLDED);
	struct flamegraph_nodes t;
	assert_int_equal(flamegraph_nodes_from_stacks(stacks, 0, &t, NULL), 0);
	double total = 0;
	size_t i;
	json_t *st;
	json_array_foreach(stacks, i, st)
		total += (double)json_integer_value(json_object_get(st, "count"));
	assert_true(t.total == total);
	assert_int_equal(t.skipped, 0);
	assert_int_equal(t.merged, 0);
	assert_true(t.n > 20);
	/* rebuild each node's path from the preorder and check its inclusive value */
	char *path[FLAMEGRAPH_DEPTH_MAX + 1] = { 0 };
	double roots = 0;
	for (size_t k = 0; k < t.n; k++) {
		const struct flamegraph_node *nd = &t.v[k];
		assert_true(nd->depth >= 0 && nd->depth < FLAMEGRAPH_DEPTH_MAX);
		assert_true(k == 0 ? nd->depth == 0 : nd->depth <= t.v[k - 1].depth + 1);
		free(path[nd->depth]);
		path[nd->depth] = nd->depth ? xasprintf("%s;%s", path[nd->depth - 1], nd->name) : xstrdup(nd->name);
		assert_true(nd->value == under(stacks, path[nd->depth]));
		if (nd->depth == 0)
			roots += nd->value;
		/* siblings by name */
		for (size_t j = k; j-- > 0 && t.v[j].depth >= nd->depth;)
			if (t.v[j].depth == nd->depth) {
				assert_true(strcmp(t.v[j].name, nd->name) < 0);
				break;
			}
	}
	for (int d = 0; d <= FLAMEGRAPH_DEPTH_MAX; d++)
		free(path[d]);
	assert_true(roots == total);

	/* the root level spans the whole width, each child within its parent */
	struct svg s;
	struct flamegraph_opts o = { .id = "flame-x", .title = "phase pin", .unit = "samples", .ms_per_unit = 10.1 };
	render(t.v, t.n, &o, &s);
	assert_int_equal(count(s.buf, "<g class=\"f "), t.n);
	assert_non_null(strstr(s.buf, "<figure class=\"flame\" id=\"flame-x\">"));
	/* every frame's tooltip: its samples, its share and its ms */
	assert_non_null(strstr(s.buf, "of the graph"));
	assert_non_null(strstr(s.buf, " samples, "));
	flamegraph_nodes_free(&t);
	svg_release(&s);
	json_decref(stacks);
}

static void test_min_fraction_merges_narrow_frames(void **state)
{
	(void)state;
	json_t *stacks = load_folded(FOLDED);
	struct flamegraph_nodes all, some;
	assert_int_equal(flamegraph_nodes_from_stacks(stacks, 0, &all, NULL), 0);
	assert_int_equal(flamegraph_nodes_from_stacks(stacks, 0.05, &some, NULL), 0);
	assert_true(some.total == all.total);
	size_t wide = 0;
	for (size_t k = 0; k < all.n; k++)
		wide += all.v[k].value >= 0.05 * all.total;
	assert_int_equal(some.n, wide);
	assert_true(some.n < all.n);
	assert_int_equal(some.merged, all.n - some.n);
	for (size_t k = 0; k < some.n; k++)
		assert_true(some.v[k].value >= 0.05 * all.total);
	/* the graph says how many frames it does not show */
	struct svg s;
	struct flamegraph_opts o = { .id = "m", .title = "t", .unit = "samples", .merged = some.merged };
	char said[64];
	snprintf(said, sizeof(said), ">%zu frame%s too narrow", some.merged, some.merged == 1 ? "" : "s");
	render(some.v, some.n, &o, &s);
	assert_non_null(strstr(s.buf, said));
	svg_release(&s);
	flamegraph_nodes_free(&all);
	flamegraph_nodes_free(&some);
	json_decref(stacks);
}

static void test_kernel_user_and_own_frames(void **state)
{
	(void)state;
	json_t *stacks = load_folded(FOLDED);
	struct flamegraph_nodes t;
	assert_int_equal(flamegraph_nodes_from_stacks(stacks, 0, &t, NULL), 0);
	struct svg s;
	struct flamegraph_opts o = { .id = "f", .title = "whole run", .unit = "samples" };
	render(t.v, t.n, &o, &s);
	size_t kernel = 0, user = 0, own = 0;
	for (size_t k = 0; k < t.n; k++) {
		size_t n = strlen(t.v[k].name);
		if (n > 4 && !strcmp(t.v[k].name + n - 4, "_[k]"))
			kernel++;
		else if (t.v[k].name[0] == '[' && t.v[k].name[n - 1] == ']') /* [phase:pin], not [unknown]+0x... */
			own++;
		else
			user++;
	}
	assert_true(kernel > 0 && user > 0 && own > 0);
	assert_int_equal(count(s.buf, "<g class=\"f fk\">"), kernel);
	assert_int_equal(count(s.buf, "<g class=\"f fu\">"), user);
	assert_int_equal(count(s.buf, "<g class=\"f fm\">"), own);
	/* a kernel frame: its label without the suffix, its tooltip says kernel */
	const char *g = strstr(s.buf, "<title>do_syscall_64 [kernel] \u2014 ");
	assert_non_null(g);
	assert_true(g > strstr(s.buf, "<g class=\"f fk\">"));
	assert_non_null(strstr(s.buf, ">do_syscall_64</text>"));
	assert_null(strstr(s.buf, "_[k]<"));
	assert_non_null(strstr(s.buf, ">user</text>"));
	assert_non_null(strstr(s.buf, ">kernel</text>"));
	/* the colour is the name's: the same function, the same fill, in another graph */
	const char *r1 = strstr(g, "fill=\"");
	assert_non_null(r1);
	struct svg s2;
	struct flamegraph_nodes one = { 0 };
	json_t *st = json_pack("[{s:s, s:i}]", "stack", "x;do_syscall_64_[k]", "count", 3);
	assert_int_equal(flamegraph_nodes_from_stacks(st, 0, &one, NULL), 0);
	render(one.v, one.n, &o, &s2);
	const char *g2 = strstr(s2.buf, "<title>do_syscall_64 [kernel]");
	assert_non_null(g2);
	assert_memory_equal(strstr(g2, "fill=\""), r1, 14);
	flamegraph_nodes_free(&one);
	json_decref(st);
	svg_release(&s2);
	flamegraph_nodes_free(&t);
	svg_release(&s);
	json_decref(stacks);
}

/* A wall-clock graph: on-CPU samples and off-CPU stacks in ms; the
 * [off-cpu] frame and everything on it are off-CPU (their own class and
 * legend entry, "[off-CPU]" in the tooltip), the rest keeps its kind. */
static void test_offcpu_frames(void **state)
{
	(void)state;
	json_t *st = json_pack("[{s:s, s:f}, {s:s, s:f}, {s:s, s:f}]",
			       "stack", "app;main;work", "ms", 30.0,
			       "stack", "app;[off-cpu];main;pthread_mutex_lock;futex_wait_[k]", "ms", 60.5,
			       "stack", "app;[off-cpu]", "ms", 9.5);
	struct flamegraph_nodes t;
	assert_int_equal(flamegraph_nodes_from_stacks(st, 0, &t, NULL), 0);
	assert_true(fabs(t.total - 100) < 1e-9);
	size_t off = 0;
	for (size_t k = 0; k < t.n; k++) {
		bool under = !strcmp(t.v[k].name, "[off-cpu]") || !strcmp(t.v[k].name, "pthread_mutex_lock") ||
			     !strcmp(t.v[k].name, "futex_wait_[k]") || (!strcmp(t.v[k].name, "main") && t.v[k].depth == 2);
		assert_int_equal(t.v[k].off, under);
		off += t.v[k].off;
	}
	assert_int_equal(off, 4);
	struct svg s;
	struct flamegraph_opts o = { .id = "w", .title = "wall-clock", .unit = "ms" };
	render(t.v, t.n, &o, &s);
	assert_int_equal(count(s.buf, "<g class=\"f fo\">"), 4);
	assert_non_null(strstr(s.buf, ">off-CPU (blocked)</text>"));
	assert_non_null(strstr(s.buf, "<title>futex_wait [off-CPU] [kernel] \u2014 "));
	flamegraph_nodes_free(&t);
	svg_release(&s);
	json_decref(st);
}

static void test_names_are_escaped(void **state)
{
	(void)state;
	json_t *st = json_pack("[{s:s, s:i}, {s:s, s:i}]", "stack", "main;a<b>&\"c\";<script>x", "count", 7, "stack",
			       "main;it's\x01", "count", 3);
	struct flamegraph_nodes t;
	assert_int_equal(flamegraph_nodes_from_stacks(st, 0, &t, NULL), 0);
	assert_int_equal(t.n, 4);
	struct svg s;
	struct flamegraph_opts o = { .id = "flame-\"><x", .title = "phase <b>&", .unit = "samples" };
	render(t.v, t.n, &o, &s);
	assert_null(strstr(s.buf, "<script"));
	assert_null(strstr(s.buf, "a<b"));
	assert_null(strstr(s.buf, "\"><x"));
	assert_null(strstr(s.buf, "<b>"));
	assert_null(strstr(s.buf, "\x01"));
	assert_non_null(strstr(s.buf, "a&lt;b&gt;&amp;&quot;c&quot;"));
	assert_non_null(strstr(s.buf, "&lt;script&gt;x"));
	assert_non_null(strstr(s.buf, "it&#39;s?"));
	assert_non_null(strstr(s.buf, "phase &lt;b&gt;&amp;"));
	flamegraph_nodes_free(&t);
	svg_release(&s);
	json_decref(st);
}

/* Links only the frames href answers for, escaped; the others stay plain. */
static const char *phase_link(void *arg, const char *frame)
{
	(void)arg;
	if (!strcmp(frame, "[phase:pin]"))
		return "#flame-pin";
	if (!strcmp(frame, "[phase:x\"y]"))
		return "#flame-x\"><i>";
	return NULL;
}

static void test_frame_links(void **state)
{
	(void)state;
	json_t *st = json_pack("[{s:s, s:i}, {s:s, s:i}, {s:s, s:i}]", "stack", "[phase:pin];main;pin", "count", 5,
			       "stack", "[phase:load];main;read", "count", 3, "stack", "[phase:x\"y];main", "count", 2);
	struct flamegraph_nodes t;
	assert_int_equal(flamegraph_nodes_from_stacks(st, 0, &t, NULL), 0);
	struct svg s;
	struct flamegraph_opts o = { .id = "profile-run", .title = "whole run", .unit = "samples",
				     .href = phase_link };
	render(t.v, t.n, &o, &s);
	assert_int_equal(count(s.buf, "<a href=\"#flame-pin\"><g class=\"f fm\">"), 1);
	assert_int_equal(count(s.buf, "<a href=\"#flame-x&quot;&gt;&lt;i&gt;\">"), 1);
	assert_int_equal(count(s.buf, "<a "), 2);
	assert_int_equal(count(s.buf, "</g></a>"), 2);
	assert_null(strstr(s.buf, "<i>"));
	svg_release(&s);
	o.href = NULL;
	render(t.v, t.n, &o, &s);
	assert_null(strstr(s.buf, "<a "));
	flamegraph_nodes_free(&t);
	svg_release(&s);
	json_decref(st);
}

static void test_deep_stack_is_capped(void **state)
{
	(void)state;
	size_t depth = 10000;
	char *stack = xmalloc(depth * 8 + 1), *p = stack;
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "%sf%zu", i ? ";" : "", i);
	json_t *st = json_pack("[{s:s, s:i}, {s:s, s:i}]", "stack", stack, "count", 5, "stack", "f0;short", "count", 1);
	struct flamegraph_nodes t;
	assert_int_equal(flamegraph_nodes_from_stacks(st, 0, &t, NULL), 0);
	assert_int_equal(t.deep, 1);
	assert_int_equal(t.n, FLAMEGRAPH_DEPTH_MAX + 1); /* 64 levels and "short" */
	int max = 0;
	for (size_t k = 0; k < t.n; k++)
		if (t.v[k].depth > max)
			max = t.v[k].depth;
	assert_int_equal(max, FLAMEGRAPH_DEPTH_MAX - 1);
	assert_string_equal(t.v[t.n - 2].name, "\u2026");
	assert_true(t.v[t.n - 2].value == 5);
	struct svg s;
	struct flamegraph_opts o = { .id = "d", .title = "deep", .unit = "samples" };
	render(t.v, t.n, &o, &s);
	assert_int_equal(count(s.buf, "<g class=\"f "), t.n);
	assert_true(s.len < 64 * 1024);
	svg_release(&s);
	/* the writer caps depth too, whatever its caller hands it */
	struct flamegraph_node *deep = xcalloc(depth, sizeof(*deep));
	for (size_t k = 0; k < depth; k++)
		deep[k] = (struct flamegraph_node){ "f", (int)k, 1, NAN, NAN, FLAMEGRAPH_PLAIN };
	render(deep, depth, &o, &s);
	assert_int_equal(count(s.buf, "<g class=\"f "), FLAMEGRAPH_DEPTH_MAX);
	assert_non_null(strstr(s.buf, "not drawn"));
	svg_release(&s);
	free(deep);
	flamegraph_nodes_free(&t);
	json_decref(st);
	free(stack);
}

static void test_many_stacks_are_bounded(void **state)
{
	(void)state;
	json_t *st = json_array();
	char b[96];
	for (int i = 0; i < 100000; i++) {
		snprintf(b, sizeof(b), "root%d;mid%d;leaf%d", i % 7, i, i);
		json_array_append_new(st, json_pack("{s:s, s:i}", "stack", b, "count", 1 + i % 3));
	}
	struct flamegraph_nodes t;
	assert_int_equal(flamegraph_nodes_from_stacks(st, 0, &t, NULL), 0);
	assert_int_equal(t.n, FLAMEGRAPH_NODES_MAX);
	assert_int_equal(t.merged, 7 + 200000 - FLAMEGRAPH_NODES_MAX);
	/* the widest are kept: the 7 roots, then frames of count 3 */
	for (size_t k = 0; k < t.n; k++)
		assert_true(t.v[k].depth == 0 || t.v[k].value == 3);
	struct svg s;
	struct flamegraph_opts o = { .id = "m", .title = "many", .unit = "samples" };
	render(t.v, t.n, &o, &s);
	assert_true(count(s.buf, "<g class=\"f ") <= FLAMEGRAPH_RECTS_MAX);
	assert_true(s.len < 2 * 1024 * 1024);
	svg_release(&s);
	flamegraph_nodes_free(&t);
	/* a caller's 100 000 nodes: at most FLAMEGRAPH_RECTS_MAX rects */
	struct flamegraph_node *v = xcalloc(100000, sizeof(*v));
	for (size_t k = 0; k < 100000; k++) /* 1563 chains of 64 frames: each frame 0.6 px wide */
		v[k] = (struct flamegraph_node){ "n", (int)(k % 64), 1, NAN, NAN, FLAMEGRAPH_PLAIN };
	render(v, 100000, &o, &s);
	assert_int_equal(count(s.buf, "<g class=\"f "), FLAMEGRAPH_RECTS_MAX);
	svg_release(&s);
	free(v);
	json_decref(st);
}

static void test_bad_values_are_skipped(void **state)
{
	(void)state;
	json_t *st = json_loads("[{\"stack\":\"a;b\",\"count\":0},{\"stack\":\"a;b\",\"count\":-4},"
				"{\"stack\":\"a;b\",\"count\":1e308},{\"stack\":\"a;b\",\"count\":\"9\"},"
				"{\"count\":3},{\"stack\":\"\",\"count\":3},7,{\"stack\":\"a;c\",\"count\":2.5}]",
				0, NULL);
	assert_non_null(st);
	struct flamegraph_nodes t;
	assert_int_equal(flamegraph_nodes_from_stacks(st, 0, &t, NULL), 0);
	assert_int_equal(t.skipped, 7);
	assert_int_equal(t.n, 2);
	assert_true(t.total == 2.5);
	flamegraph_nodes_free(&t);
	struct err e;
	assert_true(flamegraph_nodes_from_stacks(json_object_get(st, "x"), 0, &t, &e) < 0);
	assert_non_null(strstr(e.msg, "not an array"));
	json_decref(st);

	/* the writer: NaN, inf, negative and zero values and their subtrees are
	 * left out, a node deeper than its parent + 1 too, children never past
	 * their parent's extent */
	struct flamegraph_node v[] = {
		{ "ok", 0, 10, NAN, NAN, 0 },   { "kid", 1, 40, NAN, NAN, 0 }, /* clipped to 10 */
		{ "nan", 0, NAN, NAN, NAN, 0 }, { "under-nan", 1, 1, NAN, NAN, 0 },
		{ "inf", 0, INFINITY, NAN, NAN, 0 }, { "neg", 0, -5, NAN, NAN, 0 },
		{ "zero", 0, 0, NAN, NAN, 0 },  { "orphan", 3, 1, NAN, NAN, 0 },
		{ "ok2", 0, 10, NAN, NAN, 0 },  { "neg-depth", -1, 1, NAN, NAN, 0 },
	};
	struct svg s;
	struct flamegraph_opts o = { .id = "b", .title = "bad", .unit = "ms" };
	render(v, sizeof(v) / sizeof(v[0]), &o, &s);
	assert_int_equal(count(s.buf, "<g class=\"f "), 3);
	assert_non_null(strstr(s.buf, "<title>kid \u2014 40.0 ms"));
	assert_non_null(strstr(s.buf, "width=\"472.00\""));
	assert_null(strstr(s.buf, ">nan"));
	assert_null(strstr(s.buf, "orphan"));
	svg_release(&s);
	/* nothing drawable: a figure that says so */
	render(v + 2, 1, &o, &s);
	assert_non_null(strstr(s.buf, "no samples to draw"));
	svg_release(&s);
	render(NULL, 0, &o, &s);
	svg_release(&s);
}

static void test_differential(void **state)
{
	(void)state;
	struct flamegraph_node v[] = {
		{ "[phase:pin]", 0, 300, 100, 300, FLAMEGRAPH_GROWN },
		{ "pin_buffers", 1, 250, 40, 250, FLAMEGRAPH_GROWN },
		{ "handle_mm_fault_[k]", 2, 200, 0, 200, FLAMEGRAPH_GROWN },
		{ "memcpy", 1, 30, 50, 30, FLAMEGRAPH_SHRUNK },
		{ "other", 1, 20, 10, 20, FLAMEGRAPH_SAME },
	};
	struct svg s;
	struct flamegraph_opts o = { .id = "diff-pin", .title = "pin", .unit = "ms", .differential = true };
	render(v, 5, &o, &s);
	assert_int_equal(count(s.buf, " fgrow\">"), 3);
	assert_int_equal(count(s.buf, " fshrink\">"), 1);
	assert_int_equal(count(s.buf, " fsame\">"), 1);
	assert_non_null(strstr(s.buf, "<g class=\"f fk fgrow\">"));
	assert_non_null(strstr(s.buf, "per run 0 \u00b5s \u2192 200 ms, grown"));
	assert_non_null(strstr(s.buf, "per run 50.0 ms \u2192 30.0 ms, shrunk"));
	assert_non_null(strstr(s.buf, ">within noise</text>"));
	assert_null(strstr(s.buf, "fill=\"#")); /* colours from the stylesheet */
	svg_release(&s);
}

static void test_ids(void **state)
{
	(void)state;
	char *a = flamegraph_id("flame-", "pin abc"), *b = flamegraph_id("flame-", "pin_abc");
	char *c = flamegraph_id("flame-", "x\"<>.y");
	assert_string_equal(a, "flame-pin.20abc");
	assert_string_equal(b, "flame-pin_abc");
	assert_string_equal(c, "flame-x.22.3c.3e.2ey");
	char longname[5000];
	memset(longname, 'q', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	char *d = flamegraph_id("flame-", longname);
	longname[100] = 'r';
	char *e = flamegraph_id("flame-", longname);
	assert_true(strlen(d) < 100);
	assert_string_not_equal(d, e);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths_are_the_stacks_under_each_path),
		cmocka_unit_test(test_min_fraction_merges_narrow_frames),
		cmocka_unit_test(test_kernel_user_and_own_frames),
		cmocka_unit_test(test_offcpu_frames),
		cmocka_unit_test(test_names_are_escaped),
		cmocka_unit_test(test_frame_links),
		cmocka_unit_test(test_deep_stack_is_capped),
		cmocka_unit_test(test_many_stacks_are_bounded),
		cmocka_unit_test(test_bad_values_are_skipped),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
