/* gputrace: reads the collector's JSON-lines files and sums GPU activity per window.
 *
 * Each line is parsed alone (jansson), so a cut or foreign line costs only
 * itself (bad_lines). Events live in flat arrays sorted by start; a window
 * finds its first candidate by binary search, stepping back by the longest
 * event of its kind, so summing every phase of a run stays near linear.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gputrace/gputrace.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strindex.h"
#include "util/xalloc.h"

void gputrace_init(struct gputrace *t)
{
	memset(t, 0, sizeof(*t));
}

void gputrace_release(struct gputrace *t)
{
	for (size_t i = 0; i < t->n_ranges; i++) {
		free(t->ranges[i].name);
		free(t->ranges[i].domain);
	}
	for (size_t i = 0; i < t->n_names; i++)
		free(t->names[i]);
	for (size_t i = 0; i < t->n_calls; i++)
		free(t->calls[i]);
	free(t->calls);
	strindex_release(&t->call_index);
	free(t->kernels);
	free(t->copies);
	free(t->mem);
	free(t->syncs);
	free(t->ranges);
	free(t->launches);
	free(t->procs);
	free(t->names);
	strindex_release(&t->name_index);
	free(t->mem_level);
	free(t->open);
	memset(t, 0, sizeof(*t));
}

void gputrace_short_name(const char *full, char *buf, size_t n)
{
	size_t len = strlen(full), end = len, begin = 0;
	int depth = 0;
	for (size_t i = 0; i < len; i++) {
		char c = full[i];
		if (c == '<' || c == '[')
			depth++;
		else if ((c == '>' || c == ']') && depth > 0)
			depth--;
		else if (c == '(' && depth == 0 && i > 0) {
			end = i;
			break;
		}
	}
	depth = 0;
	for (size_t i = 0; i < end; i++) {
		char c = full[i];
		if (c == '<')
			depth++;
		else if (c == '>' && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0)
			begin = i + 1;
	}
	size_t k = end - begin;
	if (k == 0) {
		begin = 0;
		k = len;
	}
	if (k >= n)
		k = n - 1;
	memcpy(buf, full + begin, k);
	buf[k] = '\0';
}

/* The index of name in a table of names (names, n, cap, index), added if new. */
static uint32_t intern_in(char ***names, size_t *n, size_t *cap, struct strindex *index, const char *name)
{
	size_t k = strindex_get(index, name);
	if (k != STRINDEX_NONE)
		return (uint32_t)k;
	xgrow((void **)names, cap, *n + 1, sizeof(**names));
	(*names)[*n] = xstrdup(name);
	strindex_put(index, (*names)[*n], *n);
	return (uint32_t)(*n)++;
}

/* The index of a kernel's short name in t->names, added if new. */
static uint32_t intern(struct gputrace *t, const char *full)
{
	char name[GPUTRACE_NAME_MAX];
	gputrace_short_name(full, name, sizeof(name));
	return intern_in(&t->names, &t->n_names, &t->cap_names, &t->name_index, name);
}

static size_t events(const struct gputrace *t)
{
	return t->n_kernels + t->n_copies + t->n_mem + t->n_syncs + t->n_ranges + t->n_launches;
}

static int64_t int_of(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

static const char *str_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static struct gputrace_proc *proc_of(struct gputrace *t, int pid)
{
	for (size_t i = t->n_procs; i-- > 0;)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	xgrow((void **)&t->procs, &t->cap_procs, t->n_procs + 1, sizeof(*t->procs));
	struct gputrace_proc *p = &t->procs[t->n_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

/* An interval record: both ends present, in order. */
static bool span_of(const json_t *o, int64_t *start, int64_t *end)
{
	*start = int_of(o, "start");
	*end = int_of(o, "end");
	return *start >= 0 && *end >= *start;
}

static uint32_t corr_of(const json_t *o)
{
	int64_t v = int_of(o, "corr");
	return v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

static bool add_kernel(struct gputrace *t, const json_t *o)
{
	int64_t s, e;
	const char *name = json_string_value(json_object_get(o, "name"));
	if (!name || !span_of(o, &s, &e))
		return false;
	xgrow((void **)&t->kernels, &t->cap_kernels, t->n_kernels + 1, sizeof(*t->kernels));
	t->kernels[t->n_kernels++] = (struct gputrace_kernel){
		.start_ns = s, .end_ns = e, .name = intern(t, name),
		.dev = (uint32_t)int_of(o, "dev"), .corr = corr_of(o), .pid = t->cur_pid,
	};
	if (e - s > t->max_kernel_ns)
		t->max_kernel_ns = e - s;
	return true;
}

static bool add_copy(struct gputrace *t, const json_t *o)
{
	int64_t s, e, bytes = int_of(o, "bytes");
	if (bytes < 0 || !span_of(o, &s, &e))
		return false;
	const char *kind = str_of(o, "kind");
	enum gputrace_copy_kind k = !strcmp(kind, "htod") ? GPUTRACE_H2D
				    : !strcmp(kind, "dtoh") ? GPUTRACE_D2H
				    : !strcmp(kind, "dtod") ? GPUTRACE_D2D : GPUTRACE_OTHER;
	bool pageable = !strcmp(str_of(o, "src"), "pageable") || !strcmp(str_of(o, "dst"), "pageable");
	xgrow((void **)&t->copies, &t->cap_copies, t->n_copies + 1, sizeof(*t->copies));
	t->copies[t->n_copies++] = (struct gputrace_copy){
		.start_ns = s, .end_ns = e, .bytes = (uint64_t)bytes, .kind = k,
		.pageable = pageable, .dev = (uint32_t)int_of(o, "dev"), .corr = corr_of(o), .pid = t->cur_pid,
	};
	return true;
}

static bool add_launch(struct gputrace *t, const json_t *o)
{
	int64_t s, e, tid = int_of(o, "tid");
	const char *name = json_string_value(json_object_get(o, "name"));
	uint32_t corr = corr_of(o);
	if (!name || !corr || tid < 0 || !span_of(o, &s, &e))
		return false;
	char cut[GPUTRACE_NAME_MAX];
	snprintf(cut, sizeof(cut), "%s", name);
	xgrow((void **)&t->launches, &t->cap_launches, t->n_launches + 1, sizeof(*t->launches));
	t->launches[t->n_launches++] = (struct gputrace_launch){
		.start_ns = s, .end_ns = e, .corr = corr, .tid = (uint32_t)tid,
		.name = intern_in(&t->calls, &t->n_calls, &t->cap_calls, &t->call_index, cut),
		.pid = t->cur_pid,
	};
	return true;
}

/* Device memory only: pinned host memory is the host's. One event holds
 * at most 512 GiB, so the levels of GPUTRACE_MAX_EVENTS events fit an int64. */
static bool add_mem(struct gputrace *t, const json_t *o, int sign)
{
	int64_t ts = int_of(o, "ts"), bytes = int_of(o, "bytes");
	if (ts < 0 || bytes < 0 || bytes > (INT64_C(1) << 39))
		return false;
	if (strcmp(str_of(o, "mem"), "device"))
		return true;
	xgrow((void **)&t->mem, &t->cap_mem, t->n_mem + 1, sizeof(*t->mem));
	t->mem[t->n_mem++] = (struct gputrace_mem){ .ts_ns = ts, .delta_bytes = sign * bytes, .pid = t->cur_pid };
	return true;
}

static bool add_sync(struct gputrace *t, const json_t *o)
{
	int64_t s, e;
	if (!span_of(o, &s, &e))
		return false;
	xgrow((void **)&t->syncs, &t->cap_syncs, t->n_syncs + 1, sizeof(*t->syncs));
	t->syncs[t->n_syncs++] = (struct gputrace_span){ .start_ns = s, .end_ns = e, .pid = t->cur_pid };
	if (e - s > t->max_sync_ns)
		t->max_sync_ns = e - s;
	return true;
}

static bool range_start(struct gputrace *t, const json_t *o)
{
	int64_t id = int_of(o, "id"), ts = int_of(o, "ts");
	const char *name = json_string_value(json_object_get(o, "name"));
	if (id < 0 || ts < 0 || !name)
		return false;
	char cut[GPUTRACE_NAME_MAX];
	snprintf(cut, sizeof(cut), "%s", name);
	xgrow((void **)&t->ranges, &t->cap_ranges, t->n_ranges + 1, sizeof(*t->ranges));
	t->ranges[t->n_ranges] = (struct gputrace_range){
		.start_ns = ts, .end_ns = -1, .name = xstrdup(cut),
		.domain = xstrdup(str_of(o, "domain")), .pid = t->cur_pid,
	};
	xgrow((void **)&t->open, &t->cap_open, t->n_open + 1, sizeof(*t->open));
	t->open[t->n_open++] = (struct gputrace_open){ .id = (uint64_t)id, .range = t->n_ranges++ };
	return true;
}

/* Ends usually close the latest start (push/pop): search from the top. */
static bool range_end(struct gputrace *t, const json_t *o)
{
	int64_t id = int_of(o, "id"), ts = int_of(o, "ts");
	if (id < 0 || ts < 0)
		return false;
	for (size_t i = t->n_open; i-- > 0;) {
		if (t->open[i].id != (uint64_t)id)
			continue;
		struct gputrace_range *r = &t->ranges[t->open[i].range];
		r->end_ns = ts < r->start_ns ? r->start_ns : ts;
		t->open[i] = t->open[--t->n_open];
		return true;
	}
	t->unmatched_ranges++;
	return true;
}

static bool add_end(struct gputrace *t, const json_t *o)
{
	struct gputrace_proc *p = proc_of(t, t->cur_pid);
	int64_t v;
	if ((v = int_of(o, "records")) >= 0)
		p->records = (uint64_t)v;
	if ((v = int_of(o, "dropped")) >= 0)
		p->dropped = (uint64_t)v;
	if ((v = int_of(o, "cupti_dropped")) >= 0)
		p->cupti_dropped = (uint64_t)v;
	p->complete = true;
	return true;
}

static bool add_process(struct gputrace *t, const json_t *o)
{
	int64_t pid = int_of(o, "pid");
	if (pid > 0 && pid <= 0x7fffffff)
		t->cur_pid = (int)pid;
	struct gputrace_proc *p = proc_of(t, t->cur_pid);
	p->ppid = (int)int_of(o, "ppid");
	p->clock_ok = !strcmp(str_of(o, "clock"), "monotonic");
	return true;
}

static bool add_record(struct gputrace *t, const json_t *o)
{
	const char *type = str_of(o, "type");
	if (!strcmp(type, "kernel"))
		return add_kernel(t, o);
	if (!strcmp(type, "memcpy"))
		return add_copy(t, o);
	if (!strcmp(type, "api"))
		return add_launch(t, o);
	if (!strcmp(type, "alloc"))
		return add_mem(t, o, 1);
	if (!strcmp(type, "free"))
		return add_mem(t, o, -1);
	if (!strcmp(type, "sync"))
		return add_sync(t, o);
	if (!strcmp(type, "range_start"))
		return range_start(t, o);
	if (!strcmp(type, "range_end"))
		return range_end(t, o);
	if (!strcmp(type, "process"))
		return add_process(t, o);
	if (!strcmp(type, "end"))
		return add_end(t, o);
	return !strcmp(type, "memset") || !strcmp(type, "note");
}

static void parse_line(struct gputrace *t, const char *line, size_t n)
{
	if (n == 0)
		return;
	if (events(t) >= GPUTRACE_MAX_EVENTS) {
		t->skipped++;
		return;
	}
	json_t *o = json_loadb(line, n, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o) || !add_record(t, o))
		t->bad_lines++;
	json_decref(o);
}

static void begin_file(struct gputrace *t, int pid)
{
	t->cur_pid = pid;
	t->n_open = 0;
	proc_of(t, pid);
}

/* Ranges still open when the file ends had no end: dropped, counted. */
static void end_file(struct gputrace *t)
{
	t->unmatched_ranges += t->n_open;
	t->n_open = 0;
}

void gputrace_parse(struct gputrace *t, int pid, const char *buf, size_t n)
{
	begin_file(t, pid);
	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t len = nl ? (size_t)(nl - buf) : n;
		parse_line(t, buf, len);
		buf += len + (nl != NULL);
		n -= len + (nl != NULL);
	}
	end_file(t);
}

static int pid_of_name(const char *name)
{
	char *end;
	errno = 0;
	long v = strtol(name, &end, 10);
	if (errno || end == name || strcmp(end, ".jsonl") || v <= 0 || v > 0x7fffffff)
		return -1;
	return (int)v;
}

static void read_file(struct gputrace *t, FILE *f, int pid)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	begin_file(t, pid);
	while ((len = getline(&line, &cap, f)) >= 0)
		parse_line(t, line, (size_t)len - (len > 0 && line[len - 1] == '\n'));
	end_file(t);
	free(line);
}

int gputrace_read_dir(struct gputrace *t, const char *dir, struct err *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_sys(e, "cannot open '%s'", dir);
	int files = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		int pid = pid_of_name(de->d_name);
		if (pid < 0)
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		FILE *f = fopen(path, "re");
		free(path);
		if (!f)
			continue;
		read_file(t, f, pid);
		fclose(f);
		files++;
	}
	closedir(d);
	return files;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_kernel(const void *a, const void *b)
{
	return cmp_i64(((const struct gputrace_kernel *)a)->start_ns, ((const struct gputrace_kernel *)b)->start_ns);
}

static int cmp_copy(const void *a, const void *b)
{
	return cmp_i64(((const struct gputrace_copy *)a)->start_ns, ((const struct gputrace_copy *)b)->start_ns);
}

static int cmp_mem(const void *a, const void *b)
{
	return cmp_i64(((const struct gputrace_mem *)a)->ts_ns, ((const struct gputrace_mem *)b)->ts_ns);
}

static int cmp_span(const void *a, const void *b)
{
	return cmp_i64(((const struct gputrace_span *)a)->start_ns, ((const struct gputrace_span *)b)->start_ns);
}

static int cmp_range(const void *a, const void *b)
{
	return cmp_i64(((const struct gputrace_range *)a)->start_ns, ((const struct gputrace_range *)b)->start_ns);
}

static int cmp_launch(const void *a, const void *b)
{
	const struct gputrace_launch *x = a, *y = b;
	return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid) : (x->corr > y->corr) - (x->corr < y->corr);
}

const struct gputrace_launch *gputrace_launch_of(const struct gputrace *t, int pid, uint32_t corr)
{
	struct gputrace_launch key = { .pid = pid, .corr = corr };
	return corr && t->n_launches ? bsearch(&key, t->launches, t->n_launches, sizeof(*t->launches), cmp_launch)
				     : NULL;
}

/* Each process's largest device memory held at once, from its own events. */
static void proc_totals(struct gputrace *t)
{
	for (size_t p = 0; p < t->n_procs; p++) {
		struct gputrace_proc *pr = &t->procs[p];
		int64_t level = 0, max = 0;
		for (size_t i = 0; i < t->n_mem; i++) {
			if (t->mem[i].pid != pr->pid)
				continue;
			level += t->mem[i].delta_bytes;
			if (level > max)
				max = level;
		}
		pr->mem_max_bytes = (uint64_t)max;
		for (size_t i = 0; i < t->n_kernels; i++) {
			if (t->kernels[i].pid != pr->pid)
				continue;
			pr->kernels++;
			pr->kernel_ms += (double)(t->kernels[i].end_ns - t->kernels[i].start_ns) / 1e6;
		}
	}
}

void gputrace_finish(struct gputrace *t)
{
	/* unmatched starts were counted; an unfinished range is no phase */
	size_t k = 0;
	for (size_t i = 0; i < t->n_ranges; i++) {
		if (t->ranges[i].end_ns >= 0) {
			t->ranges[k++] = t->ranges[i];
		} else {
			free(t->ranges[i].name);
			free(t->ranges[i].domain);
		}
	}
	t->n_ranges = k;
	if (t->n_kernels)
		qsort(t->kernels, t->n_kernels, sizeof(*t->kernels), cmp_kernel);
	if (t->n_copies)
		qsort(t->copies, t->n_copies, sizeof(*t->copies), cmp_copy);
	if (t->n_mem)
		qsort(t->mem, t->n_mem, sizeof(*t->mem), cmp_mem);
	if (t->n_syncs)
		qsort(t->syncs, t->n_syncs, sizeof(*t->syncs), cmp_span);
	if (t->n_ranges)
		qsort(t->ranges, t->n_ranges, sizeof(*t->ranges), cmp_range);
	if (t->n_launches)
		qsort(t->launches, t->n_launches, sizeof(*t->launches), cmp_launch);
	free(t->mem_level);
	t->mem_level = xmalloc((t->n_mem + 1) * sizeof(*t->mem_level));
	int64_t level = 0;
	for (size_t i = 0; i < t->n_mem; i++)
		t->mem_level[i] = level += t->mem[i].delta_bytes;
	proc_totals(t);
}

void gputrace_sum_init(struct gputrace_sum *s, const struct gputrace *t)
{
	memset(s, 0, sizeof(*s));
	size_t n = t->n_names ? t->n_names : 1;
	s->by_name_ms = xcalloc(n, sizeof(*s->by_name_ms));
	s->by_name_launches = xcalloc(n, sizeof(*s->by_name_launches));
	s->touched = xcalloc(n, sizeof(*s->touched));
}

void gputrace_sum_release(struct gputrace_sum *s)
{
	free(s->by_name_ms);
	free(s->by_name_launches);
	free(s->touched);
	memset(s, 0, sizeof(*s));
}

/* The first index whose start may overlap a window from `from` on: events
 * are sorted by start and none lasts longer than longest. */
#define FIRST_CANDIDATE(arr, n, field, from, longest, out)                        \
	do {                                                                     \
		int64_t from_ = (from) - (longest);                              \
		size_t lo_ = 0, hi_ = (n);                                       \
		while (lo_ < hi_) {                                              \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;                     \
			if ((arr)[mid_].field < from_)                           \
				lo_ = mid_ + 1;                                  \
			else                                                     \
				hi_ = mid_;                                      \
		}                                                                \
		(out) = lo_;                                                     \
	} while (0)

static double overlap_ms(int64_t s, int64_t e, int64_t a, int64_t b)
{
	int64_t lo = s > a ? s : a, hi = e < b ? e : b;
	return hi > lo ? (double)(hi - lo) / 1e6 : 0;
}

#define MAX_DEVICES 64

static void sum_kernels(struct gputrace_sum *s, const struct gputrace *t, int64_t a, int64_t b, int pid)
{
	/* per device, the union of kernel intervals clipped to [a, b) */
	uint32_t dev_id[MAX_DEVICES];
	int64_t cur_s[MAX_DEVICES], cur_e[MAX_DEVICES];
	size_t n_dev = 0, i;
	FIRST_CANDIDATE(t->kernels, t->n_kernels, start_ns, a, t->max_kernel_ns, i);
	for (; i < t->n_kernels && t->kernels[i].start_ns < b; i++) {
		const struct gputrace_kernel *k = &t->kernels[i];
		if (k->end_ns <= a || (pid > 0 && k->pid != pid))
			continue;
		double ms = overlap_ms(k->start_ns, k->end_ns, a, b);
		s->kernel_ms += ms;
		if (!s->by_name_ms[k->name] && !s->by_name_launches[k->name])
			s->touched[s->n_touched++] = k->name;
		s->by_name_ms[k->name] += ms;
		if (k->start_ns >= a) {
			s->launches++;
			s->by_name_launches[k->name]++;
		}
		int64_t ks = k->start_ns > a ? k->start_ns : a, ke = k->end_ns < b ? k->end_ns : b;
		size_t d = 0;
		while (d < n_dev && dev_id[d] != k->dev)
			d++;
		if (d == n_dev) {
			if (n_dev == MAX_DEVICES)
				continue;
			dev_id[n_dev] = k->dev;
			cur_s[n_dev] = ks;
			cur_e[n_dev++] = ke;
			continue;
		}
		if (ks > cur_e[d]) {
			s->busy_ms += (double)(cur_e[d] - cur_s[d]) / 1e6;
			cur_s[d] = ks;
			cur_e[d] = ke;
		} else if (ke > cur_e[d]) {
			cur_e[d] = ke;
		}
	}
	for (size_t d = 0; d < n_dev; d++)
		s->busy_ms += (double)(cur_e[d] - cur_s[d]) / 1e6;
}

/* A copy counts whole in the window where it started: its bytes are one
 * request of the program, and the GPU's end can read a few microseconds past
 * the host's return from a synchronous copy (the clocks are converted). */
static void sum_copies(struct gputrace_sum *s, const struct gputrace *t, int64_t a, int64_t b, int pid)
{
	size_t i;
	FIRST_CANDIDATE(t->copies, t->n_copies, start_ns, a, 0, i);
	for (; i < t->n_copies && t->copies[i].start_ns < b; i++) {
		const struct gputrace_copy *c = &t->copies[i];
		if (pid > 0 && c->pid != pid)
			continue;
		s->copy_bytes[c->kind] += (double)c->bytes;
		s->copy_ms[c->kind] += (double)(c->end_ns - c->start_ns) / 1e6;
		if (c->kind == GPUTRACE_H2D && c->pageable)
			s->h2d_pageable_bytes += (double)c->bytes;
	}
}

static void sum_syncs(struct gputrace_sum *s, const struct gputrace *t, int64_t a, int64_t b, int pid)
{
	size_t i;
	FIRST_CANDIDATE(t->syncs, t->n_syncs, start_ns, a, t->max_sync_ns, i);
	for (; i < t->n_syncs && t->syncs[i].start_ns < b; i++)
		if (pid <= 0 || t->syncs[i].pid == pid)
			s->sync_ms += overlap_ms(t->syncs[i].start_ns, t->syncs[i].end_ns, a, b);
}

/* Device memory in use at ts (after every event at or before it). */
static int64_t level_at(const struct gputrace *t, int64_t ts, int pid, size_t *idx)
{
	size_t lo = 0, hi = t->n_mem;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->mem[mid].ts_ns <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	*idx = lo;
	if (pid <= 0)
		return lo ? t->mem_level[lo - 1] : 0;
	int64_t level = 0;
	for (size_t i = 0; i < lo; i++)
		if (t->mem[i].pid == pid)
			level += t->mem[i].delta_bytes;
	return level;
}

static void sum_mem(struct gputrace_sum *s, const struct gputrace *t, int64_t a, int64_t b, int pid)
{
	if (!t->n_mem)
		return;
	size_t i, end;
	int64_t start = level_at(t, a, pid, &i), level = start, max = start;
	int64_t stop = level_at(t, b, pid, &end);
	for (; i < end; i++) {
		if (pid > 0 && t->mem[i].pid != pid)
			continue;
		level += t->mem[i].delta_bytes;
		if (level > max)
			max = level;
	}
	if (!s->mem) {
		s->mem_start_bytes = start;
		s->mem_max_bytes = max;
	}
	s->mem = true;
	s->mem_end_bytes = stop;
	if (max > s->mem_max_bytes)
		s->mem_max_bytes = max;
	s->mem_growth_bytes += stop - start;
}

void gputrace_sum_add(struct gputrace_sum *s, const struct gputrace *t, int64_t start_ns, int64_t end_ns, int pid)
{
	if (end_ns < start_ns)
		end_ns = start_ns;
	sum_kernels(s, t, start_ns, end_ns, pid);
	sum_copies(s, t, start_ns, end_ns, pid);
	sum_syncs(s, t, start_ns, end_ns, pid);
	sum_mem(s, t, start_ns, end_ns, pid);
	s->windows++;
}

static bool before(const struct gputrace_sum *s, uint32_t x, uint32_t y)
{
	if (s->by_name_ms[x] != s->by_name_ms[y])
		return s->by_name_ms[x] > s->by_name_ms[y];
	return x < y;
}

void gputrace_sum_finish(struct gputrace_sum *s)
{
	s->n_top = 0;
	for (size_t i = 0; i < s->n_touched; i++) {
		uint32_t k = s->touched[i];
		size_t at = s->n_top;
		while (at > 0 && before(s, k, s->top[at - 1].name))
			at--;
		if (at >= GPUTRACE_TOP_KERNELS)
			continue;
		if (s->n_top < GPUTRACE_TOP_KERNELS)
			s->n_top++;
		memmove(&s->top[at + 1], &s->top[at], (s->n_top - 1 - at) * sizeof(s->top[0]));
		s->top[at] = (struct gputrace_kernel_time){
			.name = k, .ms = s->by_name_ms[k], .launches = s->by_name_launches[k],
		};
	}
}
