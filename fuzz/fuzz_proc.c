/* fuzz_proc: libFuzzer target for the /proc parsers (proc/procfs), and the
 * reader of perfhunt's own cgroup names (proc/cgroup), which reads whatever
 * directory names a cgroup hierarchy holds.
 *
 * The sampler hands these parsers whatever one pread returned: a file cut
 * short by a process exiting, a comm full of ')' and newlines, a kernel
 * thread or a zombie without Vm* lines. Every parser sees the same bytes; each
 * must return 0 or -1 without reading past them, and what it fills must be
 * well formed (comm terminated, children only valid PIDs, counted exactly).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc/cgroup.h"
#include "proc/procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

struct seen {
	int count;
};

static void on_child(pid_t pid, void *arg)
{
	struct seen *s = arg;
	check(pid > 0);
	s->count++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;

	struct procfs_stat st;
	memset(&st, 0xa5, sizeof(st));
	if (procfs_parse_stat(buf, size, &st) == 0)
		check(memchr(st.comm, 0, sizeof(st.comm)) != NULL);
	memset(&st, 0xa5, sizeof(st));
	if (procfs_parse_stat_blkio(buf, size, &st) == 0)
		check(memchr(st.comm, 0, sizeof(st.comm)) != NULL);

	struct procfs_status status;
	int rc = procfs_parse_status(buf, size, &status);
	check(rc == 0 || rc == -1);

	struct procfs_io io;
	rc = procfs_parse_io(buf, size, &io);
	check(rc == 0 || rc == -1);

	struct procfs_statm sm;
	rc = procfs_parse_statm(buf, size, &sm);
	check(rc == 0 || rc == -1);

	struct procfs_schedstat sch;
	rc = procfs_parse_schedstat(buf, size, &sch);
	check(rc == 0 || rc == -1);

	uint64_t pss_kb;
	rc = procfs_parse_smaps_rollup(buf, size, &pss_kb);
	check(rc == 0 || rc == -1);

	struct seen s = { 0 };
	rc = procfs_parse_children(buf, size, on_child, &s);
	check(rc == -1 || rc == s.count);

	/* a directory name: at most 255 bytes, no NUL */
	char name[256];
	size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
	memcpy(name, buf, n);
	name[n] = 0;
	pid_t pid;
	uint64_t start;
	bool has_start;
	if (cgroup_parse_name(name, &pid, &start, &has_start) == 0) {
		/* what it read is what the name says: decimal fields after the prefix */
		check(pid > 0 && strncmp(name, "perfhunt-", 9) == 0);
		check(strspn(name + 9, "0123456789-") == strlen(name + 9));
		char *end;
		check(strtoull(name + 9, &end, 10) == (unsigned long long)pid && *end == '-');
		if (has_start)
			check(strtoull(end + 1, &end, 10) == start && *end == '-');
	}
	return 0;
}
