/* sparkline: bucketed maxima scaled to eight block characters. */
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
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	size_t used = 0;
	for (size_t b = 0; b < nb && used + 4 <= cap; b++) {
		size_t from = b * n / nb, to = (b + 1) * n / nb;
		double m = v[from];
		for (size_t i = from + 1; i < to; i++)
			m = v[i] > m ? v[i] : m;
		int level = hi > lo ? (int)lround((m - lo) / (hi - lo) * 7) : 3;
		memcpy(out + used, blocks[level], 3); /* each block is 3 bytes of UTF-8 */
		used += 3;
		out[used] = 0;
	}
}
