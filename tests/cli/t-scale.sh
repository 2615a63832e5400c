#!/bin/sh
# Scale: perfhunt renders records at its own bounds (20 000 phases, nested,
# at one instant, in overlapping bursts, in 5 000 names and 300 lanes) and
# compares them, each under a generous timeout: a renderer that went back to
# quadratic or worse fails its case by timing out, never by an assertion on
# time. And a run whose summary is interrupted is already in the history.
# The records are made by tests/workloads/phgen, a real program printing
# probe lines through a pipe.
. ./lib.sh
P="$PERFHUNT"
G="$WORKLOADS/phgen"
cd "$TMP" || exit 1
LIMIT=120 # seconds for one command: far beyond what a linear renderer needs, even under ASan
# not_hung STATUS: fails the case when timeout ended the command
not_hung() { [ "$1" != 124 ] || { fail "still running after ${LIMIT}s"; return 1; }; }
# xcount FILE: the trace's complete (X) events
xcount() { /usr/bin/python3 -c 'import json,sys
print(sum(e["ph"] == "X" for e in json.load(open(sys.argv[1]))["traceEvents"]))' "$1"; }
# renders REC: show, report and the trace, each within the limit
renders() {
	timeout "$LIMIT" "$P" show "$1" >show.out 2>&1 || return 1
	timeout "$LIMIT" "$P" report "$1" -o report.html >/dev/null 2>&1 || return 1
	timeout "$LIMIT" "$P" show -q --export-trace trace.json "$1" >/dev/null 2>&1
}

t "20 000 nested phases in 20 names: recorded, shown nested, reported and traced"
timeout 240 "$P" run -q --no-save -o nested.json -- "$G" nested 20000 --names 20 >/dev/null; st=$?
not_hung $st && expect_status 0 $st && renders nested.json; st=$?
not_hung $st && expect_status 0 $st &&
	[ "$(jget nested.json probe_info.phases_aggregated)" = 10000 ] &&
	expect_grep "^nest19 +1000 " show.out && expect_grep "^  nest18 " show.out && expect_grep "^    nest17 " show.out &&
	[ "$(xcount trace.json)" = 10000 ] && expect_grep "<h2>Phases</h2>" report.html && ok

t "20 000 phases at one instant: both names in the table, 10 000 each"
timeout 240 "$P" run -q --no-save -o instant.json -- "$G" instant 20000 >/dev/null; st=$?
not_hung $st && expect_status 0 $st && renders instant.json; st=$?
not_hung $st && expect_status 0 $st && expect_grep "^step0 +10000 " show.out &&
	expect_grep "^ *mark0 +10000 " show.out && [ "$(xcount trace.json)" = 10000 ] && ok

t "20 000 overlapping requests of one name in 3 lanes: rendered, the trace's tracks nest"
timeout 240 "$P" run -q --no-save -o burst.json -- "$G" burst 20000 --lanes 3 >/dev/null; st=$?
not_hung $st && expect_status 0 $st && renders burst.json; st=$?
not_hung $st && expect_status 0 $st && expect_grep "^req0 +20000 " show.out &&
	expect_grep "^worker=0 " show.out && /usr/bin/python3 "$SRCDIR/tests/cli/trace_check.py" trace.json >tc.out 2>&1 &&
	[ "$(xcount trace.json)" = 10000 ] && ok

t "5 000 names in 300 lanes: the tables list 200 of each and count the rest; compare within the limit"
timeout 240 "$P" run -q --no-save -o wide.json -- "$G" flat 20000 --names 5000 --lanes 300 >/dev/null; st=$?
not_hung $st && expect_status 0 $st && renders wide.json; st=$?
not_hung $st && expect_status 0 $st &&
	expect_grep "^\.\.\. and 4800 more phase names \([0-9.]+ k instances, " show.out &&
	expect_grep "^\.\.\. and 100 more lanes \(" show.out &&
	[ "$(grep -c '^step[0-9]* ' show.out)" = 200 ] && expect_grep "more phase names" report.html &&
	{ timeout "$LIMIT" "$P" compare wide.json wide.json >cmp.out 2>&1; st=$?; not_hung $st; } &&
	expect_status 0 $st && expect_grep "phase:step4999" cmp.out && ok

t "history show of a stored run of 20 000 nested phases: its table nested, within the limit"
timeout 240 "$P" run -q -- "$G" nested 20000 --names 20 >/dev/null; st=$?
not_hung $st && expect_status 0 $st &&
	{ timeout "$LIMIT" "$P" history show @last >hist.out 2>&1; st=$?; not_hung $st; } && expect_status 0 $st &&
	expect_grep "^nest19 +1000 " hist.out && expect_grep "^  nest18 " hist.out && ok

# ---- a summary interrupted: the run is kept, the signal ends perfhunt ----
for sig in INT:2 TERM:15; do
	num=${sig#*:} sig=${sig%:*}
	t "SIG$sig while run's summary is written: the run is in the history, the trace complete, status 128+N"
	rm -f "$PERFHUNT_DB"* tr.json
	/usr/bin/python3 "$SRCDIR/tests/cli/interrupt_summary.py" "$P" "$PERFHUNT_DB" tr.json $sig \
		"$G" flat 400 --names 100 >int.out 2>&1
	want=$((128 + num))
	expect_grep "^alive=1$" int.out && expect_grep "^trace=1$" int.out && expect_grep "^runs=1$" int.out &&
		expect_grep "^status=$want$" int.out && expect_grep "^summary=1$" int.out && ok
done

done_testing
