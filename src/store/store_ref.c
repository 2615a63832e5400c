/* store_ref: record files and history references to a metric set.
 *
 * A leading '@' or an all-digit argument is a history reference resolved by
 * the store (opened read-only: looking something up never creates a
 * database); anything else is a record file or a comma-separated list.
 */
#include "store/store_ref.h"

#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/xalloc.h"

bool store_ref_is_history(const char *arg)
{
	return arg[0] == '@' || (arg[0] && strspn(arg, "0123456789") == strlen(arg));
}

int store_ref_load(const char *arg, const char *command, struct metrics_set *out, struct err *e)
{
	metrics_set_init(out);
	if (store_ref_is_history(arg)) {
		json_t **recs;
		size_t n;
		int rc = store_resolve_default(arg, &recs, &n, e);
		if (rc == 0)
			rc = metrics_add_records(out, recs, n, e);
		store_records_free(recs, n);
		if (rc < 0)
			metrics_set_release(out);
		return rc;
	}
	char *list = xstrdup(arg), *save = NULL;
	int rc = 0;
	size_t files = 0;
	for (char *path = strtok_r(list, ",", &save); path && rc == 0; path = strtok_r(NULL, ",", &save)) {
		rc = metrics_load_file(out, path, command, e);
		files++;
	}
	free(list);
	if (rc == 0 && files == 0)
		rc = err_set(e, "cannot read '%s': no file named", arg);
	if (rc < 0)
		metrics_set_release(out);
	return rc;
}
