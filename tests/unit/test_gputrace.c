/* Unit tests of src/gputrace/gputrace.c and record/gputrace_json.c against
 * activity files the collector recorded on an H200 (data/gputrace/: trace_demo
 * alone, and two trace_demo processes at once), with the program's own probe
 * lines (stamped with CLOCK_MONOTONIC by --stamps) as the phases: what the
 * trace puts in each phase is checked against what the program says it did.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "gputrace/gputrace.h"
#include "probe/phases.h"
#include "probe/probe.h"
#include "record/gputrace_json.h"
#include "record/phases_json.h"

#define MIB (1024.0 * 1024.0)

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)len + 1);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	*n = (size_t)len;
	return buf;
}

/* A demo's probe lines into s, times since t0_ns (the first line's when
 * *t0_ns < 0); `first` and `rest` are put in front of the first line's and the
 * other lines' fields, as a program marking its process or lane writes them. */
static void add_lines(const char *path, struct phase_set *s, int64_t *t0_ns, const char *first, const char *rest)
{
	struct probe_config cfg;
	probe_config_init(&cfg);
	size_t n;
	char *text = slurp(path, &n), *save = NULL;
	bool at_first = true;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char full[512];
		const char *fields = strchr(line, ' ');
		assert_non_null(fields);
		snprintf(full, sizeof(full), "PERFHUNT: %s%s", at_first ? first : rest, fields + 1);
		at_first = false;
		struct probe p;
		assert_int_equal(probe_parse_line(&cfg, full, strlen(full), &p), 1);
		int k = probe_find(&p, "t_ns");
		assert_true(k >= 0);
		int64_t t = (int64_t)p.fields[k].value;
		if (*t0_ns < 0)
			*t0_ns = t;
		phase_set_add_probe(s, &p, (double)(t - *t0_ns) / 1e6, "stderr");
		probe_release(&p);
	}
	free(text);
	probe_config_release(&cfg);
}

/* The demo's probe lines as phases, times since its first line (t0_ns). */
static void demo_phases(const char *path, struct phase_set *s, int64_t *t0_ns)
{
	phase_set_init(s);
	*t0_ns = -1;
	add_lines(path, s, t0_ns, "", "");
	phase_set_finish(s, 1e9);
}

static json_t *gpu_of(json_t *obj, const char *name)
{
	size_t i;
	json_t *ph;
	json_array_foreach(json_object_get(obj, "phases"), i, ph)
		if (!strcmp(json_string_value(json_object_get(ph, "name")), name))
			return json_object_get(ph, "gpu");
	fail_msg("no phase %s", name);
	return NULL;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_number(v))
		fail_msg("no number %s", key);
	return json_number_value(v);
}

/* The value a probe line of the phase gave, as the record keeps it. */
static double value_of(json_t *obj, const char *phase, const char *key)
{
	size_t i;
	json_t *ph;
	json_array_foreach(json_object_get(obj, "phases"), i, ph)
		if (!strcmp(json_string_value(json_object_get(ph, "name")), phase))
			return num(json_object_get(ph, "values"), key);
	fail_msg("no phase %s", phase);
	return 0;
}

static double duration_of(json_t *obj, const char *phase)
{
	size_t i;
	json_t *ph;
	json_array_foreach(json_object_get(obj, "phases"), i, ph)
		if (!strcmp(json_string_value(json_object_get(ph, "name")), phase))
			return num(ph, "duration_ms");
	fail_msg("no phase %s", phase);
	return 0;
}

static void read_demo(struct gputrace *t)
{
	struct err e;
	gputrace_init(t);
	assert_int_equal(gputrace_read_dir(t, "data/gputrace/demo", &e), 1);
	gputrace_finish(t);
}

static void test_reads_every_kind(void **state)
{
	(void)state;
	struct gputrace t;
	read_demo(&t);
	/* 100 iterations of saxpy + scale, then 26 saxpy: 226 launches */
	assert_int_equal(t.n_kernels, 226);
	assert_int_equal(t.n_copies, 5);
	assert_int_equal(t.n_mem, 6);          /* 3 cudaMalloc, 3 cudaFree; pinned host memory is not the GPU's */
	assert_int_equal(t.n_syncs, 1);
	assert_int_equal(t.n_ranges, 101);     /* 100 "step" pushes, one "solve" in domain "demo" */
	assert_int_equal(t.bad_lines, 0);
	assert_int_equal(t.n_procs, 1);
	assert_int_equal(t.procs[0].pid, 551);
	assert_true(t.procs[0].complete);
	assert_true(t.procs[0].clock_ok);
	assert_int_equal(t.procs[0].records, 442);
	assert_int_equal(t.procs[0].dropped + t.procs[0].cupti_dropped, 0);
	assert_int_equal(t.procs[0].mem_max_bytes, 3u * 64 * 1024 * 1024);
	size_t solve = 0, step = 0;
	for (size_t i = 0; i < t.n_ranges; i++) {
		if (!strcmp(t.ranges[i].name, "solve") && !strcmp(t.ranges[i].domain, "demo"))
			solve++;
		if (!strcmp(t.ranges[i].name, "step") && !t.ranges[i].domain[0])
			step++;
		assert_true(t.ranges[i].end_ns >= t.ranges[i].start_ns);
	}
	assert_int_equal(solve, 1);
	assert_int_equal(step, 100);
	char names[2][GPUTRACE_NAME_MAX];
	snprintf(names[0], sizeof(names[0]), "%s", t.names[0]);
	snprintf(names[1], sizeof(names[1]), "%s", t.names[1]);
	assert_int_equal(t.n_names, 2);
	assert_true((!strcmp(names[0], "saxpy") && !strcmp(names[1], "scale")) ||
		    (!strcmp(names[1], "saxpy") && !strcmp(names[0], "scale")));
	gputrace_release(&t);
}

/* Each phase's GPU figures against what the program itself reported. */
static void test_phases_match_the_program(void **state)
{
	(void)state;
	struct gputrace t;
	read_demo(&t);
	struct phase_set s;
	int64_t t0;
	demo_phases("data/gputrace/demo/demo.err", &s, &t0);
	json_t *obj = phase_set_to_json(&s);
	gputrace_json_add_phases(obj, &t, t0);

	json_t *g = gpu_of(obj, "dev_alloc");
	assert_null(json_object_get(g, "pid")); /* no process named: the tree's */
	assert_true(num(g, "mem_growth_mib") * MIB == value_of(obj, "dev_alloc", "memgetinfo_delta_bytes"));
	assert_true(num(g, "mem_growth_mib") * MIB == value_of(obj, "dev_alloc", "dev_alloc_bytes"));
	assert_true(num(g, "mem_start_mib") == 0);
	g = gpu_of(obj, "h2d_pinned");
	assert_true(num(g, "h2d_bytes") == value_of(obj, "h2d_pinned", "h2d_pinned_bytes"));
	assert_true(num(g, "h2d_pageable_bytes") == 0);
	double pinned_gbps = num(g, "h2d_gbps");
	g = gpu_of(obj, "h2d_pageable");
	assert_true(num(g, "h2d_bytes") == value_of(obj, "h2d_pageable", "h2d_pageable_bytes"));
	assert_true(num(g, "h2d_pageable_bytes") == num(g, "h2d_bytes"));
	/* pageable copies go through a staging buffer: slower than pinned ones */
	assert_true(num(g, "h2d_gbps") < pinned_gbps);
	g = gpu_of(obj, "d2h");
	assert_true(num(g, "d2h_bytes") == value_of(obj, "d2h", "d2h_bytes"));
	assert_true(num(g, "h2d_bytes") == 0);
	g = gpu_of(obj, "release");
	/* (its negative cudaMemGetInfo delta is no probe value: it equals -release_bytes in the file) */
	assert_true(-num(g, "mem_growth_mib") * MIB == value_of(obj, "release", "release_bytes"));
	assert_true(num(g, "mem_end_mib") == 0);

	/* every kernel ran inside compute; its busy time within the CUDA events' span */
	g = gpu_of(obj, "compute");
	assert_true(num(g, "launches") == value_of(obj, "compute", "kernel_launches"));
	double all_ms = 0;
	for (size_t i = 0; i < t.n_kernels; i++)
		all_ms += (double)(t.kernels[i].end_ns - t.kernels[i].start_ns) / 1e6;
	assert_true(fabs(num(g, "kernel_ms") - all_ms) < 0.01);
	assert_true(num(g, "busy_ms") <= num(g, "kernel_ms") + 0.001);
	/* compute_event_ms, a duration probe: the phase compute_event */
	double event_ms = duration_of(obj, "compute_event");
	assert_true(num(g, "busy_ms") <= event_ms);
	assert_true(num(g, "busy_ms") > 0.5 * event_ms);
	assert_true(num(g, "sync_ms") > 0);
	json_t *top = json_object_get(g, "kernels");
	assert_int_equal(json_array_size(top), 2);
	double launches = 0;
	for (size_t i = 0; i < 2; i++)
		launches += num(json_array_get(top, i), "launches");
	assert_true(launches == 226);
	assert_true(num(json_array_get(top, 0), "ms") >= num(json_array_get(top, 1), "ms"));
	/* no kernel outside compute */
	assert_true(num(gpu_of(obj, "d2h"), "launches") == 0);
	assert_true(num(gpu_of(obj, "dev_alloc"), "busy_ms") == 0);

	json_decref(obj);
	phase_set_release(&s);
	gputrace_release(&t);
}

/* Two processes at once: each one's memory is its own, not the tree's. */
static void test_two_processes(void **state)
{
	(void)state;
	struct gputrace t;
	struct err e;
	gputrace_init(&t);
	assert_int_equal(gputrace_read_dir(&t, "data/gputrace/two", &e), 2);
	gputrace_finish(&t);
	assert_int_equal(t.n_procs, 2);
	uint64_t mem[2];
	for (size_t i = 0; i < 2; i++) {
		assert_true(t.procs[i].complete);
		assert_int_equal(t.procs[i].kernels, 2 * 50 + 50 / 4 + 1);
		mem[i] = t.procs[i].mem_max_bytes;
	}
	uint64_t lo = mem[0] < mem[1] ? mem[0] : mem[1], hi = mem[0] < mem[1] ? mem[1] : mem[0];
	assert_int_equal(lo, 3u * 32 * 1024 * 1024);
	assert_int_equal(hi, 3u * 48 * 1024 * 1024);
	json_t *run = gputrace_json_run(&t, 0, INT64_MAX / 2);
	assert_int_equal(json_array_size(json_object_get(run, "processes")), 2);
	assert_true(num(run, "launches") == 2 * 113);
	/* every kernel and copy a slice for the trace, in time order */
	json_t *slices = json_object_get(run, "slices");
	assert_int_equal(json_array_size(slices), t.n_kernels + t.n_copies);
	assert_true(num(run, "slices_left_out") == 0);
	for (size_t i = 1; i < json_array_size(slices); i++)
		assert_true(json_number_value(json_array_get(json_array_get(slices, i), 3)) >=
			    json_number_value(json_array_get(json_array_get(slices, i - 1), 3)));
	json_decref(run);
	gputrace_release(&t);
}

/* The instance of a phase on a lane. */
static json_t *phase_on(json_t *obj, const char *name, const char *lane)
{
	size_t i;
	json_t *ph;
	json_array_foreach(json_object_get(obj, "phases"), i, ph)
		if (!strcmp(json_string_value(json_object_get(ph, "name")), name) &&
		    !strcmp(json_string_value(json_object_get(ph, "lane")), lane))
			return ph;
	fail_msg("no phase %s on lane '%s'", name, lane);
	return NULL;
}

/* Probe phases of two processes at once: one marks every line with its pid,
 * the other its lane, naming its pid once; each phase is charged its own
 * process's allocations and kernels, not the other's made at the same time. */
static void test_probe_phase_is_its_process(void **state)
{
	(void)state;
	struct gputrace t;
	struct err e;
	gputrace_init(&t);
	assert_int_equal(gputrace_read_dir(&t, "data/gputrace/two", &e), 2);
	gputrace_finish(&t);
	/* 570 allocated 3 x 32 MiB (a.err), 571 3 x 48 MiB (b.err) */
	struct phase_set s;
	phase_set_init(&s);
	int64_t t0 = -1;
	add_lines("data/gputrace/two/a.err", &s, &t0, "pid=570 ", "pid=570 ");
	add_lines("data/gputrace/two/b.err", &s, &t0, "worker=1 pid=571 ", "worker=1 ");
	phase_set_finish(&s, 1e9);
	json_t *obj = phase_set_to_json(&s);
	gputrace_json_add_phases(obj, &t, t0);
	const char *const lanes[2] = { "", "worker=1" };
	const int pids[2] = { 570, 571 };
	size_t overlapped = 0;
	for (int w = 0; w < 2; w++) {
		json_t *ph = phase_on(obj, "dev_alloc", lanes[w]);
		json_t *g = json_object_get(ph, "gpu");
		assert_true(num(g, "pid") == pids[w]);
		double own = num(json_object_get(ph, "values"), "dev_alloc_bytes");
		assert_true(num(g, "mem_growth_mib") * MIB == own);
		/* the windows overlap: the tree's growth there holds the other's too */
		struct gputrace_sum tree;
		gputrace_sum_init(&tree, &t);
		gputrace_sum_add(&tree, &t, t0 + (int64_t)(num(ph, "start_ms") * 1e6),
				 t0 + (int64_t)(num(ph, "end_ms") * 1e6), 0);
		overlapped += (double)tree.mem_growth_bytes != own;
		gputrace_sum_release(&tree);
		ph = phase_on(obj, "compute", lanes[w]);
		g = json_object_get(ph, "gpu");
		assert_true(num(g, "launches") == num(json_object_get(ph, "values"), "kernel_launches"));
		assert_true(num(g, "mem_start_mib") * MIB == 3.0 * (w ? 48 : 32) * MIB);
		for (size_t k = 0; k < t.n_procs; k++)
			if (t.procs[k].pid == pids[w])
				assert_true(num(g, "mem_max_mib") * MIB == (double)t.procs[k].mem_max_bytes);
	}
	assert_true(overlapped > 0);
	json_decref(obj);
	phase_set_release(&s);
	gputrace_release(&t);
}

/* The runtime calls that put work on the GPU, recorded with the kernels and
 * copies (trace_demo --mib 16 --iters 20 under the collector): every kernel
 * and copy finds its launch by correlation id, a call of its thread that
 * began before the GPU did the work, named as the program called it. */
static void test_launches(void **state)
{
	(void)state;
	struct gputrace t;
	struct err e;
	gputrace_init(&t);
	assert_int_equal(gputrace_read_dir(&t, "data/gputrace/launch", &e), 1);
	gputrace_finish(&t);
	assert_true(t.n_kernels > 0 && t.n_copies > 0);
	assert_int_equal(t.bad_lines, 0);
	for (size_t i = 0; i < t.n_kernels; i++) {
		const struct gputrace_launch *l = gputrace_launch_of(&t, t.kernels[i].pid, t.kernels[i].corr);
		assert_non_null(l);
		assert_true(l->start_ns <= t.kernels[i].start_ns);
		assert_string_equal(t.calls[l->name], "cudaLaunchKernel");
	}
	for (size_t i = 0; i < t.n_copies; i++) {
		const struct gputrace_launch *l = gputrace_launch_of(&t, t.copies[i].pid, t.copies[i].corr);
		assert_non_null(l);
		assert_true(l->start_ns <= t.copies[i].start_ns);
		assert_true(!strncmp(t.calls[l->name], "cudaMemcpy", 10));
	}
	assert_null(gputrace_launch_of(&t, t.kernels[0].pid + 1, t.kernels[0].corr));
	/* the record's slices carry them: [dev, kind, name, start, dur, pid, launch] */
	json_t *run = gputrace_json_run(&t, 0, INT64_MAX / 2);
	size_t i;
	json_t *sl;
	json_array_foreach(json_object_get(run, "slices"), i, sl) {
		json_t *l = json_array_get(sl, 6);
		assert_int_equal(json_array_size(l), 4);
		assert_true(json_number_value(json_array_get(l, 2)) <= json_number_value(json_array_get(sl, 3)));
	}
	json_decref(run);
	/* a thread's calls, one after another, never overlap at the record's
	 * microseconds, wherever the run's start falls inside one */
	for (int64_t t0 = 0; t0 < 1000; t0 += 37) {
		run = gputrace_json_run(&t, t0, INT64_MAX / 2);
		long long last_tid = -1, last_start = -1, last_end = -1;
		json_array_foreach(json_object_get(run, "slices"), i, sl) {
			json_t *l = json_array_get(sl, 6);
			long long tid = (long long)json_integer_value(json_array_get(l, 0));
			long long start = llround(json_number_value(json_array_get(l, 2)) * 1000);
			long long end = start + llround(json_number_value(json_array_get(l, 3)) * 1000);
			if (tid == last_tid && start != last_start)
				assert_true(start >= last_end);
			last_tid = tid;
			last_start = start;
			last_end = end;
		}
		json_decref(run);
	}
	gputrace_release(&t);
}

/* Lines that are not records cost only themselves; a file without its last
 * line is incomplete; an end with no start is counted. */
static void test_damaged_input(void **state)
{
	(void)state;
	static const char text[] =
		"{\"type\":\"process\",\"pid\":7,\"ppid\":1,\"clock\":\"monotonic\",\"ts\":1}\n"
		"not json\n"
		"{\"type\":\"kernel\",\"name\":\"_Z1kv\",\"start\":10,\"end\":5}\n"
		"{\"type\":\"kernel\",\"name\":\"void ns::k<int, (char)1>(float*)\",\"dev\":0,\"start\":100,\"end\":300}\n"
		"{\"type\":\"range_end\",\"id\":9,\"ts\":5}\n"
		"{\"type\":\"range_start\",\"id\":3,\"name\":\"open\",\"domain\":\"\",\"ts\":5}\n"
		"{\"type\":\"kernel\",\"name\":\"cut";
	struct gputrace t;
	gputrace_init(&t);
	gputrace_parse(&t, 7, text, sizeof(text) - 1);
	gputrace_finish(&t);
	assert_int_equal(t.bad_lines, 3);
	assert_int_equal(t.n_kernels, 1);
	assert_string_equal(t.names[0], "ns::k<int, (char)1>");
	assert_int_equal(t.unmatched_ranges, 2);
	assert_int_equal(t.n_ranges, 0);
	assert_false(t.procs[0].complete);
	struct gputrace_sum s;
	gputrace_sum_init(&s, &t);
	gputrace_sum_add(&s, &t, 200, 1000, 0);
	gputrace_sum_finish(&s);
	assert_true(fabs(s.busy_ms - 100e-6) < 1e-9);
	assert_int_equal(s.launches, 0); /* it started before the window */
	assert_int_equal(s.n_top, 1);
	gputrace_sum_release(&s);
	gputrace_release(&t);
}

/* Busy time is the union per device: overlapping kernels count once. */
static void test_busy_is_a_union(void **state)
{
	(void)state;
	static const char text[] =
		"{\"type\":\"kernel\",\"name\":\"a\",\"dev\":0,\"start\":0,\"end\":1000000}\n"
		"{\"type\":\"kernel\",\"name\":\"b\",\"dev\":0,\"start\":500000,\"end\":1500000}\n"
		"{\"type\":\"kernel\",\"name\":\"c\",\"dev\":1,\"start\":0,\"end\":2000000}\n"
		"{\"type\":\"kernel\",\"name\":\"a\",\"dev\":0,\"start\":3000000,\"end\":4000000}\n";
	struct gputrace t;
	gputrace_init(&t);
	gputrace_parse(&t, 1, text, sizeof(text) - 1);
	gputrace_finish(&t);
	struct gputrace_sum s;
	gputrace_sum_init(&s, &t);
	gputrace_sum_add(&s, &t, 0, 5000000, 0);
	gputrace_sum_finish(&s);
	assert_true(fabs(s.busy_ms - (1.5 + 2.0 + 1.0)) < 1e-9);
	assert_true(fabs(s.kernel_ms - 5.0) < 1e-9);
	assert_int_equal(s.n_top, 3);
	assert_string_equal(t.names[s.top[0].name], "a");
	assert_int_equal(s.top[0].launches, 2);
	assert_string_equal(t.names[s.top[1].name], "c");
	gputrace_sum_release(&s);
	gputrace_release(&t);
}

static void test_short_names(void **state)
{
	(void)state;
	char buf[64];
	gputrace_short_name("saxpy(int, float, float const*, float*)", buf, sizeof(buf));
	assert_string_equal(buf, "saxpy");
	gputrace_short_name("void at::native::k<float, 4>(int, at::detail::A<(bool)1>)", buf, sizeof(buf));
	assert_string_equal(buf, "at::native::k<float, 4>");
	gputrace_short_name("_Z5saxpyifPKfPf", buf, sizeof(buf));
	assert_string_equal(buf, "_Z5saxpyifPKfPf");
	gputrace_short_name("abcdefgh", buf, 4);
	assert_string_equal(buf, "abc");
}

/* NVTX ranges become phases the way the session makes them (domain as lane);
 * each is charged its own process's kernels and device memory, not the other
 * worker's held at the same time. */
static void test_nvtx_phase_is_its_process(void **state)
{
	(void)state;
	struct gputrace t;
	struct err e;
	gputrace_init(&t);
	assert_int_equal(gputrace_read_dir(&t, "data/gputrace/two", &e), 2);
	gputrace_finish(&t);
	int64_t t0 = INT64_MAX;
	for (size_t i = 0; i < t.n_ranges; i++)
		if (t.ranges[i].start_ns < t0)
			t0 = t.ranges[i].start_ns;
	struct phase_set s;
	phase_set_init(&s);
	for (size_t i = 0; i < t.n_ranges; i++) {
		const struct gputrace_range *g = &t.ranges[i];
		phase_set_add_range(&s, g->name, g->domain[0] ? "nvtx" : NULL, g->domain, (double)(g->start_ns - t0) / 1e6,
				    (double)(g->end_ns - t0) / 1e6, PHASE_NVTX);
	}
	phase_set_finish(&s, 1e9);
	json_t *obj = phase_set_to_json(&s);
	gputrace_json_add_phases(obj, &t, t0);
	size_t i, solves = 0, others = 0, shared = 0;
	double stat_launches = 0;
	json_t *ph;
	json_array_foreach(json_object_get(obj, "phases"), i, ph) {
		if (strcmp(json_string_value(json_object_get(ph, "name")), "solve"))
			continue;
		assert_string_equal(json_string_value(json_object_get(ph, "lane")), "nvtx=demo");
		assert_string_equal(json_string_value(json_object_get(ph, "source")), "nvtx");
		/* the range it came from, and the kernels its process started inside */
		const struct gputrace_range *r = NULL;
		for (size_t k = 0; k < t.n_ranges && !r; k++)
			if (!strcmp(t.ranges[k].name, "solve") &&
			    fabs((double)(t.ranges[k].start_ns - t0) / 1e6 - num(ph, "start_ms")) < 0.002)
				r = &t.ranges[k];
		assert_non_null(r);
		uint64_t own = 0, all = 0;
		for (size_t k = 0; k < t.n_kernels; k++) {
			if (t.kernels[k].start_ns < r->start_ns || t.kernels[k].start_ns >= r->end_ns)
				continue;
			all++;
			own += t.kernels[k].pid == r->pid;
		}
		json_t *g = json_object_get(ph, "gpu");
		assert_true(num(g, "launches") == (double)own);
		others += all - own;
		/* its process's device memory (3 buffers of 32 or 48 MiB), not the
		 * tree's: both workers held theirs at the time */
		struct gputrace_sum tree;
		gputrace_sum_init(&tree, &t);
		gputrace_sum_add(&tree, &t, r->start_ns, r->end_ns, 0);
		for (size_t k = 0; k < t.n_procs; k++)
			if (t.procs[k].pid == r->pid)
				assert_true(num(g, "mem_start_mib") * MIB == (double)t.procs[k].mem_max_bytes);
		/* the first worker's solve ran while the second held its 144 MiB too */
		if (tree.mem_start_bytes == 3 * (32 + 48) * 1024 * 1024)
			shared++;
		gputrace_sum_release(&tree);
		stat_launches += (double)own;
		solves++;
	}
	assert_int_equal(solves, 2);
	assert_int_equal(others, 0); /* in these files the workers' kernels did not overlap */
	assert_int_equal(shared, 1);
	json_t *st;
	json_array_foreach(json_object_get(obj, "phase_stats"), i, st)
		if (!strcmp(json_string_value(json_object_get(st, "name")), "solve"))
			assert_true(num(json_object_get(st, "gpu"), "launches") == stat_launches);
	json_decref(obj);
	phase_set_release(&s);
	gputrace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_every_kind),
		cmocka_unit_test(test_phases_match_the_program),
		cmocka_unit_test(test_two_processes),
		cmocka_unit_test(test_nvtx_phase_is_its_process),
		cmocka_unit_test(test_probe_phase_is_its_process),
		cmocka_unit_test(test_launches),
		cmocka_unit_test(test_damaged_input),
		cmocka_unit_test(test_busy_is_a_union),
		cmocka_unit_test(test_short_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
