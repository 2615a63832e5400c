/* phpin: the story's pin regression in miniature, with its own ground truth.
 *
 * One "proof" runs four phases: synth, pin, spin and sys. The good build
 * touches the buffer in synth, so pinning it (mlock) in pin takes no fault;
 * the bad build (--bad) pins untouched memory, and every page faults inside
 * pin, in the kernel on the task's behalf. spin burns user CPU, sys burns
 * kernel CPU (reads from /dev/zero). Each phase is announced as markers
 * (begin=/end=: on $PERFHUNT_FD through <perfhunt/probe.h>, which waits for
 * perfhunt's sample where $PERFHUNT_ACK_FD is given, or printed on stdout)
 * or as a duration probe at its end (--probes duration), and the workload
 * prints what it measured of itself around each phase (getrusage) as "TRUTH
 * name=... user_ms=... sys_ms=... minflt=..." on stderr, so tests and
 * benchmarks compare perfhunt's attribution with the figures the kernel gave
 * the process. Each phase's work follows its begin marker at once, as in a
 * real program; --settle-ms N waits N ms after it instead.
 *
 *   phpin [--bad] [--mib N] [--spin-ms N] [--sys-ms N] [--gap-ms N] [--settle-ms N]
 *         [--probes marker|duration] [--proofs N] [--log FILE] [--fifo PATH]
 *
 * --log FILE: the probes go to FILE as a Rust env_logger would write them
 * (timestamp, level, module path, ANSI colour) instead of stdout. --fifo
 * PATH: a daemon: it creates PATH, writes its PID to PATH.pid, and runs one
 * proof for each line a client writes, answering "done" on PATH.done.
 */
#include <perfhunt/probe.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct {
	int bad, duration, proofs;
	long mib, spin_ms, sys_ms, gap_ms, settle_ms;
	const char *log, *fifo;
} opt = { .proofs = 1, .mib = 64, .spin_ms = 200, .sys_ms = 200, .gap_ms = 30,
	.settle_ms = 0 };

static FILE *log_f;
static int probe_fd = -1;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* One probe line: to the log in env_logger's coloured format, to
 * $PERFHUNT_FD, or to stdout. */
static void probe(const char *fmt, ...)
{
	char body[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (log_f) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		struct tm tm;
		gmtime_r(&ts.tv_sec, &tm);
		char stamp[64];
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(log_f, "\033[2m%s.%06ldZ\033[0m \033[32m INFO\033[0m \033[2mcuzk_core::prover\033[0m: "
			       "CUZK_TIMING: %s\n", stamp, ts.tv_nsec / 1000, body);
		fflush(log_f);
	} else if (probe_fd >= 0 && !opt.duration) {
		char line[300];
		int n = snprintf(line, sizeof(line), "PERFHUNT: %s\n", body);
		if (write(probe_fd, line, (size_t)n) < 0)
			exit(4);
	} else {
		printf("PERFHUNT: %s\n", body);
		fflush(stdout);
	}
}

struct mark {
	const char *name;
	double t0_ms;
	struct rusage ru;
};

static double tv_ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

static void begin(struct mark *m, const char *name)
{
	m->name = name;
	if (!opt.duration) {
		if (probe_fd >= 0 && !log_f)
			ph_begin(name);
		else
			probe("begin=%s", name);
		if (opt.settle_ms)
			sleep_ms(opt.settle_ms);
	}
	m->t0_ms = now_ms();
	getrusage(RUSAGE_SELF, &m->ru);
}

static void end(struct mark *m)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double ms = now_ms() - m->t0_ms;
	fprintf(stderr, "TRUTH name=%s ms=%.3f user_ms=%.3f sys_ms=%.3f minflt=%ld majflt=%ld\n", m->name, ms,
		tv_ms(ru.ru_utime) - tv_ms(m->ru.ru_utime), tv_ms(ru.ru_stime) - tv_ms(m->ru.ru_stime),
		ru.ru_minflt - m->ru.ru_minflt, ru.ru_majflt - m->ru.ru_majflt);
	if (opt.duration)
		probe("%s_ms=%.3f", m->name, ms);
	else if (probe_fd >= 0 && !log_f)
		ph_end(m->name);
	else
		probe("end=%s", m->name);
}

static volatile unsigned long spun; /* the loop's result, so it is not optimised away */

static void spin(long ms)
{
	unsigned long x = 0;
	struct rusage ru0, ru;
	getrusage(RUSAGE_SELF, &ru0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		getrusage(RUSAGE_SELF, &ru);
		spun = x;
	} while (tv_ms(ru.ru_utime) - tv_ms(ru0.ru_utime) < (double)ms);
}

/* Kernel time: the kernel clears the buffer on every read of /dev/zero. */
static void burn_sys(long ms)
{
	static char buf[1 << 16];
	int fd = open("/dev/zero", O_RDONLY);
	struct rusage ru0, ru;
	getrusage(RUSAGE_SELF, &ru0);
	do {
		for (int i = 0; i < 64; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				exit(5);
		getrusage(RUSAGE_SELF, &ru);
	} while (tv_ms(ru.ru_stime) - tv_ms(ru0.ru_stime) < (double)ms);
	close(fd);
}

/* Pins the buffer: mlock, or (without the privilege) the kernel's own
 * population of the range, which faults in the same way. */
static void pin(char *p, size_t n)
{
	/* the system calls themselves: a sanitizer build intercepts mlock() as a no-op */
	if (syscall(SYS_mlock, p, n) == 0) {
		syscall(SYS_munlock, p, n);
		return;
	}
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, n, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	for (size_t i = 0; i < n; i += 4096) /* last resort: the faults are the process's own */
		p[i] = 1;
}

static void proof(void)
{
	size_t n = (size_t)opt.mib << 20;
	char *buf = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("phpin: mmap");
		exit(3);
	}
	struct mark m;
	begin(&m, "synth");
	if (!opt.bad)
		for (size_t i = 0; i < n; i += 4096)
			buf[i] = 1;
	sleep_ms(opt.gap_ms);
	end(&m);
	sleep_ms(opt.gap_ms);
	begin(&m, "pin");
	pin(buf, n);
	sleep_ms(opt.gap_ms);
	end(&m);
	sleep_ms(opt.gap_ms);
	begin(&m, "spin");
	spin(opt.spin_ms);
	end(&m);
	sleep_ms(opt.gap_ms);
	begin(&m, "sys");
	burn_sys(opt.sys_ms);
	end(&m);
	munmap(buf, n);
}

static void serve(void)
{
	char path[4096];
	unlink(opt.fifo);
	if (mkfifo(opt.fifo, 0600) < 0) {
		perror("phpin: mkfifo");
		exit(2);
	}
	snprintf(path, sizeof(path), "%s.pid", opt.fifo);
	FILE *f = fopen(path, "w");
	if (!f)
		exit(2);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	for (;;) {
		FILE *in = fopen(opt.fifo, "r"); /* blocks until a client opens it */
		if (!in)
			exit(2);
		char line[64];
		while (fgets(line, sizeof(line), in)) {
			if (!strncmp(line, "quit", 4))
				exit(0);
			proof();
			snprintf(path, sizeof(path), "%s.done", opt.fifo);
			FILE *d = fopen(path, "a");
			if (d) {
				fputs("done\n", d);
				fclose(d);
			}
		}
		fclose(in);
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--bad"))
			opt.bad = 1;
		else if (!strcmp(a, "--mib") && v)
			opt.mib = atol(argv[++i]);
		else if (!strcmp(a, "--spin-ms") && v)
			opt.spin_ms = atol(argv[++i]);
		else if (!strcmp(a, "--sys-ms") && v)
			opt.sys_ms = atol(argv[++i]);
		else if (!strcmp(a, "--settle-ms") && v)
			opt.settle_ms = atol(argv[++i]);
		else if (!strcmp(a, "--gap-ms") && v)
			opt.gap_ms = atol(argv[++i]);
		else if (!strcmp(a, "--proofs") && v)
			opt.proofs = atoi(argv[++i]);
		else if (!strcmp(a, "--probes") && v)
			opt.duration = !strcmp(argv[++i], "duration");
		else if (!strcmp(a, "--log") && v)
			opt.log = argv[++i];
		else if (!strcmp(a, "--fifo") && v)
			opt.fifo = argv[++i];
		else {
			fprintf(stderr, "phpin: bad argument '%s'\n", a);
			return 2;
		}
	}
	const char *fd = getenv("PERFHUNT_FD");
	if (fd && !opt.log)
		probe_fd = atoi(fd);
	if (opt.log && !(log_f = fopen(opt.log, "a"))) {
		perror("phpin: log");
		return 2;
	}
	if (opt.fifo) {
		serve();
		return 0;
	}
	for (int i = 0; i < opt.proofs; i++)
		proof();
	return 0;
}
