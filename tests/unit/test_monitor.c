/* Unit tests of src/monitor/monitor.c and src/session/session.c against
 * real processes: the phwork workload ($PHWORK) run as a command, as a tree
 * of children, watched while it sleeps, and recorded whole through the
 * session library, whose hooks are seen in order; and the launch into the
 * run's cgroup, both ways. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monitor/launch.h"
#include "monitor/monitor.h"
#include "proc/cgroup.h"
#include "session/session.h"

static char *phwork(void)
{
	char *p = getenv("PHWORK");
	assert_non_null(p);
	return p;
}

static void run_monitor(char **argv, struct monitor_result *r)
{
	struct launch_opts lo = { .argv = argv };
	struct monitor_opts mo = { .interval_ms = 20, .launch = &lo, .procfs = "/proc" };
	struct err e;
	int rc = monitor_run(&mo, r, &e);
	if (rc < 0)
		fail_msg("monitor_run: %s", e.msg);
}

static void test_command_exit_and_peak(void **state)
{
	(void)state;
	char *argv[] = { phwork(), "alloc:8", "sleep:120", "exit:3", NULL };
	struct monitor_result r;
	run_monitor(argv, &r);
	assert_true(r.started);
	assert_int_equal(r.exit_code, 3);
	assert_int_equal(r.exit_signal, 0);
	assert_true(r.wall_ms >= 120);
	/* 8 MiB touched: every exact source at least that (hwm while alive, exit figures) */
	uint64_t exact = r.tree.hwm_kb > r.taskstats_kb ? r.tree.hwm_kb : r.taskstats_kb;
	if (r.maxrss_kb > exact)
		exact = r.maxrss_kb;
	assert_true(exact >= 8 * 1024);
	assert_true(r.tree.peak_mem_kb >= 8 * 1024);
	assert_true(r.samples >= 3);
	assert_true(r.tree.tl.n >= 1);
	assert_true(r.launch_image_kb > 0);
	monitor_result_release(&r);
}

/* The command in the run's cgroup from its first instruction: reads its own
 * /proc/self/cgroup. On v2 it is born there (clone3, CLONE_INTO_CGROUP); on
 * v1 it writes itself into cgroup.procs. Skips without a memory cgroup
 * (not root, no controller). */
static void cgroup_launch(bool want_v2)
{
	struct cgroup cg;
	struct err e;
	if (cgroup_create(&cg, &e) < 0)
		skip();
	if ((cg.version == 2) != want_v2) {
		cgroup_destroy(&cg);
		skip();
	}
	int join = cgroup_procs_open(&cg, &e), into = want_v2 ? cgroup_dir_open(&cg, &e) : -1;
	assert_true(join >= 0 && (!want_v2 || into >= 0));
	char *argv[] = { "/bin/cat", "/proc/self/cgroup", NULL };
	struct launch_opts lo = { .argv = argv, .capture = true };
	struct launch_child c;
	assert_int_equal(launch_spawn_direct(&lo, join, into, &c, &e), 0);
	assert_int_equal(launch_release(&c), 0);
	assert_int_equal(c.join_errno, 0);
	assert_int_equal(c.into_cgroup, want_v2);
	char out[4096];
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(out) - 1 && (r = read(c.out_fd, out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = 0;
	int st;
	assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
	const char *leaf = strrchr(cg.dir, '/');
	assert_non_null(strstr(out, leaf));
	launch_close(&c);
	close(join);
	if (into >= 0)
		close(into);
	cgroup_destroy(&cg);
}

static void test_launch_born_in_cgroup_v2(void **state)
{
	(void)state;
	cgroup_launch(true);
}

static void test_launch_joins_cgroup_v1(void **state)
{
	(void)state;
	cgroup_launch(false);
}

static void test_tree_of_children(void **state)
{
	(void)state;
	char *argv[] = { phwork(), "children:3:2:200", NULL };
	struct monitor_result r;
	run_monitor(argv, &r);
	assert_int_equal(r.exit_code, 0);
	assert_true(r.tree.max_procs >= 4);
	monitor_result_release(&r);
}

static void test_not_found(void **state)
{
	(void)state;
	char *argv[] = { "/nonexistent/perfhunt-test", NULL };
	struct monitor_result r;
	run_monitor(argv, &r);
	assert_false(r.started);
	assert_int_equal(r.exec_errno, ENOENT);
	monitor_result_release(&r);
}

static void test_watch_for_a_duration(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(phwork(), phwork(), "alloc:4", "sleep:3000", (char *)NULL);
		_exit(127);
	}
	usleep(100 * 1000);
	struct monitor_opts mo = { .interval_ms = 20, .attach_pid = pid, .duration_ms = 200,
				   .procfs = "/proc" };
	struct monitor_result r;
	struct err e;
	int rc = monitor_run(&mo, &r, &e);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (rc < 0)
		fail_msg("monitor_run: %s", e.msg);
	assert_false(r.target_exited);
	assert_true(r.wall_ms >= 200);
	assert_true(r.samples >= 5);
	assert_true(r.tree.peak_mem_kb >= 4 * 1024);
	monitor_result_release(&r);
}

static void test_watch_missing_pid_fails_cleanly(void **state)
{
	(void)state;
	struct monitor_opts mo = { .interval_ms = 20, .attach_pid = 0x7ffffff0, .duration_ms = 100,
				   .procfs = "/proc" };
	struct monitor_result r;
	struct err e;
	assert_int_equal(monitor_run(&mo, &r, &e), -1);
	assert_true(e.msg[0] != '\0');
}

struct seen {
	int started, kept, warned;
	int order_ok;
	const char *json_path;     /* written before kept is called */
};

static void on_started(void *arg)
{
	struct seen *s = arg;
	s->started++;
}

static void on_warn(void *arg, const char *msg)
{
	struct seen *s = arg;
	s->warned++;
	print_message("warning: %s\n", msg);
}

static int on_kept(void *arg, const json_t *rec, int status)
{
	struct seen *s = arg;
	s->kept++;
	s->order_ok = s->started == 1 && json_object_get(rec, "summary") != NULL && access(s->json_path, F_OK) == 0;
	return status;
}

static void test_session_records_and_writes(void **state)
{
	(void)state;
	char dir[] = "/tmp/perfhunt-session-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char csv[4200], json[4200];
	snprintf(csv, sizeof(csv), "%s/t.csv", dir);
	snprintf(json, sizeof(json), "%s/t.json", dir);
	char *argv[] = { phwork(), "out:PERFHUNT: begin=work", "alloc:4", "sleep:60",
			 "out:PERFHUNT: end=work", NULL };
	struct launch_opts lo = { .argv = argv, .capture = true };
	struct probe_config pc;
	probe_config_init(&pc);
	struct session_config c = { .kind = "run", .launch = &lo, .record_argv = argv, .interval_ms = 20,
				    .json_path = json, .csv_path = csv, .probes = true, .probe_cfg = &pc,
				    .discard_output = true };
	struct seen seen = { .json_path = json };
	struct session_hooks h = { .arg = &seen, .started = on_started, .warn = on_warn,
				   .kept = on_kept };
	struct session_outcome out;
	struct err e;
	if (session_record(&c, &h, &out, &e) < 0)
		fail_msg("session_record: %s", e.msg);
	assert_int_equal(out.status, 0);
	assert_int_equal(seen.started, 1);
	assert_int_equal(seen.kept, 1);
	assert_int_equal(seen.warned, 0);
	assert_true(seen.order_ok);
	assert_string_equal(json_string_value(json_object_get(out.rec, "schema")), "perfhunt.run/1");
	json_t *ph = json_array_get(json_object_get(out.rec, "phases"), 0);
	assert_non_null(ph);
	assert_string_equal(json_string_value(json_object_get(ph, "name")), "work");
	json_decref(out.rec);
	json_error_t je;
	json_t *back = json_load_file(json, 0, &je);
	assert_non_null(back);
	json_decref(back);
	FILE *f = fopen(csv, "r");
	assert_non_null(f);
	char line[4096];
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(strncmp(line, "epoch_ms,rss_kb,rss_gib", 23), 0);
	fclose(f);
	unlink(csv);
	unlink(json);
	rmdir(dir);
	probe_config_release(&pc);
}

static void test_session_not_found_status(void **state)
{
	(void)state;
	char *argv[] = { "/nonexistent/perfhunt-test", NULL };
	struct launch_opts lo = { .argv = argv };
	struct probe_config pc;
	probe_config_init(&pc);
	struct session_config c = { .kind = "run", .launch = &lo, .record_argv = argv, .interval_ms = 20,
				    .probe_cfg = &pc };
	struct session_outcome out;
	struct err e;
	assert_int_equal(session_record(&c, NULL, &out, &e), -1);
	assert_int_equal(out.status, SESSION_NOTFOUND);
	assert_null(out.rec);
	assert_non_null(strstr(e.msg, "command not found"));
	probe_config_release(&pc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_exit_and_peak),
		cmocka_unit_test(test_tree_of_children),
		cmocka_unit_test(test_launch_born_in_cgroup_v2),
		cmocka_unit_test(test_launch_joins_cgroup_v1),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_watch_for_a_duration),
		cmocka_unit_test(test_watch_missing_pid_fails_cleanly),
		cmocka_unit_test(test_session_records_and_writes),
		cmocka_unit_test(test_session_not_found_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
