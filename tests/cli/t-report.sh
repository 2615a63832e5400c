#!/bin/sh
# End-to-end tests of `perfhunt report`: real binary, fixture records from
# data/report (gen.py), a record from a real `perfhunt run` when that works,
# write errors, and the page rendered in headless Chromium (../browser/render.sh).
. ./lib.sh
D=data/report

t "help"; "$PERFHUNT" report --help >"$TMP/out" && expect_grep 'svg FILE'  "$TMP/out" && ok

t "default output is RECORD.html, atomically, no temporary left"
cp "$D/run.json" "$TMP/r.json"
"$PERFHUNT" report "$TMP/r.json" 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '^<!DOCTYPE html>' "$TMP/r.html" && expect_grep 'id="memory"' "$TMP/r.html" &&
	expect_grep 'id="lanes"' "$TMP/r.html" && expect_grep "wrote $TMP/r.html" "$TMP/err" &&
	check "temporary file left: $(ls "$TMP")" [ "$(ls "$TMP" | grep -c 'r\.html.')" = 0 ] && ok

t "self-contained: no external script, stylesheet, font or image"
expect_no_grep '<link|src=|@import|url\(' "$TMP/r.html" &&
	check "a URL other than the SVG namespace" [ "$(grep -o '[a-z]*://[^"]*' "$TMP/r.html" | sort -u)" = "http://www.w3.org/2000/svg" ] && ok

t "run report: peak labelled with value and phase, storm chart, lanes, tables"
expect_grep '>peak 207.20 GiB at 33.40 s in verify<' "$TMP/r.html" && expect_grep 'id="faults"' "$TMP/r.html" &&
	expect_grep '>gpu_tid=1</text>' "$TMP/r.html" && expect_grep '<th>busy %</th>' "$TMP/r.html" && ok

t "bench and compare records"
"$PERFHUNT" report -o "$TMP/b.html" "$D/bench.json" 2>/dev/null && "$PERFHUNT" report -o "$TMP/c.html" "$D/compare.json" 2>/dev/null &&
	expect_grep 'id="wall"' "$TMP/b.html" && expect_grep 'class="dot"' "$TMP/b.html" &&
	expect_grep '>\+6.19 % regressed<' "$TMP/c.html" && expect_grep 'Per-phase attribution' "$TMP/c.html" && ok

t "--svg writes the memory chart alone, a valid XML document"
"$PERFHUNT" report --svg "$TMP/m.svg" "$D/run.json" 2>/dev/null; st=$?
expect_status 0 $st && check "html written with --svg alone" [ ! -e "$D/run.html" ] &&
	check "svg not well-formed XML" /usr/bin/python3 -c 'import sys,xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMP/m.svg" &&
	expect_grep 'data-series="rss"' "$TMP/m.svg" && expect_no_grep '<script' "$TMP/m.svg" && ok

t "--svg of a bench record is an error"
"$PERFHUNT" report --svg "$TMP/x.svg" "$D/bench.json" 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep 'needs a run record' "$TMP/err" && check "svg written" [ ! -e "$TMP/x.svg" ] && ok

t "record strings stay text"
"$PERFHUNT" report -o "$TMP/h.html" "$D/hostile.json" 2>/dev/null &&
	expect_no_grep '<script>alert|<img|<b>x' "$TMP/h.html" && expect_grep '&lt;script&gt;alert\(3\)' "$TMP/h.html" && ok

t "write error: -o /dev/full is one line and exit 1, /dev/full untouched"
"$PERFHUNT" report -o /dev/full "$D/run.json" 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep "^perfhunt: cannot write '/dev/full'" "$TMP/err" &&
	check "more than one line" [ "$(wc -l <"$TMP/err")" = 1 ] && check "/dev/full replaced" [ -c /dev/full ] && ok

t "a failed report leaves an existing output intact"
echo keep >"$TMP/k.html"; echo '{"schema": "perfhunt.run/1", "samples": {"columns": ["rss_kb"], "rows": [[1]]}}' >"$TMP/bad.json"
"$PERFHUNT" report -o "$TMP/k.html" "$TMP/bad.json" 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep 't_ms' "$TMP/err" && expect_grep '^keep$' "$TMP/k.html" && ok

t "unreadable and invalid input"
"$PERFHUNT" report "$TMP/none.json" 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep "cannot read '$TMP/none.json'" "$TMP/err" && {
	printf '{"schema": "perfhunt.run/1", ' >"$TMP/cut.json"
	"$PERFHUNT" report "$TMP/cut.json" 2>"$TMP/err"; st=$?
	expect_status 1 $st && check "more than one line" [ "$(wc -l <"$TMP/err")" = 1 ]
} && {
	echo '{"schema": "other/1"}' >"$TMP/o.json"
	"$PERFHUNT" report "$TMP/o.json" 2>"$TMP/err"; st=$?
	expect_status 1 $st && expect_grep 'schema' "$TMP/err"
} && ok

t "usage errors"
"$PERFHUNT" report 2>"$TMP/err"; st=$?
expect_status 2 $st && expect_grep 'record file is needed' "$TMP/err" && {
	"$PERFHUNT" report --bogus "$D/run.json" 2>"$TMP/err"; st=$?; expect_status 2 $st
} && { "$PERFHUNT" report "$D/run.json" "$D/bench.json" 2>"$TMP/err"; st=$?; expect_status 2 $st; } && ok

t "report of a real run"
"$PERFHUNT" run -q -o "$TMP/real.json" -- "$WORKLOADS/phwork" alloc:16 sleep:300 \
	'err:PERFHUNT: step_ms=300' free sleep:100 >/dev/null 2>&1; st=$?
expect_status 0 $st && "$PERFHUNT" report "$TMP/real.json" 2>/dev/null; st=$?
expect_status 0 $st && expect_grep 'id="memory"' "$TMP/real.html" && expect_grep 'class="peak"' "$TMP/real.html" && ok

t "renders in headless Chromium: not blank, no script errors"
out=$(sh ../browser/render.sh "$TMP/r.html" "$TMP/r.png"); st=$?
if [ $st = 77 ]; then
	echo "ok - $T_NAME # $out"
else
	expect_status 0 $st && echo "# $out" && {
		sh ../browser/render.sh "$TMP/c.html" "$TMP/c.png" >"$TMP/out"; st=$?; expect_status 0 $st
	} && {
		# the check must be able to fail: a page with a script error is refused
		sed 's#</body>#<script>no_such_function()</script></body>#' "$TMP/b.html" >"$TMP/broken.html"
		sh ../browser/render.sh "$TMP/broken.html" "$TMP/broken.png" >"$TMP/out"; st=$?
		expect_status 1 $st && expect_grep 'no_such_function' "$TMP/out"
	} && ok
fi
done_testing
