/* Unit tests of src/stats/profdiff: which frames a phase's change went to,
 * on profiles in the record's own format (docs/FORMATS.md "Profile object"),
 * and the one line compare prints of it (export/compare_text).
 *
 * The statistics are held to what a user relies on: a frame that grew in
 * every run is named with its path; frames drawn from one distribution on
 * both sides are (almost) never named, over many seeded trials; a frame of
 * one sample in one run is never named.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export/compare_markdown.h"
#include "export/compare_text.h"
#include "stats/comparison.h"
#include "stats/metrics.h"
#include "stats/profdiff.h"
#include "stats/stats.h"

#define HZ 100 /* 10 ms a sample */

/* A run's "profile" holding phase pin with stacks[i] counted counts[i] times. */
static json_t *profile(const char *const *stacks, const int *counts, size_t n)
{
	json_t *list = json_array();
	json_int_t total = 0;
	for (size_t i = 0; i < n; i++) {
		if (counts[i] <= 0)
			continue;
		json_array_append_new(list, json_pack("{s:s, s:i}", "stack", stacks[i], "count", counts[i]));
		total += counts[i];
	}
	return json_pack("{s:s, s:i, s:f, s:I, s:{s:{s:I, s:o, s:i}}}", "event", "cpu-clock", "frequency_hz", HZ, "ms_per_sample",
			 1000.0 / HZ, "samples", total, "phases", "pin", "samples", total, "stacks", list, "merged", 0);
}

static const char *const pin_stacks[] = {
	"main;pin;syscall;__x64_sys_mlock_[k];__mm_populate_[k];handle_mm_fault_[k];clear_page_erms_[k]",
	"main;pin;memcpy",
	"main;spin",
};

static const struct profdiff_frame *frame(const struct profdiff *d, const char *name)
{
	for (size_t i = 0; i < d->n_frames; i++)
		if (!strcmp(d->frames[i].name, name))
			return &d->frames[i];
	return NULL;
}

/* mlock's path grows from 1-2 samples a run to 30-34; memcpy stays at 10. */
static void test_grown_path(void **state)
{
	(void)state;
	json_t *base = json_array(), *nw = json_array();
	for (int r = 0; r < 5; r++) {
		int b[] = { 1 + r % 2, 10, 3 }, n[] = { 30 + r, 10, 3 };
		json_array_append_new(base, profile(pin_stacks, b, 3));
		json_array_append_new(nw, profile(pin_stacks, n, 3));
	}
	struct profdiff *d = profdiff_phase(base, nw, "pin", 150, 0.02, 0.05);
	assert_non_null(d);
	assert_int_equal(d->base_runs, 5);
	assert_int_equal(d->new_runs, 5);
	const struct profdiff_frame *f = frame(d, "__mm_populate_[k]");
	assert_non_null(f);
	assert_true(f->delta_ms > 280 && f->delta_ms < 320);
	assert_int_equal(f->state, PROFDIFF_GROWN);
	assert_true(f->p_adjusted < 0.05);
	assert_int_equal(f->test, STATS_MWU_EXACT);
	/* the frames that did not move are not named */
	assert_int_equal(frame(d, "memcpy")->state, PROFDIFF_NOISE);
	/* the hot path ends in the deepest frame that holds the change */
	assert_true(d->n_hot >= 2);
	assert_string_equal(d->nodes[d->hot[0]].name, "main");
	assert_string_equal(d->nodes[d->hot[d->n_hot - 1]].name, "clear_page_erms_[k]");
	assert_int_equal(d->hot_state, PROFDIFF_GROWN);
	char line[512];
	compare_text_code(d, line, sizeof(line));
	assert_non_null(strstr(line, "CPU in kernel clear_page_erms \u2190 handle_mm_fault \u2190 __mm_populate"));
	assert_non_null(strstr(line, "__x64_sys_mlock, called from syscall \u2190 pin"));
	assert_null(strstr(line, "noise"));
	/* the tree: preorder, children after their parent, means per run */
	for (size_t i = 0; i < d->n_nodes; i++)
		if (d->nodes[i].parent != SIZE_MAX) {
			assert_true(d->nodes[i].parent < i);
			assert_int_equal(d->nodes[i].depth, d->nodes[d->nodes[i].parent].depth + 1);
		}
	profdiff_free(d);
	json_decref(base);
	json_decref(nw);
}

/* Frames drawn from one distribution on both sides: over 200 seeded trials
 * of 5 + 5 runs with 30 frames each, a frame is named in at most a few. */
static void test_null_never_painted(void **state)
{
	(void)state;
	char names[30][64];
	const char *stacks[30];
	for (int i = 0; i < 30; i++) {
		snprintf(names[i], sizeof(names[i]), "main;work;f%d%s", i, i % 3 ? "" : ";leaf_[k]");
		stacks[i] = names[i];
	}
	struct stats_rng rng;
	stats_rng_init(&rng, 42);
	int named = 0;
	for (int trial = 0; trial < 200; trial++) {
		json_t *side[2] = { json_array(), json_array() };
		for (int s = 0; s < 2; s++)
			for (int r = 0; r < 5; r++) {
				int counts[30];
				for (int i = 0; i < 30; i++) /* 0..2 samples, a few frames of 20..40 */
					counts[i] = (int)(stats_rng_next(&rng) % (i < 3 ? 21 : 3)) + (i < 3 ? 20 : 0);
				json_array_append_new(side[s], profile(stacks, counts, 30));
			}
		struct profdiff *d = profdiff_phase(side[0], side[1], "pin", 500, 0.02, 0.05);
		bool any = false;
		for (size_t i = 0; i < d->n_frames; i++)
			any |= d->frames[i].state == PROFDIFF_GROWN || d->frames[i].state == PROFDIFF_SHRUNK;
		named += any;
		profdiff_free(d);
		json_decref(side[0]);
		json_decref(side[1]);
	}
	print_message("trials with a frame named: %d of 200\n", named);
	assert_true(named <= 10); /* alpha is 0.05: 10 expected at most */
}

/* One sample in one run of the new side: not a change, not even a test. */
static void test_one_sample_frame(void **state)
{
	(void)state;
	const char *stacks[] = { "main;work", "main;rare_[k]" };
	json_t *base = json_array(), *nw = json_array();
	for (int r = 0; r < 6; r++) {
		int b[] = { 50 + r, 0 }, n[] = { 50 + r, r == 3 };
		json_array_append_new(base, profile(stacks, b, 2));
		json_array_append_new(nw, profile(stacks, n, 2));
	}
	struct profdiff *d = profdiff_phase(base, nw, "pin", 500, 0.02, 0.05);
	const struct profdiff_frame *f = frame(d, "rare_[k]");
	assert_non_null(f);
	assert_int_equal(f->state, PROFDIFF_NOISE);
	assert_true(isnan(f->p_adjusted)); /* it could never reach alpha: not in the family */
	assert_false(isnan(f->p_value));
	profdiff_free(d);
	json_decref(base);
	json_decref(nw);
}

/* A recursive frame counts once per sample; [other] and runs without a
 * profile are left out; stacks unwound short of their root still count. */
static void test_recursion_other_short(void **state)
{
	(void)state;
	const char *stacks[] = { "main;f;f;f", "[other]", "f;g" };
	json_t *base = json_array(), *nw = json_array();
	for (int r = 0; r < 3; r++) {
		int b[] = { 5, 7, 0 }, n[] = { 5, 7, 4 };
		json_array_append_new(base, profile(stacks, b, 3));
		json_array_append_new(nw, profile(stacks, n, 3));
	}
	json_array_append_new(nw, json_null()); /* a run recorded without --profile */
	struct profdiff *d = profdiff_phase(base, nw, "pin", 100, 0.02, 0.05);
	assert_int_equal(d->new_runs, 3);
	const struct profdiff_frame *f = frame(d, "f");
	assert_true(fabs(f->base_ms - 50) < 1e-9);
	assert_true(fabs(f->new_ms - 90) < 1e-9);
	assert_true(fabs(frame(d, "f")->self_base_ms - 50) < 1e-9);
	assert_null(frame(d, "[other]"));
	/* g grew in a stack without main: the path is its own root */
	assert_string_equal(d->nodes[d->hot[d->n_hot - 1]].name, "g");
	assert_string_equal(d->nodes[d->hot[0]].name, "f");
	profdiff_free(d);
	json_decref(base);
	json_decref(nw);
}

/* perf unwinds some stacks into garbage ("[unknown]+0x..." read off the
 * stack): the line follows the path with a known root even when the
 * garbage one holds more samples. */
static void test_unknown_root(void **state)
{
	(void)state;
	const char *stacks[] = { "[unknown]+0x6e69622f;syscall;__x64_sys_mlock_[k];fault_[k]",
				 "main;pin;syscall;__x64_sys_mlock_[k];fault_[k]" };
	json_t *base = json_array(), *nw = json_array();
	for (int r = 0; r < 5; r++) {
		int b[] = { 1, 1 }, n[] = { 20 + r, 15 + r };
		json_array_append_new(base, profile(stacks, b, 2));
		json_array_append_new(nw, profile(stacks, n, 2));
	}
	struct profdiff *d = profdiff_phase(base, nw, "pin", 100, 0.02, 0.05);
	assert_string_equal(d->nodes[d->hot[0]].name, "main");
	assert_string_equal(d->nodes[d->hot[d->n_hot - 1]].name, "fault_[k]");
	/* the frame's change counts both paths: (39 - 2) samples of 10 ms */
	assert_true(fabs(d->hot_delta_ms - 370) < 1e-9);
	profdiff_free(d);
	json_decref(base);
	json_decref(nw);
}

/* Stacks rooted at their process (the record's "stacks_root"): the line
 * names the process at its end, never as a caller. */
static void test_process_root(void **state)
{
	(void)state;
	const char *stacks[] = { "prover;main;pin;fault_[k]", "prover;main;spin" };
	json_t *base = json_array(), *nw = json_array();
	for (int r = 0; r < 5; r++) {
		int b[] = { 1, 10 }, n[] = { 20 + r, 10 };
		json_t *pb = profile(stacks, b, 2), *pn = profile(stacks, n, 2);
		json_object_set_new(pb, "stacks_root", json_string("process"));
		json_object_set_new(pn, "stacks_root", json_string("process"));
		json_array_append_new(base, pb);
		json_array_append_new(nw, pn);
	}
	struct profdiff *d = profdiff_phase(base, nw, "pin", 100, 0.02, 0.05);
	assert_true(d->process_root);
	char line[512];
	compare_text_code(d, line, sizeof(line));
	assert_string_equal(line, "+210 ms CPU in kernel fault, called from pin \u2190 main (prover)");
	profdiff_free(d);
	/* one side without the root's mark: the process is a frame like any other */
	json_object_del(json_array_get(base, 0), "stacks_root");
	d = profdiff_phase(base, nw, "pin", 100, 0.02, 0.05);
	assert_false(d->process_root);
	profdiff_free(d);
	json_decref(base);
	json_decref(nw);
}

/* 5 + 5 runs of stacks rooted at their thread (the record's "stacks_root"),
 * base[i] and nw[i] counted b[i] and n[i] + r times in run r. */
static struct profdiff *rooted_diff(const char *const *base_stacks, const char *const *new_stacks, const int *b,
				    const int *n, size_t k)
{
	json_t *base = json_array(), *nw = json_array();
	for (int r = 0; r < 5; r++) {
		int nr[8];
		for (size_t i = 0; i < k; i++)
			nr[i] = n[i] + r;
		json_t *pb = profile(base_stacks, b, k), *pn = profile(new_stacks, nr, k);
		json_object_set_new(pb, "stacks_root", json_string("process"));
		json_object_set_new(pn, "stacks_root", json_string("process"));
		json_array_append_new(base, pb);
		json_array_append_new(nw, pn);
	}
	struct profdiff *d = profdiff_phase(base, nw, "pin", 100, 0.02, 0.05);
	json_decref(base);
	json_decref(nw);
	return d;
}

/* A lock's wait whose stacks perf cut in libc grows by 300 ms; beside it a
 * whole stack down to the thread's entry, a sleep that barely moved, ends
 * in the same kernel frame: the line follows the cut path that carries the
 * change, never the whole one that does not. */
static void test_whole_path_that_did_not_move(void **state)
{
	(void)state;
	const char *stacks[] = { "phthreads;__lll_lock_wait;futex_wait_[k];schedule_[k]",
				 "phthreads;clone3;start_thread;pool_main;clock_nanosleep;do_nanosleep_[k];schedule_[k]" };
	int b[] = { 1, 10 }, n[] = { 30, 10 };
	struct profdiff *d = rooted_diff(stacks, stacks, b, n, 2);
	assert_non_null(d->hot);
	bool lock = false, sleep = false;
	for (size_t i = 0; i < d->n_hot; i++) {
		lock |= !strcmp(d->nodes[d->hot[i]].name, "__lll_lock_wait");
		sleep |= !strcmp(d->nodes[d->hot[i]].name, "clock_nanosleep");
	}
	assert_true(lock && !sleep);
	profdiff_free(d);
}

/* gcc's clones of a function are the function: the bad build's
 * bucket_accumulate.constprop.0 is compared with the good build's
 * bucket_accumulate, and the line names the function. */
static void test_clone_suffix(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "f.isra.0", "f" }, { "f.constprop.0.isra.0", "f" }, { "f.cold", "f" }, { "f.part.3.cold", "f" },
		{ "f.lto_priv.0", "f" }, { "f.llvm.12345678901", "f" }, { "f.constprop", "f" },
		{ "g.isra.0_[k]", "g_[k]" }, { "libcuda.so.1+0x48bc07", "libcuda.so.1+0x48bc07" },
		{ "a.b", "a.b" }, { "f.coldx", "f.coldx" }, { ".isra.0", ".isra.0" }, { "f.isra.x", "f.isra.x" },
		{ "std::vector<int>::push_back(int const&) [clone .isra.0]", "std::vector<int>::push_back(int const&) [clone .isra.0]" },
	};
	char buf[PROFDIFF_LABEL];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		profdiff_function_name(cases[i][0], buf, sizeof(buf));
		assert_string_equal(buf, cases[i][1]);
	}
	const char *base[] = { "prover;main;msm;bucket_accumulate", "prover;main;spin" };
	const char *nw[] = { "prover;main;msm;bucket_accumulate.constprop.0", "prover;main;spin" };
	int b[] = { 10, 10 }, n[] = { 40, 10 };
	struct profdiff *d = rooted_diff(base, nw, b, n, 2);
	assert_non_null(frame(d, "bucket_accumulate"));
	assert_null(frame(d, "bucket_accumulate.constprop.0"));
	assert_int_equal(frame(d, "bucket_accumulate")->state, PROFDIFF_GROWN);
	char line[512];
	compare_text_code(d, line, sizeof(line));
	assert_string_equal(line, "+320 ms CPU in bucket_accumulate \u2190 msm \u2190 main (prover)");
	profdiff_free(d);
}

/* A frame summed over a pool's threads is labelled by their pattern and
 * count, never by one thread's name; a name no other shares stays itself. */
static void test_thread_pattern(void **state)
{
	(void)state;
	char buf[64];
	profdiff_thread_pattern("provd-w3", buf, sizeof(buf));
	assert_string_equal(buf, "provd-w*");
	profdiff_thread_pattern("provd", buf, sizeof(buf));
	assert_string_equal(buf, "provd");
	profdiff_thread_pattern("1234", buf, sizeof(buf));
	assert_string_equal(buf, "1234");
	const char *stacks[] = { "provd-w0;worker_main;msm_chunk", "provd-w1;worker_main;msm_chunk",
				 "provd-w2;worker_main;msm_chunk", "provd-w3;worker_main;msm_chunk",
				 "python3;main;spin" };
	int b[] = { 10, 10, 10, 10, 10 }, n[] = { 20, 10, 15, 12, 10 };
	struct profdiff *d = rooted_diff(stacks, stacks, b, n, 5);
	char line[512];
	compare_text_code(d, line, sizeof(line));
	assert_non_null(strstr(line, "msm_chunk \u2190 worker_main (provd-w*, 4 threads)"));
	for (size_t i = 0; i < d->n_nodes; i++) {
		assert_null(strstr(d->nodes[i].name, "provd-w0"));
		assert_string_not_equal(d->nodes[i].name, "python*");
	}
	profdiff_free(d);
}

/* A hot frame in a library without symbols: the line also names the
 * nearest frames of the program's own code on its path. */
static void test_unnamed_library(void **state)
{
	(void)state;
	const char *stacks[] = { "prover;main;cudaHostRegister;libcuda.so.1+0x4;libcuda.so.1+0x8;libcuda.so.1+0x10;"
				 "libcuda.so.1+0x20;libcuda.so.1+0x48bc07",
				 "prover;main;spin" };
	int b[] = { 1, 10 }, n[] = { 20, 10 };
	struct profdiff *d = rooted_diff(stacks, stacks, b, n, 2);
	char line[512];
	compare_text_code(d, line, sizeof(line));
	assert_string_equal(line, "+210 ms CPU in libcuda.so.1+0x48bc07 \u2190 libcuda.so.1+0x20 \u2190 libcuda.so.1+0x10, "
			    "called from libcuda.so.1+0x8 \u2190 libcuda.so.1+0x4; in cudaHostRegister \u2190 main (prover)");
	profdiff_free(d);
	/* a named caller already on the line is not named twice */
	const char *near[] = { "prover;main;cudaHostRegister;libcuda.so.1+0x48bc07", "prover;main;spin" };
	d = rooted_diff(near, near, b, n, 2);
	compare_text_code(d, line, sizeof(line));
	assert_string_equal(line, "+210 ms CPU in libcuda.so.1+0x48bc07 \u2190 cudaHostRegister \u2190 main (prover)");
	profdiff_free(d);
}

/* One run a side: deltas, never a verdict; no profile on a side: NULL. */
static void test_one_run_and_none(void **state)
{
	(void)state;
	json_t *base = json_array(), *nw = json_array(), *none = json_pack("[n, n]");
	int b[] = { 1, 10, 3 }, n[] = { 30, 10, 3 };
	json_array_append_new(base, profile(pin_stacks, b, 3));
	json_array_append_new(nw, profile(pin_stacks, n, 3));
	struct profdiff *d = profdiff_phase(base, nw, "pin", 150, 0.02, 0.05);
	assert_int_equal(frame(d, "handle_mm_fault_[k]")->state, PROFDIFF_UNTESTED);
	assert_int_equal(d->hot_state, PROFDIFF_UNTESTED);
	char line[512];
	assert_non_null(strstr(compare_text_code(d, line, sizeof(line)), "not tested"));
	profdiff_free(d);
	assert_null(profdiff_phase(none, nw, "pin", 150, 0.02, 0.05));
	/* a phase absent from every run of a side is 0 ms there, not an error */
	d = profdiff_phase(base, nw, "absent", 150, 0.02, 0.05);
	assert_non_null(d);
	assert_int_equal(d->n_frames, 0);
	assert_int_equal(d->n_hot, 0);
	assert_string_equal(compare_text_code(d, line, sizeof(line)), "");
	profdiff_free(d);
	json_decref(base);
	json_decref(nw);
	json_decref(none);
}

/* A run record: wall_s, and a profile whose run holds "main;spin" in spin
 * samples of 10 ms and, off the CPU, each of the three pool threads blocked
 * `each_ms` on `wait` (the frames under the marker). phased: all of it in
 * one phase msm as long as the run, its thread times those of the profile. */
static json_t *run_record(double wall_s, int spin, double each_ms, const char *wait, bool phased)
{
	const char *root = phased ? "[phase:msm];" : "[no phase];";
	json_t *on = json_array(), *off = json_array();
	char stack[300];
	snprintf(stack, sizeof(stack), "%sprover;main;spin", root);
	json_array_append_new(on, json_pack("{s:s, s:i}", "stack", stack, "count", spin));
	for (int w = 1; w <= 3; w++) {
		snprintf(stack, sizeof(stack), "%sprover-w%d;[off-cpu];worker_main;%s", root, w, wait);
		json_array_append_new(off, json_pack("{s:s, s:f}", "stack", stack, "ms", each_ms));
	}
	json_t *prof = json_pack("{s:s, s:i, s:f, s:i, s:s, s:{s:i, s:O, s:i}, s:{}}", "event", "cpu-clock",
				 "frequency_hz", HZ, "ms_per_sample", 1000.0 / HZ, "samples", spin, "stacks_root",
				 "process", "run", "samples", spin, "stacks", on, "merged", 0, "phases");
	json_t *offcpu = json_pack("{s:s, s:s, s:{s:f, s:O, s:i}, s:{}}", "unit", "ms", "stacks_root", "process", "run",
				   "ms", 3 * each_ms, "stacks", off, "merged", 0, "phases");
	json_t *rec = json_pack("{s:s, s:{s:f}}", "schema", "perfhunt.run/1", "summary", "wall_s", wall_s);
	if (phased) { /* the same stacks, without the run's phase root */
		json_t *pon = json_deep_copy(on), *poff = json_deep_copy(off), *st;
		size_t i;
		json_array_foreach(pon, i, st)
			json_object_set_new(st, "stack", json_string(json_string_value(json_object_get(st, "stack")) + strlen(root)));
		json_array_foreach(poff, i, st)
			json_object_set_new(st, "stack", json_string(json_string_value(json_object_get(st, "stack")) + strlen(root)));
		json_object_set_new(json_object_get(prof, "phases"), "msm",
				    json_pack("{s:i, s:o, s:i}", "samples", spin, "stacks", pon, "merged", 0));
		json_object_set_new(json_object_get(offcpu, "phases"), "msm",
				    json_pack("{s:f, s:o, s:i}", "ms", 3 * each_ms, "stacks", poff, "merged", 0));
		json_object_set_new(rec, "phases", json_pack("[{s:s, s:f, s:f, s:{s:f, s:f, s:f}}]", "name", "msm", "start_ms",
							    0.0, "end_ms", 1000 * wall_s, "resources", "oncpu_ms",
							    10.0 * spin, "blocked_ms", 3 * each_ms, "runnable_ms", 0.0));
	}
	json_decref(on);
	json_decref(off);
	json_object_set_new(prof, "offcpu", offcpu);
	json_object_set_new(rec, "profile", prof);
	return rec;
}

static const char lock_wait[] = "msm_chunk;pthread_mutex_lock;__lll_lock_wait;futex_wait;__x64_sys_futex_[k];"
				"futex_wait_[k];schedule_[k]";
static const char idle_wait[] = "pthread_cond_wait;__x64_sys_futex_[k];futex_wait_[k];schedule_[k]";

/* Compares 5 + 5 run records built by run_record from each side's wall
 * time, spin samples and blocked ms a thread (run r adds r / 100 of each). */
static void run_compare(const double wall_s[2], const int spin[2], const double each_ms[2], const char *wait,
			bool phased, struct comparison *c)
{
	struct metrics_set side[2];
	struct err e = { 0 };
	for (int k = 0; k < 2; k++) {
		json_t *runs[5];
		for (int r = 0; r < 5; r++)
			runs[r] = run_record(wall_s[k] * (1 + r / 100.0), spin[k] + r, each_ms[k] * (1 + r / 100.0), wait,
					     phased);
		assert_int_equal(metrics_from_records(runs, 5, &side[k], &e), 0);
		for (int r = 0; r < 5; r++)
			json_decref(runs[r]);
	}
	struct comparison_opts o;
	comparison_opts_init(&o);
	o.resamples = 200;
	assert_int_equal(comparison_run(&side[0], &side[1], &o, c, &e), 0);
	metrics_set_release(&side[0]);
	metrics_set_release(&side[1]);
}

/* The whole run's code line (a record without phases) follows the off-CPU
 * profile where blocked time carries the wall time's change: a mutex held
 * across the pool's work, CPU unchanged, the pool blocked +2.4 s (thread time). */
static void test_run_offcpu(void **state)
{
	(void)state;
	struct comparison c;
	run_compare((const double[]){ 1.0, 1.8 }, (const int[]){ 100, 100 }, (const double[]){ 200, 1000 }, lock_wait,
		    false, &c);
	assert_int_equal(c.n_phases, 0);
	assert_non_null(c.run_profile);
	assert_true(c.run_profile->offcpu);
	char line[512];
	compare_text_code(c.run_profile, line, sizeof(line));
	assert_string_equal(line, "+2.448 s blocked in futex \u2190 futex_wait \u2190 __lll_lock_wait \u2190 "
				  "pthread_mutex_lock \u2190 msm_chunk \u2190 worker_main (prover-w*, 3 threads)");
	/* the terminal prints it, there being no phase to print it under */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(compare_text_write(&c, "good", "bad", false, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "\nthe whole run (wall-time delta +816 ms):\n    code: +2.448 s blocked in futex"));
	free(text);
	/* and markdown, under its Code heading */
	f = open_memstream(&text, &len);
	assert_int_equal(compare_markdown_write(&c, "good", "bad", f), 0);
	fclose(f);
	assert_non_null(strstr(text, "### Code\n\nWhere the whole run's time went (wall-time delta +816 ms; "));
	assert_non_null(strstr(text, "- the whole run: `+2.448 s blocked in futex"));
	free(text);
	comparison_release(&c);
}

/* A longer CPU run whose idle pool blocks longer with it: the pool's blocked
 * time grows three times the wall time's change, yet CPU carries it (it
 * explains the whole change) and the line stays on-CPU; the same runs
 * without a change in wall time get no code line. */
static void test_run_cpu_idle_pool(void **state)
{
	(void)state;
	struct comparison c;
	run_compare((const double[]){ 1.0, 1.8 }, (const int[]){ 100, 180 }, (const double[]){ 1000, 1800 }, idle_wait,
		    false, &c);
	assert_non_null(c.run_profile);
	assert_false(c.run_profile->offcpu);
	char line[512];
	compare_text_code(c.run_profile, line, sizeof(line));
	assert_string_equal(line, "+800 ms CPU in spin \u2190 main (prover)");
	comparison_release(&c);
	run_compare((const double[]){ 1.0, 1.0 }, (const int[]){ 100, 100 }, (const double[]){ 1000, 1000 }, idle_wait,
		    false, &c);
	assert_null(c.run_profile);
	comparison_release(&c);
}

/* A phase chooses its line by the same rule from its thread-time metrics:
 * the lock's blocked time carries msm's change, the idle pool's does not. */
static void test_phase_offcpu_rule(void **state)
{
	(void)state;
	struct comparison c;
	char line[512];
	run_compare((const double[]){ 1.0, 1.8 }, (const int[]){ 100, 100 }, (const double[]){ 200, 1000 }, lock_wait,
		    true, &c);
	assert_int_equal(c.n_phases, 1);
	assert_non_null(c.phases[0].profile);
	assert_true(c.phases[0].profile->offcpu);
	compare_text_code(c.phases[0].profile, line, sizeof(line));
	assert_non_null(strstr(line, "blocked in futex"));
	comparison_release(&c);
	run_compare((const double[]){ 1.0, 1.8 }, (const int[]){ 100, 180 }, (const double[]){ 1000, 1800 }, idle_wait,
		    true, &c);
	assert_int_equal(c.n_phases, 1);
	assert_non_null(c.phases[0].profile);
	assert_false(c.phases[0].profile->offcpu);
	compare_text_code(c.phases[0].profile, line, sizeof(line));
	assert_string_equal(line, "+800 ms CPU in spin \u2190 main (prover)");
	comparison_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grown_path),
		cmocka_unit_test(test_null_never_painted),
		cmocka_unit_test(test_one_sample_frame),
		cmocka_unit_test(test_recursion_other_short),
		cmocka_unit_test(test_unknown_root),
		cmocka_unit_test(test_process_root),
		cmocka_unit_test(test_whole_path_that_did_not_move),
		cmocka_unit_test(test_one_run_and_none),
		cmocka_unit_test(test_clone_suffix),
		cmocka_unit_test(test_thread_pattern),
		cmocka_unit_test(test_unnamed_library),
		cmocka_unit_test(test_run_offcpu),
		cmocka_unit_test(test_run_cpu_idle_pool),
		cmocka_unit_test(test_phase_offcpu_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
