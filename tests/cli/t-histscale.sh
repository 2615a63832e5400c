#!/bin/sh
# A team's history at scale: 20 000 runs (one per commit, five series, a
# +10 % step in wall_s at the middle) made by ../reference/histgen.py and
# stored through `history import`. The reading commands hold a value per run
# and metric, never the rows or records whole: peak RSS (GNU time's %M)
# under bounds that the former readers (82 MB for detect here) broke; the
# site draws each series as per-commit medians over their spread and writes
# a run report only where a change or the latest commits ask for one, so its
# files and bytes stay bounded. No time bounds: the machine is shared.
. ./lib.sh
P=$PERFHUNT
REF=$PWD/../reference
export PERFHUNT_DB="$TMP/h.db"
N=20000
# a sanitizer build's detect runs ~20x slower: 5 000 runs still bin every
# chart (over 884 columns) and keep the site's bounds meaningful
grep -q __asan_init "$P" && N=5000
/usr/bin/python3 - "$TMP/h.jsonl" "$N" <<EOF2
import random, sys
sys.path.insert(0, "$REF")
import histgen as h
n = int(sys.argv[2]); rng = random.Random(3)
recs = [h.run_record(["./server", "--bench"], i, (1.0 if i < n // 2 else 1.1) * (1 + 0.02 * rng.gauss(0, 1)),
                     commit=h.fake_commit(i), metrics={"peak_rss_kb": 1000 + rng.random(), "user_s": 0.5 + rng.random() / 100},
                     phases={"load": 100 + rng.random(), "serve": 50 + rng.random()}) for i in range(n)]
h.write_jsonl(sys.argv[1], recs)
EOF2
# peak RSS in KiB of a command: GNU time where installed (a sanitizer's
# runtime multiplies it: no bound then)
have_time=1
[ -x /usr/bin/time ] || have_time=0
grep -q __asan_init "$P" && have_time=0
peak() { /usr/bin/time -o "$TMP/rss" -f %M "$@" >"$TMP/out" 2>"$TMP/err"; st=$?; rss=$(tail -1 "$TMP/rss"); echo "# peak RSS $rss KiB: $*" | sed "s|$P|perfhunt|"; return $st; }

t "history import stores records as it reads them: a broken third value ends the file after two"
head -2 "$TMP/h.jsonl" >"$TMP/three.jsonl" && printf '{"schema": "perfhunt.run/1", "command": [\n' >>"$TMP/three.jsonl"
PERFHUNT_DB="$TMP/three.db" "$P" history import "$TMP/three.jsonl" >"$TMP/out" 2>"$TMP/err"; expect_status 1 $? &&
	check "stored lines $(grep -c 'stored as run' "$TMP/out")" [ "$(grep -c 'stored as run' "$TMP/out")" = 2 ] &&
	check "rows" [ "$(sql "$TMP/three.db" 'select count(*) from runs')" = 2 ] &&
	expect_grep "^perfhunt: cannot read '$TMP/three.jsonl': .*\(line [34]\)" "$TMP/err" && ok

t "history import of $N runs streams them: every run stored"
timeout 280 "$P" history import "$TMP/h.jsonl" >"$TMP/out" 2>"$TMP/err"; expect_status 0 $? &&
	check "stored $(sql "$PERFHUNT_DB" 'select count(*) from runs')" [ "$(sql "$PERFHUNT_DB" 'select count(*) from runs')" = $N ] && ok

t "history detect on $N runs: the step found, peak RSS under 64 MiB"
if [ $have_time = 0 ]; then skip "no GNU time, or a sanitizer build"; else
	peak timeout 200 "$P" history detect --metric wall_s; expect_status 0 $? &&
		expect_grep "^1 series, $N points" "$TMP/out" && expect_grep '^  regression at .* \+[0-9.]+ %' "$TMP/out" &&
		check "peak RSS $rss KiB" [ "$rss" -lt 65536 ] && ok
fi

t "history detect of every series on $N runs: peak RSS under 64 MiB"
if [ $have_time = 0 ]; then skip "no GNU time, or a sanitizer build"; else
	peak timeout 200 "$P" history detect; expect_status 0 $? && expect_grep "^5 series, $((5 * N)) points" "$TMP/out" &&
		check "peak RSS $rss KiB" [ "$rss" -lt 65536 ] && ok
fi

t "history trend on $N runs: a row per commit, peak RSS under 32 MiB"
if [ $have_time = 0 ]; then skip "no GNU time, or a sanitizer build"; else
	peak timeout 200 "$P" history trend wall_s; expect_status 0 $? &&
		check "rows $(grep -c '^[0-9a-f]\{10\} ' "$TMP/out")" [ "$(grep -c '^[0-9a-f]\{10\} ' "$TMP/out")" = $N ] &&
		check "peak RSS $rss KiB" [ "$rss" -lt 32768 ] && ok
fi

t "history site on $N runs: a few files, pages of tens of KB per chart, every link a written report"
timeout 280 "$P" history site "$TMP/site" >"$TMP/out" 2>"$TMP/err"; expect_status 0 $? &&
	files=$(find "$TMP/site" -type f | wc -l) && bytes=$(du -sb "$TMP/site" | cut -f1) &&
	page=$(wc -c <"$TMP/site/bench-1.html") &&
	check "$files files" [ "$files" -le 12 ] && check "site $bytes bytes" [ "$bytes" -lt 2000000 ] &&
	check "bench page $page bytes" [ "$page" -lt 500000 ] &&
	check "5 median lines" [ "$(grep -c 'class="medians"' "$TMP/site/bench-1.html")" = 5 ] &&
	check "change mark" [ "$(grep -c 'class="change"' "$TMP/site/bench-1.html")" -ge 1 ] &&
	for l in $(grep -o 'href="runs/[0-9]*.html"' "$TMP/site/bench-1.html" | sed 's/href="//; s/"$//' | sort -u); do
		check "missing $l" [ -s "$TMP/site/$l" ] || break
	done && ok

done_testing
