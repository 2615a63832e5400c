/* Unit tests of src/probe/phases.c and its presentations (record/phases_json.c,
 * export/phases_text.c): the seed log as phases, markers, nesting, lanes with
 * hand-computed busy time and gaps, bounds, and the JSON and text output. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "probe/phases.h"
#include "record/phases_json.h"
#include "export/phases_text.h"

static struct probe_config cfg;

static int setup(void **state)
{
	(void)state;
	probe_config_init(&cfg);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	probe_config_release(&cfg);
	return 0;
}

/* Parses line and adds it at t_ms; returns what phase_set_add_probe returned. */
static int add(struct phase_set *s, double t_ms, const char *line)
{
	struct probe p;
	assert_int_equal(probe_parse_line(&cfg, line, strlen(line), &p), 1);
	int r = phase_set_add_probe(s, &p, t_ms, "stderr");
	probe_release(&p);
	return r;
}

static const struct phase *find(const struct phase_set *s, const char *name, double start_ms)
{
	for (size_t i = 0; i < s->n_phases; i++)
		if (!strcmp(s->phases[i].name, name) && s->phases[i].start_ms == start_ms)
			return &s->phases[i];
	fail_msg("no phase %s starting at %g", name, start_ms);
	return NULL;
}

static const char *active(const struct phase_set *s, double t)
{
	static char buf[256];
	phase_set_active_at(s, t, buf, sizeof(buf));
	return buf;
}

/* The seed log, each line arriving at a plausible time. */
static void add_seed(struct phase_set *s)
{
	assert_int_equal(add(s, 5833, "CUZK_TIMING: pin_abc_ms=5733 num_circuits=10 abc_bytes_each=4168923808"), 1);
	assert_int_equal(add(s, 7600, "CUZK_TIMING: prep_msm_ms=1722"), 1);
	assert_int_equal(add(s, 29100, "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=21417"), 1);
	assert_int_equal(add(s, 30560, "CUZK_TIMING: gpu_tid=0 batch_add_ms=1446"), 1);
	assert_int_equal(add(s, 31830, "CUZK_TIMING: gpu_tid=0 tail_msm_ms=1259 gpu_total_ms=24123"), 2);
	assert_int_equal(add(s, 54700, "CUZK_TIMING: b_g2_msm_ms=22849 num_circuits=10"), 1);
}

static void test_seed_phases(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	add_seed(&s);
	phase_set_finish(&s, 55000);
	assert_int_equal(s.n_phases, 7);
	assert_int_equal(s.n_probes, 6);

	const struct phase *ph = find(&s, "pin_abc", 100);
	assert_true(ph->end_ms == 5833);
	assert_true(ph->duration_ms == 5733);
	assert_int_equal(ph->lane, -1);
	assert_int_equal(ph->source, PHASE_DURATION);
	assert_int_equal(ph->values.n_fields, 2);
	assert_string_equal(ph->values.fields[0].key, "num_circuits");
	assert_string_equal(ph->values.fields[1].key, "abc_bytes_each");

	ph = find(&s, "ntt_msm_h", 7683);
	assert_string_equal(s.lanes[ph->lane], "gpu_tid=0");
	assert_int_equal(ph->values.n_fields, 0); /* the lane is not a value */
	ph = find(&s, "tail_msm", 30571);
	assert_string_equal(s.lanes[ph->lane], "gpu_tid=0");
	ph = find(&s, "gpu_total", 7707);
	assert_true(ph->end_ms == 31830);
	assert_string_equal(s.lanes[ph->lane], "gpu_tid=0");
	ph = find(&s, "b_g2_msm", 31851);
	assert_int_equal(ph->values.n_fields, 1);

	assert_string_equal(active(&s, 1000), "pin_abc");
	assert_string_equal(active(&s, 20000), "ntt_msm_h+gpu_total");
	assert_string_equal(active(&s, 5850), "");
	char buf[64];
	assert_int_equal(phase_set_overlapping(&s, 5800, 5900, buf, sizeof(buf)), strlen("pin_abc+prep_msm"));
	assert_string_equal(buf, "pin_abc+prep_msm");
	phase_set_overlapping(&s, 5900, 5800, buf, sizeof(buf)); /* reversed window */
	assert_string_equal(buf, "pin_abc+prep_msm");
	/* cut visibly: "ntt_msm_h+gpu_total" in 12 bytes is 8 of it and "…" (3 bytes) */
	assert_int_equal(phase_set_active_at(&s, 20000, buf, 12), 11);
	assert_string_equal(buf, "ntt_msm_\u2026");
	assert_int_equal(phase_set_active_at(&s, 20000, buf, 20), 19); /* exactly fits */
	assert_string_equal(buf, "ntt_msm_h+gpu_total");
	assert_int_equal(phase_set_active_at(&s, 20000, buf, 19), 18);
	assert_string_equal(buf, "ntt_msm_h+gpu_t\u2026");

	/* gpu_total covers the lane's gaps */
	assert_int_equal(s.n_lane_stats, 1);
	assert_true(s.lane_stats[0].busy_ms == 24147);
	assert_int_equal(s.lane_stats[0].gaps, 0);
	assert_true(s.lane_stats[0].busy_pct == 100);
	assert_int_equal(s.n_stats, 7);
	assert_string_equal(s.stats[0].name, "pin_abc"); /* in order of first start */
	assert_string_equal(s.stats[6].name, "b_g2_msm");
	phase_set_release(&s);
}

/* Lane gpu_tid=0 without gpu_total: the seed's analysis by hand.
 * ntt [7683, 29100], batch_add [29114, 30560], tail [30571, 31830]:
 * busy 21417 + 1446 + 1259 = 24122 of span 24147, gaps 14 and 11. */
static void test_lane_gaps_seed(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	add(&s, 29100, "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=21417");
	add(&s, 30560, "CUZK_TIMING: gpu_tid=0 batch_add_ms=1446");
	add(&s, 31830, "CUZK_TIMING: gpu_tid=0 tail_msm_ms=1259");
	add(&s, 31900, "CUZK_TIMING: gpu_tid=1 tail_msm_ms=50");
	phase_set_finish(&s, 32000);
	assert_int_equal(s.n_lane_stats, 2);
	const struct lane_stat *l = &s.lane_stats[0];
	assert_string_equal(l->lane, "gpu_tid=0");
	assert_int_equal(l->phases, 3);
	assert_true(l->busy_ms == 24122);
	assert_true(l->span_ms == 24147);
	assert_int_equal(l->gaps, 2);
	assert_true(l->longest_gap_ms == 14);
	assert_true(l->busy_pct > 99.89 && l->busy_pct < 99.90);
	assert_string_equal(s.lane_stats[1].lane, "gpu_tid=1");
	assert_true(s.lane_stats[1].busy_pct == 100);
	phase_set_release(&s);
}

/* Overlapping phases on one lane: A [0,10], B [12,20], C [15,25], D [30,40].
 * Union [0,10] [12,25] [30,40]: busy 33 of 40 (82.5 %), gaps 2 and 5. */
static void test_lane_union(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	add(&s, 10, "PERFHUNT: tid=1 a_ms=10");
	add(&s, 20, "PERFHUNT: tid=1 b_ms=8");
	add(&s, 25, "PERFHUNT: tid=1 c_ms=10");
	add(&s, 40, "PERFHUNT: tid=1 d_ms=10");
	phase_set_finish(&s, 40);
	const struct lane_stat *l = &s.lane_stats[0];
	assert_string_equal(l->lane, "tid=1");
	assert_true(l->busy_ms == 33);
	assert_true(l->span_ms == 40);
	assert_true(l->busy_pct == 82.5);
	assert_int_equal(l->gaps, 2);
	assert_true(l->longest_gap_ms == 5);
	assert_string_equal(active(&s, 16), "b+c");
	assert_string_equal(active(&s, 11), "");
	assert_string_equal(active(&s, 10), ""); /* half-open: [0,10) */
	phase_set_release(&s);
}

static void test_markers(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	assert_int_equal(add(&s, 0, "PERFHUNT: begin=outer files=3"), 0);
	add(&s, 10, "PERFHUNT: begin=inner");
	assert_string_equal(active(&s, 15), "outer+inner"); /* open phases count */
	assert_int_equal(add(&s, 20, "PERFHUNT: end=inner"), 1);
	assert_int_equal(add(&s, 50, "PERFHUNT: end=outer bytes_read=4096"), 1);
	assert_int_equal(add(&s, 60, "PERFHUNT: end=never"), 0);
	assert_int_equal(s.unmatched_ends, 1);
	/* the same name twice: end closes the most recent */
	add(&s, 100, "PERFHUNT: begin=x");
	add(&s, 110, "PERFHUNT: begin=x");
	add(&s, 120, "PERFHUNT: end=x");
	add(&s, 130, "PERFHUNT: end=x");
	/* one name on two lanes, overlapping; end matches the lane */
	add(&s, 200, "PERFHUNT: begin=w worker=1");
	add(&s, 205, "PERFHUNT: begin=w worker=2");
	add(&s, 210, "PERFHUNT: end=w worker=1");
	assert_int_equal(add(&s, 215, "PERFHUNT: end=w"), 0); /* no lane: no match */
	add(&s, 220, "PERFHUNT: end=w worker=2");
	/* switch phase on one line */
	add(&s, 300, "PERFHUNT: begin=p1");
	add(&s, 310, "PERFHUNT: end=p1 begin=p2");
	add(&s, 400, "PERFHUNT: begin=tail");
	assert_int_equal(s.n_open, 2);
	phase_set_finish(&s, 450);
	assert_int_equal(s.n_open, 0);
	assert_int_equal(s.unmatched_ends, 2);

	const struct phase *ph = find(&s, "outer", 0);
	assert_true(ph->end_ms == 50);
	assert_int_equal(ph->source, PHASE_MARKER);
	assert_int_equal(ph->values.n_fields, 2); /* from begin= and end= lines */
	assert_string_equal(ph->values.fields[0].key, "files");
	assert_string_equal(ph->values.fields[1].key, "bytes_read");
	assert_true(find(&s, "inner", 10)->end_ms == 20);
	assert_true(find(&s, "x", 110)->end_ms == 120);
	assert_true(find(&s, "x", 100)->end_ms == 130);
	ph = find(&s, "w", 200);
	assert_true(ph->end_ms == 210);
	assert_string_equal(s.lanes[ph->lane], "worker=1");
	ph = find(&s, "w", 205);
	assert_true(ph->end_ms == 220);
	assert_string_equal(s.lanes[ph->lane], "worker=2");
	assert_true(find(&s, "p1", 300)->end_ms == 310);
	ph = find(&s, "p2", 310);
	assert_true(ph->end_ms == 450);
	assert_true(ph->unfinished);
	ph = find(&s, "tail", 400);
	assert_true(ph->unfinished);
	assert_int_equal(s.unfinished, 2);

	assert_string_equal(active(&s, 207), "w");    /* one name once */
	assert_string_equal(active(&s, 30), "outer");
	assert_string_equal(active(&s, 420), "p2+tail");

	/* unfinished phases stay out of the statistics; x: 10 and 30 ms */
	for (size_t i = 0; i < s.n_stats; i++) {
		assert_string_not_equal(s.stats[i].name, "tail");
		if (!strcmp(s.stats[i].name, "x")) {
			assert_int_equal(s.stats[i].count, 2);
			assert_true(s.stats[i].total_ms == 40);
			assert_true(s.stats[i].median_ms == 20);
			assert_true(s.stats[i].min_ms == 10);
			assert_true(s.stats[i].max_ms == 30);
		}
	}
	phase_set_release(&s);
}

/* A name past PHASE_NAME_MAX is cut to it ending "...", by one rule for
 * begin= and end=: the same long name cut at different lengths (as a
 * 64 KiB line cuts begin= and end= lines) still closes its phase. */
static void test_long_names(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	size_t n = 3 * PHASE_NAME_MAX;
	char *line = malloc(n + 64);
	memcpy(line, "PERFHUNT: begin=", 16);
	memset(line + 16, 'a', n);
	line[16 + n] = 0;
	add(&s, 0, line);
	snprintf(line, 16, "PERFHUNT: end=");
	memmove(line + 14, line + 16, n - 100); /* another length of the same name */
	line[14 + n - 100] = 0;
	assert_int_equal(add(&s, 10, line), 1);
	assert_int_equal(s.unmatched_ends, 0);
	assert_int_equal(strlen(s.phases[0].name), PHASE_NAME_MAX);
	assert_string_equal(s.phases[0].name + PHASE_NAME_MAX - 4, "a...");
	free(line);
	phase_set_release(&s);
}

static void test_clamp_and_stats(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	add(&s, 100, "PERFHUNT: load_ms=500");      /* began before the run */
	add(&s, 200, "PERFHUNT: step_us=30000");
	add(&s, 300, "PERFHUNT: step_s=0.01");
	add(&s, 400, "PERFHUNT: step_ns=50000000");
	phase_set_finish(&s, 400);
	const struct phase *ph = find(&s, "load", 0);
	assert_true(ph->clamped);
	assert_true(ph->duration_ms == 500); /* the program's figure, kept */
	assert_int_equal(s.clamped, 1);
	assert_int_equal(s.n_stats, 2);
	assert_string_equal(s.stats[0].name, "load");
	assert_true(s.stats[0].total_ms == 500);
	const struct phase_stat *st = &s.stats[1];
	assert_string_equal(st->name, "step");
	assert_int_equal(st->count, 3);
	assert_true(st->median_ms > 29.999 && st->median_ms < 30.001);
	assert_true(st->min_ms > 9.999 && st->min_ms < 10.001);
	assert_true(st->max_ms > 49.999 && st->max_ms < 50.001);
	phase_set_release(&s);

	/* dated before the run: it never ends before it starts, nor before the run */
	phase_set_init(&s);
	add(&s, -50, "PERFHUNT: early_ms=10");
	phase_set_finish(&s, 100);
	ph = find(&s, "early", 0);
	assert_true(ph->clamped && ph->end_ms == 0 && ph->duration_ms == 10);
	phase_set_release(&s);
}

static void test_bounds(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	s.max_probes = 2;
	s.max_phases = 3;
	s.max_open = 1;
	s.max_lanes = 1;
	add(&s, 1, "PERFHUNT: a_ms=1");
	add(&s, 2, "PERFHUNT: b_ms=1 c_ms=1");
	add(&s, 3, "PERFHUNT: d_ms=1 e_ms=1");   /* probe and both phases dropped */
	add(&s, 4, "PERFHUNT: begin=o1");
	add(&s, 5, "PERFHUNT: begin=o2");        /* open stack full */
	add(&s, 6, "PERFHUNT: tid=9 f_ms=1");    /* ok lane, but phases full */
	add(&s, 7, "PERFHUNT: tid=8 g_ms=1");    /* lane table full */
	assert_int_equal(s.probes_seen, 7);
	assert_int_equal(s.n_probes, 2);
	assert_int_equal(s.probes_dropped, 5);
	assert_int_equal(s.n_phases, 3);
	assert_int_equal(s.n_lanes, 1);
	assert_int_equal(s.phases_dropped, 2);   /* o2, g: no room for them at all */
	assert_int_equal(s.phases_aggregated, 3); /* d, e, f: past the cap, counted per name */
	phase_set_finish(&s, 10); /* o1 is unfinished: no duration to aggregate */
	assert_int_equal(s.phases_dropped, 3);
	assert_int_equal(s.n_phases, 3);
	/* every finished phase is in the statistics, listed or not */
	size_t counted = 0;
	for (size_t i = 0; i < s.n_stats; i++)
		counted += s.stats[i].count;
	assert_int_equal(counted, 6);

	/* a byte budget bounds long lines too */
	struct phase_set b;
	phase_set_init(&b);
	b.max_bytes = 4096;
	char line[600];
	snprintf(line, sizeof(line), "PERFHUNT: x_ms=1 note=%0500d", 7);
	for (int i = 0; i < 50; i++)
		add(&b, i, line);
	assert_true(b.bytes <= 4096);
	assert_true(b.probes_dropped > 0 && b.phases_aggregated > 0);
	phase_set_release(&b);
	phase_set_release(&s);
}

/* Past the cap on listed phases each phase still counts in its name's statistics. */
static void test_aggregates_past_cap(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	s.max_phases = 2;
	add(&s, 10, "PERFHUNT: a_ms=1");
	add(&s, 20, "PERFHUNT: a_ms=2");
	add(&s, 30, "PERFHUNT: a_ms=3");
	add(&s, 40, "PERFHUNT: a_ms=4 b_ms=7");
	add(&s, 50, "PERFHUNT: a_ms=5");
	phase_set_finish(&s, 60);
	assert_int_equal(s.n_phases, 2);
	assert_int_equal(s.phases_aggregated, 4);
	assert_int_equal(s.phases_dropped, 0);
	assert_int_equal(s.n_stats, 2);
	const struct phase_stat *a = &s.stats[0], *b = &s.stats[1];
	assert_string_equal(a->name, "a");
	assert_int_equal(a->count, 5);
	assert_true(a->total_ms == 15 && a->min_ms == 1 && a->max_ms == 5 && a->median_ms == 3);
	assert_string_equal(b->name, "b");
	assert_int_equal(b->count, 1);
	assert_true(b->total_ms == 7 && b->median_ms == 7 && b->first_start_ms == 33);
	phase_set_release(&s);
}

/* Lines with a prefix but no usable pair: all counted, three quoted, safely. */
static void test_unparsed(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	phase_set_add_unparsed(&s, "stderr", 3, "CUZK_TIMING: pin took 5 s", 25);
	phase_set_add_unparsed(&s, "log", 7, "CUZK_TIMING: \x1b\\\xff", 16);
	char longline[400];
	memset(longline, 'x', sizeof(longline));
	phase_set_add_unparsed(&s, "stdout", 9, longline, sizeof(longline));
	phase_set_add_unparsed(&s, "stdout", 12, "PERFHUNT:", 9);
	assert_int_equal(s.unparsed, 4);
	assert_int_equal(s.n_unparsed_first, 3);
	assert_string_equal(s.unparsed_first[0].stream, "stderr");
	assert_int_equal(s.unparsed_first[0].line, 3);
	assert_string_equal(s.unparsed_first[0].text, "CUZK_TIMING: pin took 5 s");
	assert_string_equal(s.unparsed_first[1].text, "CUZK_TIMING: \\x1b\\x5c\\xff");
	size_t len = strlen(s.unparsed_first[2].text);
	assert_true(len < PHASE_UNPARSED_TEXT && len > 100);
	assert_string_equal(s.unparsed_first[2].text + len - 3, "...");
	json_t *o = phase_set_to_json(&s);
	json_t *info = json_object_get(o, "probe_info");
	assert_int_equal(json_integer_value(json_object_get(info, "unparsed")), 4);
	json_t *first = json_array_get(json_object_get(info, "unparsed_lines"), 1);
	assert_int_equal(json_integer_value(json_object_get(first, "line")), 7);
	assert_string_equal(json_string_value(json_object_get(first, "stream")), "log");
	json_decref(o);
	phase_set_release(&s);
}

static void test_out_of_order_times(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	add(&s, 100, "PERFHUNT: a_ms=50");
	add(&s, 60, "PERFHUNT: b_ms=50");  /* stdout and stderr may interleave late */
	add(&s, 200, "PERFHUNT: c_ms=10");
	assert_false(s.ends_sorted);
	assert_string_equal(active(&s, 55), "b+a");
	assert_string_equal(active(&s, 195), "c");
	struct probe p;
	assert_int_equal(probe_parse_line(&cfg, "PERFHUNT: a=1", 13, &p), 1);
	assert_int_equal(phase_set_add_probe(&s, &p, NAN, "stdout"), -1);
	probe_release(&p);
	assert_int_equal(s.probes_seen, 3);
	phase_set_release(&s);
}

static void test_json(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	add_seed(&s);
	add(&s, 55000, "PERFHUNT: begin=verify junk");
	phase_set_finish(&s, 56000.5);
	json_t *o = phase_set_to_json(&s);
	assert_non_null(o);
	json_t *phases = json_object_get(o, "phases");
	assert_int_equal(json_array_size(phases), 8);
	json_t *first = json_array_get(phases, 0); /* sorted by start */
	assert_string_equal(json_string_value(json_object_get(first, "name")), "pin_abc");
	assert_string_equal(json_string_value(json_object_get(first, "lane")), "");
	assert_string_equal(json_string_value(json_object_get(first, "source")), "duration");
	assert_int_equal(json_integer_value(json_object_get(first, "start_ms")), 100);
	json_t *values = json_object_get(first, "values");
	assert_int_equal(json_integer_value(json_object_get(values, "num_circuits")), 10);
	assert_int_equal(json_integer_value(json_object_get(values, "abc_bytes_each")), 4168923808LL);
	json_t *last = json_array_get(phases, 7);
	assert_string_equal(json_string_value(json_object_get(last, "name")), "verify");
	assert_true(json_is_true(json_object_get(last, "unfinished")));
	assert_true(json_real_value(json_object_get(last, "end_ms")) == 56000.5);
	json_t *gpu = json_array_get(phases, 2);
	assert_string_equal(json_string_value(json_object_get(gpu, "lane")), "gpu_tid=0");

	json_t *stats = json_object_get(o, "phase_stats");
	assert_int_equal(json_array_size(stats), 7);
	json_t *st = json_array_get(stats, 0);
	assert_string_equal(json_string_value(json_object_get(st, "name")), "pin_abc");
	assert_int_equal(json_integer_value(json_object_get(st, "count")), 1);
	assert_int_equal(json_integer_value(json_object_get(st, "median_ms")), 5733);

	json_t *lanes = json_object_get(o, "lanes");
	assert_int_equal(json_array_size(lanes), 1);
	json_t *l = json_array_get(lanes, 0);
	assert_string_equal(json_string_value(json_object_get(l, "lane")), "gpu_tid=0");
	assert_int_equal(json_integer_value(json_object_get(l, "busy_ms")), 24147);
	assert_int_equal(json_integer_value(json_object_get(l, "gaps")), 0);

	json_t *probes = json_object_get(o, "probes");
	assert_int_equal(json_array_size(probes), 7);
	json_t *p0 = json_array_get(probes, 0);
	assert_int_equal(json_integer_value(json_object_get(p0, "t_ms")), 5833);
	assert_string_equal(json_string_value(json_object_get(p0, "prefix")), "CUZK_TIMING");
	assert_string_equal(json_string_value(json_object_get(p0, "stream")), "stderr");
	json_t *f = json_object_get(p0, "fields");
	assert_int_equal(json_integer_value(json_object_get(f, "pin_abc_ms")), 5733);
	json_t *p6 = json_array_get(probes, 6);
	assert_string_equal(json_string_value(json_object_get(json_object_get(p6, "fields"), "begin")), "verify");
	assert_int_equal(json_integer_value(json_object_get(p6, "ignored")), 1);
	assert_null(json_object_get(p0, "ignored"));

	json_t *info = json_object_get(o, "probe_info");
	assert_int_equal(json_integer_value(json_object_get(info, "probes")), 7);
	assert_int_equal(json_integer_value(json_object_get(info, "unfinished")), 1);
	assert_int_equal(json_integer_value(json_object_get(info, "ignored_tokens")), 1);
	json_decref(o);
	phase_set_release(&s);
}

static char *print_text(const json_t *record)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(phases_text_print(record, f, NULL), 0);
	fclose(f);
	return text;
}

static void test_text(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	add(&s, 29100, "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=21417");
	add(&s, 30560, "CUZK_TIMING: gpu_tid=0 batch_add_ms=1446");
	add(&s, 31830, "CUZK_TIMING: gpu_tid=0 tail_msm_ms=1259");
	add(&s, 31831, "CUZK_TIMING: tail_msm_us=500");
	add(&s, 31900, "PERFHUNT: end=nothing");
	phase_set_finish(&s, 32000);
	json_t *record = json_pack("{s:s}", "schema", "perfhunt.run/1");
	json_t *members = phase_set_to_json(&s);
	json_object_update(record, members);
	json_decref(members);
	char *text = print_text(record);
	assert_string_equal(text,
		"phase      count       total      median         min         max\n"
		"ntt_msm_h      1     21.42 s     21.42 s     21.42 s     21.42 s\n"
		"batch_add      1     1.446 s     1.446 s     1.446 s     1.446 s\n"
		"tail_msm       2     1.260 s      630 ms      500 µs     1.259 s\n"
		"lane      phases        busy   busy%        span   gaps longest gap\n"
		"gpu_tid=0      3     24.12 s   99.9%     24.15 s      2     14.0 ms\n"
		"probes: end= without begin= 1\n");
	free(text);

	/* a hostile stored record: numbers far out of range still print */
	json_t *odd = json_pack("{s:[{s:s, s:i, s:f, s:f, s:f, s:f}]}", "phase_stats", "name", "x",
				"count", 1, "total_ms", 1e300, "median_ms", -1e300, "min_ms", 0.0, "max_ms", 1e15);
	text = print_text(odd);
	assert_non_null(strstr(text, "1e+300 ms"));
	assert_non_null(strstr(text, "-1e+300 ms"));
	assert_non_null(strstr(text, "1e+15 ms"));
	free(text);
	json_decref(odd);

	/* a lane without gaps has no longest gap */
	json_t *nogap = json_pack("{s:[{s:s, s:i, s:i, s:i, s:i, s:i, s:i}]}", "lanes", "lane", "tid=1",
				  "phases", 1, "busy_ms", 5, "busy_pct", 100, "span_ms", 5, "gaps", 0,
				  "longest_gap_ms", 0);
	text = print_text(nogap);
	assert_string_equal(text,
		"lane  phases        busy   busy%        span   gaps longest gap\n"
		"tid=1      1     5.00 ms  100.0%     5.00 ms      0           -\n");
	free(text);
	json_decref(nogap);

	/* no phases: nothing printed; wrong member types are skipped */
	json_t *empty = json_pack("{s:[], s:s, s:[i]}", "phase_stats", "lanes", "x", "probe_info", 1);
	text = print_text(empty);
	assert_string_equal(text, "");
	free(text);
	json_decref(empty);
	json_decref(record);
	phase_set_release(&s);
}

/* The parts phase_set_split handed over, as "from-to:names|". */
static void part_text(void *arg, double from_ms, double to_ms, const char *phases)
{
	char *out = arg;
	sprintf(out + strlen(out), "%g-%g:%s|", from_ms, to_ms, phases);
}

struct part_sum {
	size_t n;
	double ms, in_phase_ms;
};

static void part_add(void *arg, double from_ms, double to_ms, const char *phases)
{
	struct part_sum *sum = arg;
	sum->n++;
	sum->ms += to_ms - from_ms;
	sum->in_phase_ms += phases[0] ? to_ms - from_ms : 0;
}

/* A span cut at every boundary inside it, each part with the phases open
 * at its start; nothing outside the span, no part of zero length, and no
 * bound on how many phases it crosses (an idle thread blocked all run). */
static void test_split(void **state)
{
	(void)state;
	struct phase_set s;
	phase_set_init(&s);
	add(&s, 10, "PERFHUNT: begin=a");
	add(&s, 20, "PERFHUNT: begin=b");
	add(&s, 30, "PERFHUNT: end=b");
	add(&s, 40, "PERFHUNT: end=a");
	add(&s, 60, "CUZK_TIMING: c_ms=10");  /* [50, 60] */
	add(&s, 70, "PERFHUNT: begin=open");
	char out[1024] = "";
	phase_set_split(&s, 5, 65, part_text, out);
	assert_string_equal(out, "5-10:|10-20:a|20-30:a+b|30-40:a|40-50:|50-60:c|60-65:|");
	out[0] = '\0';
	phase_set_split(&s, 22, 28, part_text, out); /* inside one part */
	assert_string_equal(out, "22-28:a+b|");
	out[0] = '\0';
	phase_set_split(&s, 65, 80, part_text, out); /* an open phase covers what follows its start */
	assert_string_equal(out, "65-70:|70-80:open|");
	out[0] = '\0';
	phase_set_split(&s, 30, 30, part_text, out); /* empty */
	assert_string_equal(out, "");
	phase_set_release(&s);

	/* 600 phases, more than any fixed list of matches: every one is a part */
	phase_set_init(&s);
	char line[64];
	for (int i = 0; i < 600; i++) {
		snprintf(line, sizeof(line), "CUZK_TIMING: p%d_ms=1", i % 3);
		add(&s, 2.0 * i + 1, line);
	}
	struct part_sum sum = { 0 };
	phase_set_split(&s, -1, 1300, part_add, &sum);
	assert_int_equal(sum.n, 2 * 600 + 1); /* each phase and the gap before it, and the tail */
	assert_true(fabs(sum.ms - 1301) < 1e-9);
	assert_true(fabs(sum.in_phase_ms - 600) < 1e-9);
	phase_set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_phases),
		cmocka_unit_test(test_lane_gaps_seed),
		cmocka_unit_test(test_lane_union),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_clamp_and_stats),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_aggregates_past_cap),
		cmocka_unit_test(test_unparsed),
		cmocka_unit_test(test_out_of_order_times),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
