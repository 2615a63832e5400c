/* mwu: the cost of compare's exact Mann–Whitney p against the normal
 * approximation, and how far apart the two p-values are, by sample size.
 *
 * Why: the exact permutation distribution (ties included) is used while both
 * sides have at most STATS_MWU_EXACT_MAX runs; this shows what that limit
 * costs per metric and that beyond it the approximation is close. The data
 * are integer milliseconds (many ties), NEW shifted by about half a spread.
 * Build and run: bench/stats/run.sh [BUILD] (compiled from src/stats/stats.c).
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "stats/stats.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The normal approximation's p for the same data (SciPy's asymptotic), by
 * hand: stats_mann_whitney_p only uses it past the exact limit. */
static double normal_p(const double *a, size_t na, const double *b, size_t nb)
{
	double r_a = 0, tie = 0;
	size_t n = na + nb;
	for (size_t i = 0; i < na; i++) {
		double less = 0, eq = 0;
		for (size_t j = 0; j < na; j++)
			less += a[j] < a[i], eq += a[j] == a[i];
		for (size_t j = 0; j < nb; j++)
			less += b[j] < a[i], eq += b[j] == a[i];
		r_a += less + (eq + 1) / 2;
	}
	/* tie term over the pooled distinct values */
	for (size_t i = 0; i < n; i++) {
		double v = i < na ? a[i] : b[i - na], t = 0, first = 1;
		for (size_t j = 0; j < n; j++) {
			double w = j < na ? a[j] : b[j - na];
			if (w == v) {
				t++;
				if (j < i)
					first = 0;
			}
		}
		if (first)
			tie += t * t * t - t;
	}
	double n1 = (double)na, n2 = (double)nb, nn = (double)n;
	double u1 = r_a - n1 * (n1 + 1) / 2, u = fmax(u1, n1 * n2 - u1);
	double var = n1 * n2 / 12 * ((nn + 1) - tie / (nn * (nn - 1)));
	return fmin(1, erfc((u - n1 * n2 / 2 - 0.5) / sqrt(var) / sqrt(2.0)));
}

static double time_call(const double *a, const double *b, size_t n, int reps)
{
	double t0 = now_s(), sink = 0;
	for (int r = 0; r < reps; r++)
		sink += stats_mann_whitney_p(a, n, b, n, NULL);
	double t = (now_s() - t0) / reps;
	return sink < 0 ? -t : t; /* keeps the calls */
}

int main(void)
{
	static const size_t sizes[] = { 6, 10, 20, 30, 40, 50, 51 };
	printf("| runs a side | p (test) | normal approximation | difference | time per call |\n");
	printf("|--:|--:|--:|--:|--:|\n");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
		size_t n = sizes[s];
		double a[64], b[64];
		for (size_t i = 0; i < n; i++) {
			a[i] = 200 + (double)((i * 37) % 23);
			b[i] = 203 + (double)((i * 53) % 23);
		}
		enum stats_mwu_method m;
		double p = stats_mann_whitney_p(a, n, b, n, &m), pn = normal_p(a, n, b, n);
		double t = time_call(a, b, n, n <= 20 ? 2000 : 100);
		printf("| %zu | %.5f (%s) | %.5f | %.5f | %.3f ms |\n", n, p, stats_mwu_method_name(m), pn,
		       fabs(p - pn), t * 1e3);
	}
	return 0;
}
