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

t "watch, bench, compare, report and history detect refuse a missing directory before doing anything"
rm -f "$TMP/mark"
"$P" bench -q --no-save -n 1 --export-markdown "$TMP/missing/b.md" -- touch "$TMP/mark" 2>"$TMP/err"; st=$?
expect_status 2 $st && [ ! -e "$TMP/mark" ] && expect_grep "no directory" "$TMP/err" &&
	{ "$P" watch -q --no-save --duration 5 -o "$TMP/missing/w.json" $$ 2>"$TMP/err"; expect_status 2 $?; } &&
	{ PERFHUNT_STATE_DIR="$TMP/state" "$P" watch --detach --no-save -o "$TMP/missing/w.json" $$ 2>"$TMP/err";
	  expect_status 2 $?; } && check "a detached monitor registered" [ ! -e "$TMP/state" ] &&
	{ "$P" compare --export-json "$TMP/missing/c.json" "$TMP/good/r.json" "$TMP/good/r.json" 2>"$TMP/err";
	  expect_status 2 $?; } &&
	{ "$P" report -o "$TMP/missing/r.html" "$TMP/good/r.json" 2>"$TMP/err"; expect_status 2 $?; } &&
	{ "$P" history detect --export-markdown "$TMP/missing/d.md" 2>"$TMP/err"; expect_status 2 $?; } &&
	expect_grep "^perfhunt: cannot write '$TMP/missing/d.md': no directory" "$TMP/err" && ok

t "a record -o cannot take at the end is written to \$TMPDIR, and said where"
mkdir -p "$TMP/fallback"
TMPDIR="$TMP/fallback" "$P" run -q --no-save -o /dev/full -- true 2>"$TMP/err"; st=$?
f=$(ls "$TMP/fallback")
expect_status 1 $st && expect_grep "cannot write '/dev/full'" "$TMP/err" &&
	expect_grep "written to '$TMP/fallback/$f' instead" "$TMP/err" &&
	[ "$(jget "$TMP/fallback/$f" schema)" = perfhunt.run/1 ] && ok

t "a bench record --export-json cannot take at the end is written to \$TMPDIR, and said where"
mkdir -p "$TMP/benchfb"
TMPDIR="$TMP/benchfb" "$P" bench -q --no-save -n 2 --export-json /dev/full -- true >/dev/null 2>"$TMP/err"; st=$?
f=$(ls "$TMP/benchfb")
expect_status 1 $st && expect_grep "^perfhunt: cannot write '/dev/full'" "$TMP/err" &&
	expect_grep "^perfhunt: the bench record was written to '$TMP/benchfb/perfhunt-bench-.*\.json' instead$" "$TMP/err" &&
	[ "$(jget "$TMP/benchfb/$f" schema)" = perfhunt.bench/1 ] && ok

# ---- measurements, not identifiers or perfhunt's own costs ----

t "a history whose only change is perfhunt's --interval: detect finds no change"
# 30 commits, 3 runs each; from commit 15 on perfhunt samples 20 times as
# often: samples, interval_ms, monitor_cpu_s and peak_at_ms move, the
# program (wall_s, peak_rss_kb) does not; peak_rss_pid is a new pid each run
/usr/bin/python3 - "$TMP/interval.jsonl" <<'PY'
import random, sys
sys.path.insert(0, "../reference")
import histgen as h
rng = random.Random(3)
recs = []
for i in range(30):
    fast = i >= 15
    for k in range(3):
        recs.append(h.run_record(["./prover"], i * 3 + k, 1.0 + 0.01 * rng.random(), commit=h.fake_commit(i),
            metrics={"peak_rss_kb": 50000 + rng.random(), "samples": 200 if fast else 10,
                     "interval_ms": 5 if fast else 100, "monitor_cpu_s": 0.02 if fast else 0.001,
                     "peak_at_ms": 700 if fast else 600, "peak_rss_pid": rng.randrange(1000, 99999)}))
h.write_jsonl(sys.argv[1], recs)
PY
PERFHUNT_DB="$TMP/interval.db" "$P" history import "$TMP/interval.jsonl" >/dev/null &&
	PERFHUNT_DB="$TMP/interval.db" "$P" history detect >"$TMP/out" 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '^2 series, ' "$TMP/out" && expect_grep '^no change point$' "$TMP/out" &&
	expect_no_grep 'samples|interval_ms|monitor_cpu_s|peak_at_ms|peak_rss_pid' "$TMP/out" && ok

t "compare of runs at two --interval values compares no identifier and none of perfhunt's own costs"
"$P" run -q --no-save --interval 100 -o "$TMP/i100.json" -- "$WORKLOADS/phwork" alloc:8 sleep:50 &&
	"$P" run -q --no-save --interval 5 -o "$TMP/i5.json" -- "$WORKLOADS/phwork" alloc:8 sleep:50 &&
	"$P" compare "$TMP/i100.json" "$TMP/i5.json" >"$TMP/out" 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '^ *wall_s ' "$TMP/out" &&
	expect_no_grep '^ *(samples|interval_ms|monitor_cpu_s|peak_at_ms|peak_rss_pid) ' "$TMP/out" && ok

# ---- small n said honestly ----

t "3 + 3 runs: compare says they cannot reach p < 0.05 and how many can; the phase that moved keeps its reasons"
W="$WORKLOADS/phwork"
"$P" bench -q --no-save -n 3 --export-json "$TMP/n3a.json" -- "$W" fd:begin=work alloc:4 sleep:20 fd:end=work >/dev/null &&
	"$P" bench -q --no-save -n 3 --export-json "$TMP/n3b.json" -- "$W" fd:begin=work alloc:16 sleep:40 fd:end=work >/dev/null &&
	"$P" compare --export-json "$TMP/n3.json" --export-markdown "$TMP/n3.md" "$TMP/n3a.json" "$TMP/n3b.json" \
		>"$TMP/out" 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '^wall_s .*inconclusive — too few runs$' "$TMP/out" &&
	expect_grep '^note: 3 \+ 3 runs cannot reach p < 0.05 in the primary family \(Holm over 2$' "$TMP/out" &&
	expect_grep 'at least 5 \+ 5 runs can$' "$TMP/out" &&
	expect_grep '^  work .*\+[0-9.]+ ms .*minor faults .*\(not established\)$' "$TMP/out" &&
	expect_grep 'Note: 3 \+ 3 runs cannot reach p < 0.05 in the primary family .* at least 5 \+ 5 runs can\.' "$TMP/n3.md" &&
	/usr/bin/python3 - "$TMP/n3.json" <<'PY' >"$TMP/py.err" 2>&1 && ok || fail "$(cat "$TMP/py.err")"
import json, sys
r = json.load(open(sys.argv[1]))
assert "at least 5 + 5 runs" in r["families"]["primary"]["too_few_runs"], r["families"]
wall = [m for m in r["metrics"] if m["name"] == "wall_s"][0]
assert wall["runs_needed"] == 5 and wall["verdict"] == "inconclusive", wall
work = [p for p in r["phases"] if p["name"] == "work"][0]
assert work["leading"] and not work["changed"] and work["reasons"], work
PY

t "the report of that compare says it too"
"$P" report -o "$TMP/n3.html" "$TMP/n3.json" 2>/dev/null &&
	expect_grep '3 \+ 3 runs cannot reach p &lt; 0.05 in the primary family' "$TMP/n3.html" &&
	expect_grep 'work \(moved most; not established\)' "$TMP/n3.html" && ok

t "history detect's bisect line carries the options the runs were recorded with, and bisect-check takes it"
# runs at commits 1-6 and 11-16 (none between, so a bisect is needed); the
# phase is only seen with --probe MYAPP, which the line must carry. 20 ms
# against 300 ms: with 90 ms, detect printed no bisect line once, with two
# suites running beside it
R=$TMP/repo
mkdir -p "$R" && (
	cd "$R" && git init -q -b main . && git config user.email t@example.com && git config user.name t &&
	for i in $(seq 1 16); do
		ms=20; [ "$i" -gt 8 ] && ms=300
		printf "# commit %d\necho MYAPP: begin=work\nsleep 0.%03d\necho MYAPP: end=work\n" "$i" "$ms" >work.sh &&
			git add work.sh && git commit -q -m "c$i" || exit 1
		if [ "$i" -le 6 ] || [ "$i" -ge 11 ]; then
			"$P" run -q --interval 20 --probe MYAPP -- sh work.sh >/dev/null || exit 1
		fi
	done
) >"$TMP/repo.log" 2>&1; st=$?
expect_status 0 $st && (cd "$R" && "$P" history detect --phase work >"$TMP/out" 2>&1) &&
	expect_grep '^    git bisect run perfhunt bisect-check --baseline @commit:[0-9a-f]{12} --metric phase:work --interval=20 --probe=MYAPP --threshold [0-9.]+ -- sh work\.sh$' "$TMP/out" &&
	line=$(sed -n 's/^    git bisect run perfhunt bisect-check //p' "$TMP/out" | head -1) &&
	(cd "$R" && eval "\"\$P\" bisect-check -n 2 $line" >"$TMP/bisect.out" 2>&1); st=$?
# HEAD is slower than the baseline: bad (1), never a usage abort (128)
expect_status 1 $st && expect_grep '^bisect-check: bad \(1\): phase:work' "$TMP/bisect.out" && ok

t "the trend site's axes: bytes in IEC units, counts on whole ticks, task-clock as time"
/usr/bin/python3 - "$TMP/units.jsonl" <<'PY'
import sys
sys.path.insert(0, "../reference")
import histgen as h
recs = []
for i in range(12):
    rec = h.run_record(["./writer"], i, 1.0, commit=h.fake_commit(i),
                       metrics={"write_bytes": 16777216 * (1 if i < 6 else 2), "majflt": i % 3})
    rec["counters"] = {"task-clock": {"value": 2.9e9 if i < 6 else 3.9e9}}
    recs.append(rec)
h.write_jsonl(sys.argv[1], recs)
PY
PERFHUNT_DB="$TMP/units.db" "$P" history import "$TMP/units.jsonl" >/dev/null &&
	PERFHUNT_DB="$TMP/units.db" "$P" history site "$TMP/site" >/dev/null 2>&1 &&
	/usr/bin/python3 - "$TMP/site" <<'PY' >"$TMP/py.err" 2>&1 && ok || fail "$(cat "$TMP/py.err")"
import glob, re, sys
ticks = {}
for page in glob.glob(sys.argv[1] + "/bench-*.html"):
    html = open(page).read()
    for fig in re.findall(r'<figure id="m\d+"[^>]*>(.*?)</figure>', html, re.S):
        title = re.search(r'class="ctitle"[^>]*>([^<]*)<', fig).group(1)
        ticks[title] = re.findall(r'class="ytick"[^>]*>([^<]*)<', fig)
assert all(t.endswith("MiB") or t == "0" for t in ticks["write_bytes"]), ticks["write_bytes"]
assert all(re.fullmatch(r"\d+", t) for t in ticks["majflt"]), ticks["majflt"]
assert all(t.endswith(" s") or t == "0" for t in ticks["task-clock"]), ticks["task-clock"]
PY

done_testing
