#!/bin/sh
# End-to-end tests of `perfhunt peak`: the seed example, our CSV with bad lines,
# stdin, JSON, several files, and the error statuses.
. ./lib.sh
D=data/peak

t "seed example: peak 212987636 KiB = 203.12 GiB at 1771368527742"
"$PERFHUNT" peak "$D/seed-memmon.csv" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_status 0 $rc && expect_grep '^data/peak/seed-memmon.csv: rss_kb 212987636 \(203\.12 GiB\) at 2026-02-17T22:48:47\.742Z \(\+2190 ms\), line 3: 1771368527742,212987636,203\.12$' "$TMP/out" \
	&& check "nothing on stderr" test ! -s "$TMP/err" && ok

t "peak agrees with sort | tail -1 on the seed example"
want=$(sort -t, -k2 -n "$D/seed-memmon.csv" | tail -1)
"$PERFHUNT" peak "$D/seed-memmon.csv" >"$TMP/out" && expect_grep ": $want\$" "$TMP/out" && ok

t "--json: value, time, line and row"
"$PERFHUNT" peak --json "$D/seed-memmon.csv" >"$TMP/j"; rc=$?
expect_status 0 $rc && check "value" test "$(jget "$TMP/j" value)" = 212987636 \
	&& check "epoch" test "$(jget "$TMP/j" epoch_ms)" = 1771368527742 \
	&& check "time" test "$(jget "$TMP/j" time)" = 2026-02-17T22:48:47.742Z \
	&& check "human" test "$(jget "$TMP/j" human)" = "203.12 GiB" \
	&& check "line" test "$(jget "$TMP/j" line)" = 3 \
	&& check "row" test "$(jget "$TMP/j" row)" = 1771368527742,212987636,203.12 && ok

t "malformed lines are skipped and reported with their line numbers"
"$PERFHUNT" peak "$D/ours-bad.csv" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_status 0 $rc && expect_grep 'rss_kb 3145728 \(3\.00 GiB\) .*line 7: 1796026351523,3145728,3\.00,400,pin_abc$' "$TMP/out" \
	&& expect_grep 'skipped 3 malformed lines of 8: line 4 \(rss_kb is not a number\), line 5 \(empty\), line 6 \(4 fields, expected 5\)$' "$TMP/err" && ok

t "--column by name and by index; stdin"
"$PERFHUNT" peak --column t_ms - <"$D/ours-bad.csv" >"$TMP/out" 2>/dev/null \
	&& expect_grep '^stdin: t_ms 500 \(500 ms\) .*line 8: ' "$TMP/out" \
	&& "$PERFHUNT" peak -c 3 "$D/seed-memmon.csv" >"$TMP/out" \
	&& expect_grep 'rss_gib 203\.12 .*line 1: ' "$TMP/out" && ok

t "a pipe is read in blocks like a file is mapped"
cat "$D/ours-bad.csv" | "$PERFHUNT" peak - >"$TMP/out" 2>/dev/null \
	&& expect_grep 'line 7: 1796026351523,3145728' "$TMP/out" && ok

t "several files: one line each, in order"
"$PERFHUNT" peak "$D/seed-memmon.csv" "$D/ours-bad.csv" >"$TMP/out" 2>/dev/null \
	&& check "two lines" test "$(wc -l <"$TMP/out")" = 2 \
	&& check "order" test "$(cut -d: -f1 "$TMP/out" | tr '\n' ' ')" = "data/peak/seed-memmon.csv data/peak/ours-bad.csv " && ok

t "missing file: exit 1, the other files still printed"
"$PERFHUNT" peak "$TMP/nope.csv" "$D/seed-memmon.csv" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_status 1 $rc && expect_grep "cannot open '.*nope.csv': No such file or directory" "$TMP/err" \
	&& expect_grep 'line 3:' "$TMP/out" && ok

t "no valid row: exit 1"
printf 'epoch_ms,rss_kb,rss_gib\nx,y,z\n' >"$TMP/bad.csv"
"$PERFHUNT" peak "$TMP/bad.csv" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_status 1 $rc && expect_grep 'no valid row in 2 lines' "$TMP/err" && expect_grep 'line 2 \(epoch_ms is not an integer\)' "$TMP/err" \
	&& check "no output" test ! -s "$TMP/out" && ok

t "empty file: exit 1"
: >"$TMP/empty.csv"
"$PERFHUNT" peak "$TMP/empty.csv" >/dev/null 2>"$TMP/err"; rc=$?
expect_status 1 $rc && expect_grep 'no valid row in 0 lines' "$TMP/err" && ok

t "unknown column: exit 1 naming it"
"$PERFHUNT" peak --column pss "$D/ours-bad.csv" >/dev/null 2>"$TMP/err"; rc=$?
expect_status 1 $rc && expect_grep "no column named 'pss' in the header" "$TMP/err" && ok

t "usage errors exit 2"
"$PERFHUNT" peak >/dev/null 2>"$TMP/err"; rc=$?
expect_status 2 $rc && expect_grep 'expected at least one FILE' "$TMP/err" || :
"$PERFHUNT" peak --bogus "$D/seed-memmon.csv" >/dev/null 2>"$TMP/err"; rc=$?
expect_status 2 $rc || :
"$PERFHUNT" peak --column 0 "$D/seed-memmon.csv" >/dev/null 2>"$TMP/err"; rc=$?
expect_status 2 $rc || :
"$PERFHUNT" peak --column >/dev/null 2>"$TMP/err"; rc=$?
expect_status 2 $rc && expect_grep "needs a value" "$TMP/err" && ok

t "--help"
"$PERFHUNT" peak --help >"$TMP/out" && expect_grep '^usage: perfhunt peak' "$TMP/out" && ok

t "a full stdout is an error"
"$PERFHUNT" peak "$D/seed-memmon.csv" >/dev/full 2>"$TMP/err"; rc=$?
expect_status 1 $rc && expect_grep 'error writing output' "$TMP/err" && ok

done_testing
