/* lookup: PID, name and pidfile resolution over /proc. */
#include "proc/lookup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "util/fdio.h"
#include "util/parse.h"
#include "util/xalloc.h"

static ssize_t read_proc_file(pid_t pid, const char *file, char *buf, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	return fdio_read_small(path, buf, n);
}

int lookup_starttime(pid_t pid, uint64_t *ticks)
{
	char buf[1024];
	ssize_t r = read_proc_file(pid, "stat", buf, sizeof(buf));
	struct procfs_stat st;
	if (r <= 0 || procfs_parse_stat(buf, (size_t)r, &st) < 0 || st.state == 'Z')
		return -1;
	*ticks = st.starttime_ticks;
	return 0;
}

int lookup_check_pid(pid_t pid, struct err *e)
{
	char buf[4096];
	if (pid <= 0)
		return err_set(e, "invalid PID %d", (int)pid);
	if (read_proc_file(pid, "stat", buf, sizeof(buf)) < 0)
		return err_set(e, "no process with PID %d", (int)pid);
	/* io needs ptrace access: the same right that reading every counter needs */
	if (read_proc_file(pid, "io", buf, sizeof(buf)) < 0 && (errno == EACCES || errno == EPERM))
		return err_set(e, "cannot watch PID %d: permission denied (it belongs to another user; "
				  "run perfhunt as that user or as root)", (int)pid);
	return 0;
}

int lookup_by_name(const char *name, pid_t *pid, struct err *e)
{
	DIR *d = opendir("/proc");
	if (!d)
		return err_sys(e, "cannot read /proc");
	pid_t found[8];
	size_t nfound = 0;
	pid_t self = getpid();
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid_t p = (pid_t)atoi(de->d_name);
		if (p == self)
			continue;
		char comm[64], cmd[4096];
		int match = 0;
		if (read_proc_file(p, "comm", comm, sizeof(comm)) > 0) {
			comm[strcspn(comm, "\n")] = 0;
			match = !strcmp(comm, name);
		}
		if (!match && read_proc_file(p, "cmdline", cmd, sizeof(cmd)) > 0) {
			const char *base = strrchr(cmd, '/');
			match = !strcmp(base ? base + 1 : cmd, name);
		}
		if (match) {
			if (nfound < sizeof(found) / sizeof(found[0]))
				found[nfound] = p;
			nfound++;
		}
	}
	closedir(d);
	if (nfound == 1) {
		*pid = found[0];
		return 0;
	}
	if (nfound == 0)
		return err_set(e, "no process named '%s'", name);
	char list[160] = "";
	for (size_t i = 0; i < nfound && i < sizeof(found) / sizeof(found[0]); i++) {
		size_t len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%d", i ? ", " : "", (int)found[i]);
	}
	return err_set(e, "%zu processes are named '%s' (PIDs %s%s): give a PID", nfound, name, list,
		       nfound > sizeof(found) / sizeof(found[0]) ? ", ..." : "");
}

int lookup_pidfile(const char *path, pid_t *pid, struct err *e)
{
	char buf[64];
	/* O_NONBLOCK: a FIFO opens at once (no writer needed) and is refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return err_sys(e, "cannot read pidfile '%s'", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		err_set(e, "pidfile '%s' is not a regular file", path);
		return LOOKUP_NOT_FILE;
	}
	ssize_t r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return err_set(e, "pidfile '%s' is empty", path);
	buf[r] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	int64_t v;
	if (parse_i64(buf, 1, 0x7fffffff, &v, "pidfile", NULL) < 0)
		return err_set(e, "pidfile '%s' does not hold a PID ('%.20s')", path, buf);
	*pid = (pid_t)v;
	return 0;
}

char **lookup_cmdline(pid_t pid)
{
	char buf[8192];
	ssize_t n = read_proc_file(pid, "cmdline", buf, sizeof(buf));
	if (n <= 0) {
		n = read_proc_file(pid, "comm", buf, sizeof(buf));
		if (n <= 0)
			n = snprintf(buf, sizeof(buf), "%d", (int)pid);
		buf[strcspn(buf, "\n")] = 0;
		n = (ssize_t)strlen(buf) + 1;
	}
	size_t nargs = 0;
	for (ssize_t i = 0; i < n; i++)
		nargs += buf[i] == 0;
	if (buf[n - 1] != 0)
		nargs++;
	/* one block: the pointer array, then the strings */
	char **argv = xcalloc(1, (nargs + 1) * sizeof(char *) + (size_t)n + 1);
	char *s = (char *)(argv + nargs + 1);
	memcpy(s, buf, (size_t)n);
	size_t k = 0;
	for (char *p = s; p < s + n && k < nargs; p += strlen(p) + 1)
		argv[k++] = p;
	return argv;
}
