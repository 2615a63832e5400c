/* fleet: the record's way to node_exporter and the Pushgateway (see fleet.h).
 *
 * Only assembly lives here: the text comes from export/openmetrics, the HTTP
 * from fleet/push, the atomic file write from record/jsonio.
 */
#include "fleet/fleet.h"

#include <stdlib.h>
#include <string.h>

#include "export/openmetrics.h"
#include "util/xalloc.h"

void fleet_opts_init(struct fleet_opts *o)
{
	memset(o, 0, sizeof(*o));
	push_opts_init(&o->push);
}

int fleet_parse_label(const char *kv, char **name, const char **value, struct err *e)
{
	*name = NULL;
	*value = NULL;
	const char *eq = strchr(kv, '=');
	if (!eq)
		return err_set(e, "label '%s' must be NAME=VALUE", kv);
	char *n = xstrndup(kv, (size_t)(eq - kv));
	if (!push_label_name_ok(n)) {
		err_set(e, "bad label name '%s' (letters, digits and '_', not starting with a digit, "
			"not 'job')", n);
		free(n);
		return -1;
	}
	*name = n;
	*value = eq + 1;
	return 0;
}

/* labels + instance=host (unless present) + the extra pair (may be NULL). */
static const char **fleet_group(const char *const *labels, const char *host, const char *k,
				const char *v)
{
	size_t n = 0;
	int has_instance = 0;
	for (const char *const *l = labels; l && l[0]; l += 2, n += 2)
		has_instance |= !strcmp(l[0], "instance");
	const char **g = xcalloc(n + 5, sizeof(*g));
	memcpy(g, labels ? labels : g, n * sizeof(*g));
	if (!has_instance && host && *host) {
		g[n++] = "instance";
		g[n++] = host;
	}
	if (k) {
		g[n++] = k;
		g[n++] = v;
	}
	return g;
}

static const char *fleet_hostname(json_t *record)
{
	return json_string_value(json_object_get(json_object_get(record, "host"), "hostname"));
}

int fleet_push_record(const char *url, const char *job, const char *const *labels,
		      json_t *record, const struct bench_runs *src, const struct push_opts *o, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	if (openmetrics_from_record(record, src, &text, &len, e))
		return -1;
	const char **g = fleet_group(labels, fleet_hostname(record), NULL, NULL);
	int rc = push_to_gateway(url, job && *job ? job : FLEET_DEFAULT_JOB, g, text, len, o, e);
	free(g);
	free(text);
	return rc;
}

int fleet_after_record(const struct fleet_opts *o, json_t *record, const struct bench_runs *src, struct err *e)
{
	int rc = 0;
	struct err mine = { 0 };
	if (o->openmetrics_path && openmetrics_write(o->openmetrics_path, record, src, &mine)) {
		err_wrap(&mine, "cannot write '%s'", o->openmetrics_path);
		rc = -1;
	}
	struct err second = { 0 };
	if (o->push_url && fleet_push_record(o->push_url, o->job, o->labels, record, src, &o->push,
					     rc ? &second : &mine))
		rc = -1;
	if (rc && e)
		*e = mine;
	return rc;
}

int fleet_push_live(const struct fleet_opts *o, const struct sample *s, double interval_ms,
		    const char *command, const char *host, struct err *e)
{
	char *text = NULL;
	size_t len = 0;
	if (openmetrics_live(s, interval_ms, command, host, &text, &len, e))
		return -1;
	const char **g = fleet_group(o->labels, host, "stream", "live");
	int rc = push_to_gateway(o->push_url, o->job && *o->job ? o->job : FLEET_DEFAULT_JOB, g,
				 text, len, &o->push, e);
	free(g);
	free(text);
	return rc;
}

int fleet_live_end(const struct fleet_opts *o, const char *host, struct err *e)
{
	const char **g = fleet_group(o->labels, host, "stream", "live");
	int rc = push_delete_group(o->push_url, o->job && *o->job ? o->job : FLEET_DEFAULT_JOB, g,
				   &o->push, e);
	free(g);
	return rc;
}
