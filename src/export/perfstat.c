/* perfstat: perf stat's -x lines from a run record's counters.
 *
 * perf stat -x, writes "0.57,msec,task-clock,568092,100.00,0.075,CPUs utilized":
 * clocks in milliseconds with two decimals, counts whole, an event it could
 * not count as "<not supported>" or "<not counted>". perfhunt's record keeps
 * whether a counter was multiplexed ("scaled"), not its running time, so the
 * running time is left empty and the percentage is 100.00 for a counter that
 * ran the whole time, empty for a scaled one; the derived metric is empty.
 */
#include "export/perfstat.h"

#include <stdbool.h>
#include <string.h>

int perfstat_write(const json_t *rec, const char *sep, FILE *out)
{
	const char *name;
	json_t *c;
	json_object_foreach(json_object_get(rec, "counters"), name, c) {
		const json_t *v = json_object_get(c, "value");
		const char *unit = json_string_value(json_object_get(c, "unit"));
		const char *status = json_string_value(json_object_get(c, "status"));
		bool clock = unit && !strcmp(unit, "ns");
		if (json_is_number(v) && clock)
			fprintf(out, "%.2f%smsec", json_number_value(v) / 1e6, sep);
		else if (json_is_integer(v))
			fprintf(out, "%lld%s", (long long)json_integer_value(v), sep);
		else
			fprintf(out, "<%s>%s", status ? status : "not counted", sep);
		fprintf(out, "%s%s%s%s%s%s%s\n", sep, name, sep, sep,
			json_is_number(v) && !json_is_true(json_object_get(c, "scaled")) ? "100.00" : "", sep, sep);
	}
	return ferror(out) ? -1 : 0;
}
