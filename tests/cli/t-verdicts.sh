#!/bin/sh
# End-to-end tests that perfhunt's verdicts are true: an output that cannot
# be written is refused before the command runs (nothing of the command
# happens), a record that cannot be written at the end is kept elsewhere.
. ./lib.sh
P="$PERFHUNT"

for opt in "-o" "--csv" "--export-trace" "--export-openmetrics"; do
	t "run $opt into a missing directory is refused before the command runs"
	rm -f "$TMP/mark"
	"$P" run -q $opt "$TMP/missing/x" -- touch "$TMP/mark" 2>"$TMP/err"; st=$?
	expect_status 2 $st && [ ! -e "$TMP/mark" ] &&
		expect_grep "^perfhunt: cannot write '$TMP/missing/x': no directory '$TMP/missing'\$" "$TMP/err" &&
		[ "$(wc -l <"$TMP/err")" = 1 ] && [ ! -e "$TMP/missing" ] && ok
done

t "run -o a directory is refused before the command runs"
rm -f "$TMP/mark"
"$P" run -q -o "$TMP" -- touch "$TMP/mark" 2>"$TMP/err"; st=$?
expect_status 2 $st && [ ! -e "$TMP/mark" ] && expect_grep "it is a directory" "$TMP/err" && ok

t "an output in a directory no file can be created in is refused, and nothing is left there"
# /proc/self takes no new file, whoever runs the test (root included)
rm -f "$TMP/mark"
"$P" run -q -o /proc/self/x.json -- touch "$TMP/mark" 2>"$TMP/err"; st=$?
expect_status 2 $st && [ ! -e "$TMP/mark" ] && expect_grep "cannot create a file in '/proc/self'" "$TMP/err" && ok

t "a history that cannot be created is refused before the command runs; --no-save runs"
rm -f "$TMP/mark"
PERFHUNT_DB=/proc/self/none/history.db "$P" run -q -- touch "$TMP/mark" 2>"$TMP/err"; st=$?
expect_status 2 $st && [ ! -e "$TMP/mark" ] && expect_grep "no-save" "$TMP/err" &&
	PERFHUNT_DB=/proc/self/none/history.db "$P" run -q --no-save -- touch "$TMP/mark" && [ -e "$TMP/mark" ] && ok

t "a good -o leaves no check file behind"
mkdir -p "$TMP/good"
"$P" run -q --no-save -o "$TMP/good/r.json" -- true &&
	[ "$(ls -A "$TMP/good")" = r.json ] && ok || fail "$(ls -A "$TMP/good")"

t "watch, bench, compare and report refuse a missing directory before doing anything"
rm -f "$TMP/mark"
"$P" bench -q --no-save -n 1 --export-markdown "$TMP/missing/b.md" -- touch "$TMP/mark" 2>"$TMP/err"; st=$?
expect_status 2 $st && [ ! -e "$TMP/mark" ] && expect_grep "no directory" "$TMP/err" &&
	{ "$P" watch -q --no-save --duration 5 -o "$TMP/missing/w.json" $$ 2>"$TMP/err"; expect_status 2 $?; } &&
	{ "$P" compare --export-json "$TMP/missing/c.json" "$TMP/good/r.json" "$TMP/good/r.json" 2>"$TMP/err";
	  expect_status 2 $?; } &&
	{ "$P" report -o "$TMP/missing/r.html" "$TMP/good/r.json" 2>"$TMP/err"; expect_status 2 $?; } && ok

t "a record -o cannot take at the end is written to \$TMPDIR, and said where"
mkdir -p "$TMP/fallback"
TMPDIR="$TMP/fallback" "$P" run -q --no-save -o /dev/full -- true 2>"$TMP/err"; st=$?
f=$(ls "$TMP/fallback")
expect_status 1 $st && expect_grep "cannot write '/dev/full'" "$TMP/err" &&
	expect_grep "written to '$TMP/fallback/$f' instead" "$TMP/err" &&
	[ "$(jget "$TMP/fallback/$f" schema)" = perfhunt.run/1 ] && ok

done_testing
