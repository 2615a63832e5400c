/* bench_plan: parameter expansion and the interleaved run schedule.
 *
 * Combinations are numbered in mixed radix (the last -L varies fastest, as
 * nested loops written in option order would), so a combination is just an
 * index and nothing is materialised until a command is substituted. The
 * shuffle is Fisher–Yates over stats_rng, the PRNG the bootstrap uses.
 */
#include "stats/bench_plan.h"

#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "util/xalloc.h"

void bench_params_init(struct bench_params *p)
{
	memset(p, 0, sizeof(*p));
}

void bench_params_release(struct bench_params *p)
{
	for (size_t i = 0; i < p->n; i++) {
		for (size_t j = 0; j < p->items[i].n; j++)
			free(p->items[i].values[j]);
		free(p->items[i].values);
		free(p->items[i].name);
	}
	free(p->items);
	bench_params_init(p);
}

int bench_params_add(struct bench_params *p, const char *name, const char *list, struct err *e)
{
	size_t len = strlen(name);
	if (len == 0 || len > 64 || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != len)
		return err_set(e, "-L: parameter name '%s' must be 1-64 letters, digits or _", name);
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->items[i].name, name))
			return err_set(e, "-L: parameter '%s' given twice", name);
	if (!*list)
		return err_set(e, "-L %s: empty list of values", name);
	struct bench_param prm = { .name = xstrdup(name) };
	size_t cap = 0;
	for (const char *s = list;;) {
		size_t n = strcspn(s, ",");
		if (n == 0) {
			for (size_t j = 0; j < prm.n; j++)
				free(prm.values[j]);
			free(prm.values);
			free(prm.name);
			return err_set(e, "-L %s: empty value in '%s'", name, list);
		}
		xgrow((void **)&prm.values, &cap, prm.n + 1, sizeof(*prm.values));
		prm.values[prm.n++] = xstrndup(s, n);
		if (!s[n])
			break;
		s += n + 1;
	}
	xgrow((void **)&p->items, &p->cap, p->n + 1, sizeof(*p->items));
	p->items[p->n++] = prm;
	return 0;
}

size_t bench_params_count(const struct bench_params *p)
{
	size_t k = 1;
	for (size_t i = 0; i < p->n; i++) {
		if (k > BENCH_PLAN_MAX_COMMANDS)
			return BENCH_PLAN_MAX_COMMANDS + 1; /* saturate: never overflow */
		k *= p->items[i].n;
	}
	return k;
}

const char *bench_params_value(const struct bench_params *p, size_t k, size_t i)
{
	for (size_t j = p->n; j-- > i + 1;)
		k /= p->items[j].n;
	return p->items[i].values[k % p->items[i].n];
}

/* Index of the parameter whose "{NAME}" starts at s, or p->n; *len its length. */
static size_t param_at(const struct bench_params *p, const char *s, size_t *len)
{
	for (size_t i = 0; i < p->n; i++) {
		size_t n = strlen(p->items[i].name);
		if (s[0] == '{' && !strncmp(s + 1, p->items[i].name, n) && s[n + 1] == '}') {
			*len = n + 2;
			return i;
		}
	}
	return p->n;
}

char *bench_params_subst(const struct bench_params *p, size_t k, const char *s)
{
	size_t cap = strlen(s) + 1, n = 0, len;
	char *out = xmalloc(cap);
	while (*s) {
		size_t i = *s == '{' ? param_at(p, s, &len) : p->n;
		const char *piece = s;
		size_t plen = 1;
		if (i < p->n) {
			piece = bench_params_value(p, k, i);
			plen = strlen(piece);
			s += len;
		} else {
			s++;
		}
		xgrow((void **)&out, &cap, n + plen + 1, 1);
		memcpy(out + n, piece, plen);
		n += plen;
	}
	out[n] = '\0';
	return out;
}

static bool param_used(const struct bench_params *p, size_t i, char **const *templates, size_t nt)
{
	size_t len;
	for (size_t t = 0; t < nt; t++)
		for (char *const *a = templates[t]; *a; a++)
			for (const char *c = strchr(*a, '{'); c; c = strchr(c + 1, '{'))
				if (param_at(p, c, &len) == i)
					return true;
	return false;
}

int bench_plan_expand(char **const *templates, size_t ntemplates, const struct bench_params *p,
		      struct bench_plan_cmd **out, size_t *n, struct err *e)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (!param_used(p, i, templates, ntemplates))
			return err_set(e, "-L %s: {%s} appears in no command", p->items[i].name, p->items[i].name);
	size_t combos = bench_params_count(p);
	if (ntemplates == 0 || combos > BENCH_PLAN_MAX_COMMANDS / ntemplates)
		return err_set(e, "%s (at most %d commands)", ntemplates ? "too many parameter combinations" : "no command",
			       BENCH_PLAN_MAX_COMMANDS);
	struct bench_plan_cmd *cmds = xcalloc(ntemplates * combos, sizeof(*cmds));
	for (size_t t = 0; t < ntemplates; t++) {
		size_t argc = 0;
		while (templates[t][argc])
			argc++;
		for (size_t k = 0; k < combos; k++) {
			struct bench_plan_cmd *c = &cmds[t * combos + k];
			c->template_i = t;
			c->combo = k;
			c->argv = xcalloc(argc + 1, sizeof(*c->argv));
			for (size_t a = 0; a < argc; a++)
				c->argv[a] = bench_params_subst(p, k, templates[t][a]);
		}
	}
	*out = cmds;
	*n = ntemplates * combos;
	return 0;
}

void bench_plan_free(struct bench_plan_cmd *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (char **a = cmds[i].argv; a && *a; a++)
			free(*a);
		free(cmds[i].argv);
	}
	free(cmds);
}

/* One block: every command once, in an order drawn from r. */
static size_t block(struct stats_rng *r, size_t ncmd, bool warmup, struct bench_slot *slots)
{
	for (size_t i = 0; i < ncmd; i++)
		slots[i] = (struct bench_slot){ i, warmup };
	for (size_t i = ncmd; i > 1; i--) {
		size_t j = (size_t)stats_rng_below(r, i);
		struct bench_slot t = slots[i - 1];
		slots[i - 1] = slots[j];
		slots[j] = t;
	}
	return ncmd;
}

size_t bench_plan_schedule(size_t ncmd, size_t runs, size_t warmup, bool interleave, uint64_t seed,
			   struct bench_slot *slots)
{
	size_t n = 0;
	if (interleave) {
		struct stats_rng r;
		stats_rng_init(&r, seed);
		for (size_t b = 0; b < warmup + runs; b++)
			n += block(&r, ncmd, b < warmup, slots + n);
		return n;
	}
	for (size_t c = 0; c < ncmd; c++)
		for (size_t b = 0; b < warmup + runs; b++)
			slots[n++] = (struct bench_slot){ c, b < warmup };
	return n;
}
