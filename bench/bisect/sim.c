/* sim: the error rates and runs of perfhunt bisect's decision rule, by
 * simulation, against a bisect that gives every tested commit a fixed n.
 *
 * Why: the rule (src/stats/bisectrule.c, linked here unchanged) trades runs
 * for certainty; this says how often it names a commit that changed nothing
 * (false culprit), misses one that did (missed culprit), leaves a pair
 * undecided, and how many runs it takes, over noise shapes and effect sizes.
 * One metric, independent runs (no drift); the hunt splits as bisect.c does.
 * Build and run: bench/bisect/run.sh [BUILD] [TRIALS] (prints docs/BISECT.md's table).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bisectrule.h"
#include "stats/stats.h"

enum { COMMITS = 17, MAX_RUNS = 30, MIN_RUNS = 5 };

struct noise {
	const char *name;
	bool lognormal;
	double sigma; /* cv of the normal, or sigma of the log */
};

struct sim {
	struct stats_rng rng;
	const struct noise *noise;
	double level[COMMITS]; /* the true median of each commit */
	double *runs[COMMITS];
	size_t n[COMMITS];
	size_t total;
};

static double uniform(struct stats_rng *r)
{
	return ((double)(stats_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct stats_rng *r)
{
	return sqrt(-2 * log(uniform(r))) * cos(2 * M_PI * uniform(r));
}

static void add_runs(struct sim *s, size_t c, size_t want)
{
	while (s->n[c] < want) {
		double z = gauss(&s->rng);
		double v = s->noise->lognormal ? s->level[c] * exp(s->noise->sigma * z)
					       : s->level[c] * (1 + s->noise->sigma * z);
		s->runs[c][s->n[c]++] = v > 0 ? v : 0;
		s->total++;
	}
}

static enum bisectrule_verdict judge(const struct sim *s, size_t a, size_t b)
{
	struct bisectrule r;
	bisectrule_init(&r);
	return bisectrule_decide(&r, s->runs[a], s->n[a], s->runs[b], s->n[b], NULL);
}

/* The hunt: adaptive (fixed_n 0) or every tested commit given fixed_n runs
 * and a not-yet pair read as same. Fills found[] (a commit is a culprit
 * against the tested commit before it); returns undecided pairs. */
static size_t hunt(struct sim *s, size_t fixed_n, bool *found)
{
	bool tested[COMMITS] = { false };
	size_t undecided = 0, first = fixed_n ? fixed_n : MIN_RUNS;
	tested[0] = tested[COMMITS - 1] = true;
	add_runs(s, 0, first);
	add_runs(s, COMMITS - 1, first);
	memset(found, 0, COMMITS * sizeof(*found));
	/* a stack of intervals to settle */
	size_t stack[2 * COMMITS][2], top = 0;
	stack[top][0] = 0;
	stack[top++][1] = COMMITS - 1;
	while (top) {
		size_t a = stack[top - 1][0], b = stack[top - 1][1];
		enum bisectrule_verdict v = judge(s, a, b);
		if (v == BISECTRULE_NOT_YET && fixed_n)
			v = BISECTRULE_SAME;
		if (v == BISECTRULE_NOT_YET) {
			size_t have = s->n[a] < s->n[b] ? s->n[a] : s->n[b];
			if (have >= MAX_RUNS) {
				undecided++;
				top--;
				continue;
			}
			size_t step = have / 2 > 3 ? have / 2 : 3;
			if (step > MAX_RUNS - have)
				step = MAX_RUNS - have;
			add_runs(s, a, s->n[a] + step);
			add_runs(s, b, s->n[b] + step);
			continue;
		}
		top--;
		if (v == BISECTRULE_SAME)
			continue;
		if (b - a == 1) {
			found[b] = true;
			continue;
		}
		size_t m = a + (b - a) / 2;
		if (!tested[m]) {
			tested[m] = true;
			add_runs(s, m, first);
			if (!fixed_n) { /* fresh runs of both ends beside it, as bisect.c does */
				add_runs(s, a, s->n[a] + first);
				add_runs(s, b, s->n[b] + first);
			}
		}
		stack[top][0] = m;
		stack[top++][1] = b;
		stack[top][0] = a;
		stack[top++][1] = m;
	}
	return undecided;
}

int main(int argc, char **argv)
{
	size_t trials = argc > 1 ? (size_t)atol(argv[1]) : 200;
	static const struct noise noises[] = {
		{ "normal, cv 5 %", false, 0.05 },
		{ "normal, cv 15 %", false, 0.15 },
		{ "lognormal, sigma 0.3", true, 0.3 },
	};
	static const double effects[] = { 0, 0.2, 0.5, 1.0 };
	static const size_t fixed[] = { 0, 10, 20 };
	/* two culprits, at commits 5 and 12 of 0..16, when the effect is not 0 */
	printf("| noise | effect | bisect | false culprits / hunt | missed culprits | undecided pairs / hunt | runs / hunt |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (size_t ni = 0; ni < sizeof(noises) / sizeof(noises[0]); ni++)
		for (size_t ei = 0; ei < sizeof(effects) / sizeof(effects[0]); ei++)
			for (size_t fi = 0; fi < sizeof(fixed) / sizeof(fixed[0]); fi++) {
				double false_c = 0, missed = 0, undecided = 0, runs = 0, real = 0;
				for (size_t t = 0; t < trials; t++) {
					struct sim s = { .noise = &noises[ni] };
					stats_rng_init(&s.rng, 1000 * ni + 100 * ei + t * 7919 + 1);
					for (size_t c = 0; c < COMMITS; c++) {
						s.level[c] = 100 * (1 + effects[ei] * ((c >= 5) + (c >= 12)));
						s.runs[c] = calloc(4 * MAX_RUNS + 64, sizeof(double));
					}
					bool found[COMMITS];
					undecided += (double)hunt(&s, fixed[fi], found);
					for (size_t c = 1; c < COMMITS; c++) {
						bool is = effects[ei] > 0 && (c == 5 || c == 12);
						real += is;
						false_c += found[c] && !is;
						missed += is && !found[c];
					}
					runs += (double)s.total;
					for (size_t c = 0; c < COMMITS; c++)
						free(s.runs[c]);
				}
				char what[32];
				if (fixed[fi])
					snprintf(what, sizeof(what), "fixed n = %zu", fixed[fi]);
				else
					snprintf(what, sizeof(what), "adaptive (5 to %d)", MAX_RUNS);
				char miss[32] = "—";
				if (real > 0)
					snprintf(miss, sizeof(miss), "%.1f %%", 100 * missed / real);
				printf("| %s | %s | %s | %.3f | %s | %.2f | %.0f |\n", noises[ni].name,
				       effects[ei] > 0 ? (effects[ei] == 1.0 ? "+100 %" : effects[ei] == 0.5 ? "+50 %" : "+20 %")
						       : "none",
				       what, false_c / (double)trials, miss, undecided / (double)trials, runs / (double)trials);
				fflush(stdout);
			}
	return 0;
}
