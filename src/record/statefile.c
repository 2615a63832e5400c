/* statefile: private state directory, O_EXCL state files, liveness by PID + start time. */
#include "record/statefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/lookup.h"
#include "record/jsonio.h"
#include "util/clock.h"
#include "util/fsafe.h"
#include "util/xalloc.h"

int statefile_dir(char *out, size_t n, struct err *e)
{
	const char *env = getenv("PERFHUNT_STATE_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	if (env && *env)
		snprintf(out, n, "%s", env);
	else if (xdg && *xdg)
		snprintf(out, n, "%s/perfhunt", xdg);
	else
		snprintf(out, n, "/tmp/perfhunt-%u", (unsigned)getuid());
	if (mkdir(out, 0700) < 0 && errno != EEXIST)
		return err_sys(e, "cannot create state directory '%s'", out);
	struct stat st;
	/* lstat: a symlink planted in a shared /tmp must not redirect our files */
	if (lstat(out, &st) < 0)
		return err_sys(e, "cannot use state directory '%s'", out);
	char why[192];
	const char *bad = fsafe_problem(&st, FSAFE_PRIVATE, why, sizeof(why));
	if (!bad && !S_ISDIR(st.st_mode))
		bad = "not a directory";
	if (bad)
		return err_set(e, "state directory '%s' is not a private directory owned by uid %u "
			       "(it is %s)", out, (unsigned)geteuid(), bad);
	return 0;
}

int statefile_proc_starttime(pid_t pid, uint64_t *ticks)
{
	return lookup_starttime(pid, ticks);
}

static char *path_of(const char *dir, const char *id, const char *ext)
{
	return xasprintf("%s/%s.%s", dir, id, ext);
}

int statefile_register(const char *dir, struct monitor_state *s, struct err *e)
{
	s->pid = getpid();
	if (statefile_proc_starttime(s->pid, &s->starttime_ticks) < 0)
		return err_sys(e, "cannot read our own start time");
	snprintf(s->id, sizeof(s->id), "%d", (int)s->pid);
	clock_format_rfc3339(clock_epoch_ms(), s->started_at, sizeof(s->started_at));
	char *log = path_of(dir, s->id, "log");
	snprintf(s->log_path, sizeof(s->log_path), "%s", log);
	free(log);
	json_t *j = json_pack("{s:s, s:i, s:I, s:i, s:s, s:s, s:s}", "id", s->id, "pid", (int)s->pid,
			      "starttime_ticks", (json_int_t)s->starttime_ticks, "target_pid",
			      (int)s->target_pid, "target", s->target, "started_at", s->started_at, "log",
			      s->log_path);
	char *text = json_dumps(j, 0);
	json_decref(j);
	char *path = path_of(dir, s->id, "json");
	/* A leftover file of a dead monitor with our PID is stale: replace it. */
	unlink(path);
	char *done = path_of(dir, s->id, "done");
	unlink(done);
	free(done);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = 0;
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		rc = err_sys(e, "cannot write state file '%s'", path);
	}
	if (fd >= 0)
		close(fd);
	free(text);
	free(path);
	return rc;
}

void statefile_mark_done(const char *dir, const char *id)
{
	char *path = path_of(dir, id, "done");
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	free(path);
}

static int read_state(const char *path, struct monitor_state *s)
{
	json_t *j;
	if (jsonio_read(path, NULL, &j, NULL) < 0)
		return -1;
	memset(s, 0, sizeof(*s));
	const char *id = json_string_value(json_object_get(j, "id"));
	const char *target = json_string_value(json_object_get(j, "target"));
	const char *started = json_string_value(json_object_get(j, "started_at"));
	const char *log = json_string_value(json_object_get(j, "log"));
	json_int_t pid = json_integer_value(json_object_get(j, "pid"));
	if (!id || !log || pid <= 0) {
		json_decref(j);
		return -1;
	}
	snprintf(s->id, sizeof(s->id), "%s", id);
	snprintf(s->target, sizeof(s->target), "%s", target ? target : "");
	snprintf(s->started_at, sizeof(s->started_at), "%s", started ? started : "");
	snprintf(s->log_path, sizeof(s->log_path), "%s", log);
	s->pid = (pid_t)pid;
	s->target_pid = (pid_t)json_integer_value(json_object_get(j, "target_pid"));
	s->starttime_ticks = (uint64_t)json_integer_value(json_object_get(j, "starttime_ticks"));
	json_decref(j);
	return 0;
}

int statefile_list(const char *dir, struct monitor_state **out, size_t *n, struct err *e)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	DIR *d = opendir(dir);
	if (!d)
		return err_sys(e, "cannot read state directory '%s'", dir);
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		struct monitor_state s;
		if (read_state(path, &s) == 0) {
			xgrow((void **)out, &cap, *n + 1, sizeof(**out));
			(*out)[(*n)++] = s;
		}
		free(path);
	}
	closedir(d);
	return 0;
}

enum monitor_liveness statefile_liveness(const char *dir, const struct monitor_state *s)
{
	uint64_t t;
	if (statefile_proc_starttime(s->pid, &t) == 0 && t == s->starttime_ticks)
		return MONITOR_RUNNING;
	char *done = path_of(dir, s->id, "done");
	int finished = access(done, F_OK) == 0;
	free(done);
	return finished ? MONITOR_FINISHED : MONITOR_STALE;
}

int statefile_claim(const char *dir, const char *id, int *fd, struct err *e)
{
	char *p = path_of(dir, id, "json");
	*fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int rc = 0;
	struct stat st;
	if (*fd < 0) {
		rc = errno == ENOENT ? STATEFILE_CLAIMED_ELSEWHERE : err_sys(e, "cannot open '%s'", p);
	} else if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		rc = errno == EWOULDBLOCK ? STATEFILE_CLAIMED_ELSEWHERE : err_sys(e, "cannot lock '%s'", p);
	} else if (fstat(*fd, &st) < 0 || st.st_nlink == 0) {
		rc = STATEFILE_CLAIMED_ELSEWHERE; /* the stop before us finished and removed it */
	}
	if (rc != 0 && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	free(p);
	return rc;
}

void statefile_remove(const char *dir, const char *id)
{
	static const char *const ext[] = { "json", "log", "done" };
	for (size_t i = 0; i < 3; i++) {
		char *p = path_of(dir, id, ext[i]);
		unlink(p);
		free(p);
	}
}
