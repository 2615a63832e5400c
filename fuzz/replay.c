/* replay: runs a fuzz target's LLVMFuzzerTestOneInput over every file of its corpus.
 *
 * Built with the normal compiler for each target, so `make check` replays the
 * seeds and every committed regression case without clang or libFuzzer (as
 * SQLite's fuzzcheck does). Arguments are files or directories; a crash or
 * sanitizer report fails the test, an unreadable corpus fails it too, and so
 * does an input that runs past REPLAY_LIMIT_S seconds (a hang, named, as
 * libFuzzer's -timeout names it).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

enum { REPLAY_LIMIT_S = 10 }; /* -timeout=10 in fuzz/run.sh */

static const char *replay_current; /* the input being run, for the alarm */

static void replay_alarm(int sig)
{
	(void)sig;
	static const char a[] = "replay: '", b[] = "' ran past the time limit (a hang)\n";
	if (write(STDERR_FILENO, a, sizeof(a) - 1) < 0 ||
	    write(STDERR_FILENO, replay_current, strlen(replay_current)) < 0 ||
	    write(STDERR_FILENO, b, sizeof(b) - 1) < 0)
		_exit(1);
	_exit(1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	int rc = buf && !ferror(f) ? 0 : -1;
	fclose(f);
	if (rc == 0) {
		/* An exact-size copy, so reading one byte too far is caught by ASan. */
		uint8_t *exact = malloc(n ? n : 1);
		memcpy(exact, buf, n);
		replay_current = path;
		alarm(REPLAY_LIMIT_S);
		LLVMFuzzerTestOneInput(exact, n);
		alarm(0);
		free(exact);
	} else {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
	}
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	size_t files = 0;
	int status = 0;
	signal(SIGALRM, replay_alarm);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: cannot read '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			status |= replay_file(argv[i]) < 0;
			files++;
			continue;
		}
		struct dirent **names;
		int n = scandir(argv[i], &names, NULL, alphasort);
		if (n < 0) {
			fprintf(stderr, "replay: cannot list '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
			if (names[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				status |= replay_file(path) < 0;
				files++;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("replayed %zu inputs\n", files);
	if (!files) {
		fprintf(stderr, "replay: no inputs (an empty corpus replays nothing)\n");
		return 1;
	}
	return status;
}
