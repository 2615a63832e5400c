/* bench_text: a bench record's results for a terminal (perfhunt bench).
 *
 * Also the one table builder of the bench exports: bench_text_cells gives the
 * display strings of a command's row, so the markdown table shows exactly what
 * the terminal shows (hyperfine's exporters share one builder the same way).
 */
#ifndef PERFHUNT_BENCH_TEXT_H
#define PERFHUNT_BENCH_TEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "stats/bench_record.h"

enum { BENCH_TEXT_COLS = 7, BENCH_TEXT_CELL = 96 };
/* command, median, mean ± σ, min, max, peak RSS, relative */
extern const char *const bench_text_titles[BENCH_TEXT_COLS];

/* Wall times in one unit, as hyperfine's -u: "microsecond", "millisecond",
 * "second"; NULL (or another word): each figure in its own unit. */
extern const char *const bench_text_time_units[3];

/* Fills the cells of command i of a finished bench record (bench_record_finish);
 * relative is to command ref ("1.00" for ref itself); wall times in time_unit. */
void bench_text_cells(const json_t *rec, size_t i, size_t ref, const char *time_unit,
		      char cells[BENCH_TEXT_COLS][BENCH_TEXT_CELL]);

/* How the terminal shows a bench: bold headings, the wall times' unit. */
/* The order of the commands, as hyperfine's --sort: auto (the blocks as
 * given, the summary by median wall time), command (both as given),
 * mean-time (both by mean wall time). */
enum bench_text_sort { BENCH_SORT_AUTO, BENCH_SORT_COMMAND, BENCH_SORT_MEAN_TIME };
struct bench_text_style {
	bool color;
	const char *time_unit; /* as bench_text_cells's */
	enum bench_text_sort sort;
};

/* Writes one block per command (wall median, mean ± σ, min … max, peak RSS,
 * user/sys, top phases, outliers with a hint, failed runs) and, with several
 * commands, how much faster the fastest ran. Bold headings when color.
 * The runs are read from src (NULL: the record's own). -1 when writing failed. */
int bench_text_write(const json_t *rec, const struct bench_runs *src, const struct bench_text_style *style,
		     FILE *out);

#endif
