/* Unit tests of src/profile/perfscript: perf script's text back into
 * samples — the header read from the right (a command name may hold spaces,
 * a short PID is right-aligned), frames with their mapping, and lines that
 * fit no shape counted, never taken for a sample; perf's switch records
 * (--show-switch-events) and the blocked intervals offcpu pairs from them;
 * its task records (--show-task-events): forks delivered, the rest read;
 * the off-CPU lists profile_json writes from sampled stacks (period ×
 * blocked time, each thread name's exact time shared out among its stacks).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "profile/offcpu.h"
#include "profile/perfscript.h"
#include "profile/profiler.h"
#include "record/profile_json.h"

struct got {
	int n;
	struct perfscript_sample last;
};

static void keep(void *arg, const struct perfscript_sample *s)
{
	struct got *g = arg;
	g->n++;
	g->last = *s;
}

static void feed(struct perfscript *p, const char *text)
{
	perfscript_feed(p, text, strlen(text));
	perfscript_finish(p);
}

static void test_comm_with_spaces(void **state)
{
	(void)state;
	static struct got g;
	static struct perfscript p;
	perfscript_init(&p, keep, &g);
	feed(&p, "Web Content  123/456  100.000000001:   10101010 cpu-clock: \n"
		 "\t    55d0c0a0 hot_alpha (/usr/bin/x)\n"
		 "\tffffffff81000010 clear_page_erms ([kernel.kallsyms])\n\n");
	assert_int_equal(g.n, 1);
	assert_string_equal(g.last.comm, "Web Content");
	assert_int_equal(g.last.pid, 123);
	assert_int_equal(g.last.tid, 456);
	assert_true(g.last.time_ns == 100000000001LL);
	assert_true(g.last.period == 10101010);
	assert_string_equal(g.last.event, "cpu-clock");
	assert_int_equal(g.last.nframes, 2);
	assert_false(g.last.frames[0].kernel);
	assert_true(g.last.frames[1].kernel);
	char name[128];
	perfscript_comm_name(&g.last, name, sizeof(name));
	assert_string_equal(name, "Web Content");
	assert_int_equal(p.bad_lines, 0);
}

static void test_no_comm_and_bad_lines(void **state)
{
	(void)state;
	static struct got g;
	static struct perfscript p;
	perfscript_init(&p, keep, &g);
	/* perf of old, without comm: a right-aligned short PID; then lines of no shape */
	feed(&p, "   77/77  100.000000002:   10101010 cpu-clock: \n"
		 "\t    400000 main (/usr/bin/x)\n\n"
		 "a;b 1/2 not a time: x\n"
		 "\tdeadbeef orphan (/x)\n");
	assert_int_equal(g.n, 1);
	assert_string_equal(g.last.comm, "");
	assert_int_equal(g.last.pid, 77);
	char name[128];
	perfscript_comm_name(&g.last, name, sizeof(name));
	assert_string_equal(name, "[unknown process]");
	assert_int_equal(p.bad_lines, 2);
	/* a ';' or a control byte in a command name cannot split a folded stack */
	struct perfscript_sample s = { .comm = "a;b\tc" };
	perfscript_comm_name(&s, name, sizeof(name));
	assert_string_equal(name, "a_b_c");
}

/* The intervals offcpu delivered: their count, the last one's. */
struct blocked {
	int n;
	int32_t tid;
	char comm[64];
	char stack[256];
	uint64_t period;
	int64_t ns;
};

static void on_blocked(void *arg, int32_t tid, const char *comm, const char *stack, uint64_t period, int64_t out_ns,
		       int64_t in_ns)
{
	struct blocked *b = arg;
	b->n++;
	b->tid = tid;
	snprintf(b->comm, sizeof(b->comm), "%s", comm);
	snprintf(b->stack, sizeof(b->stack), "%s", stack);
	b->period = period;
	b->ns = in_ns - out_ns;
}

struct pair {
	struct offcpu *o;
	int samples;
};

/* What the session does: a context-switch sample's leaf as its stack, switch
 * records to the pairing. */
static void to_offcpu(void *arg, const struct perfscript_sample *s)
{
	struct pair *pr = arg;
	if (s->kind != PERFSCRIPT_SAMPLE)
		offcpu_switch(pr->o, s);
	else if (PROFILER_IS_OFFCPU(s->event) && s->nframes)
		offcpu_stack(pr->o, s->tid, s->frames[s->nframes - 1].sym, s->period);
	else
		pr->samples++;
}

/* A blocking switch-out's stack, its OUT record and the IN that ends it:
 * one interval of 2.5 ms, its stack standing for the sample's period; a
 * preempted switch (runnable) is none, and clears a stack it follows. */
static void test_switch_records(void **state)
{
	(void)state;
	struct blocked b = { 0 };
	struct pair pr = { offcpu_new(on_blocked, &b), 0 };
	static struct perfscript p;
	perfscript_init(&p, to_offcpu, &pr);
	feed(&p, "phthreads-w1  10/11   100.000000000:          7 context-switches: \n"
		 "\tffffffff82258a08 __schedule ([kernel.kallsyms])\n"
		 "\t           87619 ___pthread_mutex_lock (/usr/lib/libc.so.6)\n"
		 "\n"
		 "phthreads-w1  10/11   100.000001000: PERF_RECORD_SWITCH OUT        \n"
		 "phthreads  10/10   100.000002000: PERF_RECORD_SWITCH IN         \n"
		 "phthreads  10/10   100.000003000: PERF_RECORD_SWITCH OUT preempt\n"
		 "phthreads  10/10   100.000003500:   10101010 cpu-clock: \n"
		 "\t    55d0c0a0 hot_alpha (/usr/bin/x)\n"
		 "\n"
		 "phthreads-w1  10/11   100.002501000: PERF_RECORD_SWITCH IN         \n"
		 "phthreads  10/10   100.003000000: PERF_RECORD_SWITCH IN         \n"
		 "x  10/12   100.004000000: PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:    10/10\n");
	assert_int_equal(p.bad_lines, 0);
	assert_int_equal(pr.samples, 1);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.tid, 11);
	assert_string_equal(b.stack, "___pthread_mutex_lock");
	assert_string_equal(b.comm, "phthreads-w1");
	assert_int_equal(b.period, 7);
	assert_true(b.ns == 2500000);
	struct offcpu_counts c = offcpu_counts(pr.o);
	assert_int_equal(c.intervals, 1);
	assert_int_equal(c.no_stack, 0);
	assert_int_equal(c.open, 0);
	/* a thread still out at the end is open; one out without a stack is
	 * measured all the same */
	perfscript_init(&p, to_offcpu, &pr);
	feed(&p, "a  1/2   200.000000000: PERF_RECORD_SWITCH OUT\n"
		 "a  1/3   200.000000000: PERF_RECORD_SWITCH OUT\n"
		 "a  1/3   200.001000000: PERF_RECORD_SWITCH IN\n"
		 "a  1/4   200.001000000: PERF_RECORD_SWITCH SIDEWAYS\n");
	assert_int_equal(p.bad_lines, 1);
	c = offcpu_counts(pr.o);
	assert_int_equal(c.intervals, 2);
	assert_int_equal(c.no_stack, 1);
	assert_int_equal(c.open, 1);
	assert_string_equal(b.stack, "");
	assert_int_equal(b.period, 0);
	/* a stack sampled at a preempted switch-out, or before an earlier
	 * switch-out, is not the next blocked interval's */
	perfscript_init(&p, to_offcpu, &pr);
	feed(&p, "w  5/6   300.000000000:          7 context-switches: \n"
		 "\tffffffff82258a08 preempted_here ([kernel.kallsyms])\n"
		 "\n"
		 "w  5/6   300.000001000: PERF_RECORD_SWITCH OUT preempt\n"
		 "w  5/6   300.000002000: PERF_RECORD_SWITCH IN\n"
		 "w  5/6   300.000003000: PERF_RECORD_SWITCH OUT\n"
		 "w  5/6   300.000004000: PERF_RECORD_SWITCH IN\n");
	assert_string_equal(b.stack, "");
	perfscript_init(&p, to_offcpu, &pr);
	feed(&p, "w  5/6   400.000000000:          7 context-switches: \n"
		 "\tffffffff82258a08 blocked_here ([kernel.kallsyms])\n"
		 "\n"
		 "w  5/6   400.000001000: PERF_RECORD_SWITCH OUT\n"
		 "w  5/6   400.000003000: PERF_RECORD_SWITCH OUT\n"
		 "w  5/6   400.000004000: PERF_RECORD_SWITCH IN\n");
	assert_string_equal(b.stack, "");
	assert_true(b.ns == 1000);
	offcpu_free(pr.o);
}

static bool near(double x, double y)
{
	return x > y - 1e-9 && x < y + 1e-9;
}

/* The off-CPU list of phase name, its stack's ms (-1: absent). */
static double offcpu_ms(const json_t *prof, const char *phase, const char *stack)
{
	const json_t *list = json_object_get(json_object_get(json_object_get(prof, "offcpu"), "phases"), phase);
	const json_t *st;
	size_t i;
	if (!stack)
		return json_real_value(json_object_get(list, "ms"));
	json_array_foreach(json_object_get(list, "stacks"), i, st)
		if (!strcmp(json_string_value(json_object_get(st, "stack")), stack))
			return json_real_value(json_object_get(st, "ms"));
	return -1;
}

/* Sampled stacks: a sampled interval with period P weighs P × its blocked
 * time; a thread name's exact blocked time (every interval's, sampled or
 * not) is shared out among its stacks in those proportions, so the list's
 * total is exact; a name with no sampled stack keeps its time on its bare
 * marker; the run's list does the same per phase and name. */
static void test_offcpu_weighting(void **state)
{
	(void)state;
	struct profile_json *pj = profile_json_new();
	/* pool: A sampled 1 in 3 for 1 ms, B 1 in 1 for 3 ms: weights 3 and 3,
	 * so the 10 ms of the name (4 sampled + 6 not) split 5 and 5 */
	profile_json_add_offcpu(pj, "p", "pool;[off-cpu];A", 1000000, 3);
	profile_json_add_offcpu(pj, "p", "pool;[off-cpu];B", 3000000, 1);
	profile_json_add_offcpu(pj, "p", "pool;[off-cpu]", 6000000, 0);
	/* main: never sampled, 2 ms stay on its bare marker */
	profile_json_add_offcpu(pj, "p", "main;[off-cpu]", 2000000, 0);
	/* in another phase, pool's C carries all of that phase's pool time */
	profile_json_add_offcpu(pj, "q", "pool;[off-cpu];C", 1000000, 7);
	profile_json_add_offcpu(pj, "q", "pool;[off-cpu]", 4000000, 0);
	struct profile_json_meta m = { .event = "cpu-clock", .hz = 99, .offcpu = true, .offcpu_event = PROFILER_OFFCPU_EVENT,
				       .offcpu_period = 7, .offcpu_intervals = 6, .offcpu_no_stack = 3 };
	json_t *prof = profile_json_build(pj, &m);
	assert_true(near(offcpu_ms(prof, "p", NULL), 12.0));
	assert_true(near(offcpu_ms(prof, "p", "pool;[off-cpu];A"), 5.0));
	assert_true(near(offcpu_ms(prof, "p", "pool;[off-cpu];B"), 5.0));
	assert_true(near(offcpu_ms(prof, "p", "pool;[off-cpu]"), -1)); /* shared out */
	assert_true(near(offcpu_ms(prof, "p", "main;[off-cpu]"), 2.0));
	assert_true(near(offcpu_ms(prof, "q", "pool;[off-cpu];C"), 5.0));
	const json_t *off = json_object_get(prof, "offcpu");
	assert_int_equal(json_integer_value(json_object_get(off, "period")), 7);
	assert_int_equal(json_integer_value(json_object_get(off, "intervals_with_stack")), 3);
	assert_int_equal(json_integer_value(json_object_get(off, "intervals_without_stack")), 3);
	/* the run's list: per phase root and name, the same shares */
	const json_t *run = json_object_get(off, "run"), *st;
	size_t i;
	double a = -1, c = -1, total = 0;
	json_array_foreach(json_object_get(run, "stacks"), i, st) {
		const char *name = json_string_value(json_object_get(st, "stack"));
		double ms = json_real_value(json_object_get(st, "ms"));
		total += ms;
		if (!strcmp(name, "[phase:p];pool;[off-cpu];A"))
			a = ms;
		if (!strcmp(name, "[phase:q];pool;[off-cpu];C"))
			c = ms;
	}
	assert_true(near(a, 5.0));
	assert_true(near(c, 5.0));
	assert_true(near(total, 17.0));
	assert_true(near(json_real_value(json_object_get(run, "ms")), 17.0));
	json_decref(prof);
	profile_json_free(pj);
}

/* A fork is delivered as the child's record with its parent (a thread's has
 * the parent's pid); COMM and EXIT lines are read, not delivered, not bad. */
struct forks {
	int n, samples;
	int32_t pid[4], tid[4], ppid[4];
};

static void keep_forks(void *arg, const struct perfscript_sample *s)
{
	struct forks *f = arg;
	if (s->kind == PERFSCRIPT_SAMPLE) {
		f->samples++;
		assert_int_equal(s->ppid, 0);
	}
	if (s->kind != PERFSCRIPT_FORK || f->n == 4)
		return;
	f->pid[f->n] = s->pid;
	f->tid[f->n] = s->tid;
	f->ppid[f->n++] = s->ppid;
}

static void test_task_records(void **state)
{
	(void)state;
	struct forks f = { 0 };
	static struct perfscript p;
	perfscript_init(&p, keep_forks, &f);
	feed(&p, "perf-exec     0/0         0.000000000: PERF_RECORD_COMM: perf-exec:9328/9328\n"
		 "sh  9328/9328  11076.230963541: PERF_RECORD_COMM exec: sh:9328/9328\n"
		 "sh  9328/9328  11076.231636328: PERF_RECORD_FORK(9329:9329):(9328:9328)\n"
		 "sh  9329/9329  11076.231700000:   10101010 cpu-clock: \n"
		 "\t    55d0c0a0 hot_alpha (/usr/bin/x)\n"
		 "\n"
		 "my prog  9329/9329  11076.231800000: PERF_RECORD_FORK(9329:9330):(9329:9329)\n"
		 "sh  9329/9329  11076.235102369: PERF_RECORD_EXIT(9329:9329):(9328:9328)\n"
		 "sh  9328/9328  11076.236000000: PERF_RECORD_FORK(9331:9331)(9328:9328)\n"
		 "sh  9328/9328  11076.236000000: PERF_RECORD_FORK(x:9331):(9328:9328)\n");
	assert_int_equal(p.bad_lines, 2);
	assert_int_equal(f.samples, 1);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.pid[0], 9329);
	assert_int_equal(f.tid[0], 9329);
	assert_int_equal(f.ppid[0], 9328);
	assert_int_equal(f.pid[1], 9329);
	assert_int_equal(f.tid[1], 9330);
	assert_int_equal(f.ppid[1], 9329);
}

/* More threads out at once than the bound: the rest are counted as
 * dropped; threads that come back free their slots for others (the table
 * never fills with the gone). */
static void test_offcpu_bound(void **state)
{
	(void)state;
	struct blocked b = { 0 };
	struct offcpu *o = offcpu_new(on_blocked, &b);
	struct perfscript_sample *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	for (int round = 0; round < 3; round++) {
		for (int32_t t = 1; t <= OFFCPU_MAX_THREADS + 5; t++) {
			s->kind = PERFSCRIPT_SWITCH_OUT;
			s->tid = t + round * 100000;
			s->time_ns = round * 10;
			offcpu_switch(o, s);
		}
		for (int32_t t = 1; t <= OFFCPU_MAX_THREADS + 5; t++) {
			s->kind = PERFSCRIPT_SWITCH_IN;
			s->tid = t + round * 100000;
			s->time_ns = round * 10 + 7;
			offcpu_switch(o, s);
		}
	}
	struct offcpu_counts c = offcpu_counts(o);
	assert_int_equal(c.dropped, 15);
	assert_int_equal(c.intervals, 3 * OFFCPU_MAX_THREADS);
	assert_int_equal(c.open, 0);
	assert_true(b.ns == 7);
	free(s);
	offcpu_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm_with_spaces),
		cmocka_unit_test(test_no_comm_and_bad_lines),
		cmocka_unit_test(test_switch_records),
		cmocka_unit_test(test_task_records),
		cmocka_unit_test(test_offcpu_bound),
		cmocka_unit_test(test_offcpu_weighting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
