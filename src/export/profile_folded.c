/* profile_folded: the run's stacks of the record, one line each. */
#include "export/profile_folded.h"

int profile_folded_write(const json_t *rec, FILE *out, struct err *e)
{
	const json_t *stacks = json_object_get(json_object_get(json_object_get(rec, "profile"), "run"), "stacks");
	if (!json_is_array(stacks))
		return err_set(e, "the record has no profile (record it with --profile)");
	size_t i;
	const json_t *s;
	json_array_foreach(stacks, i, s) {
		const char *stack = json_string_value(json_object_get(s, "stack"));
		json_int_t n = json_integer_value(json_object_get(s, "count"));
		if (stack && n > 0)
			fprintf(out, "%s %lld\n", stack, (long long)n);
	}
	return 0;
}
