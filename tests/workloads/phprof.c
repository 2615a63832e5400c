/* phprof: a CPU-bound workload for --profile, built -O2 without frame pointers.
 *
 * Two marked phases, each burning the CPU in its own function: alpha for
 * 2 x MS, beta for MS (default 300), so a profile must give each phase its own
 * function and a 2:1 ratio. With "spawn", a third phase runs a forked child
 * (child_work) and a thread (thread_work) at once, so a profile that follows
 * children and threads sees both. Only CPU time counts, so the loops check
 * the thread's CPU clock, not the wall clock.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static volatile double sink;

/* each with its own constant: identical bodies would be folded into one;
 * never cloned (gcc would name a clone hot_alpha.constprop.0) */
#ifdef __clang__
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noclone))
#endif
#define BURN(name, k)                                                \
	KEEP static void name(double ms)                              \
	{                                                            \
		double x = 1, end = cpu_ms() + ms;                   \
		while (cpu_ms() < end)                               \
			for (int i = 0; i < 20000; i++)              \
				x = x * 1.0000001 + (k);             \
		sink = x;                                            \
	}
BURN(hot_alpha, 0.5)
BURN(hot_beta, 0.25)
BURN(child_work, 0.125)
BURN(thread_work, 0.0625)

static void *thread_main(void *arg)
{
	thread_work(*(double *)arg);
	return NULL;
}

static void mark(const char *what)
{
	printf("PERFHUNT: %s\n", what);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	double ms = 300;
	int spawn = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "spawn"))
			spawn = 1;
		else
			ms = atof(argv[i]);
	}
	mark("begin=alpha");
	hot_alpha(2 * ms);
	mark("end=alpha");
	mark("begin=beta");
	hot_beta(ms);
	mark("end=beta");
	if (spawn) {
		mark("begin=spawn");
		pid_t pid = fork();
		if (pid == 0) {
			child_work(ms);
			_exit(0);
		}
		pthread_t t;
		pthread_create(&t, NULL, thread_main, &ms);
		pthread_join(t, NULL);
		waitpid(pid, NULL, 0);
		mark("end=spawn");
	}
	return 0;
}
