/* perfscript: a line parser for `perf script -F PERFSCRIPT_FIELDS --ns`.
 *
 * A header line starts at column 0: "COMM PID/TID  SEC.NSEC:  PERIOD EVENT:"
 * (COMM, the thread's command name, may hold spaces: it is read from the right).
 * A frame line starts with white space: "ADDR SYM (DSO)" — SYM may hold
 * spaces and parentheses (C++ signatures), so the DSO is the last
 * parenthesised group at the end of the line. A context switch record
 * ("... PERF_RECORD_SWITCH OUT preempt") is a line of its own, and so is a task
 * record ("... PERF_RECORD_FORK(CPID:CTID):(PPID:PTID)", "PERF_RECORD_COMM",
 * "PERF_RECORD_EXIT"). Anything else is a bad line.
 */
#include "profile/perfscript.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void perfscript_init(struct perfscript *p, perfscript_fn fn, void *arg)
{
	memset(p, 0, sizeof(*p));
	p->fn = fn;
	p->arg = arg;
}

static void end_sample(struct perfscript *p)
{
	if (!p->in_sample)
		return;
	p->in_sample = false;
	p->samples++;
	if (p->fn)
		p->fn(p->arg, &p->cur);
}

static void copy_bounded(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

static const char *skip_ws(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static const char *token_end(const char *s, const char *end)
{
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	return s;
}

/* Digits [s, end) as a number; false unless all digits and it fits. */
static bool parse_u64(const char *s, const char *end, uint64_t *v)
{
	if (s == end || end - s > 19)
		return false;
	uint64_t x = 0;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

/* "SEC.NSEC:" (nine digits of nanoseconds with --ns; fewer are scaled). */
static bool parse_time(const char *s, const char *end, int64_t *ns)
{
	if (end - s < 2 || end[-1] != ':')
		return false;
	end--;
	const char *dot = memchr(s, '.', (size_t)(end - s));
	uint64_t sec, frac = 0;
	if (!dot || !parse_u64(s, dot, &sec) || sec > 9000000000ull)
		return false;
	size_t nd = (size_t)(end - dot - 1);
	if (nd > 9 || (nd && !parse_u64(dot + 1, end, &frac)))
		return false;
	for (size_t i = nd; i < 9; i++)
		frac *= 10;
	*ns = (int64_t)(sec * 1000000000ull + frac);
	return true;
}

/* The last token of [s, end): *ts..*te, end trimmed of white space first;
 * false when there is none. */
static bool last_token(const char *s, const char *end, const char **ts, const char **te)
{
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	const char *b = end;
	while (b > s && b[-1] != ' ' && b[-1] != '\t')
		b--;
	*ts = b;
	*te = end;
	return b < end;
}

/* A header's fields. */
struct header {
	char comm[sizeof(((struct perfscript_sample *)0)->comm)];
	int32_t pid, tid;
	int64_t time_ns;
	uint64_t period;
	char event[sizeof(((struct perfscript_sample *)0)->event)];
};

/* "COMM PID/TID SEC.NSEC:" ending at end, read from the right (COMM may
 * hold spaces, or be absent). */
static bool parse_prefix(const char *s, const char *end, struct header *h)
{
	const char *ts, *te;
	if (!last_token(s, end, &ts, &te) || !parse_time(ts, te, &h->time_ns) || !last_token(s, ts, &ts, &te))
		return false;
	const char *slash = memchr(ts, '/', (size_t)(te - ts));
	uint64_t pid, tid;
	if (!slash || !parse_u64(ts, slash, &pid) || !parse_u64(slash + 1, te, &tid) || pid > INT32_MAX ||
	    tid > INT32_MAX)
		return false;
	h->pid = (int32_t)pid;
	h->tid = (int32_t)tid;
	const char *comm_end = ts;
	while (comm_end > s && (comm_end[-1] == ' ' || comm_end[-1] == '\t'))
		comm_end--;
	copy_bounded(h->comm, sizeof(h->comm), s, (size_t)(comm_end - s));
	return true;
}

/* Read from the right, since the command name that leads it may hold
 * spaces: "COMM PID/TID SEC.NSEC: [PERIOD] EVENT:" (COMM may be absent). */
static bool parse_header_fields(const char *s, const char *end, struct header *h)
{
	const char *ts, *te;
	if (!last_token(s, end, &ts, &te) || te - ts < 2 || te[-1] != ':')
		return false;
	const char *ev = ts, *ev_end = te - 1;
	h->period = 0;
	if (!last_token(s, ts, &ts, &te))
		return false;
	if (parse_u64(ts, te, &h->period) && !last_token(s, ts, &ts, &te)) /* the period comes before the event */
		return false;
	if (!parse_prefix(s, te, h))
		return false;
	copy_bounded(h->event, sizeof(h->event), ev, (size_t)(ev_end - ev));
	return true;
}

/* Where tag (n bytes) first starts in [s, end), or NULL. */
static const char *find_tag(const char *s, const char *end, const char *tag, size_t n)
{
	for (const char *q = s; q + n <= end; q++)
		if (!memcmp(q, tag, n))
			return q;
	return NULL;
}

/* Delivers a record without a stack: kind, at the header's thread and time. */
static void deliver_record(struct perfscript *p, const struct header *h, enum perfscript_kind kind, int32_t ppid)
{
	struct perfscript_sample *c = &p->cur;
	c->kind = kind;
	memcpy(c->comm, h->comm, sizeof(c->comm));
	c->event[0] = '\0';
	c->pid = h->pid;
	c->tid = h->tid;
	c->ppid = ppid;
	c->time_ns = h->time_ns;
	c->period = 0;
	c->nframes = 0;
	c->truncated = false;
	p->in_sample = true;
	end_sample(p);
}

/* "(A:B)" at *s: the two numbers, *s moved past it. */
static bool parse_pair(const char **s, const char *end, int32_t *a, int32_t *b)
{
	const char *q = *s;
	if (q >= end || *q != '(')
		return false;
	const char *colon = memchr(q, ':', (size_t)(end - q)), *close = memchr(q, ')', (size_t)(end - q));
	uint64_t x, y;
	if (!colon || !close || colon > close || !parse_u64(q + 1, colon, &x) || !parse_u64(colon + 1, close, &y) ||
	    x > INT32_MAX || y > INT32_MAX)
		return false;
	*a = (int32_t)x;
	*b = (int32_t)y;
	*s = close + 1;
	return true;
}

/* "COMM PID/TID SEC.NSEC: PERF_RECORD_FORK(CPID:CTID):(PPID:PTID)": delivered
 * as the child's record; "... PERF_RECORD_COMM..." and "... PERF_RECORD_EXIT..."
 * are understood and not delivered. */
static bool parse_task(struct perfscript *p, const char *s, const char *end)
{
	static const char fork_tag[] = " PERF_RECORD_FORK", comm_tag[] = " PERF_RECORD_COMM",
			  exit_tag[] = " PERF_RECORD_EXIT";
	struct header h;
	const char *at = find_tag(s, end, fork_tag, sizeof(fork_tag) - 1);
	if (!at) {
		if (!(at = find_tag(s, end, comm_tag, sizeof(comm_tag) - 1)) &&
		    !(at = find_tag(s, end, exit_tag, sizeof(exit_tag) - 1)))
			return false;
		return parse_prefix(s, at, &h);
	}
	const char *q = at + sizeof(fork_tag) - 1;
	int32_t cpid, ctid, ppid, ptid; /* the parent's thread is not needed */
	if (!parse_pair(&q, end, &cpid, &ctid) || q >= end || *q++ != ':' || !parse_pair(&q, end, &ppid, &ptid) ||
	    !parse_prefix(s, at, &h))
		return false;
	h.pid = cpid;
	h.tid = ctid;
	deliver_record(p, &h, PERFSCRIPT_FORK, ppid);
	return true;
}

/* "COMM PID/TID SEC.NSEC: PERF_RECORD_SWITCH[_CPU_WIDE] IN|OUT [preempt] ...":
 * the record delivered at once, without a stack. */
static bool parse_switch(struct perfscript *p, const char *s, const char *end)
{
	static const char tag[] = " PERF_RECORD_SWITCH";
	const char *at = find_tag(s, end, tag, sizeof(tag) - 1);
	if (!at)
		return false;
	const char *w = at + sizeof(tag) - 1;
	if (end - w >= 9 && !memcmp(w, "_CPU_WIDE", 9))
		w += 9;
	w = skip_ws(w, end);
	const char *we = token_end(w, end);
	enum perfscript_kind kind;
	if (we - w == 2 && !memcmp(w, "IN", 2))
		kind = PERFSCRIPT_SWITCH_IN;
	else if (we - w == 3 && !memcmp(w, "OUT", 3))
		kind = PERFSCRIPT_SWITCH_OUT;
	else
		return false;
	const char *f = skip_ws(we, end);
	if (kind == PERFSCRIPT_SWITCH_OUT && end - f >= 7 && !memcmp(f, "preempt", 7))
		kind = PERFSCRIPT_SWITCH_PREEMPT;
	struct header h;
	if (!parse_prefix(s, at, &h))
		return false;
	deliver_record(p, &h, kind, 0);
	return true;
}

static bool parse_header(struct perfscript *p, const char *s, const char *end)
{
	struct header h;
	if (!parse_header_fields(s, end, &h))
		return false;
	struct perfscript_sample *c = &p->cur;
	c->kind = PERFSCRIPT_SAMPLE;
	c->ppid = 0;
	memcpy(c->comm, h.comm, sizeof(c->comm));
	memcpy(c->event, h.event, sizeof(c->event));
	c->pid = h.pid;
	c->tid = h.tid;
	c->time_ns = h.time_ns;
	c->period = h.period;
	c->nframes = 0;
	c->truncated = false;
	return true;
}

static bool parse_frame(struct perfscript *p, const char *s, const char *end)
{
	s = skip_ws(s, end);
	const char *t = token_end(s, end);
	if (s == t || t - s > 16)
		return false;
	uint64_t ip = 0;
	for (const char *q = s; q < t; q++) {
		int d = *q >= '0' && *q <= '9' ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : -1;
		if (d < 0)
			return false;
		ip = ip << 4 | (uint64_t)d;
	}
	s = skip_ws(t, end);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	const char *sym_end = end, *dso = end, *dso_end = end;
	if (end > s && end[-1] == ')') { /* the last " (" opens the DSO */
		for (const char *q = end - 1; q > s; q--) {
			if (*q == '(' && q[-1] == ' ') {
				sym_end = q - 1;
				dso = q + 1;
				dso_end = end - 1;
				break;
			}
		}
	}
	struct perfscript_sample *c = &p->cur;
	if (c->nframes == PERFSCRIPT_MAX_FRAMES) {
		c->truncated = true;
		return true;
	}
	struct perfscript_frame *f = &c->frames[c->nframes++];
	f->ip = ip;
	if (sym_end == s)
		copy_bounded(f->sym, sizeof(f->sym), "[unknown]", 9);
	else
		copy_bounded(f->sym, sizeof(f->sym), s, (size_t)(sym_end - s));
	copy_bounded(f->dso, sizeof(f->dso), dso, (size_t)(dso_end - dso));
	f->kernel = !strncmp(f->dso, "[kernel", 7) || (ip >> 47) == 0x1ffff;
	return true;
}

/* A header however it starts (a right-aligned PID, a command name with
 * leading spaces): its fields parse. */
static bool looks_like_header(const char *line, const char *end)
{
	struct header h;
	return parse_header_fields(skip_ws(line, end), end, &h);
}

void perfscript_line(struct perfscript *p, const char *line, size_t n)
{
	const char *end = line + n;
	while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end == line || skip_ws(line, end) == end) {
		end_sample(p);
		return;
	}
	/* perf indents frames with a tab; a header's PID is right-aligned, so a
	 * PID shorter than the column starts its line with spaces */
	if (*line == '\t' || (*line == ' ' && p->in_sample && !looks_like_header(line, end))) {
		if (!p->in_sample || !parse_frame(p, line, end))
			p->bad_lines++;
		return;
	}
	end_sample(p);
	if (parse_header(p, skip_ws(line, end), end))
		p->in_sample = true;
	else if (!parse_switch(p, skip_ws(line, end), end) && !parse_task(p, skip_ws(line, end), end))
		p->bad_lines++;
}

void perfscript_feed(struct perfscript *p, const char *buf, size_t n)
{
	const char *end = buf + n;
	while (buf < end) {
		const char *nl = memchr(buf, '\n', (size_t)(end - buf));
		const char *le = nl ? nl : end;
		perfscript_line(p, buf, (size_t)(le - buf));
		buf = nl ? nl + 1 : end;
	}
}

void perfscript_finish(struct perfscript *p)
{
	end_sample(p);
}

void perfscript_comm_name(const struct perfscript_sample *sm, char *buf, size_t n)
{
	perfscript_comm_frame(sm->comm, buf, n);
}

void perfscript_comm_frame(const char *comm, char *buf, size_t n)
{
	if (n == 0)
		return;
	snprintf(buf, n, "%s", comm[0] ? comm : "[unknown process]");
	for (char *q = buf; *q; q++)
		if (*q == ';' || (unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '_';
}

void perfscript_frame_name(const struct perfscript_frame *f, char *buf, size_t n)
{
	if (n == 0)
		return;
	if (strcmp(f->sym, "[unknown]")) {
		snprintf(buf, n, "%s%s", f->sym, f->kernel ? "_[k]" : "");
	} else {
		const char *base = strrchr(f->dso, '/');
		base = base ? base + 1 : f->dso[0] ? f->dso : "?";
		snprintf(buf, n, "%s+0x%llx%s", base, (unsigned long long)f->ip, f->kernel ? "_[k]" : "");
	}
	for (char *q = buf; *q; q++)
		if (*q == ';' || (unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '_';
}
