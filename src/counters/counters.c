/* counters: perf_event_open groups on a forked, not yet exec'd child.
 *
 * Each event is opened with inherit=1 so the whole tree is counted, and each
 * group leader with disabled=1 + enable_on_exec=1 so counting starts at the
 * child's exec. Software events form one group read with PERF_FORMAT_GROUP
 * (one syscall); kernels that refuse GROUP with inherit get the same events
 * read one by one. Events the machine lacks or forbids are kept in the list
 * with their status, never dropped, so the record says what was not counted.
 * A running process (counters_attach) gets the same groups on each of its
 * threads, enabled at once, chained through ->next and summed when read.
 * The list is perf stat -e's: names go to libpfm4 (perf's generic names,
 * modifiers, raw rNNNN, the CPU's own events), PMU/terms/ to sysfs and
 * SYS:NAME to tracefs, so no table here goes stale.
 */
#include "counters/counters.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/xalloc.h"

#define TIMES_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* Longest event as written (a PMU event with its terms), and the most
 * distinct names a process keeps (counter_value.name points at them). */
#define EVENT_NAME_MAX 256
#define EVENT_NAMES_MAX 512

struct event {
	const char *name;            /* as written, interned: lives as long as the process */
	uint32_t type;
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
	int group;                   /* index of its {...} group, -1 for none */
	int resolve_errno;           /* known not countable before opening (an absent PMU) */
	int fd;
	enum counter_status status;
	int open_errno;
	bool user_only;
};

struct counters {
	size_t n;
	struct event ev[COUNTERS_MAX];
	int group_fd;                    /* software group leader, -1 if none */
	bool group_read;                 /* the leader has PERF_FORMAT_GROUP */
	size_t ngroup;
	size_t group_idx[COUNTERS_MAX];  /* ev[] index of each group member, in group order */
	bool exclude_kernel;             /* learnt from EACCES: count user space only */
	bool running;                    /* attached to a running task: count from the open, not an exec */
	struct counters *next;           /* attached: the same events on the process's next thread */
};

/* One copy of each event name for the process, so that counter values can
 * be copied and kept (phase counters) without owning strings. */
static const char *intern(const char *s, size_t len)
{
	static char *names[EVENT_NAMES_MAX];
	static size_t n;
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], s, len))
			return names[i];
	if (n == EVENT_NAMES_MAX)
		return NULL;
	return names[n++] = xstrndup(s, len);
}

/* Software events not in a {...} group share perfhunt's one software group. */
static bool shared_software(const struct event *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && ev->group < 0;
}

/* perf's modifiers: u, k, h pick the privilege levels counted (any given
 * excludes the others); G, H, p, P, S, D, I, W are accepted and change
 * nothing a count depends on. */
static int apply_modifiers(struct event *ev, const char *mods, size_t len, struct err *e)
{
	bool u = false, k = false, h = false;
	for (size_t i = 0; i < len; i++) {
		switch (mods[i]) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'G': case 'H': case 'p': case 'P': case 'S': case 'D': case 'I': case 'W': break;
		default:
			return err_set(e, "event '%s': unknown modifier '%c' (u, k, h, G, H, p)", ev->name, mods[i]);
		}
	}
	if (u || k || h) {
		ev->exclude_user = !u;
		ev->exclude_kernel = !k;
		ev->exclude_hv = !h;
	}
	return 0;
}

/* A small sysfs/tracefs file, its first line. Returns 0, or -1 with errno. */
static int read_small(const char *path, char *buf, size_t size)
{
	if (fdio_read_small(path, buf, size) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* perf's names, modifiers, raw rNNNN and the CPU's own events, through libpfm4. */
static bool resolve_pfm(struct event *ev, const char *spec)
{
	static int init = 1;
	if (init == 1)
		init = pfm_initialize();
	if (init != PFM_SUCCESS)
		return false;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return false;
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->exclude_user = attr.exclude_user;
	ev->exclude_kernel = attr.exclude_kernel;
	ev->exclude_hv = attr.exclude_hv;
	return true;
}

/* SYS:NAME[:mods], by its id under tracefs. 0, 1 (not a tracepoint) or -1. */
static int resolve_tracepoint(struct event *ev, const char *spec, struct err *e)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };
	const char *colon = strchr(spec, ':');
	if (!colon || colon == spec)
		return 1;
	const char *name = colon + 1, *mods = strchr(name, ':');
	size_t slen = (size_t)(colon - spec), nlen = mods ? (size_t)(mods - name) : strlen(name);
	if (!nlen || memchr(spec, '/', strlen(spec)) || memchr(spec, '.', slen))
		return 1;
	int why = ENOENT;
	for (size_t i = 0; i < sizeof(roots) / sizeof(*roots); i++) {
		char path[EVENT_NAME_MAX + 64], id[32];
		snprintf(path, sizeof(path), "%s/%.*s/%.*s/id", roots[i], (int)slen, spec, (int)nlen, name);
		if (read_small(path, id, sizeof(id)) == 0) {
			char *end;
			unsigned long long v = strtoull(id, &end, 10);
			if (end == id || *end)
				break;
			ev->type = PERF_TYPE_TRACEPOINT;
			ev->config = v;
			return mods ? apply_modifiers(ev, mods + 1, strlen(mods + 1), e) : 0;
		}
		if (errno == EACCES || errno == EPERM)
			why = errno;
	}
	if (why == ENOENT)
		return 1;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->resolve_errno = why; /* tracefs readable by root only: not permitted */
	return 0;
}

/* Puts value into the config bits a PMU's format file names ("config:0-7,21",
 * "config1:0-15"). Returns 0 or -1. */
static int put_format(struct event *ev, const char *format, uint64_t value)
{
	uint64_t *word = !strncmp(format, "config2:", 8) ? &ev->config2 :
			 !strncmp(format, "config1:", 8) ? &ev->config1 :
			 !strncmp(format, "config:", 7) ? &ev->config : NULL;
	if (!word)
		return -1;
	const char *p = strchr(format, ':') + 1;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return -1;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 63)
			return -1;
		for (unsigned long b = lo; b <= hi; b++, value >>= 1)
			*word = (*word & ~(1ull << b)) | ((value & 1) << b);
		if (*end != ',' && *end)
			return -1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* The terms between a PMU's slashes: an event the PMU names (its sysfs
 * events/ file holds more terms) or format terms, comma-separated. */
static int pmu_terms(struct event *ev, const char *dir, const char *terms, size_t len, int depth,
		     struct err *e)
{
	char buf[EVENT_NAME_MAX];
	snprintf(buf, sizeof(buf), "%.*s", (int)len, terms);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char path[PATH_MAX], text[256];
		char *eq = strchr(t, '=');
		if (eq)
			*eq = '\0';
		if (!strcmp(t, "name") || !strcmp(t, "period") || !strcmp(t, "freq"))
			continue; /* perf's own terms: nothing a count depends on */
		snprintf(path, sizeof(path), "%s/format/%s", dir, t);
		/* config, config1, config2: the words themselves, on any PMU */
		bool word = !strcmp(t, "config") || !strcmp(t, "config1") || !strcmp(t, "config2");
		if (word)
			snprintf(text, sizeof(text), "%s:0-63", t);
		if (word || read_small(path, text, sizeof(text)) == 0) {
			char *end;
			uint64_t v = eq ? strtoull(eq + 1, &end, 0) : 1;
			if ((eq && (end == eq + 1 || *end)) || put_format(ev, text, v) < 0)
				return err_set(e, "event '%s': bad term '%s%s%s'", ev->name, t, eq ? "=" : "",
					       eq ? eq + 1 : "");
			continue;
		}
		snprintf(path, sizeof(path), "%s/events/%s", dir, t);
		if (!eq && depth == 0 && read_small(path, text, sizeof(text)) == 0) {
			if (pmu_terms(ev, dir, text, strlen(text), 1, e) < 0)
				return -1;
			continue;
		}
		return err_set(e, "event '%s': the PMU has no term or event '%s'", ev->name, t);
	}
	return 0;
}

/* PMU/terms/[mods]: the PMU's type and format from sysfs. A PMU this
 * machine lacks keeps the event, not supported (a list meant for another
 * machine still runs here). 0, 1 (not this syntax) or -1. */
static int resolve_pmu(struct event *ev, const char *spec, struct err *e)
{
	const char *s1 = strchr(spec, '/');
	if (!s1)
		return 1;
	const char *s2 = strchr(s1 + 1, '/');
	if (!s2 || s1 == spec)
		return err_set(e, "event '%s': write a PMU event as PMU/terms/", ev->name);
	char dir[PATH_MAX], path[PATH_MAX + 8], type[32];
	snprintf(dir, sizeof(dir), "/sys/bus/event_source/devices/%.*s", (int)(s1 - spec), spec);
	snprintf(path, sizeof(path), "%s/type", dir);
	if (read_small(path, type, sizeof(type)) < 0) {
		ev->resolve_errno = ENOENT;
		return 0;
	}
	ev->type = (uint32_t)strtoul(type, NULL, 10);
	if (pmu_terms(ev, dir, s1 + 1, (size_t)(s2 - s1 - 1), 0, e) < 0)
		return -1;
	const char *mods = s2 + 1 + (s2[1] == ':');
	return apply_modifiers(ev, mods, strlen(mods), e);
}

/* One event of the list, as perf stat -e takes it. */
static int add_event(struct counters *c, const char *s, size_t len, int group, struct err *e)
{
	if (len == 0)
		return err_set(e, "empty event name");
	if (len >= EVENT_NAME_MAX)
		return err_set(e, "event '%.*s...': longer than %d bytes", 32, s, EVENT_NAME_MAX - 1);
	if (c->n == COUNTERS_MAX)
		return err_set(e, "too many events (at most %d)", COUNTERS_MAX);
	char spec[EVENT_NAME_MAX];
	snprintf(spec, sizeof(spec), "%.*s", (int)len, s);
	struct event *ev = &c->ev[c->n];
	*ev = (struct event){ .name = intern(s, len), .group = group, .fd = -1 };
	if (!ev->name)
		return err_set(e, "too many distinct event names (at most %d)", EVENT_NAMES_MAX);
	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].name == ev->name)
			return err_set(e, "event '%s' listed twice", ev->name);
	int r = resolve_pmu(ev, spec, e);
	if (r == 1 && !resolve_pfm(ev, spec))
		r = resolve_tracepoint(ev, spec, e);
	else if (r == 1)
		r = 0;
	if (r < 0)
		return -1;
	if (r == 1)
		return err_set(e, "unknown event '%s' (perf's names such as task-clock, cycles:u; "
			       "rNNNN; PMU/terms/; SYS:TRACEPOINT; {a,b} groups)", spec);
	c->n++;
	return 0;
}

/* perf stat -e's list: events separated by commas (not inside a PMU's
 * slashes), {a,b} groups, a group's :mods applying to its members. */
static int parse_events(struct counters *c, const char *list, struct err *e)
{
	const char *p = list;
	int group = -1, ngroups = 0;
	size_t first = 0;
	for (;;) {
		if (*p == '{') {
			if (group >= 0)
				return err_set(e, "event list '%s': groups do not nest", list);
			group = ngroups++;
			first = c->n;
			p++;
		}
		const char *s = p;
		bool slash = false;
		while (*p && (slash || (*p != ',' && *p != '}' && *p != '{'))) {
			slash ^= *p == '/';
			p++;
		}
		if (*p == '{')
			return err_set(e, "event list '%s': '{' inside an event", list);
		if (add_event(c, s, (size_t)(p - s), group, e) < 0)
			return -1;
		if (*p == '}') {
			if (group < 0)
				return err_set(e, "event list '%s': '}' without '{'", list);
			p++;
			if (*p == ':') {
				const char *m = ++p;
				while (*p && *p != ',')
					p++;
				for (size_t i = first; i < c->n; i++)
					if (apply_modifiers(&c->ev[i], m, (size_t)(p - m), e) < 0)
						return -1;
			}
			group = -1;
		}
		if (!*p)
			return group >= 0 ? err_set(e, "event list '%s': '{' without '}'", list) : 0;
		if (*p != ',')
			return err_set(e, "event list '%s': ',' expected after '}'", list);
		p++;
	}
}

static int perf_open(const struct event *ev, pid_t pid, int group_fd, uint64_t read_format,
		     bool exclude_kernel, bool running)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.config1 = ev->config1;
	attr.config2 = ev->config2;
	attr.read_format = read_format;
	attr.inherit = 1;
	/* Members follow their leader; only a leader waits for the exec (a
	 * running task has had its exec: it counts from now). */
	attr.disabled = group_fd < 0 && !running;
	attr.enable_on_exec = group_fd < 0 && !running;
	attr.exclude_user = ev->exclude_user;
	attr.exclude_kernel = ev->exclude_kernel || exclude_kernel;
	attr.exclude_hv = ev->exclude_hv || exclude_kernel;
	return (int)syscall(SYS_perf_event_open, &attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Opens ev (as leader when group_fd < 0). Returns 0 (the event's status says
 * whether it opened) or -1 for a condition that fails the whole open. */
static int open_event(struct counters *c, struct event *ev, pid_t pid, int group_fd,
		      uint64_t read_format, struct err *e)
{
	if (ev->resolve_errno) {
		ev->open_errno = ev->resolve_errno;
		ev->status = ev->resolve_errno == ENOENT ? COUNTER_NOT_SUPPORTED : COUNTER_NOT_PERMITTED;
		return 0;
	}
	int fd = perf_open(ev, pid, group_fd, read_format, c->exclude_kernel, c->running);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !c->exclude_kernel &&
	    !ev->exclude_kernel && !ev->exclude_user) {
		/* perf_event_paranoid >= 2 forbids kernel-mode counting to the
		 * unprivileged: count user space only, as perf stat does. */
		fd = perf_open(ev, pid, group_fd, read_format, true, c->running);
		if (fd >= 0)
			c->exclude_kernel = true;
	}
	if (fd >= 0) {
		ev->fd = fd;
		ev->status = COUNTER_NOT_COUNTED;
		ev->user_only = c->exclude_kernel || (ev->exclude_kernel && !ev->exclude_user);
		return 0;
	}
	ev->open_errno = errno;
	switch (errno) {
	case ESRCH:
		return err_sys(e, "cannot count events of process %d", (int)pid);
	case EMFILE:
	case ENFILE:
		return err_sys(e, "cannot open event '%s'", ev->name);
	case EACCES:
	case EPERM:
		ev->status = COUNTER_NOT_PERMITTED;
		return 0;
	default:
		/* ENOENT, EOPNOTSUPP, ENODEV, ENOSYS (no perf_event_open at all,
		 * e.g. under seccomp), EINVAL: the machine cannot count it. */
		ev->status = COUNTER_NOT_SUPPORTED;
		return 0;
	}
}

static int open_software_group(struct counters *c, pid_t pid, struct err *e)
{
	c->group_read = true;
	for (size_t i = 0; i < c->n; i++) {
		struct event *ev = &c->ev[i];
		if (!shared_software(ev))
			continue;
		uint64_t fmt = TIMES_FORMAT | (c->group_read ? PERF_FORMAT_GROUP : 0);
		if (open_event(c, ev, pid, c->group_fd, fmt, e) < 0)
			return -1;
		if (ev->fd < 0 && c->group_fd < 0 && ev->open_errno == EINVAL && c->group_read) {
			/* Older kernels refuse PERF_FORMAT_GROUP with inherit. */
			c->group_read = false;
			ev->open_errno = 0;
			if (open_event(c, ev, pid, -1, TIMES_FORMAT, e) < 0)
				return -1;
		}
		if (ev->fd < 0)
			continue;
		if (c->group_fd < 0)
			c->group_fd = ev->fd;
		c->group_idx[c->ngroup++] = i;
	}
	return 0;
}

int counters_check_events(const char *event_list, struct err *e)
{
	struct counters c = { 0 };
	return parse_events(&c, event_list ? event_list : COUNTERS_DEFAULT_EVENTS, e);
}

/* Opens the event list on one task (a forked child, or a running thread). */
static int open_task(struct counters **out, pid_t pid, const char *event_list, bool running,
		     struct err *e)
{
	*out = NULL;
	struct counters *c = xcalloc(1, sizeof(*c));
	c->group_fd = -1;
	c->running = running;
	if (parse_events(c, event_list ? event_list : COUNTERS_DEFAULT_EVENTS, e) < 0)
		goto fail;
	if (open_software_group(c, pid, e) < 0)
		goto fail;
	/* Each other event leads its own group, so that the kernel can
	 * multiplex them when there are more events than PMU counters (a
	 * group that does not fit would never count at all), unless the list
	 * groups them with {...}: then the first opened leads its members. */
	int leader[COUNTERS_MAX];
	for (size_t i = 0; i < COUNTERS_MAX; i++)
		leader[i] = -1;
	for (size_t i = 0; i < c->n; i++) {
		struct event *ev = &c->ev[i];
		if (shared_software(ev))
			continue;
		int group_fd = ev->group >= 0 ? leader[ev->group] : -1;
		if (open_event(c, ev, pid, group_fd, TIMES_FORMAT, e) < 0)
			goto fail;
		if (ev->group >= 0 && group_fd < 0 && ev->fd >= 0)
			leader[ev->group] = ev->fd;
	}
	*out = c;
	return 0;
fail:
	counters_close(c);
	return -1;
}

int counters_open(struct counters **out, pid_t pid, const char *event_list, struct err *e)
{
	return open_task(out, pid, event_list, false, e);
}

int counters_attach(struct counters **out, pid_t pid, const char *event_list, struct err *e)
{
	*out = NULL;
	char path[40];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return err_sys(e, "cannot count events of process %d", (int)pid);
	struct counters *head = NULL, **tail = &head;
	size_t tasks = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d)) && tasks < COUNTERS_MAX_TASKS) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		struct err te;
		struct counters *c;
		if (open_task(&c, (pid_t)atoi(de->d_name), event_list, true, &te) < 0) {
			if (errno == ESRCH && head) /* the thread ended meanwhile */
				continue;
			*e = te;
			rc = -1;
			break;
		}
		*tail = c;
		tail = &c->next;
		tasks++;
	}
	closedir(d);
	if (rc == 0 && !head)
		rc = err_set(e, "cannot count events of process %d: no threads left", (int)pid);
	if (rc < 0) {
		counters_close(head);
		return -1;
	}
	*out = head;
	return 0;
}

static void set_value(struct counter_value *v, uint64_t raw, uint64_t enabled_ns,
		      uint64_t running_ns)
{
	v->raw = raw;
	v->enabled_ns = enabled_ns;
	v->running_ns = running_ns;
	if (running_ns == 0) {
		v->status = COUNTER_NOT_COUNTED;
		v->value = 0;
		v->scaled = false;
		return;
	}
	v->status = COUNTER_COUNTED;
	v->scaled = running_ns < enabled_ns;
	v->value = v->scaled ? (double)raw * ((double)enabled_ns / (double)running_ns) : (double)raw;
}

static const struct counter_value *find_value(const struct counter_values *vs, const char *name)
{
	for (size_t i = 0; i < vs->n; i++)
		if (strcmp(vs->v[i].name, name) == 0)
			return vs->v[i].status == COUNTER_COUNTED ? &vs->v[i] : NULL;
	return NULL;
}

static double ratio(const struct counter_values *vs, const char *num, const char *den, double mul)
{
	const struct counter_value *a = find_value(vs, num), *b = find_value(vs, den);
	if (!a || !b || b->value <= 0)
		return NAN;
	return a->value / b->value * mul;
}

static void derive(struct counter_values *vs)
{
	vs->ipc = ratio(vs, "instructions", "cycles", 1);
	vs->cache_miss_pct = ratio(vs, "cache-misses", "cache-references", 100);
	vs->branch_miss_pct = ratio(vs, "branch-misses", "branches", 100);
}

static int read_u64s(int fd, uint64_t *buf, size_t count, const char *name, struct err *e)
{
	ssize_t n;
	/* While an inherited child event is being torn down (a process of the tree
	 * exiting) a group read answers ECHILD for a moment: read again, briefly. */
	for (int tries = 0;; tries++) {
		n = read(fd, buf, count * sizeof(uint64_t));
		if (n >= 0 || errno != ECHILD || tries == 50)
			break;
		struct timespec ts = { 0, 200000L };
		nanosleep(&ts, NULL);
	}
	if (n < 0)
		return err_sys(e, "cannot read event '%s'", name);
	if ((size_t)n != count * sizeof(uint64_t))
		return err_set(e, "cannot read event '%s': short read (%zd bytes)", name, n);
	return 0;
}

/* Adds one thread's reading into the process's: counts and times add, a
 * counted event stays counted. */
static void add_values(struct counter_values *to, const struct counter_values *v)
{
	for (size_t i = 0; i < to->n && i < v->n; i++) {
		struct counter_value *a = &to->v[i];
		const struct counter_value *b = &v->v[i];
		if (b->status != COUNTER_COUNTED)
			continue;
		if (a->status != COUNTER_COUNTED) {
			*a = *b;
			continue;
		}
		a->raw += b->raw;
		a->value += b->value;
		a->enabled_ns += b->enabled_ns;
		a->running_ns += b->running_ns;
		a->scaled = a->scaled || b->scaled;
	}
}

static int read_task(struct counters *c, struct counter_values *out, struct err *e);

int counters_read(struct counters *c, struct counter_values *out, struct err *e)
{
	if (read_task(c, out, e) < 0)
		return -1;
	for (struct counters *t = c->next; t; t = t->next) {
		struct counter_values v;
		if (read_task(t, &v, e) < 0)
			return -1;
		add_values(out, &v);
	}
	derive(out);
	return 0;
}

/* One task's events, in event-list order. */
static int read_task(struct counters *c, struct counter_values *out, struct err *e)
{
	uint64_t buf[3 + COUNTERS_MAX];
	out->n = c->n;
	for (size_t i = 0; i < c->n; i++) {
		const struct event *ev = &c->ev[i];
		struct counter_value *v = &out->v[i];
		*v = (struct counter_value){
			.name = ev->name,
			.unit = ev->type == PERF_TYPE_SOFTWARE && (ev->config == PERF_COUNT_SW_TASK_CLOCK ||
								   ev->config == PERF_COUNT_SW_CPU_CLOCK) ? "ns" : "",
			.status = ev->status,
			.open_errno = ev->open_errno,
			.hardware = ev->type != PERF_TYPE_SOFTWARE && ev->type != PERF_TYPE_TRACEPOINT,
			.user_only = ev->user_only,
		};
		if (ev->fd < 0 || (c->group_read && shared_software(ev)))
			continue;
		if (read_u64s(ev->fd, buf, 3, ev->name, e) < 0)
			return -1;
		set_value(v, buf[0], buf[1], buf[2]);
	}
	if (c->group_read && c->ngroup > 0) {
		/* { nr, time_enabled, time_running, value[nr] } */
		if (read_u64s(c->group_fd, buf, 3 + c->ngroup, "software group", e) < 0)
			return -1;
		if (buf[0] != c->ngroup)
			return err_set(e, "software group: %llu values read, %zu expected",
				       (unsigned long long)buf[0], c->ngroup);
		for (size_t k = 0; k < c->ngroup; k++)
			set_value(&out->v[c->group_idx[k]], buf[3 + k], buf[1], buf[2]);
	}
	derive(out);
	return 0;
}

void counters_delta(const struct counter_values *begin, const struct counter_values *end,
		    struct counter_values *out)
{
	*out = *end;
	for (size_t i = 0; i < end->n && i < begin->n; i++) {
		const struct counter_value *a = &begin->v[i];
		struct counter_value *v = &out->v[i];
		if (v->status != COUNTER_COUNTED || a->status != COUNTER_COUNTED)
			continue;
		v->raw -= a->raw;
		v->value -= a->value;
		v->enabled_ns -= a->enabled_ns;
		v->running_ns -= a->running_ns;
		v->scaled = v->scaled || a->scaled;
	}
	derive(out);
}

const char *counters_status_name(enum counter_status s)
{
	switch (s) {
	case COUNTER_COUNTED:
		return "counted";
	case COUNTER_NOT_COUNTED:
		return "not counted";
	case COUNTER_NOT_SUPPORTED:
		return "not supported";
	case COUNTER_NOT_PERMITTED:
		return "not permitted";
	}
	return "?";
}

/* Sets key to a number rounded to 4 decimals, or leaves it out when NAN. */
static void set_real(json_t *o, const char *key, double x)
{
	if (isfinite(x))
		json_object_set_new(o, key, json_real(round(x * 1e4) / 1e4));
}

json_t *counters_to_json(const struct counter_values *vs)
{
	json_t *obj = json_object();
	for (size_t i = 0; i < vs->n; i++) {
		const struct counter_value *v = &vs->v[i];
		json_t *o = json_object();
		bool counted = v->status == COUNTER_COUNTED;
		json_object_set_new(o, "value",
				    counted ? json_integer((json_int_t)llround(v->value)) : json_null());
		json_object_set_new(o, "supported", json_boolean(v->status == COUNTER_COUNTED ||
								  v->status == COUNTER_NOT_COUNTED));
		json_object_set_new(o, "status", json_string(counters_status_name(v->status)));
		json_object_set_new(o, "scaled", json_boolean(v->scaled));
		if (v->scaled)
			set_real(o, "running_pct", 100.0 * (double)v->running_ns / (double)v->enabled_ns);
		if (*v->unit)
			json_object_set_new(o, "unit", json_string(v->unit));
		if (v->user_only)
			json_object_set_new(o, "user_only", json_true());
		if (v->open_errno)
			json_object_set_new(o, "error", json_string(strerror(v->open_errno)));
		if (strcmp(v->name, "instructions") == 0)
			set_real(o, "ipc", vs->ipc);
		else if (strcmp(v->name, "cache-misses") == 0)
			set_real(o, "miss_pct", vs->cache_miss_pct);
		else if (strcmp(v->name, "branch-misses") == 0)
			set_real(o, "miss_pct", vs->branch_miss_pct);
		json_object_set_new(obj, v->name, o);
	}
	return obj;
}

void counters_close(struct counters *c)
{
	while (c) {
		struct counters *next = c->next;
		for (size_t i = 0; i < c->n; i++)
			if (c->ev[i].fd >= 0)
				close(c->ev[i].fd);
		free(c);
		c = next;
	}
}
