/* compare_text: the terminal table of a comparison (perfhunt compare).
 *
 * Also the one place that turns a compared metric into display cells (human
 * units from the metric's name suffix, delta, CI, p), so the markdown export
 * shows exactly the same strings as the terminal.
 */
#ifndef PERFHUNT_COMPARE_TEXT_H
#define PERFHUNT_COMPARE_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/comparison.h"

enum { COMPARE_TEXT_COLS = 8, COMPARE_TEXT_CELL = 64 };
/* Column titles: metric, base, new, delta, CI of ratio, p (Holm), test, verdict
 * ("test": which Mann–Whitney test gave p, "exact" or "normal"). */
extern const char *const compare_text_titles[COMPARE_TEXT_COLS];

/* Fills the display cells of one metric row. */
void compare_text_cells(const struct comparison_metric *m, char cells[COMPARE_TEXT_COLS][COMPARE_TEXT_CELL]);
/* What a family holds: "wall time and phase durations", "resources and counters". */
const char *compare_text_family_what(enum comparison_family f);
/* One paragraph (no final newline) that says how p was obtained: the test of
 * each kind present and the Holm families with their sizes. */
char *compare_text_method_note(const struct comparison *c, char *buf, size_t n);
/* The notes on what the two sides do not share: "note: BASE and NEW ran
 * different commands" (both named) and "... were recorded on different
 * hosts"; returns how many were written (0: same command and host, or not
 * known). compare writes them above its table, bisect-check on stderr. */
int compare_text_notes(const struct comparison *c, FILE *out);
/* "+6.19 %", "n/a" for a NAN */
char *compare_text_pct(double pct, char *buf, size_t n);
/* A value in the unit its name implies (metrics_unit): times as times
 * (task-clock's nanoseconds too), sizes in IEC units ("16.00 MiB"),
 * percentages, anything else a count. */
char *compare_text_value(const char *name, double v, char *buf, size_t n);
/* Two values of one metric (base and new, before and after), told apart:
 * where their rounded forms would read alike while the values differ, both
 * are written in the base unit with the digits that tell them apart
 * ("0.004 %" and "0 %", never "0 → 0, -100 %"). abuf and bbuf hold n bytes. */
void compare_text_value_pair(const char *name, double a, double b, char *abuf, char *bbuf, size_t n);
/* A changed phase's reasons as one line: "minor faults 0 → 51.2 k, sys +198 ms". */
char *compare_text_reasons(const struct comparison_phase *p, char *buf, size_t n);
/* What a phase's line says after its delta: the reasons of a changed phase;
 * of the leading phase (nothing established), the reasons followed by
 * "(not established)"; "" otherwise. */
char *compare_text_why(const struct comparison_phase *p, char *buf, size_t n);
/* Where family f's test cannot decide with these runs (one of its metrics
 * inconclusive for that reason): "3 + 3 runs cannot reach p < 0.05 in the
 * primary family (Holm over 2 tests: the smallest adjusted p is 0.2); at least 5 + 5
 * runs can"; "" otherwise. */
char *compare_text_small_n(const struct comparison *c, enum comparison_family f, char *buf, size_t n);
/* The verdict of a metric in words: "inconclusive — too few runs" where no
 * p could decide, "inconclusive — run more" where more luck might. */
const char *compare_text_verdict(const struct comparison_metric *m);
/* Which code a phase's change went to, as one line: "+201 ms CPU in kernel
 * clear_page_erms ← get_page_from_freelist ← do_anonymous_page, called from
 * syscall ← pin" (a "(within noise)" or "(not tested: ...)" note when the
 * frame's change is not established); "" when no frame carries it. */
char *compare_text_code(const struct profdiff *d, char *buf, size_t n);
/* Rounds to an integer, never -0 (for "%.0f %%" shares). */
double compare_text_round(double v);
/* "+5.700 s" for a phase's delta in ms */
char *compare_text_delta_ms(double ms, char *buf, size_t n);

/* Writes the table, the geomean and the phase attribution to out; colour
 * (red regressed, green improved) only when color. -1 when writing failed. */
int compare_text_write(const struct comparison *c, const char *base_label, const char *new_label,
		       bool color, FILE *out);

#endif
