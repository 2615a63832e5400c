/* Unit tests of src/record/statefile: the private state directory, and the
 * liveness check by PID and start time that keeps `stop` from signalling a
 * process that merely reused a monitor's PID. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/statefile.h"

static char base[64];

static int setup(void **state)
{
	(void)state;
	strcpy(base, "/tmp/perfhunt-state.XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_private_dir(void **state)
{
	(void)state;
	char want[128], dir[4096], link[128];
	struct err e;
	snprintf(want, sizeof(want), "%s/state", base);
	setenv("PERFHUNT_STATE_DIR", want, 1);
	assert_int_equal(statefile_dir(dir, sizeof(dir), &e), 0);
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* a symlink planted where the directory should be is refused */
	snprintf(link, sizeof(link), "%s/planted", base);
	assert_int_equal(symlink(want, link), 0);
	setenv("PERFHUNT_STATE_DIR", link, 1);
	assert_int_equal(statefile_dir(dir, sizeof(dir), &e), -1);
	assert_non_null(strstr(e.msg, "not a private directory"));
	assert_non_null(strstr(e.msg, "(it is a symbolic link)"));
	/* so is a directory others may write, saying why */
	chmod(want, 0777);
	setenv("PERFHUNT_STATE_DIR", want, 1);
	assert_int_equal(statefile_dir(dir, sizeof(dir), &e), -1);
	assert_non_null(strstr(e.msg, "(it is open to other users (mode 0777))"));
	/* and, as root, one another user owns (planted before we made ours) */
	if (geteuid() == 0) {
		chmod(want, 0700);
		assert_int_equal(chown(want, 65534, 65534), 0);
		assert_int_equal(statefile_dir(dir, sizeof(dir), &e), -1);
		assert_non_null(strstr(e.msg, "(uid 65534), not by you)"));
	}
	/* a plain file where the directory should be */
	snprintf(link, sizeof(link), "%s/file", base);
	FILE *f = fopen(link, "w");
	assert_non_null(f);
	fclose(f);
	chmod(link, 0600);
	setenv("PERFHUNT_STATE_DIR", link, 1);
	assert_int_equal(statefile_dir(dir, sizeof(dir), &e), -1);
	assert_non_null(strstr(e.msg, "(it is not a directory)"));
	unsetenv("PERFHUNT_STATE_DIR");
}

/* Registers this process as a monitor of PID 1 in base/sub (made here). */
static void register_in(const char *sub, char dir[128], struct monitor_state *me)
{
	struct err e;
	snprintf(dir, 128, "%s/%s", base, sub);
	mkdir(dir, 0700);
	memset(me, 0, sizeof(*me));
	me->target_pid = 1;
	strcpy(me->target, "daemon");
	assert_int_equal(statefile_register(dir, me, &e), 0);
}

static void test_register_and_liveness(void **state)
{
	(void)state;
	char dir[128];
	struct err e;
	struct monitor_state me;
	register_in("reg", dir, &me);
	char path[256];
	snprintf(path, sizeof(path), "%s/%s.json", dir, me.id);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	struct monitor_state *all;
	size_t n;
	assert_int_equal(statefile_list(dir, &all, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(all[0].pid, getpid());
	assert_string_equal(all[0].target, "daemon");
	/* alive with the recorded start time: running */
	assert_int_equal(statefile_liveness(dir, &all[0]), MONITOR_RUNNING);
	/* the same PID with another start time is a different process: stale */
	all[0].starttime_ticks += 1;
	assert_int_equal(statefile_liveness(dir, &all[0]), MONITOR_STALE);
	/* marked done (its summary complete): finished */
	statefile_mark_done(dir, me.id);
	assert_int_equal(statefile_liveness(dir, &all[0]), MONITOR_FINISHED);
	free(all);

	statefile_remove(dir, me.id);
	assert_int_equal(statefile_list(dir, &all, &n, &e), 0);
	assert_int_equal(n, 0);
	free(all);
}

/* One stop per monitor: a second claim while the first holds it is
 * refused, and so is one after the first removed the monitor. */
static void test_claim(void **state)
{
	(void)state;
	char dir[128];
	struct err e;
	struct monitor_state me;
	register_in("claim", dir, &me);
	int a = -1, b = -1;
	assert_int_equal(statefile_claim(dir, me.id, &a, &e), 0);
	assert_true(a >= 0);
	assert_int_equal(statefile_claim(dir, me.id, &b, &e), STATEFILE_CLAIMED_ELSEWHERE);
	assert_int_equal(b, -1);
	/* the first stop removes the monitor, then lets go */
	statefile_remove(dir, me.id);
	close(a);
	assert_int_equal(statefile_claim(dir, me.id, &b, &e), STATEFILE_CLAIMED_ELSEWHERE);
	assert_int_equal(b, -1);
	/* a stop that died lets go too: the next one claims */
	assert_int_equal(statefile_register(dir, &me, &e), 0);
	assert_int_equal(statefile_claim(dir, me.id, &a, &e), 0);
	close(a);
	assert_int_equal(statefile_claim(dir, me.id, &b, &e), 0);
	close(b);
	statefile_remove(dir, me.id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_dir),
		cmocka_unit_test(test_register_and_liveness),
		cmocka_unit_test(test_claim),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
