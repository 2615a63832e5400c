/* Unit tests of the timeline (src/monitor/timeline.c), the track (src/monitor/track.c) and
 * src/record/csv: the bounded timeline keeps spikes and totals; a marker sample makes its
 * phase end exact where the program waited for it however late its reading began, or where
 * it was read within a millisecond, and says its lag otherwise; CSV rows are exact and whole. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "monitor/sample.h"
#include "monitor/track.h"
#include "record/csv.h"

static void test_timeline_keeps_spike_and_totals(void **state)
{
	(void)state;
	struct timeline tl;
	timeline_init(&tl, 64);
	uint64_t faults = 0;
	for (int i = 0; i < 100000; i++) {
		struct sample s = { 0 };
		s.t_ms = i;
		s.mem_kb = i == 77777 ? 1 << 30 : 1000 + (uint64_t)(i % 7);
		s.minflt = 3;
		s.span_ms = 1;
		faults += 3;
		timeline_push(&tl, &s);
	}
	timeline_flush(&tl);
	assert_true(tl.n <= 64);
	uint64_t max = 0, sum = 0;
	for (size_t i = 0; i < tl.n; i++) {
		if (tl.rows[i].mem_kb > max)
			max = tl.rows[i].mem_kb;
		sum += tl.rows[i].minflt;
	}
	assert_int_equal(max, 1 << 30);
	assert_int_equal(sum, faults);
	/* a merged row's deltas cover its rows' spans: rates stay rates */
	double span = 0;
	for (size_t i = 0; i < tl.n; i++) {
		assert_true(tl.rows[i].span_ms <= (double)tl.stride);
		span += tl.rows[i].span_ms;
	}
	assert_true(span == 100000);
	assert_true(tl.stride >= 100000 / 64);
	timeline_release(&tl);
}

/* A day at 100 ms and more: 10^6 samples into 2 048 rows. The envelope of
 * the rows holds the one lowest and the one highest memory and rates of the
 * whole run (each at a single sample, far from the ends), every row's own
 * value lies within its envelope, and the rows stay bounded. */
static void test_timeline_envelope_of_a_million(void **state)
{
	(void)state;
	struct timeline tl;
	timeline_init(&tl, 2048);
	const int n = 1000000, low_at = 612345, high_at = 387654, burst_at = 777777;
	for (int i = 0; i < n; i++) {
		struct sample s = { 0 };
		s.t_ms = 100.0 * i;
		s.span_ms = 100;
		s.mem_kb = i == low_at ? 1000 : i == high_at ? 9000000 : 500000 + (uint64_t)(i % 1000);
		s.rss_kb = s.mem_kb + 7;
		s.oncpu_ms = i == burst_at ? 180 : i == low_at ? 0 : 10;
		s.minflt = i == burst_at ? 50000 : i == low_at ? 0 : 20;
		timeline_push(&tl, &s);
	}
	timeline_flush(&tl);
	assert_true(tl.n <= 2048 && tl.n >= 1024);
	uint64_t lo = UINT64_MAX, hi = 0, rss_lo = UINT64_MAX, rss_hi = 0;
	double cpu_lo = INFINITY, cpu_hi = 0, flt_lo = INFINITY, flt_hi = 0;
	for (size_t i = 0; i < tl.n; i++) {
		const struct sample *r = &tl.rows[i];
		const struct sample_envelope *e = &r->env;
		assert_true(e->mem_min_kb <= r->mem_kb && r->mem_kb <= e->mem_max_kb);
		assert_true(e->rss_min_kb <= r->rss_kb && r->rss_kb <= e->rss_max_kb);
		lo = e->mem_min_kb < lo ? e->mem_min_kb : lo;
		hi = e->mem_max_kb > hi ? e->mem_max_kb : hi;
		rss_lo = e->rss_min_kb < rss_lo ? e->rss_min_kb : rss_lo;
		rss_hi = e->rss_max_kb > rss_hi ? e->rss_max_kb : rss_hi;
		cpu_lo = fmin(cpu_lo, e->cpu_min_pct);
		cpu_hi = fmax(cpu_hi, e->cpu_max_pct);
		flt_lo = fmin(flt_lo, e->minflt_min_per_s);
		flt_hi = fmax(flt_hi, e->minflt_max_per_s);
	}
	assert_int_equal(lo, 1000);
	assert_int_equal(hi, 9000000);
	assert_int_equal(rss_lo, 1007);
	assert_int_equal(rss_hi, 9000007);
	assert_true(cpu_lo == 0 && fabs(cpu_hi - 180.0) < 1e-9);   /* 180 ms of 100: 1.8 cores */
	assert_true(flt_lo == 0 && fabs(flt_hi - 500000.0) < 1e-6); /* 50 000 faults in 0.1 s */
	/* the merged row's own value is still the larger memory, as before the envelope */
	uint64_t max_row = 0;
	for (size_t i = 0; i < tl.n; i++)
		max_row = tl.rows[i].mem_kb > max_row ? tl.rows[i].mem_kb : max_row;
	assert_int_equal(max_row, 9000000);
	timeline_release(&tl);
}

/* A row that covers no interval (span 0) has no rates: NAN, not 0, in its envelope. */
static void test_timeline_envelope_without_interval(void **state)
{
	(void)state;
	struct timeline tl;
	timeline_init(&tl, 8);
	struct sample s = { 0 };
	s.mem_kb = 42;
	timeline_push(&tl, &s);
	timeline_flush(&tl);
	assert_int_equal(tl.n, 1);
	assert_int_equal(tl.rows[0].env.mem_min_kb, 42);
	assert_true(isnan(tl.rows[0].env.cpu_min_pct) && isnan(tl.rows[0].env.minflt_max_per_s));
	timeline_release(&tl);
}

static void push(struct track *t, double t_ms, double marker_ms, uint64_t minflt, bool acked)
{
	struct sample s = { 0 };
	s.t_ms = t_ms;
	s.procs = 1;
	s.minflt = minflt;
	s.at_marker = marker_ms > 0;
	s.marker_ms = s.marker_since_ms = marker_ms;
	s.acked = acked;
	track_push(t, &s);
}

/* A marker's sample read at t_ms, asked for at marker_ms, for lines written
 * since since_ms, its reading over at read_end_ms (0: not known). */
static void push_marked(struct track *t, double t_ms, double marker_ms, double since_ms, double read_end_ms,
			uint64_t minflt)
{
	struct sample s = { 0 };
	s.t_ms = t_ms;
	s.procs = 1;
	s.minflt = minflt;
	s.at_marker = true;
	s.marker_ms = marker_ms;
	s.marker_since_ms = since_ms;
	s.marker_read_end_ms = read_end_ms;
	track_push(t, &s);
}

/* A 50 ms phase at a 1 s interval: each marker's sample was asked for at
 * once, but its reading began 4 ms later (a drain, a preemption). Where the
 * program waited for the sample (acknowledged) the phase is exact and holds
 * the faults between the two readings; a printed marker's program ran on
 * for those 4 ms: approximate, with its lag. A marker dated 5 ms before its
 * sample was asked for (a log line's own time) is not exact either. */
static void test_track_marker_sample_late_reading(void **state)
{
	(void)state;
	for (int acked = 1; acked >= 0; acked--) {
		struct track t;
		track_init(&t, 64, 1000);
		push(&t, 0, 0, 0, false);
		push(&t, 14, 10.2, 100, acked);
		push(&t, 64, 60.3, 2048, acked);
		push(&t, 1000, 0, 7, false);
		struct track_window w;
		track_window(&t, 10, 60, true, true, &w);
		assert_int_equal(w.approximate, !acked);
		assert_int_equal(w.acknowledged, acked);
		assert_true(fabs(w.sample_lag_ms - (acked ? 0 : 4)) < 1e-9);
		assert_int_equal(w.minflt, 2048);
		track_window(&t, 10, 55, true, true, &w);
		assert_true(w.approximate);
		track_release(&t);
	}
}

/* A printed marker read within a millisecond keeps its end exact; a window
 * with no marked end has no lag. */
static void test_track_marker_prompt_reading(void **state)
{
	(void)state;
	struct track t;
	track_init(&t, 64, 1000);
	push(&t, 0, 0, 0, false);
	push(&t, 10.5, 10.2, 100, false);
	push(&t, 60.6, 60.3, 2048, false);
	push(&t, 1000, 0, 7, false);
	struct track_window w;
	track_window(&t, 10, 60, true, true, &w);
	assert_false(w.approximate);
	assert_false(w.acknowledged);
	assert_true(fabs(w.sample_lag_ms - 0.6) < 1e-9);
	track_window(&t, 100, 900, true, true, &w);
	assert_true(w.sample_lag_ms < 0);
	track_release(&t);
}

/* A printed marker's sample whose reading began 0.1 ms after the line but
 * ended 24 ms later (perfhunt preempted while it read the tree): the program
 * ran on meanwhile, so the end is not exact, and its lag says how late. */
static void test_track_marker_reading_preempted(void **state)
{
	(void)state;
	struct track t;
	track_init(&t, 64, 20);
	push(&t, 0, 0, 0, false);
	push_marked(&t, 100.1, 100, 100, 124, 2055);
	push(&t, 200, 0, 7, false);
	struct track_window w;
	track_window(&t, 0, 100, true, true, &w);
	assert_true(w.approximate);
	assert_true(fabs(w.sample_lag_ms - 24) < 1e-9);
	track_release(&t);
}

/* A duration probe's line written at 150 ms for a 100 ms phase, whose 4096
 * faults came in [50, 150]; perfhunt, starved, read it at 400 ms (its
 * sample knows it was woken at 150). Dated by its reading, the window
 * [300, 400] would hold 683 faults; ended where it was written, it holds
 * what the samples show of [50, 150]. */
static void test_track_duration_dated_when_written(void **state)
{
	(void)state;
	struct track t;
	track_init(&t, 64, 100);
	push(&t, 0, 0, 0, false);
	push(&t, 100, 0, 2048, false);
	push_marked(&t, 400.1, 400, 150, 0, 2048);
	double written = track_written_ms(&t, 400);
	assert_true(fabs(written - 150) < 1e-9);
	assert_true(fabs(track_written_ms(&t, 250) - 250) < 1e-9); /* no sample of its own */
	struct track_window w;
	track_window(&t, written - 100, written, false, true, &w);
	assert_true(w.minflt >= 3000);
	track_release(&t);
}

/* A duration probe's line read 400 ms in, the monitor's first wake since
 * the start (its periodic samples late on a loaded machine): its marker
 * sample serves the phase's end, but the start (the arrival less the
 * duration) is computed, and is interpolated, never served by that sample,
 * which would leave the phase none of the faults it took. */
static void test_track_duration_start_not_served(void **state)
{
	(void)state;
	struct track t;
	track_init(&t, 64, 100);
	push(&t, 0, 0, 0, false);
	push_marked(&t, 400.2, 400, 0.5, 0, 40960);
	struct track_window w;
	track_window(&t, 50, 400, false, true, &w);
	assert_true(w.minflt > 0.85 * 40960);
	assert_true(w.approximate);
	track_window(&t, 50, 400, true, true, &w); /* a line's own instant at 50 ms: served */
	assert_int_equal(w.minflt, 0);
	track_release(&t);
}

/* A daemon's log line stamped at 300 ms (the end of a phase whose 16 384
 * faults came in [250, 300]), read by a starved perfhunt woken at 340.7 ms
 * (its marker sample at 341). The line is interpolated inside [250, 341],
 * so 45 % of the faults go to the phase after, and the window says so:
 * approximate, 41 ms late. Read at once (woken at 300.1) it is served. */
static void test_track_log_line_read_late(void **state)
{
	(void)state;
	for (int prompt = 0; prompt <= 1; prompt++) {
		struct track t;
		track_init(&t, 64, 50);
		for (int k = 0; k <= 5; k++)
			push(&t, 50 * k, 0, 0, false);
		double at = prompt ? 300.4 : 341;
		push_marked(&t, at, at, at - 0.3, at + 0.1, 16384);
		push(&t, 400, 0, 16384, false);
		struct track_window w;
		track_window(&t, 100, 300, true, true, &w);
		assert_int_equal(w.approximate, !prompt);
		assert_true(fabs(w.sample_lag_ms - (prompt ? 0.5 : 41.1)) < 1e-9);
		assert_int_equal(w.minflt, prompt ? 16384 : llround(16384 * 50 / 91.0));
		track_window(&t, 300, 400, true, true, &w);
		assert_int_equal(w.approximate, !prompt);
		track_release(&t);
	}
}

/* A duration probe's window [200, 600] at a 100 ms interval: with a sample
 * every 100 ms its interpolated ends are fine; with none between 150 and
 * 700 ms (a starved monitor), either end may take anything of those 550 ms,
 * and the window says it is approximate. */
static void test_track_stretched_interval(void **state)
{
	(void)state;
	for (int starved = 0; starved <= 1; starved++) {
		struct track t;
		track_init(&t, 64, 100);
		push(&t, 0, 0, 0, false);
		if (starved) {
			push(&t, 150, 0, 100, false);
			push(&t, 700, 0, 4200, false);
		} else {
			for (int k = 1; k <= 7; k++)
				push(&t, 100 * k, 0, (uint64_t)(k < 2 ? 0 : k < 6 ? 1000 * (k - 1) : 4000), false);
		}
		struct track_window w;
		track_window(&t, 200, 600, false, false, &w);
		assert_int_equal(w.approximate, starved);
		track_release(&t);
	}
}

/* Thread time of a window: 4 threads for 100 ms, one on a CPU at a time
 * (a lock held across the work): blocked is what is left of their alive
 * time, parallelism the on-CPU time over the window; between samples the
 * cumulative figures are interpolated like the others. */
static void test_track_thread_states(void **state)
{
	(void)state;
	struct track t;
	track_init(&t, 64, 10);
	for (int i = 0; i <= 10; i++) {
		struct sample s = { 0 };
		s.t_ms = 10.0 * i;
		s.procs = 1;
		s.threads = i == 5 ? 6 : 4;
		if (i > 0) {
			s.oncpu_ms = 9;
			s.runnable_ms = 1;
			s.alive_ms = 40;
		}
		track_push(&t, &s);
	}
	struct track_window w;
	track_window(&t, 0, 100, true, true, &w);
	assert_true(fabs(w.oncpu_ms - 90) < 1e-9);
	assert_true(fabs(w.runnable_ms - 10) < 1e-9);
	assert_true(fabs(w.blocked_ms - 300) < 1e-9);
	assert_true(fabs(w.parallelism - 0.9) < 1e-9);
	assert_int_equal(w.threads_max, 6);
	track_window(&t, 15, 35, true, true, &w); /* half of two intervals and one whole */
	assert_true(fabs(w.oncpu_ms - 18) < 1e-9);
	assert_true(fabs(w.blocked_ms - 60) < 1e-9);
	assert_int_equal(w.threads_max, 4);
	track_release(&t);
}

static void test_csv_rows(void **state)
{
	(void)state;
	struct sample s = { 0 };
	s.epoch_ms = 1771368527742;
	s.rss_kb = 212987636;
	char buf[1024];
	size_t n = csv_format_row(CSV_SEED, &s, NULL, false, buf, sizeof buf);
	assert_int_equal(n, strlen("1771368527742,212987636,203.12\n"));
	assert_string_equal(buf, "1771368527742,212987636,203.12\n");
	strcpy(s.phase, "pin_abc");
	s.mem_kb = 5;
	n = csv_format_row(CSV_FULL, &s, NULL, false, buf, sizeof buf);
	assert_true(n > 0 && buf[n - 1] == '\n');
	int commas = 0;
	for (size_t i = 0; i < n; i++)
		commas += buf[i] == ',';
	char header[1024];
	assert_true(csv_format_header(SAMPLE_MEM_CGROUP, false, false, header, sizeof header) > 0);
	assert_non_null(strstr(header, ",phase,tree_cgroup_kb\n"));
	int header_commas = 0;
	for (const char *p = header; *p; p++)
		header_commas += *p == ',';
	assert_int_equal(commas, header_commas);
	assert_non_null(strstr(buf, ",pin_abc,5\n"));
	/* a row cut by a small buffer still ends with a newline */
	n = csv_format_row(CSV_FULL, &s, NULL, false, buf, 20);
	assert_int_equal(buf[n - 1], '\n');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeline_envelope_of_a_million),
		cmocka_unit_test(test_timeline_envelope_without_interval),
		cmocka_unit_test(test_timeline_keeps_spike_and_totals),
		cmocka_unit_test(test_track_marker_sample_late_reading),
		cmocka_unit_test(test_track_thread_states),
		cmocka_unit_test(test_track_marker_prompt_reading),
		cmocka_unit_test(test_track_duration_start_not_served),
		cmocka_unit_test(test_track_log_line_read_late),
		cmocka_unit_test(test_track_stretched_interval),
		cmocka_unit_test(test_track_duration_dated_when_written),
		cmocka_unit_test(test_track_marker_reading_preempted),
		cmocka_unit_test(test_csv_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
