#!/bin/sh
# End-to-end tests of `perfhunt history detect` and `perfhunt history site`:
# histories with known steps built from generated run records
# (../reference/histgen.py, through `history import`), a git repository whose
# first-parent order, gaps, side branch and dirty run the ordering must
# respect, real `perfhunt run`s of a workload whose phase slows at one
# commit, bad input (one run, constant values, duplicates, inf and NaN put
# into the tables), the reference implementation (../reference/edivisive.py),
# the site in headless Chromium, and the same answers on PostgreSQL.
. ./lib.sh
REF=$PWD/../reference
PY=/usr/bin/python3
H() { "$PERFHUNT" history "$@" >"$TMP/out" 2>"$TMP/err"; }
export PERFHUNT_DB="$TMP/h.db"
# gen FILE PYTHON: records from a python snippet that fills the list 'recs'
gen() {
	out=$1; shift
	$PY - "$out" <<EOF
import random, sys
sys.path.insert(0, "$REF")
import histgen as h
rng = random.Random(7)
recs = []
$*
h.write_jsonl(sys.argv[1], recs)
EOF
}

t "help: detect and site options"
H detect --help && expect_grep 'usage: perfhunt history detect' "$TMP/out" && expect_grep 'min-segment N' "$TMP/out" &&
	expect_grep 'fail-on-regression' "$TMP/out" && H site --help && expect_grep 'history site \[options\] DIR' "$TMP/out" &&
	H --help && expect_grep 'history detect' "$TMP/out" && ok

t "missing database: one line, exit 1"
H detect; expect_status 1 $? && expect_grep "^perfhunt: no history database at '$TMP/h.db'" "$TMP/err" && ok

t "usage errors exit 2"
H detect --alpha 0; s1=$?; H detect --alpha 1.5; s2=$?; H detect --min-segment 1; s3=$?
H detect --min-magnitude -1; s4=$?; H detect extra; s5=$?; H detect --bogus; s6=$?; H site; s7=$?
check "statuses $s1 $s2 $s3 $s4 $s5 $s6 $s7" [ "$s1$s2$s3$s4$s5$s6$s7" = 2222222 ] && ok

# 40 commits, 3 runs each: wall_s +20 % from point 25, peak_rss_kb -20 % from
# point 10, phase pin +60 % from point 30, phase load unchanged.
gen "$TMP/steps.jsonl" '
for i in range(40):
    for k in range(3):
        recs.append(h.run_record(["./prover", "--n", "10"], i * 3 + k, (1.0 if i < 25 else 1.2) * (1 + 0.02 * rng.gauss(0, 1)),
            commit=h.fake_commit(i), metrics={"peak_rss_kb": 1000 * (1 if i < 10 else 0.8) + rng.random()},
            phases={"load": 100 + rng.random(), "pin": 50 if i < 30 else 80}))'
H import "$TMP/steps.jsonl"

t "steps found at their commits, with directions, medians and p-values"
c25=$($PY -c "import sys; sys.path.insert(0, '$REF'); import histgen as h; print(h.fake_commit(25)[:10], h.fake_commit(24)[:10])")
H detect; expect_status 0 $? && expect_grep '^4 series, 160 points in recording order; alpha 0.01, min segment 5, min magnitude 1 %$' "$TMP/out" &&
	expect_grep "^  regression at ${c25% *} \(last old ${c25#* }\): [0-9.]+ m?s ± .* \(25 points\) -> 1\.[12][0-9]+ s .* \(15 points\), \+1[89]\.[0-9]+ %, p 0\.002$" "$TMP/out" &&
	expect_grep '^wall_s of \./prover --n 10$' "$TMP/out" && expect_grep '^peak_rss_kb of' "$TMP/out" &&
	expect_grep '^  improvement at .*\(10 points\) -> .*\(30 points\), -(19\.9|20\.0)[0-9] %' "$TMP/out" &&
	expect_grep '^  regression at .*50\.0 ms .*-> 80\.0 ms .*\+60\.00 %' "$TMP/out" &&
	expect_no_grep '^phase:load' "$TMP/out" &&
	expect_grep '^3 change points: 2 regressions, 1 improvement, 0 other shifts$' "$TMP/out" && ok

t "the same history gives the same answer every time"
H detect --export-json "$TMP/a.json" && H detect --export-json "$TMP/b.json" && check "JSON differs" cmp -s "$TMP/a.json" "$TMP/b.json" && ok

t "--fail-on-regression: exit 1 on a regression, 0 when only improvements are selected"
H detect --fail-on-regression; expect_status 1 $? && H detect --fail-on-regression --metric peak_rss_kb; expect_status 0 $? &&
	expect_grep '^1 series' "$TMP/out" && expect_grep '1 change point: 0 regressions, 1 improvement' "$TMP/out" && ok

t "--phase selects the phase's series, --metric a prefix, --bench a command"
H detect --phase pin && expect_grep '^1 series, 40 points' "$TMP/out" && expect_grep '^phase:pin of' "$TMP/out" &&
	H detect --metric 'phase:*' && expect_grep '^2 series' "$TMP/out" &&
	H detect --bench prover --metric wall_s && expect_grep '^1 series' "$TMP/out" && {
	H detect --bench nothing; expect_status 1 $? && expect_grep "^perfhunt: no stored run has any metric for that benchmark" "$TMP/err"
} && { H detect --metric nope; expect_status 1 $? && expect_grep 'no stored run has the selected metrics' "$TMP/err"; } && ok

t "JSON export: perfhunt.detect/1 with commits, sides, p-value and bisect lines"
H detect --metric wall_s --export-json "$TMP/d.json" -q; expect_status 0 $? && check "quiet printed" [ ! -s "$TMP/out" ] &&
	check "schema" [ "$(jget "$TMP/d.json" schema)" = perfhunt.detect/1 ] &&
	check "order" [ "$(jget "$TMP/d.json" order)" = recorded ] &&
	check "index" [ "$(jget "$TMP/d.json" series.0.changes.0.index)" = 25 ] &&
	check "direction" [ "$(jget "$TMP/d.json" series.0.changes.0.direction)" = regression ] &&
	check "new commit" [ "$(jget "$TMP/d.json" series.0.changes.0.new_commit | cut -c1-10)" = "${c25% *}" ] &&
	check "before runs" [ "$(jget "$TMP/d.json" series.0.changes.0.before.runs)" = 75 ] &&
	check "p" [ "$(jget "$TMP/d.json" series.0.changes.0.p_value)" = 0.002 ] &&
	between 17 "$(jget "$TMP/d.json" series.0.changes.0.change_pct)" 22 &&
	expect_grep '"start": "git bisect start ' "$TMP/d.json" && ok

t "markdown export: a table row per change and the bisect lines"
H detect --export-markdown "$TMP/d.md" -q; expect_status 0 $? &&
	expect_grep '^## perfhunt history detect$' "$TMP/d.md" &&
	expect_grep '^\| regression \| wall_s \| \./prover --n 10 \| ' "$TMP/d.md" &&
	expect_grep '^git bisect run perfhunt bisect-check --baseline @commit:[0-9a-f]{12} --metric wall_s --threshold 9\.[0-9]+ -- \./prover --n 10$' "$TMP/d.md" && ok

t "export to /dev/full: one line, exit 1"
H detect -q --export-json /dev/full; expect_status 1 $? && expect_grep "^perfhunt: cannot write '/dev/full'" "$TMP/err" &&
	check "one line" [ "$(wc -l <"$TMP/err")" = 1 ] && ok

# ---- a git repository: first-parent order, gaps, a side branch, a dirty run ----
G=$TMP/repo
export PERFHUNT_DB="$TMP/g.db"
mkdir -p "$G" && (
	cd "$G" && git init -q -b main . && git config user.email t@example.com && git config user.name t &&
	for i in $(seq 0 29); do
		echo "$i" >f && git add f && git commit -q -m "c$i"
		if [ "$i" = 10 ]; then
			git checkout -q -b side && echo s1 >s && git add s && git commit -q -m s1 && echo s2 >s &&
				git commit -q -am s2 && git checkout -q main && git merge -q --no-ff -m merge side
		fi
	done
) >"$TMP/git.log" 2>&1
git -C "$G" rev-list --first-parent --reverse HEAD >"$TMP/fp"
git -C "$G" rev-list --reverse side~2..side >"$TMP/side"
t "git fixture: 31 first-parent commits, 2 on the side branch"
check "$(cat "$TMP/git.log")" [ "$(wc -l <"$TMP/fp")" = 31 ] && check "side" [ "$(wc -l <"$TMP/side")" = 2 ] && ok
# wall_s 1.0 up to first-parent commit 15, 1.3 from 19; no runs at 16-18; side commits at 5.0;
# a dirty run at 5 of 9.0; records stored in shuffled order.
gen "$TMP/git.jsonl" '
fp = open("'"$TMP/fp"'").read().split()
side = open("'"$TMP/side"'").read().split()
n = 0
for i, c in enumerate(fp):
    if 16 <= i <= 18:
        continue
    for k in range(2):
        recs.append(h.run_record(["sh", "bench.sh"], n, (1.0 if i < 17 else 1.3) * (1 + 0.01 * rng.gauss(0, 1)), commit=c)); n += 1
for c in side:
    recs.append(h.run_record(["sh", "bench.sh"], n, 5.0, commit=c)); n += 1
recs.append(h.run_record(["sh", "bench.sh"], n, 9.0, commit=fp[5], dirty=True))
rng.shuffle(recs)'
H import "$TMP/git.jsonl"
old=$(sed -n 16p "$TMP/fp") new=$(sed -n 20p "$TMP/fp")

t "first-parent order: the change between the right commits, the side branch and the dirty run left out"
(cd "$G" && "$PERFHUNT" history detect >"$TMP/out" 2>"$TMP/err"); expect_status 0 $? &&
	expect_grep '^1 series, 28 points in first-parent order of HEAD' "$TMP/out" &&
	expect_grep "^  regression at $(echo "$new" | cut -c1-10) \(last old $(echo "$old" | cut -c1-10), 3 commits between without runs\): .*\(16 points\) -> .*\(12 points\), \+(29|30|31)\.[0-9]+ %, p 0\.002$" "$TMP/out" &&
	expect_grep "^left out: 1 run in a dirty work tree, 2 runs off the first-parent history, 0 non-finite values$" "$TMP/out" && ok

t "bisect hand-off: git bisect start NEW OLD, then bisect-check against the old commit's runs"
expect_grep "^    git bisect start $(echo "$new" | cut -c1-12) $(echo "$old" | cut -c1-12)$" "$TMP/out" &&
	expect_grep "^    git bisect run perfhunt bisect-check --baseline @commit:$(echo "$old" | cut -c1-12) --metric wall_s --threshold 1[45](\.[0-9])? -- sh bench.sh$" "$TMP/out" &&
	(cd "$G" && "$PERFHUNT" history show "@commit:$(echo "$old" | cut -c1-12)" >"$TMP/show" 2>&1) &&
	check "baseline reference resolves: $(head -3 "$TMP/show")" [ "$(grep -c '^run ' "$TMP/show")" = 2 ] && ok

t "--since: a change before REF is not reported, one after it is"
(cd "$G" && "$PERFHUNT" history detect --since main~3 --fail-on-regression >"$TMP/out" 2>"$TMP/err"); expect_status 0 $? &&
	expect_grep '^no change point$' "$TMP/out" && expect_grep '^reporting changes after ' "$TMP/out" &&
	(cd "$G" && "$PERFHUNT" history detect --since "$old" --fail-on-regression >"$TMP/out" 2>"$TMP/err"); expect_status 1 $? &&
	expect_grep '^  regression at ' "$TMP/out" && {
	(cd "$G" && "$PERFHUNT" history detect --since nosuchref >"$TMP/out" 2>"$TMP/err"); expect_status 1 $? &&
		expect_grep "^perfhunt: --since: 'nosuchref' is not a commit on the first-parent history of HEAD$" "$TMP/err"
} && ok

t "outside the repository the same runs are in recording order"
H detect; expect_status 0 $? && expect_grep 'points in recording order' "$TMP/out" && ok

# ---- real runs: a workload whose phase slows at one commit ----
R=$TMP/real
export PERFHUNT_DB="$TMP/real.db"
t "real perfhunt runs at 16 commits: the slower phase is found at its commit"
mkdir -p "$R" && (
	cd "$R" && git init -q -b main . && git config user.email t@example.com && git config user.name t &&
	for i in $(seq 1 16); do
		# one run per commit: at 20 ms against 90 ms a loaded machine once
		# put the change point one commit off; 300 ms leaves room for load
		ms=20; [ "$i" -gt 8 ] && ms=300
		printf "# commit %d\necho PERFHUNT: begin=work\nsleep 0.%03d\necho PERFHUNT: end=work\n" "$i" "$ms" >work.sh &&
			git add work.sh && git commit -q -m "c$i" && "$PERFHUNT" run -q -- sh work.sh >/dev/null 2>&1 || exit 1
	done
) >"$TMP/real.log" 2>&1; st=$?
expect_status 0 $st && (cd "$R" && "$PERFHUNT" history detect --phase work >"$TMP/out" 2>&1) &&
	c9=$(git -C "$R" rev-parse HEAD~7 | cut -c1-10) &&
	expect_grep "^  regression at $c9 " "$TMP/out" && expect_grep '^phase:work of sh work\.sh$' "$TMP/out" && ok

# ---- bad input ----
export PERFHUNT_DB="$TMP/bad.db"
gen "$TMP/bad.jsonl" '
recs.append(h.run_record(["./one"], 0, 1.5, commit=h.fake_commit(0)))
for i in range(30):
    recs.append(h.run_record(["./flat"], 1 + i, 2.0, commit=h.fake_commit(100 + i), metrics={"majflt": 0}))
for i in range(30):
    v = 1.0 if i < 15 else 1.5
    recs.append(h.run_record(["./dup"], 40 + i, v, commit=h.fake_commit(200 + i)))
    recs.append(h.run_record(["./dup"], 40 + i, v, commit=h.fake_commit(200 + i)))
    recs.append(h.run_record(["./gap"], 80 + i, v, commit=None if i % 4 == 0 else h.fake_commit(300 + i)))'
H import "$TMP/bad.jsonl"
t "one run, constant values, duplicate commits, runs without commits: defined answers"
H detect; expect_status 0 $? && expect_grep '^wall_s of \./dup$' "$TMP/out" && expect_grep '^wall_s of \./gap$' "$TMP/out" &&
	expect_no_grep 'of \./flat|of \./one' "$TMP/out" && expect_grep 'series too short to test \(fewer than 10 points\)' "$TMP/out" &&
	H detect --bench ./dup --export-json "$TMP/dup.json" -q && check "dup runs" [ "$(jget "$TMP/dup.json" series.0.changes.0.after.runs)" = 30 ] &&
	check "dup points" [ "$(jget "$TMP/dup.json" series.0.points)" = 30 ] && ok

t "inf and NaN values in the tables are left out and counted, never a crash"
sql "$TMP/bad.db" "UPDATE metrics SET value = 9e999 WHERE run_id = 3 AND name = 'wall_s';
	UPDATE metrics SET value = 'NaN' WHERE run_id = 4 AND name = 'wall_s';" 2>"$TMP/sql"
H detect --bench ./flat; expect_status 0 $? && expect_grep '2 non-finite values' "$TMP/out" && ok

t "an empty history: no series, one line, exit 1"
export PERFHUNT_DB="$TMP/empty.db"
"$PERFHUNT" history import /dev/null >/dev/null 2>&1
H detect; expect_status 1 $? && check "one line" [ "$(wc -l <"$TMP/err")" = 1 ] && ok

# ---- reference implementation ----
t "reference values: an independent E-Divisive (numpy/scipy) finds the same change points"
$PY "$REF/edivisive.py" --perfhunt "$PERFHUNT" >"$TMP/ref" 2>&1; st=$?
if [ $st = 77 ]; then
	echo "ok - $T_NAME # SKIP $(cat "$TMP/ref")"; T_DONE=1
else
	check "reference differs: $(grep -v '^ok' "$TMP/ref" | head -5)" [ $st = 0 ] && echo "# $(grep -c '^ok' "$TMP/ref") series agree" && ok
fi

# ---- site ----
export PERFHUNT_DB="$TMP/h.db"
t "site: index, a page per benchmark, a report per linked run, self-contained"
# linked: the points either side of each change (9|10, 24|25, 29|30) and the
# latest 5 of each series (35-39): 26 markers, 11 distinct runs
H site "$TMP/site"; expect_status 0 $? &&
	expect_grep "^perfhunt: wrote $TMP/site/index.html: 1 benchmark, 4 series, 11 run reports$" "$TMP/err" &&
	check "runs dir" [ "$(ls "$TMP/site/runs" | wc -l)" = 11 ] &&
	expect_grep 'href="bench-1.html"' "$TMP/site/index.html" && expect_grep '<table id="changes">' "$TMP/site/index.html" &&
	check "4 charts" [ "$(grep -c 'class="chart trend"' "$TMP/site/bench-1.html")" = 4 ] &&
	check "4 median lines" [ "$(grep -c 'class="medians"' "$TMP/site/bench-1.html")" = 4 ] &&
	check "3 change marks" [ "$(grep -c 'class="change"' "$TMP/site/bench-1.html")" = 3 ] &&
	check "26 markers" [ "$(grep -c 'class="dot point"' "$TMP/site/bench-1.html")" = 26 ] &&
	first=$(grep -o 'href="runs/[0-9]*.html"' "$TMP/site/bench-1.html" | head -1 | sed 's/href="//; s/"$//') &&
	check "linked report $first" [ -s "$TMP/site/$first" ] && expect_grep '^<!DOCTYPE html>' "$TMP/site/$first" &&
	for l in $(grep -o 'href="runs/[0-9]*.html"' "$TMP/site/bench-1.html" | sed 's/href="//; s/"$//' | sort -u); do
		check "missing $l" [ -s "$TMP/site/$l" ] || break
	done && expect_no_grep '<link|src=|@import|url\(' "$TMP/site/bench-1.html" && ok

t "site --all-runs: every point marked and linked to its run's report"
H site --all-runs "$TMP/allsite"; expect_status 0 $? &&
	expect_grep "^perfhunt: wrote $TMP/allsite/index.html: 1 benchmark, 4 series, 40 run reports$" "$TMP/err" &&
	check "runs dir" [ "$(ls "$TMP/allsite/runs" | wc -l)" = 40 ] &&
	check "160 markers" [ "$(grep -c 'class="dot point"' "$TMP/allsite/bench-1.html")" = 160 ] && ok

t "site: names from records stay text"
export PERFHUNT_DB="$TMP/hostile.db"
gen "$TMP/hostile.jsonl" '
for i in range(12):
    recs.append(h.run_record(["<script>alert(1)</script>"], i, 1.0 if i < 6 else 2.0, commit=h.fake_commit(i),
        phases={"<img src=x>": 5}))'
H import "$TMP/hostile.jsonl" && H site "$TMP/hsite"; expect_status 0 $? &&
	expect_no_grep '<script>alert|<img src' "$TMP/hsite/index.html" && expect_no_grep '<script>alert|<img src' "$TMP/hsite/bench-1.html" &&
	expect_grep '&lt;script&gt;alert' "$TMP/hsite/index.html" && ok

t "site: an unwritable DIR is one line, exit 1"
H site /dev/null/site; expect_status 1 $? && check "one line" [ "$(wc -l <"$TMP/err")" = 1 ] && ok

t "site renders in headless Chromium: charts drawn, no script errors, index and run report load"
out=$(sh ../browser/render.sh "$TMP/site/bench-1.html" "$TMP/site.png"); st=$?
if [ $st = 77 ]; then
	echo "ok - $T_NAME # SKIP $out"; T_DONE=1
else
	expect_status 0 $st && echo "# bench page $out" &&
		{ out=$(sh ../browser/render.sh "$TMP/site/index.html" "$TMP/index.png" text); st=$?; expect_status 0 $st; } &&
		{ out=$(sh ../browser/render.sh "$TMP/site/$first" "$TMP/run.png" text); st=$?; expect_status 0 $st; } && ok
fi

# ---- PostgreSQL: the same history, the same answer ----
PG_BIN=/usr/lib/postgresql/15/bin
PGDIR=
cleanup() {
	[ -n "$PGDIR" ] && [ -d "$PGDIR/data" ] && as_pg "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m immediate -w -t 20 stop >/dev/null 2>&1
	[ -n "$PGDIR" ] && rm -rf "$PGDIR"
	rm -rf "$TMP"
}
trap cleanup EXIT
if [ "$(id -u)" = 0 ]; then as_pg() { runuser -u postgres -- "$@"; }; else as_pg() { "$@"; }; fi
if [ ! -x "$PG_BIN/initdb" ] || { [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; }; then
	echo "ok - PostgreSQL history # SKIP $PG_BIN/initdb or the postgres user missing (scripts/setup installs postgresql)"
else
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
	PGDIR=$(mktemp -d /tmp/perfhunt-pg.XXXXXX)
	[ "$(id -u)" = 0 ] && chown postgres "$PGDIR"
	PG_PORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	PGURL="postgresql://perfhunt@127.0.0.1:$PG_PORT/postgres?connect_timeout=5"
	t "PostgreSQL history: same change points, same JSON, same site pages as SQLite"
	as_pg timeout 60 "$PG_BIN/initdb" -D "$PGDIR/data" -U perfhunt -A trust --no-sync >"$TMP/initdb.log" 2>&1 &&
		as_pg timeout 60 "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w -t 30 \
			-o "-k $PGDIR -p $PG_PORT -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null 2>&1
	check "cluster up: $(tail -3 "$PGDIR/log" 2>/dev/null)" [ $? = 0 ] &&
		PERFHUNT_DB=$PGURL H import "$TMP/steps.jsonl" &&
		PERFHUNT_DB="$TMP/h.db" H detect --export-json "$TMP/sqlite.json" && cp "$TMP/out" "$TMP/sqlite.txt" &&
		PERFHUNT_DB=$PGURL H detect --export-json "$TMP/pg.json" &&
		check "text differs: $(diff "$TMP/sqlite.txt" "$TMP/out" | head -5)" cmp -s "$TMP/sqlite.txt" "$TMP/out" &&
		check "JSON differs" cmp -s "$TMP/sqlite.json" "$TMP/pg.json" &&
		PERFHUNT_DB=$PGURL H site "$TMP/pgsite" &&
		check "bench page differs" cmp -s "$TMP/site/bench-1.html" "$TMP/pgsite/bench-1.html" &&
		PERFHUNT_DB=$PGURL H detect --fail-on-regression; expect_status 1 $? && ok
fi
done_testing
