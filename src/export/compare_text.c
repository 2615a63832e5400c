/* compare_text: the comparison table for a terminal.
 *
 * Columns are padded by display width (UTF-8 code points, since units print
 * "µs" and verdicts "—"), and colour codes are added after padding so they
 * never shift a column. Phases follow the table, largest delta first, each
 * with the share of the wall-time delta it explains. Names and labels are
 * quoted (util/quote) when they hold control characters; the markdown
 * export, a file, keeps their bytes.
 */
#include "export/compare_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/command.h"
#include "stats/metrics.h"
#include "util/quote.h"
#include "util/units.h"

const char *const compare_text_titles[COMPARE_TEXT_COLS] = {
	"metric", "base", "new", "delta", "CI of ratio", "p (Holm)", "test", "verdict",
};

const char *compare_text_family_what(enum comparison_family f)
{
	return f == COMPARISON_PRIMARY ? "wall time and phase durations"
		: f == COMPARISON_SECONDARY ? "resources and counters" : "what each phase consumed";
}

/* How a resource is named in a phase's line. */
static const char *reason_label(const char *key)
{
	static const struct {
		const char *key, *label;
	} labels[] = {
		{ "minflt", "minor faults" }, { "majflt", "major faults" }, { "user_s", "user" },
		{ "sys_s", "sys" }, { "vcsw", "voluntary switches" }, { "ivcsw", "involuntary switches" },
		{ "read_bytes", "read" }, { "write_bytes", "written" }, { "rss_growth_kb", "RSS growth" },
		{ "gpu_growth_mib", "GPU growth" }, { "parallelism", "parallelism" },
		{ "blocked_ms", "blocked" }, { "iowait_ms", "waiting for I/O" }, { "runnable_ms", "waiting for a CPU" },
		{ "gpu_busy_ms", "GPU busy" }, { "gpu_sync_ms", "waiting for the GPU" }, { "h2d_bytes", "H2D" },
		{ "d2h_bytes", "D2H" }, { "h2d_pageable_bytes", "pageable H2D" },
		{ "gpu_mem_growth_mib", "GPU allocations" },
	};
	for (size_t i = 0; i < sizeof(labels) / sizeof(*labels); i++)
		if (!strcmp(labels[i].key, key))
			return labels[i].label;
	return key;
}

char *compare_text_reasons(const struct comparison_phase *p, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < p->n_reasons && len < n; i++) {
		const struct comparison_reason *r = &p->reasons[i];
		char a[48], b[48], metric[64];
		int w;
		if (!strcmp(r->key, "user_s") || !strcmp(r->key, "sys_s")) {
			w = snprintf(buf + len, n - len, "%s%s %s", i ? ", " : "", reason_label(r->key),
				     compare_text_delta_ms(1000 * (r->nw - r->base), a, sizeof(a)));
		} else if (!strcmp(r->key, "blocked_ms") || !strcmp(r->key, "runnable_ms") || !strcmp(r->key, "iowait_ms")) {
			w = snprintf(buf + len, n - len, "%s%s %s (thread time)", i ? ", " : "", reason_label(r->key),
				     compare_text_delta_ms(r->nw - r->base, a, sizeof(a)));
		} else if (!strcmp(r->key, "h2d_copy_ms")) {
			/* pageable copies 4.00 GiB at 6.8 GB/s (was pinned at 50.7 GB/s) */
			w = snprintf(buf + len, n - len, "%s%s copies %s at %.1f GB/s (was %s at %.1f GB/s)", i ? ", " : "",
				     r->new_pageable ? "pageable" : "pinned", units_kb(r->bytes / 1024, a, sizeof(a)),
				     r->new_gbps, r->base_pageable ? "pageable" : "pinned", r->base_gbps);
		} else if (!strncmp(r->key, "kernel:", 7)) {
			/* "kernel:NAME_ms": kernel NAME +1.19 s */
			int k = (int)strlen(r->key) - 10;
			w = snprintf(buf + len, n - len, "%skernel %.*s %s", i ? ", " : "", k > 0 ? k : 0, r->key + 7,
				     compare_text_delta_ms(r->nw - r->base, a, sizeof(a)));
		} else if (comparison_reason_is_gpu_ms(r->key)) {
			w = snprintf(buf + len, n - len, "%s%s %s", i ? ", " : "", reason_label(r->key),
				     compare_text_delta_ms(r->nw - r->base, a, sizeof(a)));
		} else if (!strcmp(r->key, "parallelism")) {
			w = snprintf(buf + len, n - len, "%sparallelism %.2g \u2192 %.2g", i ? ", " : "", r->base, r->nw);
		} else {
			snprintf(metric, sizeof(metric), "phase:.%s", r->key);
			compare_text_value_pair(metric, r->base, r->nw, a, b, sizeof(a));
			w = snprintf(buf + len, n - len, "%s%s %s \u2192 %s", i ? ", " : "", reason_label(r->key), a, b);
		}
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

char *compare_text_why(const struct comparison_phase *p, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!p->changed && !p->leading)
		return buf;
	compare_text_reasons(p, buf, n);
	if (p->leading) {
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, "%s(not established)", len ? " " : "");
	}
	return buf;
}

char *compare_text_small_n(const struct comparison *c, enum comparison_family f, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < c->n_metrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		if (m->family != f || !m->runs_needed || m->verdict != STATS_INCONCLUSIVE)
			continue;
		size_t tests = c->family_tests[f];
		char need[64];
		if (m->runs_needed == SIZE_MAX)
			snprintf(need, sizeof(need), "more than 1000 + 1000 runs");
		else
			snprintf(need, sizeof(need), "at least %zu + %zu runs", m->runs_needed, m->runs_needed);
		snprintf(buf, n, "%zu + %zu runs cannot reach p < %g in the %s family (Holm over %zu test%s: "
			 "the smallest adjusted p is %.2g); %s can", m->n_base, m->n_new, c->alpha, comparison_family_name(f),
			 tests, tests == 1 ? "" : "s", fmin(1, (double)tests * stats_mwu_min_p(m->n_base, m->n_new)),
			 need);
		break;
	}
	return buf;
}

const char *compare_text_verdict(const struct comparison_metric *m)
{
	if (m->verdict == STATS_INCONCLUSIVE && m->runs_needed)
		return "inconclusive \u2014 too few runs";
	return stats_verdict_label(m->verdict);
}

/* Appends printf output to buf at *len, never past n. */
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	if (*len >= n)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *len, n - *len, fmt, ap);
	va_end(ap);
	if (w > 0)
		*len = *len + (size_t)w < n ? *len + (size_t)w : n - 1;
}

/* A frame perf could not name: "libcuda.so+0x48bc07". */
static bool unnamed(const char *frame)
{
	return strstr(frame, "+0x") != NULL;
}

/* Under a hot frame in a library without symbols, the hot path's nearest
 * named user frames (the program's own code that called it): "; in
 * cudaHostRegister ← main" — unless the line named one already (the frames
 * from top on were printed). */
static void nearest_named(const struct profdiff *d, size_t top, size_t floor, char *buf, size_t n, size_t *len)
{
	char label[PROFDIFF_LABEL];
	size_t k = 0;
	for (size_t i = d->n_hot - 1; i > floor && k < 2; i--) {
		const char *nm = d->nodes[d->hot[i - 1]].name;
		if (unnamed(nm) || profdiff_frame_kernel(nm) || nm[0] == '[')
			continue;
		if (!k && i - 1 >= top)
			return;
		profdiff_frame_label(nm, label, sizeof(label), NULL);
		append(buf, n, len, "%s%s", k++ ? " \u2190 " : "; in ", label);
	}
}

/* The system call a kernel frame serves: "__x64_sys_futex" -> "futex";
 * NULL for other frames. */
static const char *syscall_of(const char *frame)
{
	static const char *const prefixes[] = { "__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__se_sys_",
						"__do_sys_", "ksys_", "sys_" };
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(frame, prefixes[i], strlen(prefixes[i])))
			return frame + strlen(prefixes[i]);
	return NULL;
}

/* The suffix of the line: the process (and how many thread names its pool
 * folded), and what the test said. */
static void code_end(const struct profdiff *d, size_t floor, char *buf, size_t n, size_t *len)
{
	if (floor && d->hot_threads > 1)
		append(buf, n, len, " (%s, %zu threads)", d->nodes[d->hot[0]].name, d->hot_threads);
	else if (floor)
		append(buf, n, len, " (%s)", d->nodes[d->hot[0]].name);
	if (d->hot_state == PROFDIFF_NOISE)
		append(buf, n, len, " (within noise)");
	else if (d->hot_state == PROFDIFF_UNTESTED)
		append(buf, n, len, " (not tested: fewer than two profiled runs a side)");
}

/* Off-CPU: "+3.31 s blocked in futex ← __lll_lock_wait ← pthread_mutex_lock
 * ← work ← pool_main (prover)": the system call the threads slept in (or
 * the outermost kernel frame, or the hot frame where the path has none),
 * then the user frames that made it, nearest first. */
static char *code_offcpu(const struct profdiff *d, char *buf, size_t n)
{
	enum { USER_FRAMES = 6 };
	size_t len = 0;
	char delta[48], label[PROFDIFF_LABEL];
	size_t floor = d->process_root && d->n_hot > 1 ? 1 : 0;
	size_t kern = d->n_hot; /* the outermost kernel frame on the path */
	for (size_t i = floor; i < d->n_hot && kern == d->n_hot; i++)
		if (profdiff_frame_kernel(d->nodes[d->hot[i]].name))
			kern = i;
	const char *what = d->nodes[d->hot[kern < d->n_hot ? kern : d->n_hot - 1]].name;
	for (size_t i = kern; i < d->n_hot; i++) {
		const char *sc = syscall_of(d->nodes[d->hot[i]].name);
		if (sc) {
			what = sc;
			break;
		}
	}
	profdiff_frame_label(what, label, sizeof(label), NULL);
	append(buf, n, &len, "%s blocked in %s", compare_text_delta_ms(d->hot_delta_ms, delta, sizeof(delta)), label);
	size_t top = kern < d->n_hot ? kern : d->n_hot - 1; /* the frames above the one named */
	for (size_t k = 0; k < USER_FRAMES && top > floor; top--) {
		const char *nm = d->nodes[d->hot[top - 1]].name;
		if (nm[0] == '[')
			continue;
		profdiff_frame_label(nm, label, sizeof(label), NULL);
		append(buf, n, &len, " \u2190 %s", label);
		k++;
	}
	code_end(d, floor, buf, n, &len);
	return buf;
}

char *compare_text_code(const struct profdiff *d, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	if (!d || !d->n_hot)
		return buf;
	if (d->offcpu)
		return code_offcpu(d, buf, n);
	char delta[48], label[PROFDIFF_LABEL];
	bool kernel;
	const struct profdiff_node *hot = &d->nodes[d->hot[d->n_hot - 1]];
	profdiff_frame_label(hot->name, label, sizeof(label), &kernel);
	append(buf, n, &len, "%s CPU in %s%s", compare_text_delta_ms(d->hot_delta_ms, delta, sizeof(delta)),
	       kernel ? "kernel " : "", label);
	/* its callers: two more, then, for a kernel frame, the system call it
	 * serves ("__x64_sys_mlock") if further up, and the first two user
	 * frames as "called from" */
	size_t top = d->n_hot - 1;
	/* the process, the root of each stack, is named at the end */
	size_t floor = d->process_root && d->n_hot > 1 ? 1 : 0;
	for (size_t k = 0; k < 2 && top > floor; k++) {
		bool kk;
		profdiff_frame_label(d->nodes[d->hot[top - 1]].name, label, sizeof(label), &kk);
		if (kk != kernel)
			break;
		append(buf, n, &len, " \u2190 %s", label);
		top--;
	}
	if (kernel) {
		size_t user = top;
		while (user > floor && profdiff_frame_kernel(d->nodes[d->hot[user - 1]].name))
			user--;
		/* user: the count of user frames above; the syscall is the
		 * outermost kernel frame named *sys_* below them */
		for (size_t i = user; i < top; i++) {
			const char *nm = d->nodes[d->hot[i]].name;
			if (strstr(nm, "sys_") && strncmp(nm, "do_syscall", 10) && strncmp(nm, "entry_SYSCALL", 13)) {
				profdiff_frame_label(nm, label, sizeof(label), NULL);
				append(buf, n, &len, "%s \u2190 %s", i + 1 < top ? " \u2190 \u2026" : "", label);
				break;
			}
		}
		top = user;
	}
	for (size_t k = 0; k < 2 && top > floor; k++, top--) {
		profdiff_frame_label(d->nodes[d->hot[top - 1]].name, label, sizeof(label), NULL);
		append(buf, n, &len, "%s%s", k ? " \u2190 " : ", called from ", label);
	}
	if (unnamed(hot->name))
		nearest_named(d, top, floor, buf, n, &len);
	code_end(d, floor, buf, n, &len);
	return buf;
}

/* The whole run's code line, where its wall time changed and no phase's
 * line says it already (a record without phases). */
static void run_code(const struct comparison *c, struct quote_pool *q, FILE *out)
{
	char line[512], delta[64];
	for (size_t i = 0; i < c->n_phases; i++)
		if (compare_text_code(c->phases[i].profile, line, sizeof(line))[0])
			return;
	if (!compare_text_code(c->run_profile, line, sizeof(line))[0])
		return;
	fprintf(out, "\nthe whole run (wall-time delta %s):\n    code: %s\n",
		compare_text_delta_ms(c->wall_delta_ms, delta, sizeof(delta)), quote_pool_c(q, line));
}

char *compare_text_method_note(const struct comparison *c, char *buf, size_t n)
{
	bool exact = false, normal = false;
	for (size_t i = 0; i < c->n_metrics; i++) {
		exact |= c->metrics[i].test == STATS_MWU_EXACT;
		normal |= c->metrics[i].test == STATS_MWU_NORMAL;
	}
	char tests[240];
	snprintf(tests, sizeof(tests), "%s%s%s",
		 exact ? "exact = its exact permutation distribution, ties included" : "",
		 exact && normal ? "; " : "",
		 normal ? "normal = the normal approximation with tie correction (over "
			  STATS_MWU_EXACT_MAX_STR " runs on a side)" : "");
	char fam[3][160];
	for (int f = 0; f < COMPARISON_FAMILIES; f++)
		snprintf(fam[f], sizeof(fam[f]), "%s (%s), %zu test%s", comparison_family_name((enum comparison_family)f),
			 compare_text_family_what((enum comparison_family)f), c->family_tests[f],
			 c->family_tests[f] == 1 ? "" : "s");
	snprintf(buf, n, "p: two-sided Mann\u2013Whitney U, Holm-adjusted within each family: "
		 "%s; %s; %s.%s%s%s", fam[0], fam[1], fam[2], *tests ? " Test: " : "", tests, *tests ? "." : "");
	return buf;
}

/* units_ms, but seconds stay seconds past a minute: "88.95 s" compares at a
 * glance with "94.50 s", "1 min 28 s" does not. */
static void duration(double ms, char *buf, size_t n)
{
	if (fabs(ms) >= 60000)
		snprintf(buf, n, "%.2f s", ms / 1000);
	else
		units_ms(ms, buf, n);
}

char *compare_text_value(const char *name, double v, char *buf, size_t n)
{
	if (isnan(v)) {
		snprintf(buf, n, "n/a");
		return buf;
	}
	switch (metrics_unit(name)) {
	case METRICS_MS:
		duration(v, buf, n);
		break;
	case METRICS_S:
		duration(v * 1000, buf, n);
		break;
	case METRICS_NS:
		duration(v / 1e6, buf, n);
		break;
	case METRICS_KB:
		units_kb(v, buf, n);
		break;
	case METRICS_MIB:
		units_kb(v * 1024, buf, n);
		break;
	case METRICS_BYTES:
		if (fabs(v) < 1024)
			snprintf(buf, n, "%.0f B", v);
		else
			units_kb(v / 1024, buf, n);
		break;
	case METRICS_PCT:
		snprintf(buf, n, "%.1f %%", v);
		break;
	case METRICS_COUNT:
		/* a median of counts may fall between two (an even number of runs) */
		if (fabs(v) < 10000 && v != floor(v))
			snprintf(buf, n, "%.4g", v);
		else
			units_count(v, buf, n);
		break;
	}
	return buf;
}

void compare_text_value_pair(const char *name, double a, double b, char *abuf, char *bbuf, size_t n)
{
	compare_text_value(name, a, abuf, n);
	compare_text_value(name, b, bbuf, n);
	if (strcmp(abuf, bbuf) || a == b || !isfinite(a) || !isfinite(b))
		return;
	static const char *const base_unit[] = {
		[METRICS_COUNT] = "", [METRICS_MS] = " ms", [METRICS_S] = " s", [METRICS_NS] = " ns",
		[METRICS_KB] = " KiB", [METRICS_MIB] = " MiB", [METRICS_BYTES] = " B", [METRICS_PCT] = " %",
	};
	const char *unit = base_unit[metrics_unit(name)];
	for (int digits = 4; digits <= 17; digits++) {
		snprintf(abuf, n, "%.*g%s", digits, a, unit);
		snprintf(bbuf, n, "%.*g%s", digits, b, unit);
		if (strcmp(abuf, bbuf))
			break;
	}
}

char *compare_text_pct(double pct, char *buf, size_t n)
{
	if (!isfinite(pct))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%+.2f %%", pct);
	return buf;
}

char *compare_text_delta_ms(double ms, char *buf, size_t n)
{
	char u[48];
	duration(fabs(ms), u, sizeof(u));
	snprintf(buf, n, "%s%s", ms < 0 ? "-" : "+", u);
	return buf;
}

double compare_text_round(double v)
{
	v = round(v);
	return v == 0 ? 0 : v; /* no "-0" */
}

static void ratio_str(double r, char *buf, size_t n)
{
	if (isinf(r))
		snprintf(buf, n, "inf");
	else
		snprintf(buf, n, "%.3f", r);
}

void compare_text_cells(const struct comparison_metric *m, char cells[COMPARE_TEXT_COLS][COMPARE_TEXT_CELL])
{
	snprintf(cells[0], COMPARE_TEXT_CELL, "%s", m->name);
	compare_text_value_pair(m->name, m->base_median, m->new_median, cells[1], cells[2], COMPARE_TEXT_CELL);
	compare_text_pct(m->delta_pct, cells[3], COMPARE_TEXT_CELL);
	if (isnan(m->ci_low)) {
		snprintf(cells[4], COMPARE_TEXT_CELL, "-");
	} else {
		char lo[24], hi[24];
		ratio_str(m->ci_low, lo, sizeof(lo));
		ratio_str(m->ci_high, hi, sizeof(hi));
		snprintf(cells[4], COMPARE_TEXT_CELL, "%s..%s", lo, hi);
	}
	if (isnan(m->p_adjusted))
		snprintf(cells[5], COMPARE_TEXT_CELL, "-");
	else
		snprintf(cells[5], COMPARE_TEXT_CELL, "%.2g", m->p_adjusted);
	snprintf(cells[6], COMPARE_TEXT_CELL, "%s", m->test == STATS_MWU_NONE ? "-" : stats_mwu_method_name(m->test));
	snprintf(cells[7], COMPARE_TEXT_CELL, "%s", compare_text_verdict(m));
}

/* Display width of UTF-8 text: one column per code point. */
static size_t display_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *out, const char *s, size_t width, bool right)
{
	size_t w = display_width(s);
	if (right)
		fprintf(out, "%*s%s", (int)(width > w ? width - w : 0), "", s);
	else
		fprintf(out, "%s%*s", s, (int)(width > w ? width - w : 0), "");
}

/* Prints s as lines of at most width columns, broken at spaces. */
static void wrap(FILE *out, const char *s, size_t width)
{
	while (*s) {
		const char *end = s, *brk = NULL;
		size_t w = 0;
		for (; *end && (w < width || !brk); end++) {
			if (*end == ' ')
				brk = end;
			w += ((unsigned char)*end & 0xc0) != 0x80;
		}
		if (!*end)
			brk = end;
		fprintf(out, "%.*s\n", (int)(brk - s), s);
		s = *brk ? brk + 1 : brk;
	}
}

/* compare_text_cells with the name quoted for a terminal. */
static void term_cells(const struct comparison_metric *m, char cells[COMPARE_TEXT_COLS][COMPARE_TEXT_CELL],
		       struct quote_pool *q)
{
	compare_text_cells(m, cells);
	snprintf(cells[0], COMPARE_TEXT_CELL, "%s", quote_pool_c(q, m->name));
}

int compare_text_notes(const struct comparison *c, FILE *out)
{
	struct quote_pool q = { 0 };
	int n = 0;
	if (c->base_command && c->new_command && !json_equal(c->base_command, c->new_command)) {
		/* by the line a shell reads: argv ["sleep", "1"] is hyperfine's "sleep 1" */
		char *a = command_text(c->base_command), *b = command_text(c->new_command);
		if (!a || !b || strcmp(a, b)) {
			fprintf(out, "note: BASE and NEW ran different commands:\n  base: %s\n  new:  %s\n",
				quote_pool_c(&q, a ? a : "?"), quote_pool_c(&q, b ? b : "?"));
			n++;
		}
		free(a);
		free(b);
	}
	if (c->base_host && c->new_host && !json_equal(c->base_host, c->new_host)) {
		fprintf(out, "note: BASE and NEW were recorded on different hosts:\n  base: %s\n  new:  %s\n",
			quote_pool_c(&q, json_string_value(c->base_host)), quote_pool_c(&q, json_string_value(c->new_host)));
		n++;
	}
	quote_pool_release(&q);
	return n;
}

int compare_text_write(const struct comparison *c, const char *base_label, const char *new_label,
		       bool color, FILE *out)
{
	size_t width[COMPARE_TEXT_COLS];
	char cells[COMPARE_TEXT_COLS][COMPARE_TEXT_CELL];
	struct quote_pool q = { 0 };
	for (int k = 0; k < COMPARE_TEXT_COLS; k++)
		width[k] = display_width(compare_text_titles[k]);
	size_t resources = 0;
	for (size_t i = 0; i < c->n_metrics; i++) {
		if (c->metrics[i].family == COMPARISON_PHASE_RESOURCES) {
			resources++;
			continue;
		}
		term_cells(&c->metrics[i], cells, &q);
		for (int k = 0; k < COMPARE_TEXT_COLS; k++)
			if (display_width(cells[k]) > width[k])
				width[k] = display_width(cells[k]);
	}
	fprintf(out, "base: %s (%zu run%s)\nnew:  %s (%zu run%s)\nthreshold %g %%, alpha %g\n\n",
		quote_pool_c(&q, base_label), c->base_runs, c->base_runs == 1 ? "" : "s",
		quote_pool_c(&q, new_label), c->new_runs, c->new_runs == 1 ? "" : "s", c->threshold * 100, c->alpha);
	if (compare_text_notes(c, out))
		fputc('\n', out);
	for (int k = 0; k < COMPARE_TEXT_COLS; k++) {
		pad(out, compare_text_titles[k], k == COMPARE_TEXT_COLS - 1 ? 0 : width[k], k > 0 && k < 6);
		fputs(k == COMPARE_TEXT_COLS - 1 ? "\n" : "  ", out);
	}
	bool any_n1 = false;
	for (size_t i = 0; i < c->n_metrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		/* the per-phase resources speak in the phases' lines below (all of
		 * them in --export-json and --export-markdown) */
		if (m->family == COMPARISON_PHASE_RESOURCES)
			continue;
		if (i == 0 || m->family != c->metrics[i - 1].family)
			fprintf(out, "%s (%s):\n", comparison_family_name(m->family), compare_text_family_what(m->family));
		term_cells(m, cells, &q);
		for (int k = 0; k < COMPARE_TEXT_COLS - 1; k++) {
			pad(out, cells[k], width[k], k > 0 && k < 6);
			fputs("  ", out);
		}
		const char *on = !color ? NULL : m->verdict == STATS_REGRESSED ? "\033[31m"
			: m->verdict == STATS_IMPROVED ? "\033[32m" : NULL;
		fprintf(out, "%s%s%s\n", on ? on : "", cells[COMPARE_TEXT_COLS - 1], on ? "\033[0m" : "");
		any_n1 |= m->verdict == STATS_NO_SIGNIFICANCE;
	}
	char buf[64], note[512];
	pad(out, "geomean", width[0], false);
	fputs("  ", out);
	pad(out, "", width[1] + 2 + width[2], true);
	fputs("  ", out);
	pad(out, compare_text_pct(100 * (c->geomean - 1), buf, sizeof(buf)), width[3], true);
	fputs("\n", out);
	if (any_n1)
		fputs("\nOne run on a side: deltas only, no significance is claimed; run more (perfhunt bench -n 10).\n", out);
	else
	{
		fprintf(out, "\n%zu regressed, %zu improved.\n", c->regressed, c->improved);
		wrap(out, compare_text_method_note(c, note, sizeof(note)), 78);
		for (int f = 0; f < COMPARISON_FAMILIES; f++)
			if (compare_text_small_n(c, (enum comparison_family)f, note, sizeof(note))[0]) {
				fputs("note: ", out);
				wrap(out, note, 72);
			}
	}

	if (c->n_phases) {
		char delta[64];
		if (isfinite(c->wall_delta_ms))
			fprintf(out, "\nphases, by size of change (wall-time delta %s):\n",
				compare_text_delta_ms(c->wall_delta_ms, delta, sizeof(delta)));
		else
			fputs("\nphases, by size of change:\n", out);
		size_t name_w = 0;
		for (size_t i = 0; i < c->n_phases; i++)
			if (display_width(quote_pool_c(&q, c->phases[i].name)) + 2 * (size_t)c->phases[i].depth > name_w)
				name_w = display_width(quote_pool_c(&q, c->phases[i].name)) + 2 * (size_t)c->phases[i].depth;
		for (size_t i = 0; i < c->n_phases; i++) {
			const struct comparison_phase *p = &c->phases[i];
			char why[512], pct[32];
			fprintf(out, "  %*s", 2 * p->depth, "");
			pad(out, quote_pool_c(&q, p->name), name_w - 2 * (size_t)p->depth, false);
			fputs("  ", out);
			pad(out, compare_text_delta_ms(p->delta_ms, delta, sizeof(delta)), 12, true);
			if (isfinite(p->delta_pct))
				fprintf(out, " (%s)", compare_text_pct(p->delta_pct, pct, sizeof(pct)));
			if (isfinite(p->share_pct))
				fprintf(out, "  explains %.0f %% of the wall-time delta", compare_text_round(p->share_pct));
			if (compare_text_why(p, why, sizeof(why))[0])
				fprintf(out, ": %s", why);
			fputs("\n", out);
			if (compare_text_code(p->profile, why, sizeof(why))[0]) {
				fprintf(out, "  %*s", 2 * p->depth + 2, "");
				fprintf(out, "code: %s%s\n", quote_pool_c(&q, why), p->leading ? " (not established)" : "");
			}
		}
		if (resources)
			fprintf(out, "(%zu per-phase resource metrics compared, Holm within them: all in --export-json\n"
				     "and --export-markdown; one with --metric phase:NAME.KEY)\n", resources);
		bool changed = false;
		for (size_t i = 0; i < c->n_phases; i++)
			changed |= c->phases[i].changed;
		if (changed && (!c->base_profiled) != (!c->new_profiled))
			fprintf(out, "(which code: only %s was recorded with --profile; record %s with it too)\n",
				c->base_profiled ? "BASE" : "NEW", c->base_profiled ? "NEW" : "BASE");
	}
	run_code(c, &q, out);
	quote_pool_release(&q);
	return ferror(out) ? -1 : 0;
}
