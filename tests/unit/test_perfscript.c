/* Unit tests of src/profile/perfscript: perf script's text back into
 * samples — the header read from the right (a command name may hold spaces,
 * a short PID is right-aligned), frames with their mapping, and lines that
 * fit no shape counted, never taken for a sample; perf's switch records
 * (--show-switch-events) and the blocked intervals offcpu pairs from them;
 * its task records (--show-task-events): forks delivered, the rest read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile/offcpu.h"
#include "profile/perfscript.h"

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
	char stack[256];
	int64_t ns;
};

static void on_blocked(void *arg, int32_t tid, const char *stack, int64_t out_ns, int64_t in_ns)
{
	struct blocked *b = arg;
	b->n++;
	b->tid = tid;
	snprintf(b->stack, sizeof(b->stack), "%s", stack);
	b->ns = in_ns - out_ns;
}

struct pair {
	struct offcpu *o;
	int samples;
};

/* What the session does: a tracepoint sample's leaf as its stack, switch
 * records to the pairing. */
static void to_offcpu(void *arg, const struct perfscript_sample *s)
{
	struct pair *pr = arg;
	if (s->kind != PERFSCRIPT_SAMPLE)
		offcpu_switch(pr->o, s);
	else if (!strcmp(s->event, "sched:sched_switch") && s->nframes)
		offcpu_stack(pr->o, s->tid, s->frames[s->nframes - 1].sym);
	else
		pr->samples++;
}

/* A blocking switch-out's stack, its OUT record and the IN that ends it:
 * one interval of 2.5 ms; a preempted switch (runnable) is none, and clears
 * a stack it follows. */
static void test_switch_records(void **state)
{
	(void)state;
	struct blocked b = { 0 };
	struct pair pr = { offcpu_new(on_blocked, &b), 0 };
	static struct perfscript p;
	perfscript_init(&p, to_offcpu, &pr);
	feed(&p, "phthreads-w1  10/11   100.000000000:          1 sched:sched_switch: \n"
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
	offcpu_free(pr.o);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
