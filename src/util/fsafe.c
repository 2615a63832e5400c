/* fsafe: owner and mode rules for the places perfhunt writes (see fsafe.h). */
#include "util/fsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An id from the environment (SUDO_UID, SUDO_GID): 0, or -1 when unset or
 * not a plain number. */
static int fsafe_env_id(const char *name, unsigned long *v)
{
	const char *s = getenv(name);
	if (!s || *s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*end && errno == 0 && *v <= UINT32_MAX - 1 ? 0 : -1;
}

/* The user who ran `sudo perfhunt`: 0 when we are root and $SUDO_UID names
 * another user; the group from $SUDO_GID, else that user's own. */
static int fsafe_sudo_user(uid_t *uid, gid_t *gid)
{
	unsigned long u, g;
	if (geteuid() != 0 || fsafe_env_id("SUDO_UID", &u) < 0 || u == 0)
		return -1;
	*uid = (uid_t)u;
	if (fsafe_env_id("SUDO_GID", &g) == 0) {
		*gid = (gid_t)g;
	} else {
		struct passwd *pw = getpwuid(*uid);
		*gid = pw ? pw->pw_gid : (gid_t)-1;
	}
	return 0;
}

bool fsafe_uid_trusted(uid_t uid)
{
	uid_t me = geteuid(), sudo;
	gid_t gid;
	if (uid == me || uid == 0)
		return true;
	/* `sudo perfhunt run` in your own work tree: your files are not a trap. */
	return fsafe_sudo_user(&sudo, &gid) == 0 && sudo == uid;
}

void fsafe_sudo_adopt(const char *path)
{
	uid_t uid;
	gid_t gid;
	if (fsafe_sudo_user(&uid, &gid) < 0)
		return;
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	struct stat st;
	if (stat(dir, &st) != 0 || st.st_uid != uid)
		return;
	/* through an fd opened without following a link, and only what root
	 * made: a link, or a hard link to another file put in its place since,
	 * is never handed over */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_uid == 0 && (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_nlink == 1))) {
		int rc = fchown(fd, uid, gid);
		(void)rc; /* refused: it stays root's, readable through sudo as before */
	}
	close(fd);
}

/* A group we are in: its other members are people we chose to share with. */
static bool fsafe_gid_ours(gid_t gid)
{
	if (gid == getegid())
		return true;
	gid_t groups[256];
	int n = getgroups((int)(sizeof(groups) / sizeof(groups[0])), groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

static void fsafe_owner(uid_t uid, char *buf, size_t n)
{
	struct passwd *pw = getpwuid(uid);
	if (pw && pw->pw_name && *pw->pw_name)
		snprintf(buf, n, "%s (uid %u)", pw->pw_name, (unsigned)uid);
	else
		snprintf(buf, n, "uid %u", (unsigned)uid);
}

const char *fsafe_kind(mode_t mode)
{
	return S_ISREG(mode)    ? "a regular file"
	       : S_ISDIR(mode)  ? "a directory"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISLNK(mode)  ? "a symbolic link"
				: "not a regular file";
}

const char *fsafe_problem(const struct stat *st, enum fsafe_rule rule, char *buf, size_t n)
{
	char owner[96];
	unsigned mode = (unsigned)(st->st_mode & 07777);
	if (rule == FSAFE_PRIVATE) {
		if (S_ISLNK(st->st_mode)) {
			snprintf(buf, n, "a symbolic link");
		} else if (st->st_uid != geteuid()) {
			fsafe_owner(st->st_uid, owner, sizeof(owner));
			snprintf(buf, n, "owned by %s, not by you", owner);
		} else if (mode & 077) {
			snprintf(buf, n, "open to other users (mode %04o)", mode);
		} else {
			return NULL;
		}
		return buf;
	}
	if (!fsafe_uid_trusted(st->st_uid)) {
		fsafe_owner(st->st_uid, owner, sizeof(owner));
		snprintf(buf, n, "owned by %s, not by you or root", owner);
		return buf;
	}
	/* A link's own mode means nothing; devices and FIFOs are shared by
	 * design (/dev/null is 0666). What others can write is a directory's
	 * entries or a file's bytes. */
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return NULL;
	bool others = (mode & S_IWOTH) || ((mode & S_IWGRP) && !fsafe_gid_ours(st->st_gid));
	if (!others)
		return NULL;
	bool sticky = S_ISDIR(st->st_mode) && (mode & S_ISVTX);
	if (sticky && rule == FSAFE_TRUSTED)
		return NULL;
	snprintf(buf, n, "writable by other users (mode %04o%s)", mode,
		 sticky ? "; sticky, but they could plant files beside ours" : "");
	return buf;
}

/* Whether abs is at or below a directory the user named in
 * $PERFHUNT_SAFE_DIRECTORY (absolute paths separated by ':', or '*'). */
static bool fsafe_declared_safe(const char *abs)
{
	const char *list = getenv("PERFHUNT_SAFE_DIRECTORY");
	if (!list)
		return false;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ":");
		if (n == 1 && *p == '*')
			return true;
		while (n > 1 && p[n - 1] == '/')
			n--;
		if (n > 0 && p[0] == '/' && !strncmp(abs, p, n) &&
		    (abs[n] == '/' || abs[n] == 0 || (n == 1 && p[0] == '/')))
			return true;
		p += strcspn(p, ":");
		while (*p == ':')
			p++;
	}
	return false;
}

/* Checks every prefix of the absolute path abs ("/", "/a", "/a/b", ...).
 * Entries that do not exist (or that we cannot even look at: then we cannot
 * write there either) end the walk. */
static int fsafe_walk(const char *abs, enum fsafe_rule dir_rule, char *entry, size_t entry_n,
		      struct err *e)
{
	if (fsafe_declared_safe(abs))
		return 0;
	char buf[PATH_MAX];
	size_t len = strlen(abs);
	while (len > 1 && abs[len - 1] == '/')
		len--;
	if (len >= sizeof(buf))
		return err_set(e, "path too long: '%s'", abs);
	memcpy(buf, abs, len);
	buf[len] = 0;
	/* the directory holding the last component (its length; 0 for "/"):
	 * dir_rule applies there */
	size_t holder = len;
	while (holder > 0 && buf[holder] != '/')
		holder--;
	for (size_t end = 0; end <= len; end++) {
		if (end < len && buf[end] != '/')
			continue;
		char saved = buf[end];
		buf[end] = 0;
		const char *prefix = end ? buf : "/";
		struct stat st;
		int rc = lstat(prefix, &st);
		char why[192];
		const char *bad = NULL;
		if (rc == 0)
			bad = fsafe_problem(&st, end == holder ? dir_rule : FSAFE_TRUSTED, why, sizeof(why));
		if (bad) {
			err_set(e, "'%s' is %s", prefix, bad);
			if (entry)
				snprintf(entry, entry_n, "%s", prefix);
		}
		buf[end] = saved;
		if (bad)
			return -1;
		if (rc != 0)
			return 0;
	}
	return 0;
}

int fsafe_check_path(const char *path, enum fsafe_rule dir_rule, char *entry, size_t entry_n,
		     struct err *e)
{
	char abs[PATH_MAX], real[PATH_MAX], cwd[PATH_MAX];
	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return err_sys(e, "cannot find the current directory");
		if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", strcmp(cwd, "/") ? cwd : "", path) >=
		    sizeof(abs))
			return err_set(e, "path too long: '%s'", path);
	} else if ((size_t)snprintf(abs, sizeof(abs), "%s", path) >= sizeof(abs)) {
		return err_set(e, "path too long: '%s'", path);
	}
	if (fsafe_walk(abs, dir_rule, entry, entry_n, e))
		return -1;
	/* The same path with its links resolved: the deepest part that exists,
	 * then the rest as written. */
	char head[PATH_MAX];
	snprintf(head, sizeof(head), "%s", abs);
	size_t cut = strlen(head);
	for (;;) {
		if (realpath(head, real)) {
			if ((size_t)snprintf(head, sizeof(head), "%s%s", strcmp(real, "/") ? real : "",
					     abs + cut) >= sizeof(head))
				return err_set(e, "path too long: '%s'", path);
			break;
		}
		char *slash = strrchr(head, '/');
		if (!slash || slash == head)
			return 0; /* nothing below / exists: nothing to resolve */
		*slash = 0;
		cut = (size_t)(slash - head);
	}
	return strcmp(head, abs) ? fsafe_walk(head, dir_rule, entry, entry_n, e) : 0;
}

int fsafe_check_output(const char *path, struct err *e)
{
	struct err why;
	char entry[PATH_MAX];
	if (fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &why))
		return err_set(e, "refusing to write '%s': %s (set PERFHUNT_SAFE_DIRECTORY=%s to "
			       "trust it, or choose another path)", path, why.msg, entry);
	return 0;
}

int fsafe_open_stream(const char *path, int *fd_out, bool *regular, struct err *e)
{
	*fd_out = -1;
	*regular = false;
	if (fsafe_check_output(path, e))
		return -1;
	/* A few rounds: another process may create or remove the file between
	 * our O_EXCL attempt and the open of what is there. */
	for (int round = 0; round < 4; round++) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			*fd_out = fd;
			*regular = true;
			return 0;
		}
		if (errno != EEXIST)
			return err_sys(e, "cannot create '%s'", path);
		struct stat st;
		if (lstat(path, &st) < 0) {
			if (errno == ENOENT)
				continue;
			return err_sys(e, "cannot open '%s'", path);
		}
		/* A symlink here passed the check above (owner and directory
		 * trusted, /dev/stdout): follow it. Any other entry must not
		 * have turned into a link since. */
		int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISLNK(st.st_mode) ? 0 : O_NOFOLLOW);
		fd = open(path, flags);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			if (errno == ELOOP)
				return err_set(e, "refusing to write '%s': it became a symbolic link while "
					       "perfhunt opened it", path);
			return err_sys(e, "cannot open '%s'", path);
		}
		struct stat fst;
		if (fstat(fd, &fst) < 0) {
			err_sys(e, "cannot open '%s'", path);
			close(fd);
			return -1;
		}
		if (S_ISREG(fst.st_mode) && fst.st_nlink > 1) {
			close(fd);
			return err_set(e, "refusing to write '%s': it has %ju hard links (writing it "
				       "would change the other names too; remove it first)", path,
				       (uintmax_t)fst.st_nlink);
		}
		*fd_out = fd;
		*regular = S_ISREG(fst.st_mode);
		return 0;
	}
	return err_set(e, "cannot create '%s': it keeps appearing and vanishing", path);
}
