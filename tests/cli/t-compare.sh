#!/bin/sh
# End-to-end tests of `perfhunt compare` on the record fixtures in
# data/compare/ (written by data/compare/make-fixtures.py): 10 runs per side,
# phase pin_abc grows from ~30 ms to ~5.7 s and the other phases stay.
. ./lib.sh
D=data/compare
BASES=$D/base-1.json,$D/base-2.json,$D/base-3.json,$D/base-4.json,$D/base-5.json,$D/base-6.json,$D/base-7.json,$D/base-8.json,$D/base-9.json,$D/base-10.json

# rows FILE: the metric rows of the table (family headings left out)
rows() { awk '/^metric /{on=1; next} /^geomean/{on=0} on && !/^(primary|secondary) \(/' "$1"; }
# verdict METRIC FILE: the verdict column of METRIC's row in the table
verdict() { grep "^$1 " "$2" | sed -E 's/.*  (regressed|improved|same|inconclusive — run more|no significance \(n=1\))$/\1/'; }

t "help names every option"
"$PERFHUNT" compare --help >"$TMP/help"; st=$?
expect_status 0 $st && expect_grep 'fail-on-regression' "$TMP/help" && expect_grep '--export-markdown' "$TMP/help" && ok

t "pin_abc regression: wall_s regressed, attribution names pin_abc first"
NO_COLOR=1 "$PERFHUNT" compare $D/bench-base.json $D/bench-new.json >"$TMP/out" 2>"$TMP/err"; st=$?
expect_status 0 $st && check "wall_s verdict '$(verdict wall_s "$TMP/out")'" [ "$(verdict wall_s "$TMP/out")" = regressed ] &&
	check "phase:pin_abc regressed" [ "$(verdict phase:pin_abc "$TMP/out")" = regressed ] &&
	check "peak_rss_kb same" [ "$(verdict peak_rss_kb "$TMP/out")" = same ] &&
	check "phase:msm same" [ "$(verdict phase:msm "$TMP/out")" = same ] &&
	expect_grep '^  pin_abc +\+5\.70[0-9] s \(\+[0-9.]+ %\) +explains (99|100|101) % of the wall-time delta' "$TMP/out" &&
	check "pin_abc is the first phase" [ "$(grep -A1 '^phases, by size' "$TMP/out" | tail -1 | awk '{print $1}')" = pin_abc ] &&
	expect_grep '^geomean' "$TMP/out" && check "no stderr" [ ! -s "$TMP/err" ] && ok

t "no colour codes when stdout is not a terminal"
"$PERFHUNT" compare $D/bench-base.json $D/bench-new.json >"$TMP/out"
check "escape found" [ "$(grep -c "$(printf '\033')" "$TMP/out")" = 0 ] && ok

t "a comma list of run records equals the bench record"
NO_COLOR=1 "$PERFHUNT" compare "$BASES" $D/bench-new.json >"$TMP/list"; st=$?
NO_COLOR=1 "$PERFHUNT" compare $D/bench-base.json $D/bench-new.json >"$TMP/bench"
expect_status 0 $st && check "tables differ" [ "$(sed 1d "$TMP/list")" = "$(sed 1d "$TMP/bench")" ] &&
	expect_grep '\(10 runs\)' "$TMP/list" && ok

t "identical inputs: every metric is same"
NO_COLOR=1 "$PERFHUNT" compare $D/bench-base.json $D/bench-base.json >"$TMP/out"; st=$?
rows=$(rows "$TMP/out")
n=$(printf '%s\n' "$rows" | grep -c .)
same=$(printf '%s\n' "$rows" | grep -c ' same$')
expect_status 0 $st && check "$same of $n rows same" [ "$n" -ge 8 ] && check "$same of $n rows same" [ "$same" = "$n" ] &&
	expect_grep '^0 regressed, 0 improved' "$TMP/out" && ok

t "n=1 on a side: deltas only, no significance"
NO_COLOR=1 "$PERFHUNT" compare $D/base-1.json $D/new-1.json >"$TMP/out"; st=$?
expect_status 0 $st && expect_grep '^wall_s .*\+6\.[0-9]+ % .*no significance \(n=1\)$' "$TMP/out" &&
	expect_grep 'no significance is claimed' "$TMP/out" && expect_no_grep 'regressed$' "$TMP/out" && ok

t "--fail-on-regression: 1 on a regression, 0 without"
"$PERFHUNT" compare -q --fail-on-regression $D/bench-base.json $D/bench-new.json >"$TMP/out"; st=$?
"$PERFHUNT" compare -q --fail-on-regression $D/bench-base.json $D/bench-base.json >>"$TMP/out"; st2=$?
"$PERFHUNT" compare -q $D/bench-base.json $D/bench-new.json >>"$TMP/out"; st3=$?
"$PERFHUNT" compare -q --fail-on-regression $D/base-1.json $D/new-1.json >>"$TMP/out"; st4=$?
expect_status 1 $st && expect_status 0 $st2 && expect_status 0 $st3 && expect_status 0 $st4 &&
	check "-q printed something" [ ! -s "$TMP/out" ] && ok

t "improvement: swapping the sides"
NO_COLOR=1 "$PERFHUNT" compare --fail-on-regression $D/bench-new.json $D/bench-base.json >"$TMP/out"; st=$?
expect_status 0 $st && check "wall_s improved" [ "$(verdict wall_s "$TMP/out")" = improved ] &&
	expect_grep '^  pin_abc +-5\.70[0-9] s' "$TMP/out" && ok

t "--threshold above the change: wall_s is no longer regressed"
NO_COLOR=1 "$PERFHUNT" compare --threshold 10 --metric wall_s --metric phase:msm $D/bench-base.json $D/bench-new.json >"$TMP/out"; st=$?
expect_status 0 $st && check "wall_s same" [ "$(verdict wall_s "$TMP/out")" = same ] &&
	check "only two metrics" [ "$(rows "$TMP/out" | wc -l)" = 2 ] && ok

t "--command picks a bench command by name or position"
# bench-two.json holds "warm" (2 base-like runs) and then "prover" (the NEW runs)
"$PERFHUNT" compare -q --fail-on-regression --command prover "$BASES" $D/bench-two.json; st=$?
"$PERFHUNT" compare -q --fail-on-regression --command 2 "$BASES" $D/bench-two.json; st2=$?
NO_COLOR=1 "$PERFHUNT" compare --command warm "$BASES" $D/bench-two.json >"$TMP/out"; st3=$?
"$PERFHUNT" compare -q --command 3 "$BASES" $D/bench-two.json 2>"$TMP/err"; st4=$?
expect_status 1 $st && expect_status 1 $st2 && expect_status 0 $st3 && expect_grep '\(2 runs\)' "$TMP/out" &&
	expect_status 1 $st4 && expect_grep "no command '3' in the bench record \(it has 2\)" "$TMP/err" && ok

t "--export-json writes a perfhunt.compare/1 record"
"$PERFHUNT" compare -q --export-json "$TMP/c.json" --export-markdown "$TMP/c.md" $D/bench-base.json $D/bench-new.json; st=$?
expect_status 0 $st && check "schema" [ "$(jget "$TMP/c.json" schema)" = perfhunt.compare/1 ] &&
	check "metrics.0.name" [ "$(jget "$TMP/c.json" metrics.0.name)" = wall_s ] &&
	check "metrics.0.verdict" [ "$(jget "$TMP/c.json" metrics.0.verdict)" = regressed ] &&
	check "ci" between 1.05 "$(jget "$TMP/c.json" metrics.0.ci_low)" 1.07 &&
	check "p_adjusted" between 0 "$(jget "$TMP/c.json" metrics.0.p_adjusted)" 0.05 &&
	check "phases.0.name" [ "$(jget "$TMP/c.json" phases.0.name)" = pin_abc ] &&
	check "share" between 90 "$(jget "$TMP/c.json" phases.0.share_pct)" 110 &&
	check "geomean" between 1 "$(jget "$TMP/c.json" geomean.ratio)" 10 &&
	check "base n" [ "$(jget "$TMP/c.json" base.n)" = 10 ] && ok

t "--export-json with n=1: nulls, never NaN"
"$PERFHUNT" compare -q --export-json "$TMP/n1.json" $D/base-1.json $D/new-1.json; st=$?
expect_status 0 $st && expect_no_grep 'NaN|Infinity' "$TMP/n1.json" &&
	check "p null" [ "$(jget "$TMP/n1.json" metrics.0.p_value)" = None ] &&
	check "verdict" [ "$(jget "$TMP/n1.json" metrics.0.verdict)" = "no significance (n=1)" ] && ok

t "--export-markdown writes a table with one row per metric"
/usr/bin/python3 - "$TMP/c.md" "$TMP/c.json" >"$TMP/md.out" <<'EOF'
import json, sys
md = open(sys.argv[1]).read().splitlines()
rec = json.load(open(sys.argv[2]))
header = md.index("| metric | base | new | delta | CI of ratio | p (Holm) | test | verdict |")
body = md[header + 2:md.index("", header)]
assert body[0].startswith("| **primary** (wall time and phase durations) |"), body[0]
rows = [l for l in body if l.startswith("| ") and not l.startswith("| **")]
assert len(rows) == len(rec["metrics"]), (len(rows), len(rec["metrics"]))
for row, m in zip(rows, rec["metrics"]):
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert len(cells) == 8, row
    assert cells[0] == m["name"] and cells[6] == m["p_test"] and cells[7] == m["verdict"], (cells, m)
assert any(l.startswith("p: two-sided Mann") for l in md), "no note on the test"
assert any(l.startswith("| pin_abc |") for l in md), "no phase table"
print("ok")
EOF
check "markdown: $(cat "$TMP/md.out")" [ "$(cat "$TMP/md.out")" = ok ] && ok

t "an export to an unwritable place is refused (status 2) before anything is compared"
"$PERFHUNT" compare -q --export-json /nonexistent/dir/c.json $D/bench-base.json $D/bench-new.json 2>"$TMP/err"; st=$?
expect_status 2 $st && expect_grep "^perfhunt: cannot write '/nonexistent/dir/c.json': no directory" "$TMP/err" && ok

t "a closed stdout is a write error"
"$PERFHUNT" compare $D/bench-base.json $D/bench-new.json >/dev/full 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep 'error writing output' "$TMP/err" && ok

# bad FILE CONTENT EXPECTED-MESSAGE: exit 1, exactly one line on stderr
bad() {
	t "bad record: $1"
	printf '%s' "$2" >"$TMP/$1.json"
	"$PERFHUNT" compare "$TMP/$1.json" $D/bench-new.json >"$TMP/out" 2>"$TMP/err"; st=$?
	expect_status 1 $st && check "one line on stderr: $(cat "$TMP/err")" [ "$(wc -l <"$TMP/err")" = 1 ] &&
		expect_grep "^perfhunt: cannot read '$TMP/$1.json': $3" "$TMP/err" && ok
}
bad nan '{"schema":"perfhunt.run/1","summary":{"wall_s":NaN}}' 'invalid token .*\(line 1\)'
bad inf '{"schema":"perfhunt.run/1","summary":{"wall_s":1e999}}' 'real number overflow .*\(line 1\)'
bad negative '{"schema":"perfhunt.run/1","summary":{"wall_s":-2.5}}' 'run 1: summary.wall_s must be a non-negative number'
bad string '{"schema":"perfhunt.run/1","summary":{"wall_s":"fast"}}' 'run 1: summary.wall_s'
bad nowall '{"schema":"perfhunt.run/1","summary":{"user_s":1}}' 'run 1: summary.wall_s is missing'
bad nosummary '{"schema":"perfhunt.run/1"}' 'run 1: no "summary"'
bad negpeak '{"schema":"perfhunt.run/1","summary":{"wall_s":1,"peak_rss_kb":-1}}' 'run 1: summary.peak_rss_kb'
bad phase '{"schema":"perfhunt.run/1","summary":{"wall_s":1},"phases":[{"name":"p","start_ms":9,"end_ms":1}]}' 'run 1: phases\[0\]'
bad schema '{"schema":"perfhunt.other/1"}' 'unsupported schema'
bad noschema '{"summary":{"wall_s":1}}' 'not a perfhunt record'
bad truncated '{"schema":"perfhunt.run/1","summ' 'premature end of input .*\(line 1\)'
bad empty '' 'no record in it'
bad benchempty '{"schema":"perfhunt.bench/1","commands":[]}' 'bench record has no "commands"'
bad benchbadrun '{"schema":"perfhunt.bench/1","commands":[{"name":"a","runs":[{"summary":{"wall_s":1}},3]}]}' 'run 2: not a JSON object'

t "missing file"
"$PERFHUNT" compare "$TMP/none.json" $D/bench-new.json 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep "^perfhunt: cannot read '$TMP/none.json': No such file or directory$" "$TMP/err" && ok

t "one bad file in a comma list is named"
"$PERFHUNT" compare "$D/base-1.json,$TMP/negative.json" $D/bench-new.json 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep "cannot read '$TMP/negative.json'" "$TMP/err" && ok

t "usage errors exit 2"
"$PERFHUNT" compare $D/base-1.json 2>"$TMP/e1"; s1=$?
"$PERFHUNT" compare --threshold -1 $D/base-1.json $D/base-1.json 2>"$TMP/e2"; s2=$?
"$PERFHUNT" compare --alpha 0 $D/base-1.json $D/base-1.json 2>"$TMP/e3"; s3=$?
"$PERFHUNT" compare --frobnicate $D/base-1.json $D/base-1.json 2>"$TMP/e4"; s4=$?
"$PERFHUNT" compare $D/base-1.json $D/base-1.json --metric 2>"$TMP/e5"; s5=$?
expect_status 2 $s1 && expect_status 2 $s2 && expect_status 2 $s3 && expect_status 2 $s4 && expect_status 2 $s5 &&
	expect_grep '^perfhunt compare: expected BASE and NEW' "$TMP/e1" && expect_grep 'threshold' "$TMP/e2" && ok

# Real records at small n: 6 runs against 6 of a phase that does not overlap
# (good 11..30 ms with one tie, bad 75..103 ms; printed as duration probes
# after a short sleep so each phase lies inside its run). The exact p is
# 2/924; Holm within the primary family (wall_s and phase:step) keeps it
# below 0.05, whatever the side metrics do (with --counters they are a
# dozen or more: Holm over all of them, from the normal approximation's
# 0.0049, gave 0.06 and "inconclusive").
t "6 runs against 6 that do not overlap: regressed, exact p 2/924"
i=0; runs_ok=1
for v in 11 14 17 17 22 30 75 81 88 90 96 103; do
	i=$((i + 1))
	"$PERFHUNT" run -q --no-save --counters -o "$TMP/small-$i.json" -- sh -c "sleep 0.15; echo 'PERFHUNT: step_ms=$v'" >/dev/null 2>"$TMP/run-err" ||
		runs_ok=0
done
GOOD=$TMP/small-1.json,$TMP/small-2.json,$TMP/small-3.json,$TMP/small-4.json,$TMP/small-5.json,$TMP/small-6.json
BAD=$TMP/small-7.json,$TMP/small-8.json,$TMP/small-9.json,$TMP/small-10.json,$TMP/small-11.json,$TMP/small-12.json
NO_COLOR=1 "$PERFHUNT" compare --export-json "$TMP/small.json" --export-markdown "$TMP/small.md" "$GOOD" "$BAD" >"$TMP/out" 2>"$TMP/err"; st=$?
check "runs: $(cat "$TMP/run-err")" [ $runs_ok = 1 ] && expect_status 0 $st &&
	check "phase:step verdict '$(verdict phase:step "$TMP/out")'" [ "$(verdict phase:step "$TMP/out")" = regressed ] &&
	expect_grep '^phase:step .* exact  regressed$' "$TMP/out" &&
	check "primary family first" [ "$(rows "$TMP/out" | head -2 | awk '{print $1}' | tr '\n' ' ')" = "wall_s phase:step " ] &&
	expect_grep '^primary \(wall time and phase durations\):$' "$TMP/out" &&
	expect_grep '^secondary \(resources and counters\):$' "$TMP/out" &&
	expect_grep 'Holm-adjusted within each family: primary' "$TMP/out" &&
	check "more than 6 secondary metrics" [ "$(rows "$TMP/out" | wc -l)" -ge 8 ] &&
	expect_no_grep '\bnan\b' "$TMP/out" && expect_no_grep 'NaN|Infinity' "$TMP/small.json" &&
	check "majflt 0 vs 0 same" [ "$(verdict majflt "$TMP/out")" = same ] &&
	check "majflt row: $(grep '^majflt ' "$TMP/out")" [ -z "$(grep -E '^majflt .*(\binf\b|inconclusive)' "$TMP/out")" ] &&
	/usr/bin/python3 - "$TMP/small.json" >"$TMP/py" 2>&1 <<'EOF2'
import json, sys
rec = json.load(open(sys.argv[1]))
m = {x["name"]: x for x in rec["metrics"]}
s = m["phase:step"]
assert s["p_test"] == "exact" and s["family"] == "primary" and s["verdict"] == "regressed", s
assert abs(s["p_value"] - 2 / 924) < 1e-9, s["p_value"]
assert s["p_adjusted"] <= 2 * 2 / 924 + 1e-9, s["p_adjusted"]
fam = rec["families"]
assert fam["primary"]["tests"] == 2 and fam["primary"]["correction"] == "holm", fam
res = [x for x in rec["metrics"] if x["name"].startswith("phase:step.")]
assert fam["secondary"]["tests"] == len(rec["metrics"]) - 2 - len(res), fam
assert fam["phase resources"]["tests"] == len(res), fam
for x in rec["metrics"]:
    assert x["p_test"] == "exact", x
    want = "primary" if x["name"] in ("wall_s", "phase:step") else "phase resources" if x in res else "secondary"
    assert x["family"] == want, x
assert m["majflt"]["verdict"] == "same" and m["majflt"]["ci_low"] is None, m["majflt"]
print("ok")
EOF2
check "json: $(cat "$TMP/py")" [ "$(cat "$TMP/py")" = ok ] &&
	expect_grep '^\| phase:step \| .* \| exact \| regressed \|$' "$TMP/small.md" &&
	"$PERFHUNT" report -o "$TMP/small.html" "$TMP/small.json" 2>/dev/null &&
	expect_grep '<b>primary</b> \(wall time and phase durations\), 2 tests' "$TMP/small.html" &&
	expect_grep '<tr class="fam"><th class="l" colspan="9">primary <span' "$TMP/small.html" &&
	expect_grep '<td class="l">exact</td><td class="l regressed">regressed</td>' "$TMP/small.html" &&
	expect_no_grep '>nan<|>inf<' "$TMP/small.html" && ok

t "a record against itself: every metric same, never inconclusive"
NO_COLOR=1 "$PERFHUNT" compare "$GOOD" "$GOOD" >"$TMP/out"; st=$?
expect_status 0 $st && check "rows not same: $(rows "$TMP/out" | grep -v ' same$')" [ -z "$(rows "$TMP/out" | grep -v ' same$')" ] &&
	expect_no_grep 'inconclusive|\b(nan|inf)\b' "$TMP/out" && ok

t "--metric naming an unknown metric fails"
"$PERFHUNT" compare --metric nope $D/bench-base.json $D/bench-new.json 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep "metric 'nope' is not in both BASE and NEW" "$TMP/err" && ok

t "compare names both commands when BASE and NEW ran different ones (text and JSON)"
"$PERFHUNT" run -q --no-save -o "$TMP/cmd-a.json" -- "$WORKLOADS/phwork" sleep:5 >/dev/null 2>&1
"$PERFHUNT" run -q --no-save -o "$TMP/cmd-b.json" -- "$WORKLOADS/phwork" sleep:6 >/dev/null 2>&1
"$PERFHUNT" compare --export-json "$TMP/cmd.json" "$TMP/cmd-a.json" "$TMP/cmd-b.json" >"$TMP/out" 2>&1
expect_grep '^note: BASE and NEW ran different commands:$' "$TMP/out" && expect_grep '^  base: .*phwork sleep:5$' "$TMP/out" &&
	expect_grep '^  new:  .*phwork sleep:6$' "$TMP/out" &&
	check "commands in JSON" [ "$(jget "$TMP/cmd.json" new.command)" = "$WORKLOADS/phwork sleep:6" ] &&
	"$PERFHUNT" compare "$TMP/cmd-a.json" "$TMP/cmd-a.json" >"$TMP/out" 2>&1 && expect_no_grep 'different commands' "$TMP/out" && ok

t "show reads a bench record; show and report read history references"
PERFHUNT_DB="$TMP/ref.db" "$PERFHUNT" bench -q -n 2 --export-json "$TMP/b2.json" -- "$WORKLOADS/phwork" sleep:5 >/dev/null 2>&1
"$PERFHUNT" show "$TMP/b2.json" >"$TMP/out" 2>&1 && expect_grep '^Benchmark 1: .*phwork sleep:5' "$TMP/out" &&
	PERFHUNT_DB="$TMP/ref.db" "$PERFHUNT" show @last >"$TMP/out" 2>&1 && expect_grep '^Benchmark 1: ' "$TMP/out" &&
	PERFHUNT_DB="$TMP/ref.db" "$PERFHUNT" report @last -o "$TMP/ref.html" >/dev/null 2>&1 &&
	expect_grep 'perfhunt bench report|Benchmark|bench' "$TMP/ref.html" && ok

done_testing
