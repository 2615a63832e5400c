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
 */
#include "counters/counters.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"

struct event_def {
	const char *name;
	const char *alias;
	uint32_t type;
	uint64_t config;
};

/* perf's names (and its aliases) for the generic events. */
static const struct event_def event_defs[] = {
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define TIMES_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

struct event {
	const struct event_def *def;
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

static const struct event_def *find_event(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(event_defs) / sizeof(event_defs[0]); i++) {
		const struct event_def *d = &event_defs[i];
		if ((strlen(d->name) == len && memcmp(d->name, name, len) == 0) ||
		    (d->alias && strlen(d->alias) == len && memcmp(d->alias, name, len) == 0))
			return d;
	}
	return NULL;
}

static int parse_events(struct counters *c, const char *list, struct err *e)
{
	const char *p = list;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			return err_set(e, "event list '%s': empty event name", list);
		const struct event_def *d = find_event(p, len);
		if (!d)
			return err_set(e, "unknown event '%.*s' (perf names: task-clock, page-faults, "
				       "cycles, instructions, cache-misses, ...)", (int)len, p);
		for (size_t i = 0; i < c->n; i++)
			if (c->ev[i].def == d)
				return err_set(e, "event '%s' listed twice", d->name);
		if (c->n == COUNTERS_MAX)
			return err_set(e, "too many events (at most %d)", COUNTERS_MAX);
		c->ev[c->n++] = (struct event){ .def = d, .fd = -1 };
		if (!end)
			return 0;
		p = end + 1;
	}
}

static int perf_open(const struct event_def *d, pid_t pid, int group_fd, uint64_t read_format,
		     bool exclude_kernel, bool running)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = d->type;
	attr.config = d->config;
	attr.read_format = read_format;
	attr.inherit = 1;
	/* Members follow their leader; only a leader waits for the exec (a
	 * running task has had its exec: it counts from now). */
	attr.disabled = group_fd < 0 && !running;
	attr.enable_on_exec = group_fd < 0 && !running;
	attr.exclude_kernel = exclude_kernel;
	attr.exclude_hv = exclude_kernel;
	return (int)syscall(SYS_perf_event_open, &attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Opens ev (as leader when group_fd < 0). Returns 0 (the event's status says
 * whether it opened) or -1 for a condition that fails the whole open. */
static int open_event(struct counters *c, struct event *ev, pid_t pid, int group_fd,
		      uint64_t read_format, struct err *e)
{
	int fd = perf_open(ev->def, pid, group_fd, read_format, c->exclude_kernel, c->running);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !c->exclude_kernel) {
		/* perf_event_paranoid >= 2 forbids kernel-mode counting to the
		 * unprivileged: count user space only, as perf stat does. */
		fd = perf_open(ev->def, pid, group_fd, read_format, true, c->running);
		if (fd >= 0)
			c->exclude_kernel = true;
	}
	if (fd >= 0) {
		ev->fd = fd;
		ev->status = COUNTER_NOT_COUNTED;
		ev->user_only = c->exclude_kernel;
		return 0;
	}
	ev->open_errno = errno;
	switch (errno) {
	case ESRCH:
		return err_sys(e, "cannot count events of process %d", (int)pid);
	case EMFILE:
	case ENFILE:
		return err_sys(e, "cannot open event '%s'", ev->def->name);
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
		if (ev->def->type != PERF_TYPE_SOFTWARE)
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
	/* Each hardware event leads its own group, so that the kernel can
	 * multiplex them when there are more events than PMU counters (a
	 * group that does not fit would never count at all). */
	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].def->type != PERF_TYPE_SOFTWARE &&
		    open_event(c, &c->ev[i], pid, -1, TIMES_FORMAT, e) < 0)
			goto fail;
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
			.name = ev->def->name,
			.unit = ev->def->type == PERF_TYPE_SOFTWARE &&
					(ev->def->config == PERF_COUNT_SW_TASK_CLOCK ||
					 ev->def->config == PERF_COUNT_SW_CPU_CLOCK) ? "ns" : "",
			.status = ev->status,
			.open_errno = ev->open_errno,
			.hardware = ev->def->type == PERF_TYPE_HARDWARE,
			.user_only = ev->user_only,
		};
		if (ev->fd < 0 || (c->group_read && ev->def->type == PERF_TYPE_SOFTWARE))
			continue;
		if (read_u64s(ev->fd, buf, 3, ev->def->name, e) < 0)
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
