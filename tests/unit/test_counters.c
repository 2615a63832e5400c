/* Unit tests of src/counters: real perf_event_open counters on a real child.
 *
 * A forked child blocks on a pipe while the counters are opened on it, then
 * execs the phwork workload ($PHWORK) spinning for 50 ms; the counts must show
 * that work. Hardware events may be missing (this project's VM has none): they
 * must then read as "not supported" without failing the run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "counters/counters.h"

struct child {
	pid_t pid;
	int release_fd;
};

/* Forks a child that waits for the release pipe to close, touches
 * pre_exec_kib of fresh memory (work that must not be counted), then execs argv. */
static struct child spawn_blocked_touching(char *const argv[], size_t pre_exec_kib)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		close(p[1]);
		if (read(p[0], &c, 1) != 0)
			_exit(120);
		close(p[0]);
		if (pre_exec_kib) {
			volatile char *m = malloc(pre_exec_kib << 10);
			for (size_t i = 0; m && i < pre_exec_kib << 10; i += 4096)
				m[i] = 1;
		}
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[0]);
	return (struct child){ pid, p[1] };
}

static struct child spawn_blocked(char *const argv[])
{
	return spawn_blocked_touching(argv, 0);
}

static int release_and_wait(struct child ch)
{
	close(ch.release_fd);
	int status;
	assert_int_equal(waitpid(ch.pid, &status, 0), ch.pid);
	return status;
}

static const struct counter_value *find(const struct counter_values *vs, const char *name)
{
	for (size_t i = 0; i < vs->n; i++)
		if (strcmp(vs->v[i].name, name) == 0)
			return &vs->v[i];
	fail_msg("event %s missing", name);
	return NULL;
}

static const char *phwork(void)
{
	const char *p = getenv("PHWORK");
	if (!p)
		fail_msg("PHWORK is not set (run through meson test)");
	return p;
}

static void test_default_events_on_spinning_child(void **state)
{
	(void)state;
	/* The children's faults count only if inherit=1 reaches them. */
	char *argv[] = { (char *)phwork(), "spin:50", "alloc:2", "children:2:2:1", NULL };
	struct child ch = spawn_blocked(argv);
	struct counters *c;
	struct err e = { 0 };
	assert_int_equal(counters_open(&c, ch.pid, NULL, &e), 0);

	/* Before the exec nothing is counted. */
	struct counter_values before;
	assert_int_equal(counters_read(c, &before, &e), 0);
	assert_int_equal(find(&before, "task-clock")->status, COUNTER_NOT_COUNTED);

	int status = release_and_wait(ch);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	struct counter_values v;
	assert_int_equal(counters_read(c, &v, &e), 0);
	assert_int_equal(v.n, 12);

	const struct counter_value *tc = find(&v, "task-clock");
	assert_int_equal(tc->status, COUNTER_COUNTED);
	assert_string_equal(tc->unit, "ns");
	/* phwork spun for 50 ms of wall time; on a loaded machine it may get
	 * less CPU than that, but surely more than 5 ms. */
	assert_true(tc->value > 5e6);
	const struct counter_value *pf = find(&v, "page-faults");
	assert_int_equal(pf->status, COUNTER_COUNTED);
	/* alloc:2 touches 512 pages, and each of the two children 512 more. */
	assert_true(pf->value >= 3 * 512);
	const struct counter_value *minf = find(&v, "minor-faults");
	assert_true(minf->status == COUNTER_COUNTED && minf->value >= 3 * 512);
	assert_int_equal(find(&v, "context-switches")->status, COUNTER_COUNTED);
	assert_int_equal(find(&v, "cpu-migrations")->status, COUNTER_COUNTED);
	assert_int_equal(find(&v, "major-faults")->status, COUNTER_COUNTED);

	/* Hardware events: counted where the machine has them, otherwise
	 * marked, with the reason kept. */
	const char *hw[] = { "cycles", "instructions", "cache-references", "cache-misses",
			     "branches", "branch-misses" };
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		const struct counter_value *h = find(&v, hw[i]);
		assert_true(h->hardware);
		if (h->status == COUNTER_COUNTED) {
			assert_true(h->value > 0);
		} else {
			assert_true(h->status == COUNTER_NOT_SUPPORTED ||
				    h->status == COUNTER_NOT_PERMITTED);
			assert_int_not_equal(h->open_errno, 0);
		}
	}
	const struct counter_value *cyc = find(&v, "cycles");
	const struct counter_value *ins = find(&v, "instructions");
	if (cyc->status == COUNTER_COUNTED && ins->status == COUNTER_COUNTED)
		assert_true(v.ipc > 0);
	else
		assert_true(isnan(v.ipc));
	counters_close(c);
}

static void test_event_list_and_json(void **state)
{
	(void)state;
	char *argv[] = { (char *)phwork(), "alloc:1", NULL };
	struct child ch = spawn_blocked(argv);
	struct counters *c;
	struct err e = { 0 };
	/* perf's aliases are accepted and reported as written, as perf stat does. */
	assert_int_equal(counters_open(&c, ch.pid, "page-faults,cs,instructions", &e), 0);
	release_and_wait(ch);
	struct counter_values v;
	assert_int_equal(counters_read(c, &v, &e), 0);
	assert_int_equal(v.n, 3);
	assert_string_equal(v.v[0].name, "page-faults");
	assert_string_equal(v.v[1].name, "cs");
	assert_string_equal(v.v[2].name, "instructions");

	json_t *j = counters_to_json(&v);
	assert_non_null(j);
	assert_int_equal(json_object_size(j), 3);
	json_t *pf = json_object_get(j, "page-faults");
	assert_true(json_is_integer(json_object_get(pf, "value")));
	assert_true(json_integer_value(json_object_get(pf, "value")) >= 256);
	assert_true(json_is_true(json_object_get(pf, "supported")));
	assert_string_equal(json_string_value(json_object_get(pf, "status")), "counted");
	assert_true(json_is_false(json_object_get(pf, "scaled")));
	json_t *ins = json_object_get(j, "instructions");
	if (v.v[2].status == COUNTER_COUNTED) {
		assert_true(json_is_integer(json_object_get(ins, "value")));
	} else {
		assert_true(json_is_null(json_object_get(ins, "value")));
		assert_true(json_is_false(json_object_get(ins, "supported")));
		assert_non_null(json_object_get(ins, "error"));
	}
	json_decref(j);
	counters_close(c);
}

static void test_counting_starts_at_exec(void **state)
{
	(void)state;
	/* /bin/true, not phwork: a sanitizer build's start-up alone faults more than 600 pages */
	char *argv[] = { "/bin/true", NULL };
	/* 4 MiB touched between fork and exec: 1024 faults, not counted. */
	struct child ch = spawn_blocked_touching(argv, 4096);
	struct counters *c;
	struct err e = { 0 };
	assert_int_equal(counters_open(&c, ch.pid, "page-faults", &e), 0);
	release_and_wait(ch);
	struct counter_values v;
	int rc = counters_read(c, &v, &e);
	counters_close(c); /* before the asserts: a failed one must not leak it */
	assert_int_equal(rc, 0);
	assert_int_equal(v.v[0].status, COUNTER_COUNTED);
	/* true's own start-up faults only (about a hundred). */
	assert_true(v.v[0].value > 0 && v.v[0].value < 600);
}

static void test_bad_event_lists(void **state)
{
	(void)state;
	struct counters *c = (struct counters *)&c;
	struct err e = { 0 };
	/* Names are checked before anything is opened: pid 1 is never touched. */
	assert_int_equal(counters_open(&c, 1, "task-clock,bogus", &e), -1);
	assert_null(c);
	assert_non_null(strstr(e.msg, "unknown event 'bogus'"));
	assert_int_equal(counters_open(&c, 1, "cycles,,branches", &e), -1);
	assert_non_null(strstr(e.msg, "empty event name"));
	assert_int_equal(counters_open(&c, 1, "", &e), -1);
	assert_int_equal(counters_open(&c, 1, "cs,cs", &e), -1);
	assert_string_equal(e.msg, "event 'cs' listed twice");
	assert_int_equal(counters_check_events("cs,cs", &e), -1);
	assert_string_equal(e.msg, "event 'cs' listed twice");
	assert_int_equal(counters_check_events("task-clock,x", &e), -1);
	assert_non_null(strstr(e.msg, "unknown event 'x'"));
	assert_int_equal(counters_check_events(NULL, &e), 0);
	assert_int_equal(counters_check_events("cycles,instructions,ref-cycles,cpu-clock", &e), 0);
	/* perf stat -e's syntax, broken */
	const char *bad[] = { "{cycles,instructions", "cycles}", "{cycles,{instructions}}",
			      "instructions:z", "cpu/cycles", "software/no_such_term=1/", "{cycles}x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (counters_check_events(bad[i], &e) != -1)
			fail_msg("'%s' accepted", bad[i]);
	/* a tracepoint tracefs does not have (unreadable tracefs: not permitted, at open) */
	if (access("/sys/kernel/tracing/events", R_OK) == 0)
		assert_int_equal(counters_check_events("sched:no_such_tracepoint", &e), -1);
	/* ... and well formed, whether or not this machine has the events */
	const char *good[] = { "cycles:u,instructions:k", "r003c", "cpu/cycles/", "cpu/event=0x3c,umask=0/u",
			       "{cycles,instructions}:u", "sched:sched_switch", "no_such_pmu/x/",
			       "software/config=2/", "L1-dcache-load-misses" };
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		if (counters_check_events(good[i], &e) != 0)
			fail_msg("'%s' refused: %s", good[i], e.msg);
}

static const struct counter_value *value_named(const struct counter_values *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i].name, name))
			return &v->v[i];
	fail_msg("no event '%s'", name);
	return NULL;
}

/* perf stat -e's syntax on a real child: a tracepoint counts what the
 * software event of the same thing counts, a sysfs PMU term and a modifier
 * open, a group opens, and events this machine lacks read "not supported". */
static void test_perf_event_syntax(void **state)
{
	(void)state;
	char *argv[] = { (char *)phwork(), "alloc:4", NULL };
	struct child ch = spawn_blocked(argv);
	struct counters *c;
	struct err e = { 0 };
	const char *list = "{page-faults:u,task-clock:u},software/config=2/,exceptions:page_fault_user,"
			   "r003c,no_such_pmu/x/";
	bool tracefs = access("/sys/kernel/tracing/events/exceptions/page_fault_user/id", R_OK) == 0;
	if (!tracefs)
		list = "{page-faults:u,task-clock:u},software/config=2/,r003c,no_such_pmu/x/";
	assert_int_equal(counters_open(&c, ch.pid, list, &e), 0);
	release_and_wait(ch);
	struct counter_values v;
	assert_int_equal(counters_read(c, &v, &e), 0);
	const struct counter_value *pf = value_named(&v, "page-faults:u"),
				   *tc = value_named(&v, "task-clock:u"),
				   *sw = value_named(&v, "software/config=2/");
	assert_int_equal(pf->status, COUNTER_COUNTED);
	assert_true(pf->user_only);
	assert_true(pf->value >= 1024); /* 4 MiB touched, 4 KiB pages */
	assert_int_equal(tc->status, COUNTER_COUNTED);
	assert_string_equal(tc->unit, "ns");
	assert_int_equal(sw->status, COUNTER_COUNTED);
	assert_true(sw->value >= pf->value); /* page-faults, kernel mode included */
	if (tracefs) {
		const struct counter_value *tp = value_named(&v, "exceptions:page_fault_user");
		assert_int_equal(tp->status, COUNTER_COUNTED);
		/* the same faults, counted by the tracepoint: within a few of each other */
		assert_true(fabs(tp->value - pf->value) <= 0.05 * pf->value + 16);
	}
	const struct counter_value *raw = value_named(&v, "r003c");
	assert_true(raw->status == COUNTER_COUNTED || raw->status == COUNTER_NOT_SUPPORTED);
	assert_int_equal(value_named(&v, "no_such_pmu/x/")->status, COUNTER_NOT_SUPPORTED);
	json_t *j = counters_to_json(&v);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "no_such_pmu/x/"), "status")),
			    "not supported");
	json_decref(j);
	counters_close(c);
	if (!tracefs)
		skip();
}

static void test_vanished_pid_is_an_error(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	struct counters *c;
	struct err e = { 0 };
	assert_int_equal(counters_open(&c, pid, "task-clock", &e), -1);
	assert_null(c);
	assert_non_null(strstr(e.msg, "cannot count events of process"));
}

static void test_delta_and_status_names(void **state)
{
	(void)state;
	struct counter_values a = { .n = 3 }, b = { .n = 3 }, d;
	const char *names[] = { "cycles", "instructions", "task-clock" };
	for (size_t i = 0; i < 3; i++) {
		a.v[i] = (struct counter_value){ .name = names[i], .unit = "",
						 .status = COUNTER_COUNTED };
		b.v[i] = a.v[i];
	}
	a.v[0].value = 100, b.v[0].value = 1100;   /* cycles */
	a.v[1].value = 50, b.v[1].value = 2050;    /* instructions */
	b.v[1].scaled = true;
	a.v[2].status = COUNTER_NOT_COUNTED;       /* before exec */
	b.v[2].value = 7;
	counters_delta(&a, &b, &d);
	assert_true(d.v[0].value == 1000);
	assert_true(d.v[1].value == 2000 && d.v[1].scaled);
	assert_true(d.v[2].value == 7);
	assert_true(fabs(d.ipc - 2.0) < 1e-12);
	assert_true(isnan(d.cache_miss_pct));
	assert_string_equal(counters_status_name(COUNTER_NOT_SUPPORTED), "not supported");
	assert_string_equal(counters_status_name(COUNTER_NOT_PERMITTED), "not permitted");
	assert_string_equal(counters_status_name(COUNTER_NOT_COUNTED), "not counted");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_events_on_spinning_child),
		cmocka_unit_test(test_event_list_and_json),
		cmocka_unit_test(test_counting_starts_at_exec),
		cmocka_unit_test(test_bad_event_lists),
		cmocka_unit_test(test_perf_event_syntax),
		cmocka_unit_test(test_vanished_pid_is_an_error),
		cmocka_unit_test(test_delta_and_status_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
