/* profile_json: counting folded stacks in open-addressing tables (one for
 * the run, one per phase name; on-CPU samples and off-CPU nanoseconds
 * apart), then the top of each, sorted, as JSON. Off-CPU lists keep two
 * tables: the stacks' sampled weights, and the exact blocked time of each
 * stratum (a thread name, under its phases in the run's list), which the
 * weights share out when the list is written.
 */
#include "record/profile_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/xalloc.h"

struct stack_count {
	char *stack;
	uint64_t count;
};

struct stack_table {
	struct stack_count *slots;
	size_t cap, n;
	uint64_t samples;  /* the counts' sum: samples, or off-CPU nanoseconds */
	uint64_t events;   /* the stacks added: samples, or blocked intervals */
};

struct phase_profile {
	char *name;
	struct stack_table t, off, off_exact;
};

struct timed_sample {
	double t_ms;
	int tid;
	char *leaf, *stack;           /* stack: as the run's, "[phase:P];process;root;...;leaf" */
};

struct profile_json {
	struct stack_table run, off_run, off_run_exact;
	struct phase_profile *phases;
	size_t nphases;
	uint64_t phases_dropped;      /* samples of phase names past the cap */
	struct timed_sample *timeline;
	size_t ntimeline;
	uint64_t timeline_dropped;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void table_add(struct stack_table *t, const char *stack, uint64_t n);

static void table_grow(struct stack_table *t)
{
	struct stack_table old = *t;
	t->cap = old.cap ? old.cap * 2 : 64;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	t->n = 0;
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.slots[i].stack)
			continue;
		size_t j = hash(old.slots[i].stack) & (t->cap - 1);
		while (t->slots[j].stack)
			j = (j + 1) & (t->cap - 1);
		t->slots[j] = old.slots[i];
		t->n++;
	}
	free(old.slots);
}

static void table_add(struct stack_table *t, const char *stack, uint64_t n)
{
	if ((t->n + 1) * 2 > t->cap)
		table_grow(t);
	size_t j = hash(stack) & (t->cap - 1);
	while (t->slots[j].stack && strcmp(t->slots[j].stack, stack))
		j = (j + 1) & (t->cap - 1);
	if (!t->slots[j].stack) {
		t->slots[j].stack = xstrdup(stack);
		t->n++;
	}
	t->slots[j].count += n;
	t->samples += n;
	t->events++;
}

static void table_free(struct stack_table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i].stack);
	free(t->slots);
}

struct profile_json *profile_json_new(void)
{
	return xcalloc(1, sizeof(struct profile_json));
}

static struct phase_profile *phase_table(struct profile_json *pj, const char *name, size_t n)
{
	for (size_t i = 0; i < pj->nphases; i++)
		if (strlen(pj->phases[i].name) == n && !memcmp(pj->phases[i].name, name, n))
			return &pj->phases[i];
	if (pj->nphases == PROFILE_JSON_MAX_PHASES)
		return NULL;
	pj->phases = xrealloc(pj->phases, (pj->nphases + 1) * sizeof(*pj->phases));
	struct phase_profile *p = &pj->phases[pj->nphases++];
	memset(p, 0, sizeof(*p));
	p->name = xstrndup(name, n);
	return p;
}

/* The count of key in t, 0 when absent. */
static uint64_t table_get(const struct stack_table *t, const char *key)
{
	if (!t->cap)
		return 0;
	size_t j = hash(key) & (t->cap - 1);
	for (; t->slots[j].stack; j = (j + 1) & (t->cap - 1))
		if (!strcmp(t->slots[j].stack, key))
			return t->slots[j].count;
	return 0;
}

/* The first frames of stack, up to (not with) its depth-th ';', in a new string. */
static char *stratum(const char *stack, int depth)
{
	const char *q = stack;
	for (int i = 0; i < depth && q; i++) {
		q = strchr(q, ';');
		if (q && i + 1 < depth)
			q++;
	}
	return q ? xstrndup(stack, (size_t)(q - stack)) : xstrdup(stack);
}

/* Off-CPU: the exact blocked time of stack's stratum (its first depth frames). */
static void add_exact(struct stack_table *t, const char *stack, int depth, uint64_t ns)
{
	char *k = stratum(stack, depth);
	table_add(t, k, ns);
	free(k);
}

/* Counts stack n times (off: a weight of nanoseconds off the CPU, and
 * exact_ns in its stratum's exact time) in the run's table, rooted at
 * phases, and in each phase name's. Returns the rooted stack, to free. */
static char *add_stack(struct profile_json *pj, bool off, const char *phases, const char *stack, uint64_t count,
		       uint64_t exact_ns)
{
	/* the run's stacks are rooted at the phases of their instant; a name's ';'
	 * or line break would make frames or lines of its own: escape_frame */
	size_t sl = strlen(stack);
	char *rooted = xmalloc(ESCAPE_FRAME_BYTES(strlen(phases)) + sl + 16);
	size_t rl = 0;
	if (phases[0]) {
		rl = (size_t)sprintf(rooted, "[phase:");
		rl += escape_frame(rooted + rl, phases);
		rl += (size_t)sprintf(rooted + rl, "]");
	} else {
		rl = (size_t)sprintf(rooted, "[no phase]");
	}
	if (sl)
		sprintf(rooted + rl, ";%s", stack);
	table_add(off ? &pj->off_run : &pj->run, rooted, count);
	if (off)
		add_exact(&pj->off_run_exact, rooted, 2, exact_ns);
	/* each phase name active at the sample counts it once */
	const char *s = phases;
	while (*s) {
		const char *plus = strchr(s, '+');
		size_t n = plus ? (size_t)(plus - s) : strlen(s);
		bool seen = false; /* a name nested in itself counts once */
		for (const char *q = phases; q < s && !seen;) {
			const char *qp = strchr(q, '+');
			size_t qn = qp ? (size_t)(qp - q) : strlen(q);
			seen = qn == n && !memcmp(q, s, n);
			q = qp ? qp + 1 : q + qn;
		}
		if (n && !seen) {
			struct phase_profile *pp = phase_table(pj, s, n);
			if (pp) {
				table_add(off ? &pp->off : &pp->t, sl ? stack : "[no stack]", count);
				if (off)
					add_exact(&pp->off_exact, sl ? stack : "[no stack]", 1, exact_ns);
			} else
				pj->phases_dropped++;
		}
		s = plus ? plus + 1 : s + n;
	}
	return rooted;
}

void profile_json_add(struct profile_json *pj, double t_ms, int tid, const char *phases, const char *stack,
		      const char *leaf)
{
	char *rooted = add_stack(pj, false, phases, stack, 1, 0);
	if (pj->ntimeline < PROFILE_JSON_TIMELINE) {
		if (pj->ntimeline % 256 == 0)
			pj->timeline = xrealloc(pj->timeline, (pj->ntimeline + 256) * sizeof(*pj->timeline));
		if (!stack[0]) { /* the leaf ("[no stack]") under the phases */
			char *both = xmalloc(strlen(rooted) + strlen(leaf) + 2);
			sprintf(both, "%s;%s", rooted, leaf);
			free(rooted);
			rooted = both;
		}
		pj->timeline[pj->ntimeline++] = (struct timed_sample){ t_ms, tid, xstrdup(leaf), rooted };
	} else {
		pj->timeline_dropped++;
		free(rooted);
	}
}

void profile_json_add_offcpu(struct profile_json *pj, const char *phases, const char *stack, int64_t blocked_ns,
			     uint64_t period)
{
	if (blocked_ns > 0)
		free(add_stack(pj, true, phases, stack, period * (uint64_t)blocked_ns, (uint64_t)blocked_ns));
}

static int by_count(const void *a, const void *b)
{
	const struct stack_count *x = *(const struct stack_count *const *)a, *y = *(const struct stack_count *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

/* {"samples": N, "stacks": [{"stack", "count"}...], "merged": K}: the top
 * PROFILE_JSON_TOP, then "[other]" holding the K stacks past them. Off-CPU
 * (counts in ns): {"ms", "intervals", "stacks": [{"stack", "ms"}...], "merged"}. */
static json_t *stack_json(const char *stack, uint64_t count, bool off, double ms)
{
	if (off)
		return json_pack("{s:s, s:f}", "stack", stack, "ms", ms);
	return json_pack("{s:s, s:I}", "stack", stack, "count", (json_int_t)count);
}

struct stack_ms {
	const char *stack;
	double ms;
};

static int by_ms(const void *a, const void *b)
{
	const struct stack_ms *x = a, *y = b;
	if (x->ms != y->ms)
		return x->ms > y->ms ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

/* An off-CPU list: w's stacks (sampled weights), each stratum's exact time
 * (exact, keyed by the first depth frames) shared out in proportion to its
 * stacks' weights — a ratio estimator: per stratum the exact total, the
 * shares estimated. A stratum with no sampled stack keeps its time on its
 * bare stack ("NAME;[off-cpu]", weight 0). */
static json_t *offcpu_table_json(const struct stack_table *w, const struct stack_table *exact, int depth)
{
	struct stack_table sums = { 0 }; /* the weights of each stratum */
	for (size_t i = 0; i < w->cap; i++)
		if (w->slots[i].stack)
			add_exact(&sums, w->slots[i].stack, depth, w->slots[i].count);
	struct stack_ms *v = xcalloc(w->n ? w->n : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < w->cap; i++) {
		if (!w->slots[i].stack)
			continue;
		char *k = stratum(w->slots[i].stack, depth);
		uint64_t sum = table_get(&sums, k), ex = table_get(exact, k);
		free(k);
		double ns = sum ? (double)w->slots[i].count * ((double)ex / (double)sum) : (double)ex;
		if (ns > 0)
			v[n++] = (struct stack_ms){ w->slots[i].stack, ns / 1e6 };
	}
	table_free(&sums);
	qsort(v, n, sizeof(*v), by_ms);
	json_t *stacks = json_array();
	double other = 0;
	for (size_t i = 0; i < n; i++) {
		if (i < PROFILE_JSON_TOP)
			json_array_append_new(stacks, stack_json(v[i].stack, 0, true, v[i].ms));
		else
			other += v[i].ms;
	}
	size_t merged = n > PROFILE_JSON_TOP ? n - PROFILE_JSON_TOP : 0;
	if (merged)
		json_array_append_new(stacks, stack_json("[other]", 0, true, other));
	free(v);
	return json_pack("{s:f, s:I, s:o, s:I}", "ms", (double)exact->samples / 1e6, "intervals",
			 (json_int_t)exact->events, "stacks", stacks, "merged", (json_int_t)merged);
}

static json_t *table_json(const struct stack_table *t)
{
	const struct stack_count **v = xcalloc(t->n ? t->n : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].stack)
			v[n++] = &t->slots[i];
	qsort(v, n, sizeof(*v), by_count);
	json_t *stacks = json_array();
	uint64_t other = 0;
	for (size_t i = 0; i < n; i++) {
		if (i < PROFILE_JSON_TOP)
			json_array_append_new(stacks, stack_json(v[i]->stack, v[i]->count, false, 0));
		else
			other += v[i]->count;
	}
	size_t merged = n > PROFILE_JSON_TOP ? n - PROFILE_JSON_TOP : 0;
	if (merged)
		json_array_append_new(stacks, stack_json("[other]", other, false, 0));
	free(v);
	return json_pack("{s:I, s:o, s:I}", "samples", (json_int_t)t->samples, "stacks", stacks, "merged",
			 (json_int_t)merged);
}

/* The off-CPU profile: the same shape, weights in ms of blocked thread time. */
static json_t *offcpu_json(const struct profile_json *pj, const struct profile_json_meta *m)
{
	json_t *o = json_object();
	json_object_set_new(o, "event", json_string(m->offcpu_event ? m->offcpu_event : ""));
	json_object_set_new(o, "sampled", json_boolean(m->offcpu_sampled > 0));
	json_object_set_new(o, "period", json_integer((json_int_t)(m->offcpu_period ? m->offcpu_period : 1)));
	json_object_set_new(o, "sampled_above_per_s", json_integer(m->offcpu_sampled_above));
	json_object_set_new(o, "intervals_sampled", json_integer((json_int_t)m->offcpu_sampled));
	json_object_set_new(o, "stack_weighting", json_string(PROFILE_JSON_OFFCPU_WEIGHTING));
	json_object_set_new(o, "unit", json_string("ms"));
	json_object_set_new(o, "marker", json_string(PROFILE_JSON_OFFCPU));
	json_object_set_new(o, "stacks_root", json_string("process"));
	json_object_set_new(o, "stack_bound", json_integer(PROFILE_JSON_TOP));
	json_object_set_new(o, "intervals_with_stack",
			    json_integer((json_int_t)(m->offcpu_intervals - m->offcpu_no_stack)));
	json_object_set_new(o, "intervals_without_stack", json_integer((json_int_t)m->offcpu_no_stack));
	json_object_set_new(o, "open_at_end", json_integer((json_int_t)m->offcpu_open));
	json_object_set_new(o, "dropped", json_integer((json_int_t)m->offcpu_dropped));
	json_object_set_new(o, "run", offcpu_table_json(&pj->off_run, &pj->off_run_exact, 2));
	json_t *phases = json_object();
	for (size_t i = 0; i < pj->nphases; i++)
		if (pj->phases[i].off_exact.events)
			json_object_set_new(phases, pj->phases[i].name,
					    offcpu_table_json(&pj->phases[i].off, &pj->phases[i].off_exact, 1));
	json_object_set_new(o, "phases", phases);
	return o;
}

json_t *profile_json_build(const struct profile_json *pj, const struct profile_json_meta *m)
{
	json_t *p = json_object();
	json_object_set_new(p, "tool", json_string("perf"));
	json_object_set_new(p, "event", json_string(m->event ? m->event : ""));
	if (m->software)
		json_object_set_new(p, "event_note",
				    json_string("hardware cycles are absent here: the software cpu-clock event"));
	json_object_set_new(p, "frequency_hz", json_integer(m->hz));
	json_object_set_new(p, "ms_per_sample", json_real(m->hz > 0 ? 1000.0 / m->hz : 0));
	json_object_set_new(p, "unwinding", json_string(m->unwinding ? m->unwinding : "dwarf"));
	json_object_set_new(p, "samples", json_integer((json_int_t)pj->run.samples));
	json_object_set_new(p, "stack_bound", json_integer(PROFILE_JSON_TOP));
	json_object_set_new(p, "stacks_root", json_string("process"));
	json_t *problems = json_object();
	json_object_set_new(problems, "lost_chunks", json_integer((json_int_t)m->lost_chunks));
	json_object_set_new(problems, "unnamed_frames", json_integer((json_int_t)m->unnamed));
	json_object_set_new(problems, "kernel_only", json_integer((json_int_t)m->kernel_only));
	json_object_set_new(problems, "truncated", json_integer((json_int_t)m->truncated));
	json_object_set_new(problems, "unreadable_lines", json_integer((json_int_t)m->bad_lines));
	if (pj->phases_dropped)
		json_object_set_new(problems, "phase_names_past_bound", json_integer((json_int_t)pj->phases_dropped));
	if (m->kernel_note && m->kernel_note[0])
		json_object_set_new(problems, "kernel", json_string(m->kernel_note));
	if (m->bound_note && m->bound_note[0])
		json_object_set_new(problems, "data_bound", json_string(m->bound_note));
	json_object_set_new(p, "problems", problems);
	json_object_set_new(p, "run", table_json(&pj->run));
	json_t *phases = json_object();
	for (size_t i = 0; i < pj->nphases; i++)
		if (pj->phases[i].t.events)
			json_object_set_new(phases, pj->phases[i].name, table_json(&pj->phases[i].t));
	json_object_set_new(p, "phases", phases);
	if (m->offcpu)
		json_object_set_new(p, "offcpu", offcpu_json(pj, m));
	else if (m->offcpu_note && m->offcpu_note[0])
		json_object_set_new(problems, "offcpu", json_string(m->offcpu_note));
	/* each sample's stack an index into "stacks", each distinct stack kept once */
	json_t *tl = json_array(), *stacks = json_array(), *index = json_object();
	for (size_t i = 0; i < pj->ntimeline; i++) {
		const struct timed_sample *s = &pj->timeline[i];
		const json_t *at = json_object_get(index, s->stack);
		size_t k = at ? (size_t)json_integer_value(at) : json_array_size(stacks);
		if (!at) {
			json_object_set_new(index, s->stack, json_integer((json_int_t)k));
			json_array_append_new(stacks, json_string(s->stack));
		}
		json_array_append_new(tl, json_pack("[f, i, s, I]", s->t_ms, s->tid, s->leaf, (json_int_t)k));
	}
	json_decref(index);
	json_object_set_new(p, "timeline", json_pack("{s:i, s:I, s:o, s:o}", "bound", PROFILE_JSON_TIMELINE, "dropped",
						     (json_int_t)pj->timeline_dropped, "stacks", stacks, "samples", tl));
	return p;
}

void profile_json_free(struct profile_json *pj)
{
	if (!pj)
		return;
	table_free(&pj->run);
	table_free(&pj->off_run);
	table_free(&pj->off_run_exact);
	for (size_t i = 0; i < pj->nphases; i++) {
		free(pj->phases[i].name);
		table_free(&pj->phases[i].t);
		table_free(&pj->phases[i].off);
		table_free(&pj->phases[i].off_exact);
	}
	free(pj->phases);
	for (size_t i = 0; i < pj->ntimeline; i++) {
		free(pj->timeline[i].leaf);
		free(pj->timeline[i].stack);
	}
	free(pj->timeline);
	free(pj);
}
