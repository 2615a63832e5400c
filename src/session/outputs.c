/* outputs: can each file a command will write be written? Asked before the
 * command starts, so a wrong path costs a second, not the run.
 *
 * A file written whole is replaced by rename from a temporary file beside
 * it (record/jsonio.c): its directory must take a new file. A stream is
 * opened in place: an existing one must open for writing. Devices and pipes
 * (/dev/stdout) are left to the write itself: opening a FIFO would block.
 */
#include "session/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "util/fsafe.h"
#include "util/xalloc.h"

/* Creates and removes a file in dir: the test that a file can be made there. */
static int try_create_in(const char *dir, const char *what, struct err *e)
{
	char *tmp = xasprintf("%s/.perfhunt-check.XXXXXX", dir);
	int fd = mkostemp(tmp, O_CLOEXEC);
	int saved = errno;
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	if (fd >= 0)
		return 0;
	struct stat st;
	if ((saved == ENOENT || saved == ENOTDIR) && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
		return err_set(e, "cannot write '%s': no directory '%s'", what, dir);
	return err_set(e, "cannot write '%s': cannot create a file in '%s': %s", what, dir, strerror(saved));
}

/* The directory a path's file lands in ("." for a bare name), into dir. */
static void dir_of(const char *path, char *dir, size_t n)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, n, ".");
	else if (slash == path)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

static int check_file(const char *path, bool in_place, struct err *e)
{
	if (!path || !strcmp(path, "-"))
		return 0;
	if (!*path)
		return err_set(e, "cannot write '': empty file name");
	if (fsafe_check_output(path, e) < 0)
		return -1;
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return err_set(e, "cannot write '%s': it is a directory", path);
		if (!S_ISREG(st.st_mode))
			return 0;
		if (in_place) {
			int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd < 0)
				return err_sys(e, "cannot write '%s'", path);
			close(fd);
			return 0;
		}
	} else if (errno != ENOENT) {
		return err_sys(e, "cannot write '%s'", path);
	}
	char dir[PATH_MAX];
	dir_of(path, dir, sizeof(dir));
	return try_create_in(dir, path, e);
}

/* The history store_open would write: its file opens read-write, or the
 * nearest directory that exists above it (store_open makes the rest) takes
 * a new file. */
static int check_history(struct err *e)
{
	char path[PATH_MAX];
	if (store_default_path(NULL, path, sizeof(path), e) < 0)
		return -1;
	if (store_is_url(path) || !strcmp(path, ":memory:"))
		return 0;
	if (store_check_location(path, e) < 0)
		return -1;
	struct stat st;
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return 0;
		int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return err_sys(e, "the history (--no-save records without it): cannot write '%s'", path);
		close(fd);
		return 0;
	}
	char dir[PATH_MAX], below[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	do {
		memcpy(below, dir, sizeof(dir));
		dir_of(below, dir, sizeof(dir));
	} while (stat(dir, &st) != 0 && errno == ENOENT && strcmp(dir, ".") && strcmp(dir, "/"));
	if (try_create_in(dir, path, e) < 0)
		return err_wrap(e, "the history (--no-save records without it)");
	return 0;
}

int session_check_outputs(const struct session_outputs *o, struct err *e)
{
	for (size_t i = 0; i < o->nfiles; i++)
		if (check_file(o->files[i], false, e) < 0)
			return -1;
	if (check_file(o->stream, true, e) < 0)
		return -1;
	return o->history ? check_history(e) : 0;
}
