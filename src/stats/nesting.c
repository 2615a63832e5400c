/* nesting: the parents of names over their spans, by sorted sweeps.
 *
 * A pairwise search (each name against each candidate, each span against
 * each span) grows as n^3 and took minutes at a few thousand phases. Here
 * the spans sorted by start (the longer first) pass once through a stack of
 * those still open, which gives each span the nearest enclosing span of
 * another name; a name's parent is then looked for only among the names
 * around its first span, each checked against every span of the name by a
 * binary search over the candidate's spans sorted by start (with the
 * farthest end reached so far): O(n log n) in all.
 */
#include "stats/nesting.h"

#include <stdbool.h>
#include <stdlib.h>

#include "util/xalloc.h"

/* Names tried around a name's first span, and enclosing spans walked to
 * find them: past these a name is shown at the top level. */
#define CANDIDATES_MAX 32
#define STEPS_MAX 256

struct inst {
	const struct nesting_span *sp;
	size_t index;         /* in the input: the last tie-break */
	size_t up;            /* the nearest enclosing span of another name, or NESTING_NONE */
};

struct nest {
	struct inst *in;
	size_t n;
	size_t *by_name;      /* spans by (name, group, start) */
	size_t *from, *count; /* per name: its spans in by_name */
	/* over by_name, within each name and group: the farthest end of the
	 * spans started so far, and the earliest start among those reaching it */
	double *reach_end_ms, *reach_start_ms;
};

static int cmp_num(double a, double b)
{
	return (a > b) - (a < b);
}

static int cmp_size(size_t a, size_t b)
{
	return (a > b) - (a < b);
}

static int cmp_by_name(const void *a, const void *b, void *ctx)
{
	const struct inst *in = ctx, *x = &in[*(const size_t *)a], *y = &in[*(const size_t *)b];
	int c = cmp_size(x->sp->name, y->sp->name);
	if (!c)
		c = cmp_size(x->sp->group, y->sp->group);
	if (!c)
		c = cmp_num(x->sp->start_ms, y->sp->start_ms);
	return c ? c : cmp_size(x->index, y->index);
}

/* Group, start ascending, the longer first at one start, then the input's order. */
static int cmp_by_start(const void *a, const void *b, void *ctx)
{
	const struct inst *in = ctx, *x = &in[*(const size_t *)a], *y = &in[*(const size_t *)b];
	int c = cmp_size(x->sp->group, y->sp->group);
	if (!c)
		c = cmp_num(x->sp->start_ms, y->sp->start_ms);
	if (!c)
		c = cmp_num(y->sp->end_ms, x->sp->end_ms);
	return c ? c : cmp_size(x->index, y->index);
}

static void group_names(struct nest *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->by_name[i] = i;
	qsort_r(t->by_name, t->n, sizeof(*t->by_name), cmp_by_name, t->in);
	for (size_t i = 0; i < t->n; i++) {
		const struct nesting_span *a = t->in[t->by_name[i]].sp;
		const struct nesting_span *prev = i ? t->in[t->by_name[i - 1]].sp : NULL;
		if (!t->count[a->name])
			t->from[a->name] = i;
		t->count[a->name]++;
		if (!prev || prev->name != a->name || prev->group != a->group ||
		    a->end_ms > t->reach_end_ms[i - 1] ||
		    (a->end_ms == t->reach_end_ms[i - 1] && a->start_ms < t->reach_start_ms[i - 1])) {
			t->reach_end_ms[i] = a->end_ms;
			t->reach_start_ms[i] = a->start_ms;
		} else {
			t->reach_end_ms[i] = t->reach_end_ms[i - 1];
			t->reach_start_ms[i] = t->reach_start_ms[i - 1];
		}
	}
}

/* One pass by start through a stack of the spans still open: the top, once
 * those ending before this one are popped, holds it (for spans that nest,
 * the innermost that does). */
static void sweep(struct nest *t)
{
	size_t *order = xcalloc(t->n + 1, sizeof(*order)), *stack = xcalloc(t->n + 1, sizeof(*stack));
	size_t depth = 0;
	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	qsort_r(order, t->n, sizeof(*order), cmp_by_start, t->in);
	for (size_t i = 0; i < t->n; i++) {
		struct inst *a = &t->in[order[i]];
		if (i && t->in[order[i - 1]].sp->group != a->sp->group)
			depth = 0;
		while (depth && t->in[stack[depth - 1]].sp->end_ms < a->sp->end_ms)
			depth--;
		if (depth) {
			const struct inst *p = &t->in[stack[depth - 1]];
			a->up = p->sp->name != a->sp->name ? stack[depth - 1] : p->up;
		}
		stack[depth++] = order[i];
	}
	free(order);
	free(stack);
}

/* Whether each span of name n lies inside a strictly longer one of m in its group. */
static bool holds_all(const struct nest *t, size_t m, size_t n)
{
	const size_t *ms = t->by_name + t->from[m];
	for (size_t k = 0; k < t->count[n]; k++) {
		const struct nesting_span *a = t->in[t->by_name[t->from[n] + k]].sp;
		size_t lo = 0, hi = t->count[m]; /* m's spans before a's group or started by a's start: [0, lo) */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct nesting_span *b = t->in[ms[mid]].sp;
			if (b->group < a->group || (b->group == a->group && b->start_ms <= a->start_ms))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || t->in[ms[lo - 1]].sp->group != a->group)
			return false;
		double end = t->reach_end_ms[t->from[m] + lo - 1], start = t->reach_start_ms[t->from[m] + lo - 1];
		if (!(end > a->end_ms || (end == a->end_ms && start < a->start_ms)))
			return false;
	}
	return true;
}

static size_t find_parent(const struct nest *t, size_t n)
{
	size_t tried[CANDIDATES_MAX], n_tried = 0, steps = 0;
	for (size_t c = t->in[t->by_name[t->from[n]]].up; c != NESTING_NONE && n_tried < CANDIDATES_MAX &&
	     steps < STEPS_MAX; c = t->in[c].up, steps++) {
		size_t m = t->in[c].sp->name;
		bool seen = m == n;
		for (size_t k = 0; k < n_tried && !seen; k++)
			seen = tried[k] == m;
		if (seen)
			continue;
		tried[n_tried++] = m;
		if (holds_all(t, m, n))
			return m;
	}
	return NESTING_NONE;
}

void nesting_parents(const struct nesting_span *spans, size_t n, size_t n_names, size_t *parent)
{
	struct nest t = { .n = n };
	t.in = xcalloc(n + 1, sizeof(*t.in));
	for (size_t i = 0; i < n; i++)
		t.in[i] = (struct inst){ .sp = &spans[i], .index = i, .up = NESTING_NONE };
	t.by_name = xcalloc(n + 1, sizeof(*t.by_name));
	t.reach_end_ms = xcalloc(n + 1, sizeof(*t.reach_end_ms));
	t.reach_start_ms = xcalloc(n + 1, sizeof(*t.reach_start_ms));
	t.from = xcalloc(n_names + 1, sizeof(*t.from));
	t.count = xcalloc(n_names + 1, sizeof(*t.count));
	group_names(&t);
	sweep(&t);
	for (size_t k = 0; k < n_names; k++)
		parent[k] = t.count[k] ? find_parent(&t, k) : NESTING_NONE;
	free(t.in);
	free(t.by_name);
	free(t.reach_end_ms);
	free(t.reach_start_ms);
	free(t.from);
	free(t.count);
}
