/* Unit tests of src/proc: /proc parsers on captured and live text, and the
 * process tree on real forked processes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stdio.h>
#include <sys/stat.h>

#include "proc/cgroup.h"
#include "proc/lookup.h"
#include "proc/procfs.h"
#include "proc/proctree.h"

static void test_stat_comm_with_parens(void **state)
{
	(void)state;
	const char *s = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 1234 0 5 0 77 12 0 0 20 0 3 0 98765 "
			"10000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	struct procfs_stat st;
	assert_int_equal(procfs_parse_stat(s, strlen(s), &st), 0);
	assert_string_equal(st.comm, "a) b (c)");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.minflt, 1234);
	assert_int_equal(st.majflt, 5);
	assert_int_equal(st.utime_ticks, 77);
	assert_int_equal(st.stime_ticks, 12);
	assert_int_equal(st.num_threads, 3);
	assert_int_equal(st.starttime_ticks, 98765);
	assert_int_equal(st.blkio_ticks, 0);
}

/* field 42, delayacct_blkio_ticks: read where the line has it; a line that
 * ends after vsize (field 23) still parses, without it */
static void test_stat_blkio_ticks(void **state)
{
	(void)state;
	const char *s = "4242 (io) D 1 4242 4242 0 -1 4194560 1234 0 5 0 77 12 0 0 20 0 1 0 98765 "
			"10000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 37 0 0 0\n";
	struct procfs_stat st;
	assert_int_equal(procfs_parse_stat_blkio(s, strlen(s), &st), 0);
	assert_int_equal(st.blkio_ticks, 37);
	assert_int_equal(st.vsize_bytes, 10000);
	const char *shorter = "4242 (io) D 1 4242 4242 0 -1 4194560 1234 0 5 0 77 12 0 0 20 0 1 0 98765 10000\n";
	assert_int_equal(procfs_parse_stat_blkio(shorter, strlen(shorter), &st), 0);
	assert_int_equal(st.blkio_ticks, 0);
	assert_int_equal(st.vsize_bytes, 10000);
}

static void test_stat_truncated(void **state)
{
	(void)state;
	struct procfs_stat st;
	const char *s = "4242 (x) S 1 2 3";
	assert_int_equal(procfs_parse_stat(s, strlen(s), &st), -1);
	assert_int_equal(procfs_parse_stat("", 0, &st), -1);
	assert_int_equal(procfs_parse_stat("no parens at all", 16, &st), -1);
}

static void test_status_fixture(void **state)
{
	(void)state;
	const char *s = "Name:\tprover\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t1000\t1000\t1000\n"
			"VmPeak:\t  300 kB\nVmHWM:\t  212987636 kB\nVmRSS:\t  212987468 kB\n"
			"RssAnon:\t  200000000 kB\nRssFile:\t  12000000 kB\nRssShmem:\t  987468 kB\n"
			"VmSwap:\t       12 kB\nThreads:\t64\nvoluntary_ctxt_switches:\t10\n"
			"nonvoluntary_ctxt_switches:\t3\n";
	struct procfs_status ss;
	assert_int_equal(procfs_parse_status(s, strlen(s), &ss), 0);
	assert_int_equal(ss.hwm_kb, 212987636);
	assert_int_equal(ss.rss_kb, 212987468);
	assert_int_equal(ss.anon_kb, 200000000);
	assert_int_equal(ss.file_kb, 12000000);
	assert_int_equal(ss.shmem_kb, 987468);
	assert_int_equal(ss.swap_kb, 12);
	assert_int_equal(ss.threads, 64);
	assert_int_equal(ss.vcsw, 10);
	assert_int_equal(ss.ivcsw, 3);
	assert_int_equal(ss.uid, 1000);
}

static void test_status_live(void **state)
{
	(void)state;
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	struct procfs_status ss;
	assert_int_equal(procfs_parse_status(buf, (size_t)n, &ss), 0);
	assert_true(ss.rss_kb > 0);
	assert_true(ss.hwm_kb >= ss.rss_kb);
	assert_true(ss.anon_kb + ss.file_kb + ss.shmem_kb == ss.rss_kb);
	assert_true(ss.threads >= 1);
}

static void test_statm(void **state)
{
	(void)state;
	struct procfs_statm sm;
	const char *s = "5410 1282 1076 5 0 278 0\n";
	assert_int_equal(procfs_parse_statm(s, strlen(s), &sm), 0);
	assert_int_equal(sm.size_pages, 5410);
	assert_int_equal(sm.resident_pages, 1282);
	assert_int_equal(sm.shared_pages, 1076);
	assert_int_equal(procfs_parse_statm("5410 12", 7, &sm), -1);
	assert_int_equal(procfs_parse_statm("", 0, &sm), -1);
}

static void test_schedstat(void **state)
{
	(void)state;
	struct procfs_schedstat s;
	const char *text = "5123456789 4567 123\n";
	assert_int_equal(procfs_parse_schedstat(text, strlen(text), &s), 0);
	assert_int_equal(s.oncpu_ns, 5123456789ull);
	assert_int_equal(s.wait_ns, 4567);
	assert_int_equal(s.runs, 123);
	assert_int_equal(procfs_parse_schedstat("12 34", 5, &s), -1);
	assert_int_equal(procfs_parse_schedstat("", 0, &s), -1);
}

static void test_io_and_smaps(void **state)
{
	(void)state;
	const char *io = "rchar: 100\nwchar: 200\nsyscr: 1\nsyscw: 2\nread_bytes: 0\n";
	struct procfs_io x;
	assert_int_equal(procfs_parse_io(io, strlen(io), &x), 0);
	assert_int_equal(x.rchar, 100);
	assert_int_equal(x.wchar, 200);
	const char *sm = "55d0-7ffd ---p 00000000 00:00 0 [rollup]\nRss:  1000 kB\nPss:  750 kB\n";
	uint64_t pss;
	assert_int_equal(procfs_parse_smaps_rollup(sm, strlen(sm), &pss), 0);
	assert_int_equal(pss, 750);
	assert_int_equal(procfs_parse_io("garbage", 7, &x), -1);
}

static void collect(pid_t pid, void *arg)
{
	int *v = arg;
	v[v[0] + 1] = pid;
	v[0]++;
}

static void test_children(void **state)
{
	(void)state;
	int v[8] = { 0 };
	const char *s = "12 345 6789 ";
	assert_int_equal(procfs_parse_children(s, strlen(s), collect, v), 3);
	assert_int_equal(v[1], 12);
	assert_int_equal(v[3], 6789);
	assert_int_equal(procfs_parse_children("12 x", 4, collect, v), -1);
	assert_int_equal(procfs_parse_children("", 0, collect, v), 0);
}

/* A child that touches mib MiB, optionally forks a grandchild, then waits for the pipe to close. */
static pid_t spawn_holder(int mib, int grandchild, int *release_fd)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		size_t n = (size_t)mib << 20;
		char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (size_t i = 0; i < n; i += 4096)
			m[i] = 1;
		if (grandchild && fork() == 0) {
			char b;
			while (read(p[0], &b, 1) > 0)
				;
			_exit(0);
		}
		char b;
		while (read(p[0], &b, 1) > 0)
			;
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	*release_fd = p[1];
	return pid;
}

static void test_tree_real_processes(void **state)
{
	(void)state;
	struct proctree t;
	struct err e;
	assert_int_equal(proctree_init(&t, "/proc", &e), 0);
	int rel;
	pid_t child = spawn_holder(8, 1, &rel);
	usleep(200000);
	assert_int_equal(proctree_add(&t, child, &e), 1);
	assert_int_equal(proctree_add(&t, child, &e), 0);
	assert_true(proctree_scan(&t) >= 1); /* the grandchild */
	struct proctree_totals tot;
	proctree_sample(&t, &tot);
	assert_int_equal(tot.procs, 2);
	/* the grandchild shares the child's pages copy-on-write: both count in RSS */
	assert_true(tot.rss_kb >= 2 * 8192);
	assert_true(tot.hwm_kb >= 8192);
	assert_true(tot.minflt >= 2048);
	uint64_t faults = tot.minflt;

	close(rel);
	waitpid(child, NULL, 0);
	proctree_sample(&t, &tot);
	assert_int_equal(tot.procs, 0);
	assert_true(t.vanished >= 1);
	/* counters of exited members are kept, so totals never go backwards */
	assert_true(tot.minflt >= faults);
	assert_true(tot.hwm_kb >= 8192);
	proctree_release(&t);
}

/* ---- every thread of a member ---- */

enum { THREADS = 3, SLEEPS = 25, SPIN_MS = 20 };

static int go_fd, park_fd;

static void spin(long ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* Waits for its go, sleeps SLEEPS times, spins, then parks until told to exit. */
static void *sleeper(void *arg)
{
	char c;
	(void)arg;
	if (read(go_fd, &c, 1) != 1)
		return NULL;
	for (int i = 0; i < SLEEPS; i++)
		usleep(1000);
	spin(SPIN_MS);
	while (read(park_fd, &c, 1) > 0)
		;
	return NULL;
}

/* A process of THREADS threads besides its main one: go (write THREADS
 * bytes) starts them, closing park ends them; the main thread then waits
 * for its own end. */
static pid_t spawn_threads(int *go, int *park)
{
	int g[2], k[2], end[2];
	assert_int_equal(pipe(g), 0);
	assert_int_equal(pipe(k), 0);
	assert_int_equal(pipe(end), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(g[1]);
		close(k[1]);
		close(end[1]);
		go_fd = g[0];
		park_fd = k[0];
		pthread_t th[THREADS];
		for (int i = 0; i < THREADS; i++)
			pthread_create(&th[i], NULL, sleeper, NULL);
		for (int i = 0; i < THREADS; i++)
			pthread_join(th[i], NULL);
		char c;
		while (read(end[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(g[0]);
	close(k[0]);
	close(end[0]);
	*go = g[1];
	*park = k[1];
	return pid; /* end[1] leaks into the parent until it exits: kill ends the child */
}

/* Context switches and thread time sum every thread, those that exited too:
 * /proc/PID/status and schedstat are the main thread's only. */
static void test_tree_every_thread(void **state)
{
	(void)state;
	struct proctree t;
	struct err e;
	assert_int_equal(proctree_init(&t, "/proc", &e), 0);
	int go, park;
	pid_t child = spawn_threads(&go, &park);
	struct proctree_totals tot;
	assert_int_equal(proctree_add(&t, child, &e), 1);
	for (int i = 0; i < 200; i++) { /* until its threads are there */
		proctree_sample(&t, &tot);
		if (tot.threads == THREADS + 1)
			break;
		usleep(5000);
	}
	assert_int_equal(tot.threads, THREADS + 1);
	uint64_t vcsw0 = tot.vcsw, oncpu0 = tot.oncpu_ns;
	assert_int_equal(write(go, "xxx", THREADS), THREADS);
	usleep((SLEEPS * 1000 + SPIN_MS * 1000) * 3 + 200000);
	proctree_sample(&t, &tot);
	/* the main thread, blocked in pthread_join, switched once or twice */
	assert_true(tot.vcsw - vcsw0 >= THREADS * SLEEPS);
	assert_true(tot.oncpu_ns - oncpu0 >= THREADS * SPIN_MS * 1000000ull * 9 / 10);
	/* 4 threads alive all along: more alive time than on a CPU or waiting */
	assert_true(tot.alive_ns > tot.oncpu_ns + tot.runnable_ns);
	uint64_t vcsw1 = tot.vcsw, oncpu1 = tot.oncpu_ns;
	close(park); /* the threads exit; their counters stay */
	for (int i = 0; i < 200; i++) {
		proctree_sample(&t, &tot);
		if (tot.threads == 1)
			break;
		usleep(5000);
	}
	assert_int_equal(tot.threads, 1);
	assert_true(tot.vcsw >= vcsw1);
	assert_true(tot.oncpu_ns >= oncpu1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(go);
	proctree_release(&t);
}

/* ---- both sampler paths on one workload ---- */

enum { WORKERS = 4 };

struct worker {
	pid_t pid;
	int ctl, ack; /* parent's ends */
};

/* Each step: more anonymous memory, more shared memory, some I/O; then the
 * worker blocks on its pipe, so nothing it counts moves while it is read. */
static void worker_main(int ctl, int ack, int id)
{
	char b;
	int memfd = memfd_create("phtest", 0);
	for (int step = 1; read(ctl, &b, 1) == 1; step++) {
		size_t anon = (size_t)(step * (id + 1)) << 20;
		char *m = mmap(NULL, anon, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (size_t i = 0; i < anon; i += 4096)
			m[i] = 1;
		if (ftruncate(memfd, (off_t)step << 20) == 0) {
			char *sh = mmap(NULL, (size_t)step << 20, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
			for (size_t i = 0; sh != MAP_FAILED && i < ((size_t)step << 20); i += 4096)
				sh[i] = 1;
		}
		char io[4096] = { 0 };
		int devnull = open("/dev/null", O_WRONLY);
		for (int i = 0; i < step * 8; i++)
			if (write(devnull, io, sizeof(io)) < 0)
				break;
		close(devnull);
		if (write(ack, "k", 1) != 1)
			break;
	}
	_exit(0);
}

static void workers_start(struct worker *w)
{
	for (int i = 0; i < WORKERS; i++) {
		int c[2], a[2];
		assert_int_equal(pipe(c), 0);
		assert_int_equal(pipe(a), 0);
		w[i].pid = fork();
		assert_true(w[i].pid >= 0);
		if (w[i].pid == 0) {
			close(c[1]);
			close(a[0]);
			worker_main(c[0], a[1], i);
		}
		close(c[0]);
		close(a[1]);
		w[i].ctl = c[1];
		w[i].ack = a[0];
	}
}

/* The state letter of /proc/PID/stat. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY);
	ssize_t r = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (r <= 0)
		return '?';
	buf[r] = 0;
	char *q = strrchr(buf, ')');
	return q && q[1] ? q[2] : '?';
}

/* Until every worker is asleep (or a zombie: want 'Z'), and a little more. */
static void workers_settle(const struct worker *w, char want)
{
	for (int tries = 0; tries < 500; tries++) {
		int ok = 0;
		for (int i = 0; i < WORKERS; i++)
			ok += proc_state(w[i].pid) == want;
		if (ok == WORKERS)
			break;
		usleep(2000);
	}
	usleep(20000);
}

static void workers_step(const struct worker *w)
{
	for (int i = 0; i < WORKERS; i++)
		assert_int_equal(write(w[i].ctl, "s", 1), 1);
	for (int i = 0; i < WORKERS; i++) {
		char b;
		assert_int_equal(read(w[i].ack, &b, 1), 1);
	}
	workers_settle(w, 'S');
}

#define SAME(f) assert_true(a->f == b->f || (fprintf(stderr, "%s: %llu vs %llu\n", #f, \
		(unsigned long long)a->f, (unsigned long long)b->f), 0))

/* The columns read every sample by both paths: stat and the RSS / anon / shared totals. */
static void same_fast(const struct proctree_totals *a, const struct proctree_totals *b)
{
	SAME(procs); SAME(threads); SAME(utime_ticks); SAME(stime_ticks); SAME(minflt); SAME(majflt);
	SAME(rss_kb); SAME(anon_kb);
	assert_true(a->file_kb + a->shmem_kb == b->file_kb + b->shmem_kb);
	SAME(hwm_kb); /* a risen RSS has its status read at once */
}

static void same_all(const struct proctree_totals *a, const struct proctree_totals *b)
{
	same_fast(a, b);
	SAME(file_kb); SAME(shmem_kb); SAME(swap_kb); SAME(vcsw); SAME(ivcsw); SAME(rchar); SAME(wchar);
	SAME(hwm_pid);
}

static void test_tiered_matches_full(void **state)
{
	(void)state;
	struct worker w[WORKERS];
	workers_start(w);
	workers_step(w);
	struct proctree full, tiered;
	struct err e;
	assert_int_equal(proctree_init(&full, "/proc", &e), 0);
	assert_int_equal(proctree_init(&tiered, "/proc", &e), 0);
	full.tiered = false;
	tiered.slow_every = 4;
	for (int i = 0; i < WORKERS; i++) {
		assert_int_equal(proctree_add(&full, w[i].pid, &e), 1);
		assert_int_equal(proctree_add(&tiered, w[i].pid, &e), 1);
	}
	struct proctree_totals a, b;
	/* the first reading of a member reads every file */
	proctree_sample(&full, &a);
	proctree_sample(&tiered, &b);
	same_all(&a, &b);
	assert_int_equal(a.procs, WORKERS);
	assert_true(a.shmem_kb >= WORKERS * 1024);
	assert_true(a.wchar >= WORKERS * 8 * 4096);

	for (int step = 0; step < 2; step++) {
		workers_step(w);
		proctree_sample(&full, &a);
		proctree_sample(&tiered, &b);
		same_fast(&a, &b);
		/* within slow_every samples every member's status and io were read again */
		for (int k = 1; k < 4; k++) {
			proctree_sample(&full, &a);
			proctree_sample(&tiered, &b);
			same_fast(&a, &b);
		}
		same_all(&a, &b);
	}
	assert_true(tiered.rise_reads >= WORKERS); /* each step raised every worker's VmHWM */
	assert_true(tiered.slow_reads < full.slow_reads);
	if (tiered.schedstat) { /* blocked workers have not run: their stat is not re-read */
		assert_true(tiered.stat_skips > 0);
		assert_true(tiered.statm_skips > 0);
	}

	/* the last look reads everything: equal at once, whatever the cadence */
	workers_step(w);
	proctree_refresh_all(&tiered);
	proctree_sample(&full, &a);
	proctree_sample(&tiered, &b);
	same_all(&a, &b);

	/* exited members: both keep their final counters */
	for (int i = 0; i < WORKERS; i++) {
		close(w[i].ctl);
		close(w[i].ack);
	}
	workers_settle(w, 'Z');
	proctree_sample(&full, &a);
	proctree_sample(&tiered, &b);
	assert_int_equal(b.procs, 0);
	same_all(&a, &b);
	assert_true(proctree_was_member(&tiered, w[0].pid));
	proctree_sample(&tiered, &b);
	assert_false(proctree_was_member(&tiered, w[0].pid));
	for (int i = 0; i < WORKERS; i++)
		waitpid(w[i].pid, NULL, 0);
	proctree_release(&full);
	proctree_release(&tiered);
}

static void test_tree_missing_pid(void **state)
{
	(void)state;
	struct proctree t;
	struct err e;
	assert_int_equal(proctree_init(&t, "/proc", &e), 0);
	assert_int_equal(proctree_add(&t, 0x7ffffff0, &e), -1);
	assert_non_null(strstr(e.msg, "cannot open /proc/"));
	proctree_release(&t);
	assert_int_equal(proctree_init(&t, "/nonexistent-procfs", &e), -1);
}

static void test_cgroup_names(void **state)
{
	(void)state;
	pid_t pid;
	uint64_t start;
	bool has_start;
	assert_int_equal(cgroup_parse_name("perfhunt-4242-98765-3", &pid, &start, &has_start), 0);
	assert_int_equal(pid, 4242);
	assert_int_equal(start, 98765);
	assert_true(has_start);
	/* the name an older perfhunt gave: PID and sequence only */
	assert_int_equal(cgroup_parse_name("perfhunt-4242-0", &pid, &start, &has_start), 0);
	assert_int_equal(pid, 4242);
	assert_false(has_start);
	static const char *const not_ours[] = {
		"perfhunt-", "perfhunt-12", "perfhunt-12-", "perfhunt-12-3-", "perfhunt-1-2-3-4",
		"perfhunt-0-1", "perfhunt-x-1", "perfhunt-12-3x", "perfhunt-99999999999-1",
		"perfhunt--1-2", "system.slice", "xperfhunt-1-2",
	};
	for (size_t i = 0; i < sizeof(not_ours) / sizeof(not_ours[0]); i++)
		assert_int_equal(cgroup_parse_name(not_ours[i], &pid, &start, &has_start), -1);
}

/* Stale cgroups are told from live ones by their maker's PID and start time.
 * Plain directories stand in for the cgroup hierarchy (rmdir is the same
 * call; a file inside plays the processes that make rmdir refuse). */
static void test_cgroup_reap_stale(void **state)
{
	(void)state;
	char base[] = "/tmp/perfhunt-cgroup.XXXXXX";
	assert_non_null(mkdtemp(base));
	pid_t dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	uint64_t me_start;
	assert_int_equal(lookup_starttime(getpid(), &me_start), 0);
	char dir[1024];
	struct {
		char name[96];
		bool kept;
		bool busy;
	} c[] = {
		{ "", true, false },   /* ours (alive, right start time) */
		{ "", false, false },  /* our PID, another start time: PID reuse */
		{ "", false, false },  /* a dead PID */
		{ "", true, true },    /* a dead PID, but processes still in it */
		{ "", false, false },  /* an old-style name of a dead PID */
		{ "", true, false },   /* an old-style name of a live PID: may be its owner */
		{ "other-1-2", true, false },
	};
	snprintf(c[0].name, sizeof(c[0].name), "perfhunt-%d-%llu-0", (int)getpid(),
		 (unsigned long long)me_start);
	snprintf(c[1].name, sizeof(c[1].name), "perfhunt-%d-%llu-0", (int)getpid(),
		 (unsigned long long)me_start + 1);
	snprintf(c[2].name, sizeof(c[2].name), "perfhunt-%d-%llu-0", (int)dead, 5ULL);
	snprintf(c[3].name, sizeof(c[3].name), "perfhunt-%d-%llu-1", (int)dead, 5ULL);
	snprintf(c[4].name, sizeof(c[4].name), "perfhunt-%d-7", (int)dead);
	snprintf(c[5].name, sizeof(c[5].name), "perfhunt-%d-7", (int)getpid());
	size_t n = sizeof(c) / sizeof(c[0]);
	int want_removed = 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", base, c[i].name);
		assert_int_equal(mkdir(dir, 0755), 0);
		if (c[i].busy) {
			snprintf(dir, sizeof(dir), "%s/%s/cgroup.procs", base, c[i].name);
			FILE *f = fopen(dir, "w");
			assert_non_null(f);
			fclose(f);
		}
		want_removed += !c[i].kept;
	}
	assert_int_equal(cgroup_reap_stale(base), want_removed);
	for (size_t i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", base, c[i].name);
		struct stat st;
		if (c[i].kept)
			assert_int_equal(stat(dir, &st), 0);
		else
			assert_int_equal(stat(dir, &st), -1);
	}
	assert_int_equal(cgroup_reap_stale(base), 0);
	assert_int_equal(cgroup_reap_stale("/nonexistent/perfhunt"), 0);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_comm_with_parens),
		cmocka_unit_test(test_stat_blkio_ticks),
		cmocka_unit_test(test_cgroup_names),
		cmocka_unit_test(test_cgroup_reap_stale),
		cmocka_unit_test(test_stat_truncated),
		cmocka_unit_test(test_status_fixture),
		cmocka_unit_test(test_status_live),
		cmocka_unit_test(test_statm),
		cmocka_unit_test(test_schedstat),
		cmocka_unit_test(test_tree_every_thread),
		cmocka_unit_test(test_io_and_smaps),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_tree_real_processes),
		cmocka_unit_test(test_tree_missing_pid),
		cmocka_unit_test(test_tiered_matches_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
