/* phthreads: a 4-thread program whose phases each spend their thread time
 * one known way, for the thread-state tests.
 *
 * The main thread and three pool threads (alive for the whole run, as a real
 * prover's pool, named phthreads-w1 .. phthreads-w3) run each phase between barriers; the main thread marks it
 * (begin=NAME / end=NAME through <perfhunt/probe.h>, waiting for perfhunt's
 * sample; on stdout without $PERFHUNT_FD) once every thread has read its
 * clocks (ready) and after every thread read them again (done). Each step:
 *   sleeps:N:MS   N sleeps of MS ms spread over the 4 threads (N voluntary switches at least)
 *   lock:MS       each thread spins MS ms holding one mutex: they serialize (parallelism ~1)
 *   work:MS:LOCK  each thread spins MS ms, holding the mutex if LOCK is 1: one phase
 *                 name for a good build (0: in parallel) and a bad one (1: serialized)
 *   msm:MS:LOCK   each thread runs 8 chunks of MS/16 ms spinning then MS/16 ms asleep
 *                 (compute, then a wait for a device: msm_chunk), holding the mutex across
 *                 each chunk if LOCK is 1 (a bad build: the pool serializes, CPU unchanged)
 *   devwait:MS:LOCK  the same with MS/64 ms spinning a chunk: mostly the device wait, so
 *                 other work on a loaded machine changes the good build's time little
 *   relay:N:US    a token passed N times round the pool through pipes, each thread
 *                 spinning US us before it passes it on: a blocking switch per hand-off
 *                 (a server's request relay; 10 000 switches/s at US ~ 80 here)
 *   pipe:MS       every thread blocks reading a pipe a child writes after MS ms
 *   starve:MS:EXTRA  every thread and EXTRA more spin MS ms: more runnable threads than cores
 *   churn:N       N children forked and reaped one after another
 * After each phase it prints its ground truth on stderr, from each thread's
 * own clocks read at the barriers (CLOCK_THREAD_CPUTIME_ID, thread-self
 * schedstat's run-queue wait):
 *   truth NAME wall_ms=W oncpu_ms=C runnable_ms=R blocked_ms=B threads=T lock_wait_ms=L
 * where L is the wall time the threads spent in pthread_mutex_lock (msm,
 * devwait: the mutex's wait, and the wait for a CPU once it was theirs).
 */
#include <perfhunt/probe.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { POOL = 4, MAX_THREADS = 16 };

struct step {
	char kind[16];
	long a, b;
};

static struct step step;
static pthread_barrier_t ready_bar, start_bar, done_bar;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipe_fd[2];
static int ring[POOL][2];              /* relay: thread i reads ring[i], writes ring[i + 1] */
static int nthreads = POOL;            /* threads in the current phase */
/* each thread's clocks at the start and the end of its share, by round
 * parity: a thread starts round k + 1 while the main thread sums round k */
static double c0[2][MAX_THREADS], c1[2][MAX_THREADS], w0[2][MAX_THREADS], w1[2][MAX_THREADS];
static double lockw[2][MAX_THREADS]; /* each thread's wall time in pthread_mutex_lock, by round parity */
static _Thread_local double my_lock_wait;
static volatile int quit;

static double now_ms(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The calling thread's run-queue wait so far (schedstat's second field). */
static double wait_so_far_ms(void)
{
	char buf[128];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = 0;
	unsigned long long run, wait;
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (double)wait / 1e6 : 0;
}

static void spin_ms(double ms)
{
	double end = now_ms(CLOCK_THREAD_CPUTIME_ID) + ms;
	while (now_ms(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* One chunk of the msm step's work, not inlined so its stacks name it:
 * compute, then a wait for a device, under the mutex in a bad build. */
__attribute__((noinline)) static void msm_chunk(double spin, long ms, bool locked)
{
	if (locked) {
		double t = now_ms(CLOCK_MONOTONIC);
		pthread_mutex_lock(&lock);
		my_lock_wait += now_ms(CLOCK_MONOTONIC) - t;
	}
	spin_ms(spin);
	sleep_ms(ms);
	if (locked)
		pthread_mutex_unlock(&lock);
}

/* The relay step: token values past N stop the pool, each thread seeing
 * one of N .. N + POOL - 1 and passing it on unless it is the last. */
static void relay(int id)
{
	long n = step.a, t = 0;
	if (id == 0 && write(ring[1][1], &t, sizeof(t)) != sizeof(t))
		return;
	for (;;) {
		if (read(ring[id][0], &t, sizeof(t)) != sizeof(t))
			return;
		if (t < n)
			spin_ms((double)step.b / 1000);
		long next = t + 1;
		if (t >= n + POOL - 1)
			return;
		if (write(ring[(id + 1) % POOL][1], &next, sizeof(next)) != sizeof(next) || t >= n)
			return;
	}
}

/* One thread's share of the current step. */
static void work(int id)
{
	if (!strcmp(step.kind, "sleeps")) {
		for (long i = id; i < step.a; i += POOL)
			sleep_ms(step.b);
	} else if (!strcmp(step.kind, "lock") || (!strcmp(step.kind, "work") && step.b)) {
		pthread_mutex_lock(&lock);
		spin_ms((double)step.a);
		pthread_mutex_unlock(&lock);
	} else if (!strcmp(step.kind, "work")) {
		spin_ms((double)step.a);
	} else if (!strcmp(step.kind, "msm") || !strcmp(step.kind, "devwait")) {
		double spin = (double)(step.a / 16) / (strcmp(step.kind, "msm") ? 4 : 1);
		for (int i = 0; i < 8; i++) /* chunks: the pool ends together, locked or not */
			msm_chunk(spin, step.a / 16, step.b != 0);
	} else if (!strcmp(step.kind, "relay")) {
		relay(id);
	} else if (!strcmp(step.kind, "pipe")) {
		char c;
		if (read(pipe_fd[0], &c, 1) != 1)
			perror("phthreads: read");
	} else if (!strcmp(step.kind, "starve")) {
		spin_ms((double)step.a);
	}
}

/* Thread id's clocks before (start) and after its share of round k. */
static void clocks(int id, unsigned k, bool start)
{
	double c = now_ms(CLOCK_THREAD_CPUTIME_ID), w = wait_so_far_ms();
	(start ? c0 : c1)[k & 1][id] = c;
	(start ? w0 : w1)[k & 1][id] = w;
	if (start)
		my_lock_wait = 0;
	else
		lockw[k & 1][id] = my_lock_wait;
}

static void *pool_main(void *arg)
{
	int id = (int)(long)arg;
	char name[16]; /* a pool's names, as a real one's: phthreads-w1 .. -w3 */
	snprintf(name, sizeof(name), "phthreads-w%d", id);
	pthread_setname_np(pthread_self(), name);
	for (unsigned k = 0;; k++) {
		clocks(id, k, true);
		pthread_barrier_wait(&ready_bar);
		pthread_barrier_wait(&start_bar);
		if (quit)
			return NULL;
		work(id);
		clocks(id, k, false);
		pthread_barrier_wait(&done_bar);
	}
}

/* Extra spinners of a starved phase: started and joined inside it. */
static unsigned round_no; /* the main thread's count of rounds */

/* a new thread's clocks start at 0: its wait for a first CPU is the phase's */
static double born_ms[MAX_THREADS], died_ms[MAX_THREADS];

static void *extra_main(void *arg)
{
	int id = (int)(long)arg;
	c0[round_no & 1][id] = w0[round_no & 1][id] = 0;
	work(id);
	clocks(id, round_no, false);
	died_ms[id] = now_ms(CLOCK_MONOTONIC);
	return NULL;
}

static void marker(const char *what, const char *name)
{
	if (ph__fd >= 0) {
		if (!strcmp(what, "begin"))
			ph_begin(name);
		else
			ph_end(name);
		return;
	}
	printf("PERFHUNT: %s=%s\n", what, name);
	fflush(stdout);
}

static void run_step(void)
{
	if (!strcmp(step.kind, "churn")) {
		pthread_barrier_wait(&ready_bar); /* the pool waits at the start */
		marker("begin", "churn");
		for (long i = 0; i < step.a; i++) {
			pid_t pid = fork();
			if (pid == 0)
				_exit(0);
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
		marker("end", "churn");
		pthread_barrier_wait(&start_bar);
		pthread_barrier_wait(&done_bar);
		round_no++;
		return;
	}
	int extra = !strcmp(step.kind, "starve") ? (int)step.b : 0;
	if (extra > MAX_THREADS - POOL)
		extra = MAX_THREADS - POOL;
	pthread_t ex[MAX_THREADS];
	pid_t child = -1;
	pthread_barrier_wait(&ready_bar);
	clocks(0, round_no, true);
	double t0 = now_ms(CLOCK_MONOTONIC);
	marker("begin", step.kind);
	/* the writer's own clocks, from its fork (a new task's start at 0) to its exit */
	double forked = 0, *writer = NULL;
	if (!strcmp(step.kind, "pipe")) {
		writer = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (writer == MAP_FAILED)
			exit(1);
		forked = now_ms(CLOCK_MONOTONIC);
		child = fork();
		if (child == 0) {
			sleep_ms(step.a);
			if (write(pipe_fd[1], "xxxx", POOL) != POOL)
				_exit(1);
			writer[0] = now_ms(CLOCK_THREAD_CPUTIME_ID);
			writer[1] = wait_so_far_ms();
			writer[2] = now_ms(CLOCK_MONOTONIC);
			_exit(0);
		}
	}
	for (int i = 0; i < extra; i++) {
		born_ms[POOL + i] = now_ms(CLOCK_MONOTONIC);
		pthread_create(&ex[i], NULL, extra_main, (void *)(long)(POOL + i));
	}
	pthread_barrier_wait(&start_bar);
	work(0);
	pthread_barrier_wait(&done_bar);
	for (int i = 0; i < extra; i++)
		pthread_join(ex[i], NULL);
	if (child > 0)
		waitpid(child, NULL, 0);
	clocks(0, round_no, false);
	marker("end", step.kind);
	double wall = now_ms(CLOCK_MONOTONIC) - t0;
	nthreads = POOL + extra;
	double c = 0, w = 0, lw = 0;
	for (int i = 0; i < nthreads; i++) {
		lw += lockw[round_no & 1][i];
		c += c1[round_no & 1][i] - c0[round_no & 1][i];
		w += w1[round_no & 1][i] - w0[round_no & 1][i];
	}
	round_no++;
	/* the pool is alive all phase, extra spinners and the writer their own lives */
	double alive = wall * POOL;
	for (int i = POOL; i < nthreads; i++)
		alive += died_ms[i] - born_ms[i];
	if (writer) {
		c += writer[0];
		w += writer[1];
		alive += writer[2] - forked;
		munmap(writer, 4096);
	}
	fprintf(stderr, "truth %s wall_ms=%.1f oncpu_ms=%.1f runnable_ms=%.1f blocked_ms=%.1f threads=%d lock_wait_ms=%.1f\n",
		step.kind, wall, c, w, alive > c + w ? alive - c - w : 0, nthreads, lw);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: phthreads STEP...  (sleeps:N:MS lock:MS work:MS:LOCK msm:MS:LOCK devwait:MS:LOCK relay:N:US pipe:MS "
				"starve:MS:EXTRA churn:N)\n");
		return 2;
	}
	if (pipe(pipe_fd) < 0)
		return 1;
	for (int i = 0; i < POOL; i++)
		if (pipe(ring[i]) < 0)
			return 1;
	pthread_barrier_init(&ready_bar, NULL, POOL);
	pthread_barrier_init(&start_bar, NULL, POOL);
	pthread_barrier_init(&done_bar, NULL, POOL);
	pthread_t pool[POOL];
	for (int i = 1; i < POOL; i++)
		pthread_create(&pool[i], NULL, pool_main, (void *)(long)i);
	for (int i = 1; i < argc; i++) {
		memset(&step, 0, sizeof(step));
		char *colon = strchr(argv[i], ':');
		size_t n = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
		if (n >= sizeof(step.kind))
			n = sizeof(step.kind) - 1;
		memcpy(step.kind, argv[i], n);
		if (colon) {
			char *end;
			step.a = strtol(colon + 1, &end, 10);
			if (*end == ':')
				step.b = strtol(end + 1, NULL, 10);
		}
		run_step();
	}
	quit = 1;
	pthread_barrier_wait(&ready_bar);
	pthread_barrier_wait(&start_bar);
	for (int i = 1; i < POOL; i++)
		pthread_join(pool[i], NULL);
	return 0;
}
