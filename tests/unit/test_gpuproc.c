/* test_gpuproc: a process's own GPU memory, from NVML's per-process samples
 * to the phases charged it and the timeline CSV.
 *
 * Two workers of one tree, as NVML lists them (the figures of the H200 run in
 * docs/GPU.md: 4 946 and 8 018 MiB at their peaks), pushed as samples into a
 * track: each worker's phase must read its own process's memory, a phase of
 * the whole tree the sum, and the CSV each process's figure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "monitor/track.h"
#include "record/csv.h"
#include "record/phases_json.h"

/* A sample at t_ms listing the given processes (pid, MiB pairs; n of them). */
static void push(struct track *t, double t_ms, size_t n, const struct sample_gpu_proc *procs)
{
	struct sample s = { 0 };
	s.t_ms = t_ms;
	s.procs = 3;
	s.gpu_valid = true;
	for (size_t i = 0; i < n; i++)
		s.gpu_mib += procs[i].mib;
	s.gpu_procs = procs;
	s.ngpu_procs = (uint32_t)n;
	track_push(t, &s);
}

/* Worker 703 holds 600 MiB from 100 ms and grows to 4946 at 300 ms; worker
 * 704 appears at 200 ms with 600 MiB and grows to 8018 at 400 ms. */
static void two_workers(struct track *t, size_t max_points)
{
	track_init(t, max_points, 100);
	push(t, 0, 0, NULL);
	push(t, 100, 1, (struct sample_gpu_proc[]){ { 703, 600 } });
	push(t, 200, 2, (struct sample_gpu_proc[]){ { 703, 600 }, { 704, 600 } });
	push(t, 300, 2, (struct sample_gpu_proc[]){ { 703, 4946 }, { 704, 600 } });
	push(t, 400, 2, (struct sample_gpu_proc[]){ { 703, 4946 }, { 704, 8018 } });
	push(t, 500, 2, (struct sample_gpu_proc[]){ { 703, 4946 }, { 704, 8018 } });
}

static void test_window_of_each_process(void **state)
{
	(void)state;
	struct track t;
	two_workers(&t, 64);
	struct track_window w;
	/* the tree: both workers' sum */
	track_window(&t, 200, 500, true, true, &w);
	assert_true(w.gpu);
	assert_int_equal(w.gpu_pid, 0);
	assert_true(w.gpu_max_mib == 4946 + 8018);
	assert_true(w.gpu_growth_mib == 4946 + 8018 - 1200);
	/* each worker: its own figure, NVML's per-process reading */
	assert_true(track_window_pid(&t, 703, 200, 500, true, true, &w));
	assert_int_equal(w.gpu_pid, 703);
	assert_true(w.gpu_max_mib == 4946);
	assert_true(w.gpu_growth_mib == 4946 - 600);
	assert_true(track_window_pid(&t, 704, 200, 500, true, true, &w));
	assert_true(w.gpu_max_mib == 8018);
	assert_true(w.gpu_growth_mib == 8018 - 600);
	/* before its first listing a process held nothing; ends between
	 * samples are interpolated as the tree's are */
	assert_true(track_window_pid(&t, 704, 0, 100, true, true, &w));
	assert_true(w.gpu && w.gpu_max_mib == 0 && w.gpu_growth_mib == 0);
	assert_true(track_window_pid(&t, 704, 150, 250, false, false, &w));
	assert_true(w.gpu_max_mib == 600);     /* its sample at 200 ms */
	assert_true(w.gpu_growth_mib == 300);  /* from halfway to 600 MiB at 150 ms */
	/* a process NVML never listed: the tree's figures, and false */
	assert_false(track_window_pid(&t, 999, 200, 500, true, true, &w));
	assert_int_equal(w.gpu_pid, 0);
	assert_true(w.gpu_max_mib == 4946 + 8018);
	track_release(&t);
}

/* A short peak between two kept points survives thinning in its process's
 * column, as the tree's does. */
static void test_thinned_track_keeps_each_maximum(void **state)
{
	(void)state;
	struct track t;
	track_init(&t, 4, 100);
	push(&t, 0, 1, (struct sample_gpu_proc[]){ { 703, 100 } });
	push(&t, 100, 2, (struct sample_gpu_proc[]){ { 703, 9000 }, { 704, 50 } }); /* dropped */
	push(&t, 200, 2, (struct sample_gpu_proc[]){ { 703, 100 }, { 704, 50 } });
	push(&t, 300, 2, (struct sample_gpu_proc[]){ { 703, 100 }, { 704, 70 } });
	push(&t, 400, 2, (struct sample_gpu_proc[]){ { 703, 100 }, { 704, 70 } }); /* thins */
	assert_true(t.n < 5);
	struct track_window w;
	assert_true(track_window_pid(&t, 703, 0, 400, true, true, &w));
	assert_true(w.gpu_max_mib == 9000);
	assert_true(track_window_pid(&t, 704, 0, 400, true, true, &w));
	assert_true(w.gpu_max_mib == 70);
	assert_true(w.gpu_growth_mib == 70);
	track_release(&t);
}

static json_t *phase(const char *name, const char *lane, double from, double to, json_t *values)
{
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:o}", "name", name, "lane", lane, "source", "marker",
			 "start_ms", from, "end_ms", to, "values", values ? values : json_object());
}

/* The record of the two workers: each `matmul` (lane worker=N, bound to its
 * pid by the lane's first line) is charged its own process's memory and says
 * whose; a phase of no process, the tree's. */
static void test_phases_charged_their_process(void **state)
{
	(void)state;
	struct track t;
	two_workers(&t, 64);
	json_t *phases = json_array();
	json_array_append_new(phases, phase("alloc", "worker=0", 100, 200, json_pack("{s:i}", "pid", 703)));
	json_array_append_new(phases, phase("matmul", "worker=0", 200, 500, NULL));
	json_array_append_new(phases, phase("alloc", "worker=1", 200, 300, json_pack("{s:i}", "pid", 704)));
	json_array_append_new(phases, phase("matmul", "worker=1", 300, 500, NULL));
	json_array_append_new(phases, phase("total", "", 0, 500, NULL));
	/* a lane naming a pid NVML never listed stays the tree's */
	json_array_append_new(phases, phase("idle", "helper", 200, 500, json_pack("{s:i}", "pid", 4242)));
	json_t *obj = json_pack("{s:o, s:[]}", "phases", phases, "phase_stats");
	phases_json_add_resources(obj, &t, NULL);

	static const struct {
		const char *lane, *name;
		json_int_t pid;
		double max_mib;
	} want[] = {
		{ "worker=0", "alloc", 703, 600 },  { "worker=0", "matmul", 703, 4946 },
		{ "worker=1", "alloc", 704, 600 },  { "worker=1", "matmul", 704, 8018 },
		{ "", "total", 0, 4946 + 8018 },    { "helper", "idle", 0, 4946 + 8018 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const json_t *res = json_object_get(json_array_get(phases, i), "resources");
		assert_string_equal(json_string_value(json_object_get(json_array_get(phases, i), "name")), want[i].name);
		assert_true(json_number_value(json_object_get(res, "gpu_max_mib")) == want[i].max_mib);
		assert_int_equal(json_integer_value(json_object_get(res, "gpu_pid")), want[i].pid);
		assert_true(want[i].pid || !json_object_get(res, "gpu_pid"));
	}
	json_decref(obj);
	track_release(&t);
}

/* With a GPU trace, the process its figures are of (phases[].gpu.pid, an
 * NVTX range's own) is the one charged, though its lane names none. */
static void test_phase_of_the_traced_process(void **state)
{
	(void)state;
	struct track t;
	two_workers(&t, 64);
	json_t *ph = phase("matmul_loop", "nvtx=", 300, 500, NULL);
	json_object_set_new(ph, "source", json_string("nvtx"));
	json_object_set_new(ph, "gpu", json_pack("{s:i}", "pid", 704));
	json_t *obj = json_pack("{s:[o], s:[]}", "phases", ph, "phase_stats");
	phases_json_add_resources(obj, &t, NULL);
	const json_t *res = json_object_get(json_array_get(json_object_get(obj, "phases"), 0), "resources");
	assert_int_equal(json_integer_value(json_object_get(res, "gpu_pid")), 704);
	assert_true(json_number_value(json_object_get(res, "gpu_max_mib")) == 8018);
	json_decref(obj);
	track_release(&t);
}

/* The CSV: where GPU memory is sampled the last column lists each process's
 * memory; where it is not, the header and rows are what they always were. */
static void test_csv_column(void **state)
{
	(void)state;
	char buf[4096], plain[4096];
	assert_true(csv_format_header(SAMPLE_MEM_CGROUP, false, true, buf, sizeof buf) > 0);
	assert_non_null(strstr(buf, ",phase,tree_cgroup_kb,gpu_procs_mib\n"));
	assert_true(csv_format_header(SAMPLE_MEM_CGROUP, false, false, plain, sizeof plain) > 0);
	assert_null(strstr(plain, "gpu_procs"));
	assert_true(strlen(plain) + strlen(",gpu_procs_mib") == strlen(buf));

	struct sample_gpu_proc procs[] = { { 703, 4946 }, { 704, 8018 } };
	struct sample s = { .t_ms = 100, .mem_kb = 10, .gpu_valid = true, .gpu_mib = 12964,
			    .gpu_procs = procs, .ngpu_procs = 2 };
	size_t n = csv_format_row(CSV_FULL, &s, NULL, true, buf, sizeof buf);
	assert_true(n > 0 && buf[n - 1] == '\n');
	assert_non_null(strstr(buf, ",12964.0,0,,10,703:4946.0;704:8018.0\n"));
	/* the same row without the column ends at the tree's memory */
	n = csv_format_row(CSV_FULL, &s, NULL, false, plain, sizeof plain);
	assert_non_null(strstr(plain, ",12964.0,0,,10\n"));
	/* a sample without a GPU reading: the field is there, empty */
	s.gpu_valid = false;
	csv_format_row(CSV_FULL, &s, NULL, true, buf, sizeof buf);
	assert_non_null(strstr(buf, ",,,,10,\n"));
	/* a daemon attached: the column still comes last */
	struct sample c = { .procs = 1 };
	s.gpu_valid = true;
	n = csv_format_row(CSV_FULL, &s, &c, true, buf, sizeof buf);
	assert_non_null(strstr(buf, ",1,0,703:4946.0;704:8018.0\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_of_each_process),
		cmocka_unit_test(test_thinned_track_keeps_each_maximum),
		cmocka_unit_test(test_phases_charged_their_process),
		cmocka_unit_test(test_phase_of_the_traced_process),
		cmocka_unit_test(test_csv_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
