#!/bin/sh
# End-to-end tests of `perfhunt history`: run-record fixtures (data/history)
# go in through `history import`, come back through list/show/trend and plain
# sqlite3; a missing, corrupt or read-only database gives one clear line.
. ./lib.sh
D=$PWD/data/history
DB=$TMP/h.db
export PERFHUNT_DB="$DB"
H() { "$PERFHUNT" history "$@" >"$TMP/out" 2>"$TMP/err"; }
rows() { grep -c -E '^ +[0-9]+  ' "$TMP/out"; }

t "help names every subcommand"
H --help && expect_grep 'history show' "$TMP/out" && expect_grep 'history trend' "$TMP/out" &&
	expect_grep 'history import' "$TMP/out" && ok
for sub in list show trend import; do
	t "$sub --help"; H $sub --help && expect_grep "usage: perfhunt history" "$TMP/out" && ok
done

t "unknown subcommand is a usage error"
H frobnicate; expect_status 2 $? && expect_grep "unknown subcommand 'frobnicate'" "$TMP/err" && ok

t "missing database: one clear line, nothing created"
H list; expect_status 1 $? && expect_grep "^perfhunt: no history database at '$DB'" "$TMP/err" &&
	check "db created" [ ! -e "$DB" ] && ok

t "import run and bench records"
H import "$D/base-1.json" "$D/base-2.json" "$D/base-3.json" "$D/new-1.json" "$D/new-2.json" \
	"$D/quoted.json" "$D/bench.json"
expect_status 0 $? && expect_grep 'base-1.json: stored as run 1$' "$TMP/out" &&
	expect_grep 'bench.json: stored as bench 1$' "$TMP/out" && ok

t "import of a file that is not a record fails clearly"
H import "$D/not-a-record.json"; expect_status 1 $? &&
	expect_grep "not-a-record.json: not a perfhunt.run/1 record \(schema 'something/else'\)" "$TMP/err" && ok

t "import of a missing file fails clearly"
H import "$TMP/nope.json"; expect_status 1 $? && expect_grep "nope.json" "$TMP/err" && ok

t "list: newest first, every stored run"
H list; expect_status 0 $? && check "8 rows" [ "$(rows)" = 8 ] &&
	expect_grep '^ +8  2026-11-30 10:00:02  b7c8d9e0f1 ' "$TMP/out" &&
	expect_grep "sh -c 'echo '\\\\''hi there'\\\\'' \\\$HOME'\$" "$TMP/out" &&
	check "newest first" [ "$(sed -n 2p "$TMP/out" | awk '{print $1}')" = 8 ] && ok

t "list is the default subcommand"
H -n 3; expect_status 0 $? && check "3 rows" [ "$(rows)" = 3 ] && ok

t "list filters: tag, commit prefix, command, limit"
H list --tag baseline && check "tag" [ "$(rows)" = 3 ] &&
H list --commit b7c8 && check "commit" [ "$(rows)" = 4 ] &&
H list --command prover -n 0 && check "command" [ "$(rows)" = 5 ] &&
H list --command prover --tag pinned && check "both" [ "$(rows)" = 1 ] &&
	expect_grep 'b7c8d9e0f1\+ ' "$TMP/out" && ok

t "list with no match says so"
H list --tag nothing; expect_status 0 $? && expect_grep 'no stored run matches' "$TMP/err" && ok

t "bad -n is a usage error"
H list -n many; expect_status 2 $? && expect_grep "expected an integer" "$TMP/err" && ok

t "show: the history's facts, then the summary run and show print"
H show 4; expect_status 0 $? && expect_grep '^run 4$' "$TMP/out" &&
	expect_grep '^perfhunt: \./prover --circuits 10$' "$TMP/out" &&
	expect_grep '^  commit +b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f80$' "$TMP/out" &&
	expect_grep '^  peak RSS +2\.00 GiB .*exact: wait4 ru_maxrss' "$TMP/out" && ok

t "show @last is the whole newest bench"
H show @last; expect_status 0 $? && expect_grep '^run 7 \(bench 1\)$' "$TMP/out" &&
	expect_grep '^run 8 \(bench 1\)$' "$TMP/out" && ok

t "show --json gives the stored record without sample rows"
H show --json 1; expect_status 0 $? &&
	check "command" [ "$(jget "$TMP/out" command.0)" = ./prover ] &&
	check "wall" [ "$(jget "$TMP/out" summary.wall_s)" = 88.9 ] &&
	check "history_id" [ "$(jget "$TMP/out" history_id)" = 1 ] &&
	expect_no_grep '"rows"' "$TMP/out" && ok

t "show of an unknown reference fails clearly"
H show @tag:nothing; expect_status 1 $? && expect_grep "no stored run matches '@tag:nothing'" "$TMP/err" &&
H show @yesterday; expect_status 1 $? && expect_grep "unknown history reference" "$TMP/err" && ok

t "trend: median per commit and a sparkline"
H trend phase:pin_abc --command prover; expect_status 0 $? &&
	expect_grep '^a1b2c3d4e5 +3 +30\.0 ms  ▁$' "$TMP/out" &&
	expect_grep '^b7c8d9e0f1 +1 +5\.733 s  █$' "$TMP/out" &&
	expect_grep '^b7c8d9e0f1\+ +1 +5\.801 s  █$' "$TMP/out" &&
	expect_grep '^trend ▁██$' "$TMP/out" && ok

t "trend of an unknown metric names the known ones"
H trend wall_ms; expect_status 1 $? && expect_grep "no stored run has metric 'wall_ms'; known: .*wall_s" "$TMP/err" && ok

t "compare reads history references"
"$PERFHUNT" compare @tag:baseline 4 >"$TMP/out" 2>"$TMP/err"; expect_status 0 $? &&
	expect_grep '^base: @tag:baseline \(3 runs\)' "$TMP/out" &&
	expect_grep 'pin_abc +\+5\.703 s \(\+[0-9.]+ %\) +explains 104 %' "$TMP/out" &&
"$PERFHUNT" compare @last~1 @last >"$TMP/out" 2>"$TMP/err"; expect_status 0 $? &&
	expect_grep '^new: +@last \(2 runs\)' "$TMP/out" &&
"$PERFHUNT" compare @tag:baseline @last~99 >"$TMP/out" 2>"$TMP/err"; expect_status 1 $? &&
	expect_grep "no stored run matches '@last~99'" "$TMP/err" && ok

t "import --tag tags every run"
H import --tag ci --tag nightly "$D/base-1.json" && H list --tag nightly &&
	check "1 row" [ "$(rows)" = 1 ] && expect_grep ' baseline,ci,nightly ' "$TMP/out" && ok

t "plain sqlite3 reads the tables"
if command -v sqlite3 >/dev/null; then
	n=$(sql "$DB" "select count(*) from runs where bench_id = 1") &&
	v=$(sql "$DB" "select value from metrics where run_id = 4 and name = 'phase:pin_abc'") &&
	p=$(sql "$DB" "select count(*) from phases where name = 'ntt' and lane = 'gpu_tid=0'") &&
	check "bench runs $n" [ "$n" = 2 ] && check "metric $v" [ "$v" = 5733.0 ] &&
	check "phases $p" [ "$p" = 9 ] && ok
else
	ok
fi

t "a write error on stdout is reported"
"$PERFHUNT" history list >/dev/full 2>"$TMP/err"; expect_status 1 $? &&
	expect_grep 'error writing output' "$TMP/err" && ok

t "default database at the git top level"
mkdir -p "$TMP/repo/.git" "$TMP/repo/src/deep"
(cd "$TMP/repo/src/deep" && unset PERFHUNT_DB && "$PERFHUNT" history import "$D/base-1.json") >"$TMP/out" 2>&1
expect_status 0 $? && check "db at top" [ -f "$TMP/repo/.perfhunt/history.db" ] &&
	check "dir mode 700" [ "$(stat -c %a "$TMP/repo/.perfhunt")" = 700 ] && ok

t "corrupt database: one clear line"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "epoch_ms,rss_kb,rss_gib,this is a csv"; done >"$TMP/bad.db"
PERFHUNT_DB=$TMP/bad.db "$PERFHUNT" history list >"$TMP/out" 2>"$TMP/err"; expect_status 1 $? &&
	expect_grep "^perfhunt: '$TMP/bad.db' is not a perfhunt history database \(file is not a database\)$" "$TMP/err" &&
PERFHUNT_DB=$TMP/bad.db "$PERFHUNT" history import "$D/base-1.json" >"$TMP/out" 2>"$TMP/err"; expect_status 1 $? &&
	expect_grep "is not a perfhunt history database" "$TMP/err" && ok

t "read-only directory: writes refused clearly, reads still work"
# As root, file modes do not bind: run perfhunt as nobody instead.
mkdir "$TMP/ro" && cp "$D/base-1.json" "$TMP/ro.json" &&
PERFHUNT_DB=$TMP/ro/h.db "$PERFHUNT" history import "$D/base-1.json" >/dev/null && chmod 555 "$TMP/ro" &&
	chmod 755 "$TMP" && chmod 644 "$TMP/ro.json"
as_user() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
PERFHUNT_DB=$TMP/ro/h.db as_user "$PERFHUNT" history import "$TMP/ro.json" >"$TMP/out" 2>"$TMP/err"
expect_status 1 $? && expect_grep "^perfhunt: history database '$TMP/ro/h.db' is read-only" "$TMP/err" &&
PERFHUNT_DB=$TMP/ro/h.db as_user "$PERFHUNT" history list >"$TMP/out" 2>"$TMP/err"
expect_status 0 $? && check "1 row" [ "$(rows)" = 1 ] && ok
chmod 700 "$TMP/ro"

t "new database in a read-only directory: one clear line"
chmod 555 "$TMP/ro"
PERFHUNT_DB=$TMP/ro/new.db as_user "$PERFHUNT" history import "$TMP/ro.json" >"$TMP/out" 2>"$TMP/err"
expect_status 1 $? && expect_grep "^perfhunt: cannot create history database '$TMP/ro/new.db': directory '$TMP/ro' is read-only$" "$TMP/err" && ok
chmod 700 "$TMP/ro"

t "twelve runs: each listed at once; once 'history --path' returns the file alone holds them all"
# A run's commit is visible through the WAL at once; a detached process folds
# the WAL into the file right after, and --path waits for it.
i=0; listed=ok
while [ $i -lt 12 ]; do
	PERFHUNT_DB=$TMP/fold.db "$PERFHUNT" run -q -- true >/dev/null 2>&1; i=$((i + 1))
	[ "$(PERFHUNT_DB=$TMP/fold.db "$PERFHUNT" history list | grep -c -E '^ +[0-9]+  ')" = $i ] || listed="run $i not listed"
	PERFHUNT_DB=$TMP/fold.db "$PERFHUNT" run -q -- true >/dev/null 2>&1; i=$((i + 1))
done
cp "$(PERFHUNT_DB=$TMP/fold.db "$PERFHUNT" history --path 2>/dev/null)" "$TMP/fold-copy.db"
check "$listed" [ "$listed" = ok ] &&
	check "a copy of the file alone has all 12" [ "$(sql "$TMP/fold-copy.db" 'select count(*) from runs')" = 12 ] &&
	PERFHUNT_DB=$TMP/fold.db H list && check "12 rows" [ "$(rows)" = 12 ] &&
	check "WAL of a page or none: $(stat -c %s "$TMP/fold.db-wal" 2>/dev/null)" \
		[ "$(stat -c %s "$TMP/fold.db-wal" 2>/dev/null || echo 0)" -lt 1000000 ] && ok

t "a burst of runs shares folds: with no history command after it, the file alone soon holds every run"
# Each run that finds a fold still pending leaves its frames to that fold;
# detached folds, not a reader's close, must bring them all into the file.
i=0
while [ $i -lt 10 ]; do
	PERFHUNT_DB=$TMP/burst.db "$PERFHUNT" run -q -- true >/dev/null 2>&1; i=$((i + 1))
done
n=0; waited=0
while [ $waited -lt 100 ]; do
	cp "$TMP/burst.db" "$TMP/burst-copy.db"
	n=$(sql "$TMP/burst-copy.db" 'select count(*) from runs' 2>/dev/null)
	[ "$n" = 10 ] && break
	sleep 0.05; waited=$((waited + 1))
done
check "10 runs in the file alone, $n after $waited waits" [ "$n" = 10 ] &&
	check "WAL of a page or none: $(stat -c %s "$TMP/burst.db-wal" 2>/dev/null)" \
		[ "$(stat -c %s "$TMP/burst.db-wal" 2>/dev/null || echo 0)" -lt 1000000 ] && ok

t "runs two at a time: none lost, none busy; the file alone holds them all after --path"
i=0
while [ $i -lt 6 ]; do
	PERFHUNT_DB=$TMP/pair.db "$PERFHUNT" run -q -- true >/dev/null 2>"$TMP/err-a" &
	PERFHUNT_DB=$TMP/pair.db "$PERFHUNT" run -q -- true >/dev/null 2>"$TMP/err-b"
	wait; i=$((i + 1))
done
cp "$(PERFHUNT_DB=$TMP/pair.db "$PERFHUNT" history --path 2>/dev/null)" "$TMP/pair-copy.db"
check "no error: $(cat "$TMP/err-a" "$TMP/err-b")" [ ! -s "$TMP/err-a" ] && check "" [ ! -s "$TMP/err-b" ] &&
	check "12 in the copy" [ "$(sql "$TMP/pair-copy.db" 'select count(*) from runs')" = 12 ] &&
	PERFHUNT_DB=$TMP/pair.db H list && check "12 rows" [ "$(rows)" = 12 ] && ok

t "runs, then the directory made read-only: another user still lists every run"
mkdir "$TMP/ro2" && PERFHUNT_DB=$TMP/ro2/h.db "$PERFHUNT" run -q -- true >/dev/null 2>&1 &&
	PERFHUNT_DB=$TMP/ro2/h.db "$PERFHUNT" run -q -- true >/dev/null 2>&1 &&
	PERFHUNT_DB=$TMP/ro2/h.db "$PERFHUNT" run -q -- true >/dev/null 2>&1 &&
	PERFHUNT_DB=$TMP/ro2/h.db "$PERFHUNT" history --path >/dev/null 2>&1 &&
	chmod 555 "$TMP/ro2" && chmod 755 "$TMP" && chmod 644 "$TMP"/ro2/h.db*
PERFHUNT_DB=$TMP/ro2/h.db as_user "$PERFHUNT" history list >"$TMP/out" 2>"$TMP/err"
expect_status 0 $? && check "3 rows: $(cat "$TMP/err")" [ "$(rows)" = 3 ] && ok
chmod 700 "$TMP/ro2"

t "show of a recorded run: its phase table, each tag once"
PERFHUNT_DB=$TMP/h2.db "$PERFHUNT" run -q --tag twice --tag twice -- sh -c 'echo PERFHUNT: begin=load; sleep 0.05; echo PERFHUNT: end=load' >/dev/null 2>&1
PERFHUNT_DB=$TMP/h2.db H show @last; expect_status 0 $? && expect_grep '^  tags +twice$' "$TMP/out" &&
	expect_grep '^load +1 ' "$TMP/out" && ok

done_testing
