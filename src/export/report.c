/* report: the entry point of the HTML report — picks the page by schema.
 *
 * Each page lives in its own file (report_run.c, report_bench.c,
 * report_compare.c) over the shared shell in report_page.c; this file only
 * dispatches, so no page depends on another.
 */
#include "export/report.h"

#include <string.h>

#include "export/report_page.h"

static const char *record_schema(const json_t *record, struct err *e)
{
	const char *schema = json_string_value(json_object_get(record, "schema"));
	if (!schema)
		err_set(e, "not a perfhunt record: no \"schema\" field");
	return schema;
}

int report_html(const json_t *record, struct svg *out, struct err *e)
{
	const char *schema = record_schema(record, e);
	if (!schema)
		return -1;
	if (!strcmp(schema, "perfhunt.run/1"))
		return report_run_html(record, out, e);
	if (!strcmp(schema, "perfhunt.bench/1"))
		return report_bench_html(record, out, e);
	if (!strcmp(schema, "perfhunt.compare/1"))
		return report_compare_html(record, out, e);
	if (!strcmp(schema, "perfhunt.bisect/1"))
		return report_bisect_html(record, out, e);
	return err_set(e, "unsupported record schema '%s' (expected perfhunt.run/1, "
		       "perfhunt.bench/1, perfhunt.compare/1 or perfhunt.bisect/1)", schema);
}

int report_memory_svg(const json_t *record, struct svg *out, struct err *e)
{
	const char *schema = record_schema(record, e);
	if (!schema)
		return -1;
	if (strcmp(schema, "perfhunt.run/1"))
		return err_set(e, "a memory chart needs a run record (perfhunt.run/1), not '%s'", schema);
	return report_run_memory_svg(record, out, e);
}
