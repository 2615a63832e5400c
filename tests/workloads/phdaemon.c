/* phdaemon: a small daemon and its client, the seed's scenario in miniature.
 *
 *   phdaemon serve SOCK LOG HOLD_MIB WORK_MIB [stamp] [log=tracing] [color]
 *                  [bad] [rotate=N] [pidfile=F] [msm=MS] [lock]
 *     holds HOLD_MIB resident, serves requests on the UNIX socket SOCK; each
 *     request allocates and touches WORK_MIB (phase "alloc"), then proves for
 *     80 ms holding it (phase "prove") and frees it. With msm=MS, a pool of 4
 *     worker threads (phdaemon-w1 .. -w4, alive all along, as a prover's) then
 *     runs phase "msm": each worker 8 chunks of MS/64 ms spinning then MS/16 ms
 *     asleep (msm_chunk: mostly a wait for a device, so a loaded machine
 *     changes it little), holding one mutex across each chunk with "lock" (a
 *     bad build: the pool serializes, CPU unchanged); after it, a line
 *     "truth msm wall_ms=W oncpu_ms=C runnable_ms=R blocked_ms=B threads=5"
 *     from the daemon's own clocks (every thread's schedstat), and per request
 *     "truth request oncpu_ms=C runnable_ms=R" (the whole process's, from the
 *     request's first byte to its reply). It logs CUZK_TIMING lines
 *     to LOG: bare, with a leading RFC 3339 timestamp ("stamp"), or as Rust's
 *     tracing writes them ("log=tracing": timestamp, level, module path;
 *     "color" adds the ANSI colours it uses on a terminal). "bad" is the
 *     regressed build: its prove phase takes 60 ms longer and touches 16 MiB
 *     more. LOG is renamed to LOG.1 after N requests (rotation). Exits on SIGTERM.
 *   phdaemon request SOCK N [hang]
 *     the client: sends N requests one after another and waits for each reply;
 *     with "hang", then waits for a reply that never comes (a hung client).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static char *touch(long mib)
{
	size_t n = (size_t)mib << 20;
	char *p = mmap(NULL, n ? n : 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("phdaemon: mmap");
		exit(3);
	}
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	return p;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

enum { LOG_BARE, LOG_STAMP, LOG_TRACING };

/* The msm pool: 4 workers that start and end each phase together. */
enum { POOL = 4 };
static struct {
	pthread_barrier_t start, done;
	pthread_mutex_t lock;
	long chunk_ms;
	bool locked;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void spin_ms(double ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	double end = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 + ms;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 < end);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* One chunk of msm, not inlined so its stacks name it: compute, then a
 * wait for a device, under the mutex in a bad build. */
__attribute__((noinline)) static void msm_chunk(long ms, bool locked)
{
	if (locked)
		pthread_mutex_lock(&pool.lock);
	spin_ms((double)ms / 4);
	sleep_ms(ms);
	if (locked)
		pthread_mutex_unlock(&pool.lock);
}

static void *worker_main(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "phdaemon-w%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		pthread_barrier_wait(&pool.start);
		for (int i = 0; i < 8; i++)
			msm_chunk(pool.chunk_ms, pool.locked);
		pthread_barrier_wait(&pool.done);
	}
	return NULL;
}

/* Every thread's on-CPU and run-queue time so far (schedstat's first two
 * fields, summed over /proc/self/task), in ms; *threads: how many. */
static void tree_clocks(double *run_ms, double *wait_ms, int *threads)
{
	*run_ms = *wait_ms = 0;
	*threads = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[64], buf[128];
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/schedstat", e->d_name);
		int fd = open(path, O_RDONLY);
		ssize_t r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		unsigned long long run, wait;
		if (r <= 0)
			continue;
		buf[r] = 0;
		if (sscanf(buf, "%llu %llu", &run, &wait) == 2) {
			*run_ms += (double)run / 1e6;
			*wait_ms += (double)wait / 1e6;
			++*threads;
		}
	}
	closedir(d);
}

static void start_pool(long msm_ms, bool locked)
{
	pool.chunk_ms = msm_ms / 16;
	pool.locked = locked;
	pthread_barrier_init(&pool.start, NULL, POOL + 1);
	pthread_barrier_init(&pool.done, NULL, POOL + 1);
	for (long i = 1; i <= POOL; i++) {
		pthread_t t;
		pthread_create(&t, NULL, worker_main, (void *)i);
	}
}

static void log_line(FILE *f, int style, int color, const char *fmt, double a)
{
	if (style != LOG_BARE) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		struct tm tm;
		gmtime_r(&ts.tv_sec, &tm);
		char buf[40];
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
		if (style == LOG_STAMP)
			fprintf(f, "%s.%03ldZ ", buf, ts.tv_nsec / 1000000);
		else if (color) /* tracing_subscriber's default on a terminal */
			fprintf(f, "\033[2m%s.%06ldZ\033[0m \033[32m INFO\033[0m \033[2mcuzk_core::prover\033[0m\033[2m:\033[0m ",
				buf, ts.tv_nsec / 1000);
		else
			fprintf(f, "%s.%06ldZ  INFO cuzk_core::prover: ", buf, ts.tv_nsec / 1000);
	}
	fprintf(f, fmt, a);
	fputc('\n', f);
	fflush(f);
}

static int sock_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -1;
	strcpy(sa->sun_path, path);
	return 0;
}

/* The msm phase: the pool runs it, this thread waits; then its probe
 * line and its ground truth. */
static void msm(FILE *log, int style, int color)
{
	double run0, wait0, run1, wait1;
	int n0, n1;
	tree_clocks(&run0, &wait0, &n0);
	double t0 = now_ms();
	pthread_barrier_wait(&pool.start);
	pthread_barrier_wait(&pool.done);
	double wall = now_ms() - t0;
	tree_clocks(&run1, &wait1, &n1);
	log_line(log, style, color, "CUZK_TIMING: msm_ms=%.0f", wall);
	double oncpu = run1 - run0, runnable = wait1 - wait0, alive = wall * n1;
	fprintf(log, "truth msm wall_ms=%.1f oncpu_ms=%.1f runnable_ms=%.1f blocked_ms=%.1f threads=%d\n", wall, oncpu,
		runnable, alive > oncpu + runnable ? alive - oncpu - runnable : 0, n1);
	fflush(log);
}

static int serve(int argc, char **argv)
{
	if (argc < 6)
		return 2;
	const char *sock = argv[2], *logpath = argv[3];
	long hold = atol(argv[4]), work = atol(argv[5]);
	int stamp = LOG_BARE, color = 0, bad = 0;
	long rotate = 0, msm_ms = 0;
	bool locked = false;
	for (int i = 6; i < argc; i++) {
		if (!strcmp(argv[i], "stamp"))
			stamp = LOG_STAMP;
		else if (!strcmp(argv[i], "log=tracing"))
			stamp = LOG_TRACING;
		else if (!strcmp(argv[i], "color"))
			color = 1;
		else if (!strcmp(argv[i], "bad"))
			bad = 1;
		else if (!strncmp(argv[i], "rotate=", 7))
			rotate = atol(argv[i] + 7);
		else if (!strncmp(argv[i], "msm=", 4))
			msm_ms = atol(argv[i] + 4);
		else if (!strcmp(argv[i], "lock"))
			locked = true;
		else if (!strncmp(argv[i], "pidfile=", 8)) {
			FILE *p = fopen(argv[i] + 8, "w");
			if (p) {
				fprintf(p, "%d\n", (int)getpid());
				fclose(p);
			}
		}
	}
	touch(hold); /* the parameters a prover keeps resident */
	FILE *log = fopen(logpath, "a");
	struct sockaddr_un sa;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	unlink(sock);
	if (!log || s < 0 || sock_addr(sock, &sa) < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s, 4) < 0) {
		perror("phdaemon: serve");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (msm_ms > 0)
		start_pool(msm_ms, locked);
	long served = 0;
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		char b;
		while (read(c, &b, 1) == 1) {
			double cpu0, wait0, cpu1, wait1;
			int n;
			tree_clocks(&cpu0, &wait0, &n);
			double t0 = now_ms();
			char *w = touch(work); /* the proof's working set */
			double t1 = now_ms();
			log_line(log, stamp, color, "CUZK_TIMING: alloc_ms=%.0f", t1 - t0);
			/* the regression: a larger, slower prove */
			char *extra = bad ? touch(16) : NULL;
			struct timespec ts = { 0, (bad ? 140 : 80) * 1000000L };
			nanosleep(&ts, NULL);
			if (extra)
				munmap(extra, (size_t)16 << 20);
			munmap(w, (size_t)work << 20); /* the working set lives inside the phase */
			log_line(log, stamp, color, "CUZK_TIMING: gpu_tid=0 prove_ms=%.0f", now_ms() - t1);
			if (msm_ms > 0)
				msm(log, stamp, color);
			tree_clocks(&cpu1, &wait1, &n);
			fprintf(log, "truth request oncpu_ms=%.1f runnable_ms=%.1f\n", cpu1 - cpu0, wait1 - wait0);
			fflush(log);
			if (write(c, "k", 1) != 1)
				break;
			if (rotate && ++served == rotate) {
				char old[4096];
				snprintf(old, sizeof(old), "%s.1", logpath);
				rename(logpath, old);
				fclose(log);
				log = fopen(logpath, "a");
			}
		}
		close(c);
	}
}

static int request(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	struct sockaddr_un sa;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || sock_addr(argv[2], &sa) < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("phdaemon: connect");
		return 1;
	}
	long n = atol(argv[3]);
	for (long i = 0; i < n; i++) {
		char b;
		if (write(s, "r", 1) != 1 || read(s, &b, 1) != 1) {
			fprintf(stderr, "phdaemon: the daemon went away after %ld requests\n", i);
			return 1;
		}
	}
	printf("%ld requests served\n", n);
	fflush(stdout);
	if (argc > 4 && !strcmp(argv[4], "hang")) {
		char b;
		while (read(s, &b, 1) != 0) /* no request pending: no reply ever comes */
			;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return serve(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "request"))
		return request(argc, argv);
	fprintf(stderr, "usage: phdaemon serve SOCK LOG HOLD_MIB WORK_MIB [stamp] [log=tracing] [color] [bad]\n"
			"                      [rotate=N] [pidfile=F] [msm=MS] [lock]\n"
			"       phdaemon request SOCK N [hang]\n");
	return 2;
}
