/* git: the commit a run was recorded at, so history can be read per commit. */
#ifndef PERFHUNT_GIT_H
#define PERFHUNT_GIT_H

#include <stdbool.h>

struct git_info {
	bool present;      /* inside a work tree */
	char commit[64];   /* full hex, "" when HEAD has no commit yet */
	int dirty;         /* 1 dirty, 0 clean, -1 unknown (no git binary) */
	char toplevel[4096];
};

/* Looks upward from the current directory for .git; never fails. */
void git_info_read(struct git_info *g);

#endif
