/* git: HEAD's commit read from .git directly; dirtiness asked of git itself.
 *
 * Reading HEAD, a loose ref or packed-refs needs no process; whether the work
 * tree is dirty does (the index format is git's business), so that one answer
 * comes from `git status --porcelain --untracked-files=no`, and is "unknown"
 * when git is not installed. --no-optional-locks: git status otherwise
 * rewrites the index it refreshed, taking index.lock, so a user's git command
 * at that moment would fail; perfhunt writes nothing in the repository.
 */
#include "record/git.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/xalloc.h"

extern char **environ;

static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\r\n")] = 0;
	return 0;
}

static void resolve_ref(const char *gitdir, const char *ref, char *out, size_t n)
{
	char path[PATH_MAX + 1024], line[512];
	snprintf(path, sizeof(path), "%s/%s", gitdir, ref);
	if (read_line(path, line, sizeof(line)) == 0) {
		snprintf(out, n, "%.63s", line);
		return;
	}
	snprintf(path, sizeof(path), "%s/packed-refs", gitdir);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		char *sp = strchr(line, ' ');
		if (sp && !strcmp(sp + 1, ref)) {
			*sp = 0;
			snprintf(out, n, "%.63s", line);
			break;
		}
	}
	fclose(f);
}

/* Runs git with argv (argv[0] is "git"), stderr discarded; its stdout into
 * *out (NUL-terminated, caller frees) when out is non-NULL. Returns git's exit
 * status, or -1 when git could not be started or was killed. */
static int git_capture(char *const argv[], char **out, size_t *len)
{
	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc != 0) {
		close(pfd[0]);
		return -1;
	}
	char *buf = NULL;
	size_t used = 0, cap = 0;
	ssize_t r;
	for (;;) {
		if (out && used + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			buf = xrealloc(buf, cap);
		}
		char scratch[256];
		r = out ? read(pfd[0], buf + used, cap - used - 1) : read(pfd[0], scratch, sizeof(scratch));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		used += (size_t)r;
	}
	close(pfd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (out) {
		if (!buf)
			buf = xcalloc(1, 1);
		buf[used] = 0;
		*out = buf;
	}
	if (len)
		*len = used;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int git_dirty(const char *top)
{
	char *argv[] = { "git", "--no-optional-locks", "-C", (char *)top, "status", "--porcelain",
			 "--untracked-files=no", NULL };
	size_t n;
	char *text;
	int st = git_capture(argv, &text, &n);
	free(text);
	if (st != 0)
		return -1;
	return n > 0;
}

/* Splits git's output into full commit IDs, one a line. */
static void commit_lines(char *text, char ***commits, size_t *n)
{
	size_t cap = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (!*line || strlen(line) >= 64 || strspn(line, "0123456789abcdef") != strlen(line))
			continue;
		xgrow((void **)commits, &cap, *n + 1, sizeof(**commits));
		(*commits)[(*n)++] = xstrdup(line);
	}
}

int git_first_parent(const char *top, char ***commits, size_t *n)
{
	*commits = NULL;
	*n = 0;
	char *argv[] = { "git", "-C", (char *)top, "rev-list", "--first-parent", "--reverse", "HEAD", NULL };
	char *text;
	if (git_capture(argv, &text, NULL) != 0) {
		free(text);
		return -1;
	}
	commit_lines(text, commits, n);
	free(text);
	return 0;
}

int git_resolve_commit(const char *top, const char *ref, char *out, size_t n)
{
	char *spec = xasprintf("%s^{commit}", ref);
	char *argv[] = { "git", "-C", (char *)top, "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL };
	char *text;
	int st = git_capture(argv, &text, NULL);
	free(spec);
	text[strcspn(text, "\r\n")] = 0;
	int ok = st == 0 && *text && strlen(text) < n && strspn(text, "0123456789abcdef") == strlen(text);
	if (ok)
		snprintf(out, n, "%s", text);
	free(text);
	return ok ? 0 : -1;
}

int git_toplevel(char *out, size_t n)
{
	char dir[PATH_MAX];
	if (!getcwd(dir, sizeof(dir)))
		return -1;
	for (;;) {
		char probe[PATH_MAX + 8];
		snprintf(probe, sizeof(probe), "%s/.git", strcmp(dir, "/") ? dir : "");
		if (access(probe, F_OK) == 0) {
			snprintf(out, n, "%s", dir);
			return 0;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return -1;
		*slash = 0;
	}
}

void git_info_read(struct git_info *g)
{
	memset(g, 0, sizeof(*g));
	g->dirty = -1;
	if (git_toplevel(g->toplevel, sizeof(g->toplevel)) < 0)
		return;
	g->present = true;
	char gitdir[PATH_MAX + 8], line[PATH_MAX];
	struct stat st;
	snprintf(gitdir, sizeof(gitdir), "%s/.git", g->toplevel);
	/* a worktree's .git is a file: "gitdir: PATH" */
	if (stat(gitdir, &st) == 0 && !S_ISDIR(st.st_mode) && read_line(gitdir, line, sizeof(line)) == 0 &&
	    !strncmp(line, "gitdir: ", 8))
		snprintf(gitdir, sizeof(gitdir), "%s", line + 8);
	char head[512], head_path[PATH_MAX + 16];
	snprintf(head_path, sizeof(head_path), "%s/HEAD", gitdir);
	if (read_line(head_path, head, sizeof(head)) == 0) {
		if (!strncmp(head, "ref: ", 5))
			resolve_ref(gitdir, head + 5, g->commit, sizeof(g->commit));
		else
			snprintf(g->commit, sizeof(g->commit), "%.63s", head);
	}
	g->dirty = git_dirty(g->toplevel);
}

int git_range(const char *top, const char *good, const char *bad, char ***commits, size_t *n)
{
	*commits = NULL;
	*n = 0;
	char *range = xasprintf("%s..%s", good, bad);
	char *argv[] = { "git", "-C", (char *)top, "rev-list", "--first-parent", "--reverse", range, "--", NULL };
	char *text;
	int st = git_capture(argv, &text, NULL);
	free(range);
	if (st == 0)
		commit_lines(text, commits, n);
	free(text);
	return st == 0 ? 0 : -1;
}

void git_commit_about(const char *top, const char *commit, char *subject, size_t subject_n, char *author,
		      size_t author_n)
{
	char *argv[] = { "git", "-C", (char *)top, "log", "-1", "--format=%an%n%s", (char *)commit, "--", NULL };
	char *text;
	*subject = *author = 0;
	if (git_capture(argv, &text, NULL) == 0) {
		char *nl = strchr(text, '\n');
		if (nl) {
			*nl = 0;
			snprintf(author, author_n, "%s", text);
			nl[1 + strcspn(nl + 1, "\n")] = 0;
			snprintf(subject, subject_n, "%s", nl + 1);
		}
	}
	free(text);
}

int git_worktree_add(const char *top, const char *path, const char *commit)
{
	char *argv[] = { "git", "-C", (char *)top, "worktree", "add", "--detach", "--quiet", (char *)path,
			 (char *)commit, NULL };
	return git_capture(argv, NULL, NULL) == 0 ? 0 : -1;
}

int git_worktree_remove(const char *top, const char *path)
{
	char *rm[] = { "git", "-C", (char *)top, "worktree", "remove", "--force", (char *)path, NULL };
	char *prune[] = { "git", "-C", (char *)top, "worktree", "prune", NULL };
	int st = git_capture(rm, NULL, NULL);
	git_capture(prune, NULL, NULL);
	return st == 0 ? 0 : -1;
}
