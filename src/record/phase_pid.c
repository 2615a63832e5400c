/* phase_pid: phases bound to processes by their own lines or their lanes. */
#include "record/phase_pid.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* The known process a phase names itself: a `pid` value of its lines or its
 * lane "pid=N"; 0 when it names none. */
static int named_pid(const struct phase_pids *l, const json_t *ph)
{
	const json_t *v = json_object_get(json_object_get(ph, "values"), "pid");
	if (json_is_integer(v))
		return l->known(l->arg, (long)json_integer_value(v)) ? (int)json_integer_value(v) : 0;
	const char *lane = json_string_value(json_object_get(ph, "lane"));
	char *end;
	if (lane && !strncmp(lane, "pid=", 4)) {
		long pid = strtol(lane + 4, &end, 10);
		if (end > lane + 4 && !*end && l->known(l->arg, pid))
			return (int)pid;
	}
	return 0;
}

static int cmp_lane(const void *a, const void *b)
{
	return strcmp(((const struct phase_pid_lane *)a)->lane, ((const struct phase_pid_lane *)b)->lane);
}

void phase_pids_bind(struct phase_pids *l, const json_t *phases, phase_pid_known_fn *known, void *arg)
{
	size_t i, k = 0;
	const json_t *ph;
	l->known = known;
	l->arg = arg;
	l->v = xcalloc(json_array_size(phases) + 1, sizeof(*l->v));
	json_array_foreach(phases, i, ph) {
		const char *lane = json_string_value(json_object_get(ph, "lane"));
		int pid = lane && *lane ? named_pid(l, ph) : 0;
		if (pid)
			l->v[k++] = (struct phase_pid_lane){ lane, pid };
	}
	if (k)
		qsort(l->v, k, sizeof(*l->v), cmp_lane);
	l->n = 0;
	for (i = 0; i < k; i++) {
		if (l->n && !strcmp(l->v[l->n - 1].lane, l->v[i].lane)) {
			if (l->v[l->n - 1].pid != l->v[i].pid)
				l->v[l->n - 1].pid = -1;
			continue;
		}
		l->v[l->n++] = l->v[i];
	}
}

void phase_pids_release(struct phase_pids *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int phase_pids_of(const struct phase_pids *l, const json_t *ph)
{
	int pid = named_pid(l, ph);
	if (pid)
		return pid;
	struct phase_pid_lane key = { .lane = json_string_value(json_object_get(ph, "lane")) };
	const struct phase_pid_lane *hit =
		key.lane && l->n ? bsearch(&key, l->v, l->n, sizeof(*l->v), cmp_lane) : NULL;
	return hit && hit->pid > 0 ? hit->pid : 0;
}
