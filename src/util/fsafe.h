/* fsafe: could another user have put this file or directory in our way?
 *
 * perfhunt often runs as root (cgroups, counters). Writing through a symlink
 * or into a directory that someone else controls would let them aim it at any
 * file: a planted `.perfhunt/history.db -> /etc/x` or `--csv` link creates or
 * truncates the target as root. The rules are ssh's StrictModes and git's
 * safe.directory: what we write, and every directory above it, belongs to us
 * or root, and no other user may write it unless it is a sticky directory.
 * The history, the state directory and streamed outputs all ask here.
 */
#ifndef PERFHUNT_FSAFE_H
#define PERFHUNT_FSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/err.h"

/* Files of these owners are trusted: our effective uid, root, and when we run
 * as root under sudo, the user who ran sudo ($SUDO_UID). */
bool fsafe_uid_trusted(uid_t uid);

/* Under sudo (root with $SUDO_UID of another user): gives path, just made,
 * to that user ($SUDO_GID's group, else theirs) when the directory holding
 * it is theirs, so what perfhunt makes in their tree (.perfhunt/, its
 * history) stays theirs rather than locking them out as root's 0700. Does
 * nothing otherwise, nor for a link or a file with other hard links. */
void fsafe_sudo_adopt(const char *path);

enum fsafe_rule {
	/* owned by a trusted uid; writable by no other user (group or world),
	 * except a sticky directory such as /tmp */
	FSAFE_TRUSTED,
	/* like FSAFE_TRUSTED, but a sticky directory other users can write is
	 * refused too: files beside ours (SQLite's -wal, -shm) could be planted */
	FSAFE_TRUSTED_NO_STICKY,
	/* not a symlink, owned by our effective uid, no group or other bits */
	FSAFE_PRIVATE,
};

/* What a file of this mode is, in words: "a character device", "a FIFO",
 * "a directory", "a regular file" ... (static strings). */
const char *fsafe_kind(mode_t mode);

/* NULL when st (from lstat) passes rule; otherwise buf, filled with what is
 * wrong in words ("owned by nobody (uid 65534)", "writable by other users
 * (mode 0777)"). */
const char *fsafe_problem(const struct stat *st, enum fsafe_rule rule, char *buf, size_t n);

/* Checks the path (which need not exist yet) and each directory above it up
 * to /, both as written and with symlinks resolved: each entry that exists
 * must pass FSAFE_TRUSTED, and the directory holding the path's last
 * component dir_rule. A walk whose path lies at or below a directory named
 * in $PERFHUNT_SAFE_DIRECTORY (colon-separated, or '*' for all) is skipped:
 * the user vouched for it, as with git's safe.directory. On the first entry
 * that fails: -1, e filled with "'ENTRY' is PROBLEM", ENTRY copied to entry
 * (may be NULL). */
int fsafe_check_path(const char *path, enum fsafe_rule dir_rule, char *entry, size_t entry_n,
		     struct err *e);

/* fsafe_check_path(path, FSAFE_TRUSTED) for an output about to be written;
 * the message reads "refusing to write 'PATH': 'ENTRY' is PROBLEM (set
 * PERFHUNT_SAFE_DIRECTORY=ENTRY to trust it, or choose another path)". */
int fsafe_check_output(const char *path, struct err *e);

/* Opens path to write a stream perfhunt writes as it goes (a timeline CSV),
 * without truncating it, after fsafe_check_output(path): a new
 * file is created with O_EXCL (mode 0644); an existing one is opened with
 * O_NOFOLLOW, unless it is a symlink the check trusted (/dev/stdout); a
 * regular file with other hard links is refused. *fd is O_CLOEXEC; *regular
 * says whether it is a regular file (the caller locks and truncates those). */
int fsafe_open_stream(const char *path, int *fd, bool *regular, struct err *e);

#endif
