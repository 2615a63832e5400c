/* procfs: byte-level parsers of stat, statm, schedstat, status, io, smaps_rollup and children.
 *
 * Hand-written scanners rather than sscanf: they run per process per sample,
 * must tolerate any bytes (comm may hold spaces, parentheses and newlines),
 * and must never read past the buffer.
 */
#include "proc/procfs.h"

#include <string.h>

#include "util/parse.h"

static const char *skip_spaces(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

/* Parses fields up to `last` (23 vsize, or 42 delayacct_blkio_ticks): the
 * sampler reads stat of every member that ran, and the 19 fields after vsize
 * are only wanted where delay accounting is on. */
static int parse_stat(const char *buf, size_t n, int last, struct procfs_stat *out)
{
	const char *end = buf + n;
	const char *open = memchr(buf, '(', n);
	const char *close = NULL;
	/* comm ends at the LAST ')' of the line: comm itself may contain ')'. */
	for (const char *q = end; q > buf; q--)
		if (q[-1] == ')') {
			close = q - 1;
			break;
		}
	if (!open || !close || close < open)
		return -1;
	size_t clen = (size_t)(close - open - 1);
	if (clen >= sizeof(out->comm))
		clen = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, clen);
	out->comm[clen] = 0;

	const char *p = skip_spaces(close + 1, end);
	if (p >= end)
		return -1;
	out->state = *p++;
	/* Fields after state, numbered as in proc(5): 4 ppid .. 23 vsize are
	 * required; 42 delayacct_blkio_ticks is read where the line has it. */
	uint64_t f[43] = { 0 };
	for (int i = 4; i <= last; i++) {
		p = skip_spaces(p, end);
		if (i > 23 && (p >= end || ((*p < '0' || *p > '9') && *p != '-')))
			break;
		if (p < end && *p == '-') { /* a few fields may be negative */
			p++;
			uint64_t ignored;
			if (!parse_u64_at(&p, end, &ignored))
				return -1;
			f[i] = 0;
			continue;
		}
		if (!parse_u64_at(&p, end, &f[i]))
			return -1;
	}
	out->ppid = (pid_t)f[4];
	out->minflt = f[10];
	out->majflt = f[12];
	out->utime_ticks = f[14];
	out->stime_ticks = f[15];
	out->num_threads = f[20];
	out->starttime_ticks = f[22];
	out->vsize_bytes = f[23];
	out->blkio_ticks = f[42];
	return 0;
}

int procfs_parse_stat(const char *buf, size_t n, struct procfs_stat *out)
{
	return parse_stat(buf, n, 23, out);
}

int procfs_parse_stat_blkio(const char *buf, size_t n, struct procfs_stat *out)
{
	return parse_stat(buf, n, 42, out);
}

/* Finds "Key:" at a line start and parses the number after it. */
static int field_u64(const char *buf, const char *end, const char *key, size_t klen, uint64_t *out)
{
	const char *p = buf;
	while (p < end) {
		if ((size_t)(end - p) > klen && !memcmp(p, key, klen)) {
			p += klen;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			return parse_u64_at(&p, end, out) ? 0 : -1;
		}
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
	}
	return -1;
}

int procfs_parse_status(const char *buf, size_t n, struct procfs_status *out)
{
	const char *end = buf + n;
	memset(out, 0, sizeof(*out));
	/* Keys appear in a fixed order, so one forward walk finds them all. */
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
#define K(s, f) { s ":", offsetof(struct procfs_status, f) }
		K("VmHWM", hwm_kb),   K("VmRSS", rss_kb),      K("RssAnon", anon_kb),
		K("RssFile", file_kb), K("RssShmem", shmem_kb), K("VmSwap", swap_kb),
		K("Threads", threads), K("voluntary_ctxt_switches", vcsw),
		K("nonvoluntary_ctxt_switches", ivcsw),
#undef K
	};
	const char *p = buf;
	uint64_t uid = 0;
	if (field_u64(buf, end, "Uid:", 4, &uid) == 0)
		out->uid = (uid_t)uid;
	int found = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t klen = strlen(keys[i].key);
		const char *q = p;
		uint64_t v;
		while (q < end) {
			if ((size_t)(end - q) > klen && !memcmp(q, keys[i].key, klen)) {
				const char *r = q + klen;
				while (r < end && (*r == ' ' || *r == '\t'))
					r++;
				if (parse_u64_at(&r, end, &v)) {
					*(uint64_t *)((char *)out + keys[i].off) = v;
					found++;
					p = r;
				}
				break;
			}
			const char *nl = memchr(q, '\n', (size_t)(end - q));
			if (!nl) {
				q = end;
				break;
			}
			q = nl + 1;
		}
	}
	/* Kernel threads and zombies have no Vm* lines; a status file always has Threads. */
	return found > 0 ? 0 : -1;
}

int procfs_parse_io(const char *buf, size_t n, struct procfs_io *out)
{
	const char *end = buf + n;
	if (field_u64(buf, end, "rchar:", 6, &out->rchar) < 0)
		return -1;
	if (field_u64(buf, end, "wchar:", 6, &out->wchar) < 0)
		return -1;
	return 0;
}

/* "size resident shared text lib data dt": only the first three are used. */
int procfs_parse_statm(const char *buf, size_t n, struct procfs_statm *out)
{
	const char *p = buf, *end = buf + n;
	uint64_t *f[3] = { &out->size_pages, &out->resident_pages, &out->shared_pages };
	for (int i = 0; i < 3; i++) {
		p = skip_spaces(p, end);
		if (!parse_u64_at(&p, end, f[i]))
			return -1;
	}
	return 0;
}

int procfs_parse_schedstat(const char *buf, size_t n, struct procfs_schedstat *out)
{
	const char *p = buf, *end = buf + n;
	uint64_t f[3];
	for (int i = 0; i < 3; i++) {
		p = skip_spaces(p, end);
		if (!parse_u64_at(&p, end, &f[i]))
			return -1;
	}
	out->oncpu_ns = f[0];
	out->wait_ns = f[1];
	out->runs = f[2];
	return 0;
}

int procfs_parse_smaps_rollup(const char *buf, size_t n, uint64_t *pss_kb)
{
	return field_u64(buf, buf + n, "Pss:", 4, pss_kb);
}

int procfs_parse_children(const char *buf, size_t n, void (*fn)(pid_t pid, void *arg), void *arg)
{
	const char *p = buf, *end = buf + n;
	int count = 0;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		if (p >= end)
			break;
		uint64_t v;
		if (!parse_u64_at(&p, end, &v) || v == 0 || v > 0x7fffffff)
			return -1;
		fn((pid_t)v, arg);
		count++;
	}
	return count;
}
