/* phwork: a scriptable workload for perfhunt's tests, demo and benchmarks.
 *
 * Each argument is one step, run in order:
 *   alloc:MIB        allocate MIB MiB and touch every page (pushed on a stack)
 *   populate:MIB     allocate MIB MiB with MAP_POPULATE: the kernel faults every
 *                    page in inside mmap (minflt, but no perf page-faults events)
 *   free             free the most recent allocation
 *   sleep:MS         sleep
 *   spin:MS          burn CPU
 *   out:TEXT         print TEXT and a newline on stdout (flushed); err:TEXT on stderr
 *   fd:TEXT          write TEXT and a newline to the fd named by $PERFHUNT_FD
 *   begin:NAME, end:NAME   ph_begin/ph_end of <perfhunt/probe.h>: on $PERFHUNT_FD,
 *                    waiting for perfhunt's sample where $PERFHUNT_ACK_FD is given
 *   children:N:MIB:MS   fork N children, each allocates MIB and holds it MS; wait for them
 *   grandchild:MIB:MS   fork a child that forks a grandchild holding MIB for MS; wait
 *   daemon:MIB:MS    double-fork an orphan that holds MIB for MS (parent does not wait)
 *   vmshare:MS       clone a process that shares our memory (CLONE_VM, as a vfork child
 *                    before its exec or LeakSanitizer's tracer), sleeping MS; wait for it
 *   threads:N:MS     start N threads that sleep MS; join them
 *   churn:N          fork and reap N short-lived children, one after another
 *   write:MIB        write MIB MiB to /dev/null
 *   exit:CODE        exit now with CODE
 *   raise:SIG        raise signal number SIG
 *   ignore-term      ignore SIGTERM from now on
 *   pidfile:PATH     write our PID to PATH
 * Sizes are small on purpose: a first-touch page fault costs ~11 µs here.
 */
#include <perfhunt/probe.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *stack[64];
static size_t stack_len[64];
static int depth;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static char *touch_alloc(long mib)
{
	size_t n = (size_t)mib << 20;
	if (n == 0)
		return NULL; /* children:N:0:MS: processes that hold nothing */
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("phwork: mmap");
		exit(3);
	}
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	return p;
}

static void hold(long mib, long ms)
{
	char *p = touch_alloc(mib);
	sleep_ms(ms);
	if (p)
		munmap(p, (size_t)mib << 20);
}

/* A CLONE_VM child: only a system call on its own small stack, no library
 * state it would share with us. */
__attribute__((no_sanitize("address"))) static int vm_child(void *arg)
{
	long ms = (long)(intptr_t)arg;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (syscall(SYS_nanosleep, &ts, &ts) != 0)
		;
	return 0;
}

static void *thread_main(void *arg)
{
	sleep_ms((long)(intptr_t)arg);
	return NULL;
}

static unsigned long spin(long ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	volatile unsigned long x = 0;
	for (;;) {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
		if ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 >= ms)
			break;
	}
	return x;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *s = argv[i];
		long a = 0, b = 0, c = 0;
		if (sscanf(s, "alloc:%ld", &a) == 1) {
			if (depth < 64) {
				stack_len[depth] = (size_t)a << 20;
				stack[depth++] = touch_alloc(a);
			}
		} else if (sscanf(s, "populate:%ld", &a) == 1) {
			size_t n = (size_t)a << 20;
			char *p = n ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0) : NULL;
			if (p == MAP_FAILED) {
				perror("phwork: mmap");
				exit(3);
			}
			if (depth < 64) {
				stack_len[depth] = n;
				stack[depth++] = p;
			}
		} else if (!strcmp(s, "free")) {
			if (depth > 0) {
				depth--;
				munmap(stack[depth], stack_len[depth]);
			}
		} else if (sscanf(s, "sleep:%ld", &a) == 1) {
			sleep_ms(a);
		} else if (sscanf(s, "spin:%ld", &a) == 1) {
			if (spin(a) == 1)
				puts(""); /* keeps the loop from being optimised away */
		} else if (!strncmp(s, "out:", 4)) {
			printf("%s\n", s + 4);
			fflush(stdout);
		} else if (!strncmp(s, "err:", 4)) {
			fprintf(stderr, "%s\n", s + 4);
		} else if (!strncmp(s, "begin:", 6)) {
			ph_begin(s + 6);
		} else if (!strncmp(s, "end:", 4)) {
			ph_end(s + 4);
		} else if (!strncmp(s, "fd:", 3)) {
			const char *fd = getenv("PERFHUNT_FD");
			if (fd)
				dprintf(atoi(fd), "%s\n", s + 3);
		} else if (sscanf(s, "children:%ld:%ld:%ld", &a, &b, &c) == 3) {
			for (long k = 0; k < a; k++)
				if (fork() == 0) {
					hold(b, c);
					_exit(0);
				}
			while (wait(NULL) > 0)
				;
		} else if (sscanf(s, "grandchild:%ld:%ld", &a, &b) == 2) {
			if (fork() == 0) {
				if (fork() == 0) {
					hold(a, b);
					_exit(0);
				}
				wait(NULL);
				_exit(0);
			}
			wait(NULL);
		} else if (sscanf(s, "daemon:%ld:%ld", &a, &b) == 2) {
			if (fork() == 0) {
				setsid();
				if (fork() == 0) {
					hold(a, b);
					_exit(0);
				}
				_exit(0);
			}
			wait(NULL);
		} else if (sscanf(s, "vmshare:%ld", &a) == 1) {
			size_t n = 64 << 10;
			char *st = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (st == MAP_FAILED || clone(vm_child, st + n, CLONE_VM | SIGCHLD, (void *)(intptr_t)a) < 0) {
				perror("phwork: clone");
				exit(3);
			}
			wait(NULL);
			munmap(st, n);
		} else if (sscanf(s, "threads:%ld:%ld", &a, &b) == 2) {
			pthread_t *t = calloc((size_t)a, sizeof(*t));
			long started = 0;
			for (; started < a; started++)
				if (pthread_create(&t[started], NULL, thread_main, (void *)(intptr_t)b))
					break;
			for (long k = 0; k < started; k++)
				pthread_join(t[k], NULL);
			free(t);
		} else if (sscanf(s, "churn:%ld", &a) == 1) {
			for (long k = 0; k < a; k++) {
				pid_t p = fork();
				if (p == 0)
					_exit(0);
				if (p > 0)
					waitpid(p, NULL, 0);
			}
		} else if (sscanf(s, "write:%ld", &a) == 1) {
			static char buf[1 << 16];
			FILE *f = fopen("/dev/null", "w");
			for (long k = 0; f && k < a * 16; k++)
				fwrite(buf, 1, sizeof buf, f);
			if (f)
				fclose(f);
		} else if (sscanf(s, "exit:%ld", &a) == 1) {
			exit((int)a);
		} else if (sscanf(s, "raise:%ld", &a) == 1) {
			signal((int)a, SIG_DFL);
			raise((int)a);
		} else if (!strcmp(s, "ignore-term")) {
			signal(SIGTERM, SIG_IGN);
		} else if (!strncmp(s, "pidfile:", 8)) {
			FILE *f = fopen(s + 8, "w");
			if (f) {
				fprintf(f, "%d\n", (int)getpid());
				fclose(f);
			}
		} else {
			fprintf(stderr, "phwork: unknown step '%s'\n", s);
			return 2;
		}
	}
	return 0;
}
