#!/bin/sh
# End-to-end tests of `perfhunt bisect-check`: the exit statuses git bisect run
# reads (0 good, 1 bad, 125 skip, 128 abort) against a baseline from a bench
# record and from the history, on wall time and on a phase. Slow and fast
# differ tenfold and the threshold is wide, so no case depends on timing noise.
. ./lib.sh
W="$WORKLOADS/phwork"
P="$PERFHUNT"
PERFHUNT_DB="$TMP/history.db"
export PERFHUNT_DB

"$P" bench -q -n 5 --tag good --export-json "$TMP/base.json" -- "$W" sleep:20 fd:begin=step sleep:10 fd:end=step >/dev/null 2>&1

t "a clearly slower command regressed: exit 1, one line saying why"
"$P" bisect-check --baseline "$TMP/base.json" --threshold 50 -- "$W" sleep:600 >"$TMP/out" 2>"$TMP/err"
expect_status 1 $? && [ "$(wc -l <"$TMP/out")" = 1 ] &&
	expect_grep '^bisect-check: bad \(1\): wall_s regressed: median .* -> .* \(5 runs\), \+[0-9.]+ %' "$TMP/out" && ok

t "the same command is good: exit 0"
"$P" bisect-check --baseline "$TMP/base.json" --threshold 50 -n 3 -- "$W" sleep:20 fd:begin=step sleep:10 fd:end=step >"$TMP/out"
expect_status 0 $? && expect_grep '^bisect-check: good \(0\): wall_s ' "$TMP/out" && ok

t "a baseline from the history (@tag:good)"
"$P" bisect-check --baseline @tag:good --threshold 50 -n 4 -- "$W" sleep:600 >"$TMP/out"
expect_status 1 $? && expect_grep '@tag:good, 5 runs' "$TMP/out" && ok

t "a command that does not exist is skipped: 125"
"$P" bisect-check --baseline "$TMP/base.json" -- /nonexistent/cmd >"$TMP/out" 2>"$TMP/err"
expect_status 125 $? && expect_grep '^bisect-check: skip \(125\)' "$TMP/out" && ok

t "a command that fails is skipped: 125"
"$P" bisect-check --baseline "$TMP/base.json" -- "$W" exit:2 >"$TMP/out" 2>"$TMP/err"
expect_status 125 $? && expect_grep 'exit status 2' "$TMP/out" && ok

t "a phase metric: the phase grew tenfold"
"$P" bisect-check --baseline "$TMP/base.json" --metric phase:step --threshold 50 -- \
	"$W" sleep:5 fd:begin=step sleep:100 fd:end=step >"$TMP/out"
expect_status 1 $? && expect_grep 'phase:step regressed' "$TMP/out" && ok

t "a phase metric: same phase, other work slower, still good"
"$P" bisect-check --baseline "$TMP/base.json" --metric phase:step --threshold 50 -- \
	"$W" sleep:60 fd:begin=step sleep:10 fd:end=step >"$TMP/out"
expect_status 0 $? && expect_grep '^bisect-check: good \(0\): phase:step' "$TMP/out" && ok

t "peak RSS as the metric"
"$P" bisect-check --baseline "$TMP/base.json" --metric peak_rss_kb --threshold 50 -- "$W" alloc:64 sleep:5 >"$TMP/out"
expect_status 1 $? && expect_grep 'peak_rss_kb regressed' "$TMP/out" && ok

for args in "-- true" "--baseline $TMP/base.json" "--baseline $TMP/base.json -n 0 -- true" \
	"--baseline $TMP/none.json -- true" "--baseline @tag:nope -- true" \
	"--baseline $TMP/base.json --metric bogus -- true" "--bogus -- true"; do
	t "bisect-check $args aborts the bisect: 128"
	# shellcheck disable=SC2086
	"$P" bisect-check $args >/dev/null 2>"$TMP/err"
	expect_status 128 $? && [ "$(wc -l <"$TMP/err")" -le 2 ] && ok
done

t "--help exits 0"
"$P" bisect-check --help >"$TMP/out"; expect_status 0 $? && expect_grep 'git bisect' "$TMP/out" && ok

done_testing
