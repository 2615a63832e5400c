/* report_bisect: the report page of a bisect record (perfhunt.bisect/1).
 *
 * The hunt along the history: for each judged metric, one bar per tested
 * commit (oldest at the top) at its median, the culprits in red, so where a
 * metric steps up is seen at a glance; then the culprits with their moved
 * metrics, medians, intervals and reasons, and the commits skipped. Reads
 * only the record: the medians are those `perfhunt bisect` put there.
 */
#include "export/report_page.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/report_chart.h"
#include "util/xalloc.h"

/* True when commit is a culprit of rec. */
static bool is_culprit(const json_t *rec, const char *commit)
{
	size_t i;
	const json_t *c;
	json_array_foreach(json_object_get(rec, "culprits"), i, c)
		if (!strcmp(report_page_str(c, "commit"), commit))
			return true;
	return false;
}

/* One chart of metric's median per tested commit; wall_s drawn in ms. */
static void metric_chart(const json_t *rec, const char *metric, size_t k, struct svg *s)
{
	const json_t *tested = json_object_get(rec, "tested");
	size_t n = json_array_size(tested), i;
	const json_t *t;
	struct report_hbar *bars = xcalloc(n + 1, sizeof(*bars));
	char **names = xcalloc(n + 1, sizeof(*names)), **labels = xcalloc(n + 1, sizeof(*labels));
	double scale = !strcmp(metric, "wall_s") ? 1000 : 1;
	json_array_foreach(tested, i, t) {
		const char *commit = report_page_str(t, "commit");
		double v = report_page_num(json_object_get(t, "medians"), metric) * scale;
		char val[48];
		bool culprit = is_culprit(rec, commit);
		names[i] = xasprintf("%.7s %.40s", commit, report_page_str(t, "subject"));
		labels[i] = xasprintf("%s%s", isfinite(v) ? report_chart_value(REPORT_UNIT_MS, v, val, sizeof(val)) : "n/a",
				      culprit ? "  culprit" : "");
		bars[i] = (struct report_hbar){ names[i], isfinite(v) ? v : 0, NAN, NAN, culprit ? "#D55E00" : "#0072B2",
						labels[i] };
	}
	char id[32], *title = xasprintf("%s: median per tested commit, oldest first", metric);
	snprintf(id, sizeof(id), "m%zu", k);
	svg_raw(s, "<figure>\n");
	report_chart_hbars(s, id, title, REPORT_UNIT_MS, bars, n, 0);
	svg_raw(s, "</figure>\n");
	for (i = 0; i < n; i++) {
		free(names[i]);
		free(labels[i]);
	}
	free(title);
	free(names);
	free(labels);
	free(bars);
}

static void culprit_table(const json_t *rec, struct svg *s)
{
	size_t i, j;
	const json_t *c, *ph;
	svg_raw(s, "<h2>Culprits</h2>\n<table><tr><th class=\"l\">commit</th><th class=\"l\">subject</th>"
		   "<th class=\"l\">metric</th><th>before</th><th>after</th><th>CI of ratio</th><th>p</th>"
		   "<th class=\"l\">why</th></tr>\n");
	json_array_foreach(json_object_get(rec, "culprits"), i, c) {
		json_array_foreach(json_object_get(c, "phases"), j, ph) {
			const json_t *med = json_object_get(ph, "medians"), *ci = json_object_get(ph, "interval");
			char buf[4][48];
			snprintf(buf[0], sizeof(buf[0]), "%.4g", json_number_value(json_array_get(med, 0)));
			snprintf(buf[1], sizeof(buf[1]), "%.4g", json_number_value(json_array_get(med, 1)));
			snprintf(buf[2], sizeof(buf[2]), "%.3f–%.3f", json_number_value(json_array_get(ci, 0)),
				 json_number_value(json_array_get(ci, 1)));
			snprintf(buf[3], sizeof(buf[3]), "%.2g", report_page_num(ph, "p"));
			svg_raw(s, "<tr>");
			char shortc[16];
			snprintf(shortc, sizeof(shortc), "%.12s", report_page_str(c, "commit"));
			report_page_cell(s, j == 0 ? shortc : "", 1);
			report_page_cell(s, j == 0 ? report_page_str(c, "subject") : "", 1);
			report_page_cell(s, report_page_str(ph, "name"), 1);
			for (size_t k = 0; k < 4; k++)
				report_page_cell(s, buf[k], 0);
			report_page_cell(s, report_page_str(ph, "reason"), 1);
			svg_raw(s, "</tr>\n");
		}
	}
	svg_raw(s, "</table>\n");
}

int report_bisect_html(const json_t *rec, struct svg *s, struct err *e)
{
	(void)e;
	report_page_begin(s, "perfhunt bisect report");
	svg_raw(s, "<h1>perfhunt bisect report</h1>\n<table class=\"meta\">\n");
	char *cmd = report_page_command(json_object_get(rec, "command"));
	report_page_row(s, "command", cmd);
	free(cmd);
	report_page_row(s, "good", report_page_str(rec, "good"));
	report_page_row(s, "bad", report_page_str(rec, "bad"));
	report_page_row(s, "good against bad", report_page_str(rec, "ends"));
	char runs[32];
	snprintf(runs, sizeof(runs), "%lld", (long long)json_integer_value(json_object_get(rec, "runs")));
	report_page_row(s, "runs", runs);
	svg_raw(s, "</table>\n");
	if (json_array_size(json_object_get(rec, "culprits")))
		culprit_table(rec, s);
	svg_raw(s, "<h2>Along the history</h2>\n");
	size_t i;
	const json_t *m;
	json_array_foreach(json_object_get(rec, "metrics"), i, m)
		metric_chart(rec, json_string_value(m), i, s);
	const json_t *skipped = json_object_get(rec, "skipped");
	if (json_array_size(skipped)) {
		svg_raw(s, "<h2>Skipped</h2>\n<table>\n");
		json_array_foreach(skipped, i, m) {
			char shortc[16];
			snprintf(shortc, sizeof(shortc), "%.12s", report_page_str(m, "commit"));
			report_page_row(s, shortc, report_page_str(m, "why"));
		}
		svg_raw(s, "</table>\n");
	}
	report_page_end(s);
	return 0;
}
