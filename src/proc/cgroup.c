/* cgroup: creating, joining, reading and removing a memory cgroup (v2 or v1).
 *
 * The mount points and our own cgroup path are read from /proc/self/mountinfo
 * and /proc/self/cgroup, so this works inside containers and on hosts that
 * mount v1 and v2 side by side. A cgroup's name holds its maker's PID and
 * start time, so the next perfhunt can tell one that a SIGKILLed run left
 * behind from one in use, even after the PID was reused.
 */
#include "proc/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/lookup.h"
#include "util/fdio.h"
#include "util/parse.h"

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Where each hierarchy perfhunt can use is mounted and where this process
 * sits in it, indexed by version: [2] the v2 one (fstype cgroup2), [1] the v1
 * one with the memory controller; "" where there is none. Read once: a run
 * that finds no v2 memory controller falls back to v1 without reading again. */
struct cg_places {
	char mount[3][512];
	char own[3][512];
	bool mounted[3], placed[3];
};

static void find_mounts(struct cg_places *pl)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	char line[1024];
	while (!(pl->mounted[1] && pl->mounted[2]) && fgets(line, sizeof(line), f)) {
		/* id parent major:minor root mountpoint opts ... - fstype source superopts */
		char mnt[512], fstype[64], super[256];
		char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %511s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s %*s %255s", fstype, super) != 2)
			continue;
		int v = 0;
		if (!strcmp(fstype, "cgroup2"))
			v = 2;
		else if (!strcmp(fstype, "cgroup"))
			for (char *tok = strtok(super, ","); tok && !v; tok = strtok(NULL, ","))
				v = !strcmp(tok, "memory");
		if (v && !pl->mounted[v]) {
			snprintf(pl->mount[v], sizeof(pl->mount[v]), "%s", mnt);
			pl->mounted[v] = true;
		}
	}
	fclose(f);
}

/* Our own cgroup paths ("0::/x" for v2, "N:memory:/x" for v1). */
static void own_paths(struct cg_places *pl)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return;
	char line[1024];
	while (!(pl->placed[1] && pl->placed[2]) && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = 0;
		int v = 0;
		if (!strcmp(line, "0") && c1[1] == 0)
			v = 2;
		else
			for (char *tok = strtok(c1 + 1, ","); tok && !v; tok = strtok(NULL, ","))
				v = !strcmp(tok, "memory");
		if (v && !pl->placed[v]) {
			snprintf(pl->own[v], sizeof(pl->own[v]), "%s", c2 + 1);
			pl->placed[v] = true;
		}
	}
	fclose(f);
}

/* A v2 cgroup whose children may have the memory controller: it must offer
 * memory and have it in subtree_control (enabled here when missing). */
static int v2_memory_parent(const char *dir, struct err *e)
{
	char ctl[256], path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	if (fdio_read_small(path, ctl, sizeof(ctl)) < 0 || !strstr(ctl, "memory")) {
		errno = ENOENT;
		return err_set(e, "cgroup v2 has no memory controller here");
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	if (fdio_read_small(path, ctl, sizeof(ctl)) >= 0 && strstr(ctl, "memory"))
		return 0;
	if (write_file(path, "+memory") < 0)
		return err_sys(e, "cannot enable the cgroup v2 memory controller in '%s'", dir);
	return 0;
}

/* The parent the first cgroup_create of this process found: a bench makes
 * one cgroup per run, and neither the mounts nor our own cgroup change. */
static struct {
	int version;
	char parent[PATH_MAX];
} known_parent;

static int make_dir(struct cgroup *cg, int version, struct err *e)
{
	static unsigned seq;
	uint64_t start = 0;
	lookup_starttime(getpid(), &start);
	snprintf(cg->dir, sizeof(cg->dir), "%s/perfhunt-%d-%llu-%u", cg->parent, (int)getpid(),
		 (unsigned long long)start, seq++);
	if (mkdir(cg->dir, 0755) < 0)
		return err_sys(e, "cannot create cgroup '%s'", cg->dir);
	cg->version = version;
	known_parent.version = version;
	snprintf(known_parent.parent, sizeof(known_parent.parent), "%s", cg->parent);
	return 0;
}

static int try_create(struct cgroup *cg, int version, const struct cg_places *pl, struct err *e)
{
	if (!pl->mounted[version])
		return err_set(e, "no cgroup v%d memory hierarchy mounted", version);
	const char *mnt = pl->mount[version];
	const char *own = pl->placed[version] && strcmp(pl->own[version], "/") ? pl->own[version] : "";
	snprintf(cg->parent, sizeof(cg->parent), "%s%s", mnt, own);
	if (version == 2 && v2_memory_parent(cg->parent, e) < 0) {
		/* Our own cgroup holds processes (our shell, ourselves): v2 allows no
		 * controller below it then. The hierarchy's root is exempt from that
		 * rule: make the cgroup there (the tree leaves its session's cgroup
		 * for the run, so that cgroup's limits no longer apply to it). */
		if (!own[0] || errno != EBUSY)
			return -1;
		snprintf(cg->parent, sizeof(cg->parent), "%s", mnt);
		if (v2_memory_parent(cg->parent, e) < 0)
			return -1;
	}
	cgroup_reap_stale(cg->parent);
	return make_dir(cg, version, e);
}

/* Reads "N-" or "N" (at the end) from *p; 0 on success. */
static int cgroup_name_number(const char **p, uint64_t *v)
{
	const char *q = *p;
	if (*q < '0' || *q > '9')
		return -1;
	*v = 0;
	for (; *q >= '0' && *q <= '9'; q++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*q - '0');
	}
	if (*q == '-')
		q++;
	else if (*q)
		return -1;
	*p = q;
	return 0;
}

int cgroup_parse_name(const char *name, pid_t *pid, uint64_t *start_ticks, bool *has_start)
{
	static const char prefix[] = "perfhunt-";
	if (strncmp(name, prefix, sizeof(prefix) - 1))
		return -1;
	const char *p = name + sizeof(prefix) - 1;
	uint64_t v[3];
	int n = 0;
	while (*p && n < 3) {
		if (cgroup_name_number(&p, &v[n]))
			return -1;
		n++;
	}
	if (*p || n < 2 || p[-1] == '-' || v[0] == 0 || v[0] > INT32_MAX)
		return -1;
	*pid = (pid_t)v[0];
	*has_start = n == 3;
	*start_ticks = n == 3 ? v[1] : 0;
	return 0;
}

/* Whether the perfhunt that named a cgroup may still be running. */
static bool cgroup_owner_alive(pid_t pid, uint64_t start_ticks, bool has_start)
{
	uint64_t now;
	if (lookup_starttime(pid, &now) < 0)
		return false;
	return !has_start || now == start_ticks;
}

int cgroup_reap_stale(const char *parent)
{
	DIR *d = opendir(parent);
	if (!d)
		return 0;
	int removed = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t pid;
		uint64_t start;
		bool has_start;
		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    cgroup_parse_name(de->d_name, &pid, &start, &has_start) < 0 ||
		    cgroup_owner_alive(pid, start, has_start))
			continue;
		/* rmdir refuses a cgroup with processes or child cgroups in it */
		if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

int cgroup_create(struct cgroup *cg, struct err *e)
{
	memset(cg, 0, sizeof(*cg));
	if (known_parent.version) {
		snprintf(cg->parent, sizeof(cg->parent), "%s", known_parent.parent);
		if (make_dir(cg, known_parent.version, NULL) == 0)
			return 0;
		known_parent.version = 0; /* gone or moved: look again */
	}
	struct cg_places pl = { 0 };
	find_mounts(&pl);
	own_paths(&pl);
	struct err e2;
	if (try_create(cg, 2, &pl, &e2) == 0)
		return 0;
	if (try_create(cg, 1, &pl, e) == 0)
		return 0;
	/* Report the v1 failure, and the v2 one when it is the more telling. */
	if (e && !strncmp(e->msg, "no cgroup v1", 12))
		*e = e2;
	cg->version = 0;
	return -1;
}

int cgroup_add_pid(const struct cgroup *cg, pid_t pid, struct err *e)
{
	char path[PATH_MAX + 96], num[24];
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	snprintf(num, sizeof(num), "%d", (int)pid);
	if (write_file(path, num) < 0)
		return err_sys(e, "cannot move PID %d into cgroup '%s'", (int)pid, cg->dir);
	return 0;
}

int cgroup_procs_open(const struct cgroup *cg, struct err *e)
{
	char path[PATH_MAX + 96];
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, "cannot open '%s'", path);
	return fd;
}

int cgroup_dir_open(const struct cgroup *cg, struct err *e)
{
	if (cg->version != 2)
		return err_set(e, "cgroup v%d: a child cannot be cloned into it", cg->version);
	int fd = open(cg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, "cannot open '%s'", cg->dir);
	return fd;
}

int cgroup_set_limit(const struct cgroup *cg, uint64_t bytes, struct err *e)
{
	char path[PATH_MAX + 128], num[32];
	snprintf(path, sizeof(path), "%s/%s", cg->dir,
		 cg->version == 2 ? "memory.max" : "memory.limit_in_bytes");
	snprintf(num, sizeof(num), "%llu", (unsigned long long)bytes);
	if (write_file(path, num) < 0)
		return err_sys(e, "cannot set memory limit in '%s'", cg->dir);
	if (cg->version == 1) {
		/* Without this a v1 limit only pushes the tree into swap. */
		snprintf(path, sizeof(path), "%s/memory.memsw.limit_in_bytes", cg->dir);
		write_file(path, num);
	}
	return 0;
}

int cgroup_check_limit(uint64_t bytes, struct err *e)
{
	struct cgroup cg;
	if (cgroup_create(&cg, e) < 0)
		return -1;
	int rc = cgroup_set_limit(&cg, bytes, e);
	cgroup_destroy(&cg);
	return rc;
}

/* A byte count file's value in KiB; -1 when it holds no number. */
static int bytes_kb(const char *buf, ssize_t r, uint64_t *kb)
{
	const char *p = buf;
	uint64_t bytes;
	if (r <= 0 || !parse_u64_at(&p, buf + r, &bytes))
		return -1;
	*kb = bytes / 1024;
	return 0;
}

int cgroup_peak_kb(const struct cgroup *cg, uint64_t *kb, struct err *e)
{
	char path[PATH_MAX + 128], buf[64];
	snprintf(path, sizeof(path), "%s/%s", cg->dir,
		 cg->version == 2 ? "memory.peak" : "memory.max_usage_in_bytes");
	ssize_t r = fdio_read_small(path, buf, sizeof(buf));
	if (r <= 0)
		return err_sys(e, "cannot read '%s'", path);
	if (bytes_kb(buf, r, kb) < 0)
		return err_set(e, "unexpected contents in '%s'", path);
	return 0;
}

int cgroup_usage_open(const struct cgroup *cg, struct err *e)
{
	char path[PATH_MAX + 128];
	snprintf(path, sizeof(path), "%s/%s", cg->dir,
		 cg->version == 2 ? "memory.current" : "memory.usage_in_bytes");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, "cannot open '%s'", path);
	return fd;
}

int cgroup_usage_kb(int fd, uint64_t *kb)
{
	char buf[64];
	ssize_t r = pread(fd, buf, sizeof(buf) - 1, 0);
	if (r > 0)
		buf[r] = 0;
	return bytes_kb(buf, r, kb);
}

const char *cgroup_usage_method(const struct cgroup *cg)
{
	return cg->version == 2 ? "cgroup v2 memory.current" : "cgroup v1 memory.usage_in_bytes";
}

int cgroup_oom_kills(const struct cgroup *cg, uint64_t *n, struct err *e)
{
	char path[PATH_MAX + 128], buf[512];
	snprintf(path, sizeof(path), "%s/%s", cg->dir, cg->version == 2 ? "memory.events" : "memory.oom_control");
	ssize_t r = fdio_read_small(path, buf, sizeof(buf));
	if (r <= 0)
		return err_sys(e, "cannot read '%s'", path);
	const char *p = strstr(buf, "oom_kill ");
	if (!p)
		return err_set(e, "no oom_kill count in '%s'", path);
	p += 9;
	if (!parse_u64_at(&p, buf + r, n))
		return err_set(e, "unexpected contents in '%s'", path);
	return 0;
}

const char *cgroup_method(const struct cgroup *cg)
{
	return cg->version == 2 ? "cgroup v2 memory.peak" : "cgroup v1 memory.max_usage_in_bytes";
}

void cgroup_destroy(struct cgroup *cg)
{
	if (!cg->version)
		return;
	char path[PATH_MAX + 96], buf[4096], dst[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	snprintf(dst, sizeof(dst), "%s/cgroup.procs", cg->parent);
	/* Survivors (daemonized leftovers) go back to where we came from. */
	for (int round = 0; round < 4; round++) {
		ssize_t r = fdio_read_small(path, buf, sizeof(buf));
		if (r <= 0)
			break;
		for (char *tok = strtok(buf, "\n"); tok; tok = strtok(NULL, "\n"))
			write_file(dst, tok);
	}
	rmdir(cg->dir);
	cg->version = 0;
}
