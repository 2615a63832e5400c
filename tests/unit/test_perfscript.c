/* Unit tests of src/profile/perfscript: perf script's text back into
 * samples — the header read from the right (a command name may hold spaces,
 * a short PID is right-aligned), frames with their mapping, and lines that
 * fit no shape counted, never taken for a sample.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm_with_spaces),
		cmocka_unit_test(test_no_comm_and_bad_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
