/* phase_table: the rows of phase tables and the nesting of phase names, by
 * sorted sweeps.
 *
 * A pairwise search (each name against each candidate, each instance against
 * each instance) grows as P^3 and took minutes at a few thousand phases. Here
 * the phases sorted by start (the longer first) pass once through a stack of
 * those still open, which gives each phase the nearest enclosing phase of
 * another name; a name's parent is then looked for only among the names
 * around its first instance, each checked against every instance of the name
 * by a binary search over the candidate's instances sorted by start (with the
 * longest reach so far): O(P log P) in all.
 */
#include "export/phase_table.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define NONE SIZE_MAX
/* Names tried around a name's first instance, and enclosing phases walked
 * to find them: past these a name is shown at the top level. */
#define CANDIDATES_MAX 32
#define STEPS_MAX 256

struct inst {
	const char *name;
	double start_ms, end_ms;
	size_t index;        /* in the record's array: the last tie-break */
	size_t name_id;
	size_t up;           /* the nearest enclosing phase of another name, or NONE */
};

struct nest_name {
	const char *name;
	size_t from, n;      /* its instances: by_name[from .. from + n), by start */
	const char *parent;
};

struct phase_nest {
	struct inst *in;
	size_t n;
	struct nest_name *names;
	size_t n_names;
	size_t *by_name;
	/* over by_name, within each name: the farthest end of the instances
	 * started so far, and the earliest start among those reaching it */
	double *reach_end_ms, *reach_start_ms;
};

static int cmp_num(double a, double b)
{
	return (a > b) - (a < b);
}

static int cmp_by_name(const void *a, const void *b, void *ctx)
{
	const struct inst *in = ctx, *x = &in[*(const size_t *)a], *y = &in[*(const size_t *)b];
	int c = strcmp(x->name, y->name);
	if (!c)
		c = cmp_num(x->start_ms, y->start_ms);
	return c ? c : cmp_num((double)x->index, (double)y->index);
}

/* Start ascending, the longer first at one start, then the record's order. */
static int cmp_by_start(const void *a, const void *b, void *ctx)
{
	const struct inst *in = ctx, *x = &in[*(const size_t *)a], *y = &in[*(const size_t *)b];
	int c = cmp_num(x->start_ms, y->start_ms);
	if (!c)
		c = cmp_num(y->end_ms, x->end_ms);
	return c ? c : cmp_num((double)x->index, (double)y->index);
}

static void gather(struct phase_nest *t, const json_t *phases)
{
	size_t i;
	const json_t *ph;
	t->in = xcalloc(json_array_size(phases) + 1, sizeof(*t->in));
	json_array_foreach(phases, i, ph) {
		const char *name = json_string_value(json_object_get(ph, "name"));
		if (!json_is_object(ph) || !name)
			continue;
		t->in[t->n++] = (struct inst){ .name = name, .index = i, .up = NONE,
					       .start_ms = json_number_value(json_object_get(ph, "start_ms")),
					       .end_ms = json_number_value(json_object_get(ph, "end_ms")) };
	}
}

/* Names in strcmp order, each with its instances by start and their reach. */
static void group_names(struct phase_nest *t)
{
	t->by_name = xcalloc(t->n + 1, sizeof(*t->by_name));
	t->reach_end_ms = xcalloc(t->n + 1, sizeof(*t->reach_end_ms));
	t->reach_start_ms = xcalloc(t->n + 1, sizeof(*t->reach_start_ms));
	t->names = xcalloc(t->n + 1, sizeof(*t->names));
	for (size_t i = 0; i < t->n; i++)
		t->by_name[i] = i;
	qsort_r(t->by_name, t->n, sizeof(*t->by_name), cmp_by_name, t->in);
	for (size_t i = 0; i < t->n; i++) {
		struct inst *a = &t->in[t->by_name[i]];
		struct nest_name *nm = t->n_names ? &t->names[t->n_names - 1] : NULL;
		if (!nm || strcmp(nm->name, a->name)) {
			nm = &t->names[t->n_names++];
			*nm = (struct nest_name){ .name = a->name, .from = i };
			t->reach_end_ms[i] = a->end_ms;
			t->reach_start_ms[i] = a->start_ms;
		} else if (a->end_ms > t->reach_end_ms[i - 1] ||
			   (a->end_ms == t->reach_end_ms[i - 1] && a->start_ms < t->reach_start_ms[i - 1])) {
			t->reach_end_ms[i] = a->end_ms;
			t->reach_start_ms[i] = a->start_ms;
		} else {
			t->reach_end_ms[i] = t->reach_end_ms[i - 1];
			t->reach_start_ms[i] = t->reach_start_ms[i - 1];
		}
		nm->n++;
		a->name_id = (size_t)(nm - t->names);
	}
}

/* One pass by start through a stack of the phases still open: the top, once
 * those ending before this one are popped, holds it (for phases that nest,
 * the innermost that does). */
static void sweep(struct phase_nest *t)
{
	size_t *order = xcalloc(t->n + 1, sizeof(*order)), *stack = xcalloc(t->n + 1, sizeof(*stack));
	size_t depth = 0;
	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	qsort_r(order, t->n, sizeof(*order), cmp_by_start, t->in);
	for (size_t i = 0; i < t->n; i++) {
		struct inst *a = &t->in[order[i]];
		while (depth && t->in[stack[depth - 1]].end_ms < a->end_ms)
			depth--;
		if (depth) {
			const struct inst *p = &t->in[stack[depth - 1]];
			a->up = p->name_id != a->name_id ? stack[depth - 1] : p->up;
		}
		stack[depth++] = order[i];
	}
	free(order);
	free(stack);
}

/* Whether each instance of name n lies inside a strictly longer one of m. */
static bool holds_all(const struct phase_nest *t, const struct nest_name *m, const struct nest_name *n)
{
	for (size_t k = 0; k < n->n; k++) {
		const struct inst *a = &t->in[t->by_name[n->from + k]];
		size_t lo = 0, hi = m->n; /* m's instances started by a's start: [0, lo) */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->in[t->by_name[m->from + mid]].start_ms <= a->start_ms)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			return false;
		double end = t->reach_end_ms[m->from + lo - 1], start = t->reach_start_ms[m->from + lo - 1];
		if (!(end > a->end_ms || (end == a->end_ms && start < a->start_ms)))
			return false;
	}
	return true;
}

static const char *find_parent(const struct phase_nest *t, const struct nest_name *n)
{
	size_t tried[CANDIDATES_MAX], n_tried = 0, steps = 0;
	for (size_t c = t->in[t->by_name[n->from]].up; c != NONE && n_tried < CANDIDATES_MAX && steps < STEPS_MAX;
	     c = t->in[c].up, steps++) {
		size_t m = t->in[c].name_id;
		bool seen = &t->names[m] == n;
		for (size_t k = 0; k < n_tried && !seen; k++)
			seen = tried[k] == m;
		if (seen)
			continue;
		tried[n_tried++] = m;
		if (holds_all(t, &t->names[m], n))
			return t->names[m].name;
	}
	return NULL;
}

struct phase_nest *phase_nest_new(const json_t *phases)
{
	struct phase_nest *t = xcalloc(1, sizeof(*t));
	gather(t, phases);
	group_names(t);
	sweep(t);
	for (size_t i = 0; i < t->n_names; i++)
		t->names[i].parent = find_parent(t, &t->names[i]);
	return t;
}

void phase_nest_free(struct phase_nest *t)
{
	if (!t)
		return;
	free(t->in);
	free(t->names);
	free(t->by_name);
	free(t->reach_end_ms);
	free(t->reach_start_ms);
	free(t);
}

static int cmp_name_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct nest_name *)elem)->name);
}

const char *phase_nest_parent(const struct phase_nest *t, const char *name)
{
	const struct nest_name *n = bsearch(name, t->names, t->n_names, sizeof(*t->names), cmp_name_key);
	return n ? n->parent : NULL;
}

struct ranked {
	const json_t *o;
	double v;
	size_t index;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = cmp_num(y->v, x->v);
	return c ? c : cmp_num((double)x->index, (double)y->index);
}

static int cmp_index(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	return cmp_num((double)x->index, (double)y->index);
}

/* The objs with the max largest values of key, in their order, into kept. */
static size_t pick(const json_t *const *objs, size_t n, const char *key, size_t max, const json_t **kept)
{
	struct ranked *r = xcalloc(n + 1, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ .o = objs[i], .v = json_number_value(json_object_get(objs[i], key)), .index = i };
	if (n > max) { /* the largest, back in their order */
		qsort(r, n, sizeof(*r), cmp_ranked);
		n = max;
		qsort(r, n, sizeof(*r), cmp_index);
	}
	for (size_t i = 0; i < n; i++)
		kept[i] = r[i].o;
	free(r);
	return n;
}

size_t phase_table_pick(const json_t *rows, const char *key, size_t max, const json_t **kept)
{
	size_t n = 0, i;
	const json_t *o;
	const json_t **objs = xcalloc(json_array_size(rows) + 1, sizeof(*objs));
	json_array_foreach(rows, i, o)
		if (json_is_object(o))
			objs[n++] = o;
	n = pick(objs, n, key, max, kept);
	free(objs);
	return n;
}

struct row_key {
	const char *name;
	size_t row;
};

static int cmp_row_key(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : cmp_num((double)x->row, (double)y->row);
}

static int cmp_row_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct row_key *)elem)->name);
}

void phase_rows_init(struct phase_rows *pr, const json_t *stats, const json_t *phases, size_t max)
{
	memset(pr, 0, sizeof(*pr));
	size_t total = json_array_size(stats), i;
	const json_t *o;
	const json_t **named = xcalloc(total + 1, sizeof(*named));
	size_t n_named = 0;
	json_array_foreach(stats, i, o)
		if (json_is_object(o) && json_is_string(json_object_get(o, "name")))
			named[n_named++] = o;
	pr->stat = xcalloc((n_named < max ? n_named : max) + 1, sizeof(*pr->stat));
	pr->n = pick(named, n_named, "total_ms", max, pr->stat);
	if (pr->n < n_named) {
		size_t k = 0;
		for (i = 0; i < n_named; i++) { /* both in the record's order */
			if (k < pr->n && named[i] == pr->stat[k]) {
				k++;
				continue;
			}
			pr->left_out++;
			pr->left_out_count += json_number_value(json_object_get(named[i], "count"));
			pr->left_out_ms += json_number_value(json_object_get(named[i], "total_ms"));
		}
	}
	free(named);
	/* each row's parent row: a name looked up among the rows, the first row of a name */
	struct row_key *keys = xcalloc(pr->n + 1, sizeof(*keys));
	for (i = 0; i < pr->n; i++)
		keys[i] = (struct row_key){ .name = json_string_value(json_object_get(pr->stat[i], "name")), .row = i };
	qsort(keys, pr->n, sizeof(*keys), cmp_row_key);
	struct phase_nest *t = phase_nest_new(phases);
	pr->parent = xcalloc(pr->n + 1, sizeof(*pr->parent));
	for (i = 0; i < pr->n; i++) {
		const char *p = phase_nest_parent(t, json_string_value(json_object_get(pr->stat[i], "name")));
		const struct row_key *k = p ? bsearch(p, keys, pr->n, sizeof(*keys), cmp_row_name) : NULL;
		while (k && k > keys && !strcmp(k[-1].name, p))
			k--; /* bsearch finds any row of the name: the first */
		pr->parent[i] = k ? k->row : PHASE_ROWS_NONE;
	}
	phase_nest_free(t);
	free(keys);
}

void phase_rows_release(struct phase_rows *pr)
{
	free(pr->stat);
	free(pr->parent);
	memset(pr, 0, sizeof(*pr));
}
