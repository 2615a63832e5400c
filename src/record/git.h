/* git: the commit a run was recorded at, so history can be read per commit. */
#ifndef PERFHUNT_GIT_H
#define PERFHUNT_GIT_H

#include <stdbool.h>
#include <stddef.h>

struct git_info {
	bool present;      /* inside a work tree */
	char commit[64];   /* full hex, "" when HEAD has no commit yet */
	int dirty;         /* 1 dirty, 0 clean, -1 unknown (no git binary) */
	char toplevel[4096];
};

/* The nearest directory at or above the current one holding .git (a
 * directory, or a file in worktrees and submodules). Returns 0, or -1 if none. */
int git_toplevel(char *out, size_t n);
/* Looks upward from the current directory for .git; never fails. */
void git_info_read(struct git_info *g);
/* The first-parent history of HEAD in the work tree at top, oldest first
 * (`git rev-list --first-parent --reverse HEAD`). Caller frees each string
 * and the array. -1 when git is missing or top is no repository with commits. */
int git_first_parent(const char *top, char ***commits, size_t *n);
/* The full commit ID that ref (a branch, tag, prefix, HEAD~3 ...) names in the
 * repository at top, into out. -1 when git cannot resolve it to a commit. */
int git_resolve_commit(const char *top, const char *ref, char *out, size_t n);

/* The first-parent commits after good up to bad, oldest first
 * (`git rev-list --first-parent --reverse good..bad`, full IDs). Caller frees
 * each string and the array. -1 when git cannot list them. */
int git_range(const char *top, const char *good, const char *bad, char ***commits, size_t *n);
/* A commit's subject line and author name ("" when git cannot say). */
void git_commit_about(const char *top, const char *commit, char *subject, size_t subject_n, char *author,
		      size_t author_n);
/* `git worktree add --detach path commit` in the repository at top: 0, or -1. */
int git_worktree_add(const char *top, const char *path, const char *commit);
/* `git worktree remove --force path`, then `git worktree prune`: 0, or -1. */
int git_worktree_remove(const char *top, const char *path);

#endif
