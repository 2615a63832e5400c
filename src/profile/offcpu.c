/* offcpu: one open-addressing table of threads by tid, each with the stack
 * of its last blocking switch-out and when it went out. A context-switch
 * sample precedes its switch-out record; a switch-in closes the interval. Slots are
 * freed by tombstone-free deletion (backward shift), so a long recording of
 * short-lived threads never fills the table with the dead.
 */
#include "profile/offcpu.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define CAP (2 * OFFCPU_MAX_THREADS) /* a power of two, at most half full */

struct slot {
	int32_t tid;       /* 0: free */
	bool out;          /* switched out blocked, not yet back */
	int64_t out_ns;
	char *stack;       /* the sampled stack, or NULL */
	uint64_t period;   /* the switch-outs it stands for */
	bool fresh;        /* sampled since the last switch-out record */
};

struct offcpu {
	offcpu_fn fn;
	void *arg;
	struct slot *slots;
	size_t used;
	struct offcpu_counts n;
};

struct offcpu *offcpu_new(offcpu_fn fn, void *arg)
{
	struct offcpu *o = xcalloc(1, sizeof(*o));
	o->fn = fn;
	o->arg = arg;
	o->slots = xcalloc(CAP, sizeof(*o->slots));
	return o;
}

static size_t home(int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (CAP - 1);
}

/* The thread's slot, or NULL; with add, a new one (NULL when full). */
static struct slot *find(struct offcpu *o, int32_t tid, bool add)
{
	size_t j = home(tid);
	for (; o->slots[j].tid; j = (j + 1) & (CAP - 1))
		if (o->slots[j].tid == tid)
			return &o->slots[j];
	if (!add || o->used >= OFFCPU_MAX_THREADS)
		return NULL;
	o->used++;
	o->slots[j] = (struct slot){ .tid = tid };
	return &o->slots[j];
}

/* Frees a slot, shifting back the ones after it that probed past it. */
static void drop(struct offcpu *o, struct slot *s)
{
	free(s->stack);
	size_t i = (size_t)(s - o->slots), j = i;
	o->slots[i] = (struct slot){ 0 };
	o->used--;
	for (;;) {
		j = (j + 1) & (CAP - 1);
		if (!o->slots[j].tid)
			return;
		size_t h = home(o->slots[j].tid);
		/* j's entry may move to i when its home is not in (i, j] */
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			o->slots[i] = o->slots[j];
			o->slots[j] = (struct slot){ 0 };
			i = j;
		}
	}
}

void offcpu_stack(struct offcpu *o, int32_t tid, const char *stack, uint64_t period)
{
	if (tid <= 0 || !stack[0]) /* no frame: the interval is one without a stack */
		return;
	struct slot *s = find(o, tid, true);
	if (!s)
		return;
	free(s->stack);
	s->stack = xstrdup(stack);
	s->period = period ? period : 1;
	s->fresh = true;
}

void offcpu_switch(struct offcpu *o, const struct perfscript_sample *sm)
{
	if (sm->tid <= 0)
		return;
	struct slot *s = find(o, sm->tid, sm->kind == PERFSCRIPT_SWITCH_OUT);
	switch (sm->kind) {
	case PERFSCRIPT_SWITCH_OUT:
		if (!s) {
			o->n.dropped++;
			return;
		}
		if (s->out) /* a lost switch-in: the earlier wait cannot be measured */
			o->n.open++;
		if (!s->fresh) { /* a stack sampled before an earlier switch-out is not this one's */
			free(s->stack);
			s->stack = NULL;
		}
		s->fresh = false;
		s->out = true;
		s->out_ns = sm->time_ns;
		break;
	case PERFSCRIPT_SWITCH_PREEMPT:
		if (s) /* runnable: any stack sampled was not a block's */
			drop(o, s);
		break;
	case PERFSCRIPT_SWITCH_IN:
		if (!s)
			return;
		if (s->out && sm->time_ns >= s->out_ns) {
			o->n.intervals++;
			o->n.no_stack += !s->stack;
			o->n.sampled += s->stack && s->period > 1;
			o->fn(o->arg, sm->tid, sm->comm, s->stack ? s->stack : "", s->stack ? s->period : 0, s->out_ns,
			      sm->time_ns);
		}
		drop(o, s);
		break;
	default:
		break;
	}
}

struct offcpu_counts offcpu_counts(const struct offcpu *o)
{
	struct offcpu_counts n = o->n;
	for (size_t i = 0; i < CAP; i++)
		n.open += o->slots[i].tid && o->slots[i].out;
	return n;
}

void offcpu_free(struct offcpu *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < CAP; i++)
		free(o->slots[i].stack);
	free(o->slots);
	free(o);
}
