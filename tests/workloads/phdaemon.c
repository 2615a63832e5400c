/* phdaemon: a small daemon and its client, the seed's scenario in miniature.
 *
 *   phdaemon serve SOCK LOG HOLD_MIB WORK_MIB [stamp] [log=tracing] [color]
 *                  [bad] [rotate=N] [pidfile=F]
 *     holds HOLD_MIB resident, serves requests on the UNIX socket SOCK; each
 *     request allocates and touches WORK_MIB (phase "alloc"), then proves for
 *     80 ms holding it (phase "prove") and frees it. It logs CUZK_TIMING lines
 *     to LOG: bare, with a leading RFC 3339 timestamp ("stamp"), or as Rust's
 *     tracing writes them ("log=tracing": timestamp, level, module path;
 *     "color" adds the ANSI colours it uses on a terminal). "bad" is the
 *     regressed build: its prove phase takes 60 ms longer and touches 16 MiB
 *     more. LOG is renamed to LOG.1 after N requests (rotation). Exits on SIGTERM.
 *   phdaemon request SOCK N [hang]
 *     the client: sends N requests one after another and waits for each reply;
 *     with "hang", then waits for a reply that never comes (a hung client).
 */
#include <errno.h>
#include <signal.h>
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

static int serve(int argc, char **argv)
{
	if (argc < 6)
		return 2;
	const char *sock = argv[2], *logpath = argv[3];
	long hold = atol(argv[4]), work = atol(argv[5]);
	int stamp = LOG_BARE, color = 0, bad = 0;
	long rotate = 0;
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
			"                      [rotate=N] [pidfile=F]\n"
			"       phdaemon request SOCK N [hang]\n");
	return 2;
}
