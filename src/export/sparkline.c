/* sparkline: bucketed maxima scaled to eight block characters; any double
 * (NaN, ±1e308) maps to one of the eight. */
#include "export/sparkline.h"

#include <math.h>
#include <string.h>

void sparkline(const double *v, size_t n, size_t width, char *out, size_t cap)
{
	static const char *const blocks[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	out[0] = 0;
	if (!n || !width || cap < 4)
		return;
	size_t nb = n < width ? n : width;
	double lo = INFINITY, hi = -INFINITY; /* NaN skipped: it compares false */
	for (size_t i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	size_t used = 0;
	for (size_t b = 0; b < nb && used + 4 <= cap; b++) {
		size_t from = b * n / nb, to = (b + 1) * n / nb;
		double m = v[from];
		for (size_t i = from + 1; i < to; i++)
			m = v[i] > m || isnan(m) ? v[i] : m;
		/* halves: hi - lo overflows for values of either sign near DBL_MAX */
		double f = hi > lo ? (m / 2 - lo / 2) / (hi / 2 - lo / 2) : 3.0 / 7;
		int level = f > 0 ? (f < 1 ? (int)lround(f * 7) : 7) : 0; /* NaN: the lowest */
		memcpy(out + used, blocks[level], 3); /* each block is 3 bytes of UTF-8 */
		used += 3;
		out[used] = 0;
	}
}
