/* units: formatting of sizes (KiB-based) and durations for people. */
#include "util/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* A figure that is not a number or infinite (a hand-edited history) prints
 * as "-", as a missing one does: never "-inf h" or "nan KiB". */
static bool units_absent(double v, char *buf, size_t n)
{
	if (isfinite(v))
		return false;
	snprintf(buf, n, "%s", "-");
	return true;
}

char *units_kb(double kb, char *buf, size_t n)
{
	static const char *names[] = { "KiB", "MiB", "GiB", "TiB" };
	if (units_absent(kb, buf, n))
		return buf;
	double v = kb;
	int i = 0;
	while (fabs(v) >= 1024 && i < 3) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%.0f %s", v, names[i]);
	else if (fabs(v) < 1e6)
		snprintf(buf, n, "%.2f %s", v, names[i]);
	else /* past a million TiB (a hostile record): short, never 300 digits */
		snprintf(buf, n, "%.3g %s", v, names[i]);
	return buf;
}

char *units_ms(double ms, char *buf, size_t n)
{
	if (units_absent(ms, buf, n))
		return buf;
	double a = fabs(ms);
	if (a < 1)
		snprintf(buf, n, "%.0f µs", ms * 1000);
	else if (a < 1000)
		snprintf(buf, n, "%.*f ms", a < 10 ? 2 : a < 100 ? 1 : 0, ms);
	else if (a < 60000)
		snprintf(buf, n, "%.*f s", a < 10000 ? 3 : 2, ms / 1000);
	else if (a < 3600000)
		snprintf(buf, n, "%d min %02d s", (int)(ms / 60000), (int)fmod(a / 1000, 60));
	else if (a < 3.6e6 * 1e6) /* up to a million hours: beyond, hours alone */
		snprintf(buf, n, "%.0f h %02d min", trunc(ms / 3600000), (int)fmod(a / 60000, 60));
	else
		snprintf(buf, n, "%.3g h", ms / 3600000);
	return buf;
}

char *units_count(double v, char *buf, size_t n)
{
	if (units_absent(v, buf, n))
		return buf;
	double a = fabs(v);
	if (a < 10000)
		snprintf(buf, n, "%.0f", v);
	else if (a < 1e6)
		snprintf(buf, n, "%.1f k", v / 1e3);
	else if (a < 1e9)
		snprintf(buf, n, "%.2f M", v / 1e6);
	else if (a < 1e15)
		snprintf(buf, n, "%.2f G", v / 1e9);
	else
		snprintf(buf, n, "%.3g", v);
	return buf;
}

char *units_shortest(double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "NaN");
	else if (isinf(v))
		snprintf(buf, n, "%s", v > 0 ? "+Inf" : "-Inf");
	else
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, n, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	return buf;
}
