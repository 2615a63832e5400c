#!/bin/sh
# A bench of many runs holds what its statistics need (a value per run per
# metric) and keeps each run's record in a spool file until the end: its
# peak RSS stays flat as the runs grow, with the history, the JSON record and
# the CSV all written from the spool. Before, every run stayed in memory
# (~20 KB each, ~40 KB with the history): 500 runs of `true` peaked at
# ~26 MB. Memory bounds only (GNU time's %M); no time bounds: the machine is
# shared.
. ./lib.sh
P=$PERFHUNT
export PERFHUNT_DB="$TMP/h.db"
# peak RSS in KiB of a command: GNU time where installed (a sanitizer's
# runtime multiplies it: no bound then)
have_time=1
[ -x /usr/bin/time ] || have_time=0
grep -q __asan_init "$P" && have_time=0
peak() { /usr/bin/time -o "$TMP/rss" -f %M "$@" >"$TMP/out" 2>"$TMP/err"; st=$?; rss=$(tail -1 "$TMP/rss"); echo "# peak RSS $rss KiB: $*" | sed "s|$P|perfhunt|"; return $st; }

t "bench -r 500 with the history, --export-json, --export-csv and --export-openmetrics: every run in each"
peak "$P" bench -q --style=none -r 500 --export-json "$TMP/b.json" --export-csv "$TMP/b.csv" \
	--export-openmetrics "$TMP/b.om" -- true; expect_status 0 $? &&
	big=$rss &&
	check "stored $(sql "$PERFHUNT_DB" 'select count(*) from runs where bench_id is not null')" \
		[ "$(sql "$PERFHUNT_DB" 'select count(*) from runs where bench_id is not null')" = 500 ] &&
	check "runs in the JSON" [ "$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["commands"][0]["runs"]))' "$TMP/b.json")" = 500 ] &&
	check "n of wall_s" [ "$(jget "$TMP/b.json" commands.0.stats.wall_s.n)" = 500 ] &&
	check "rows in the CSV" [ "$(wc -l <"$TMP/b.csv")" = 501 ] &&
	expect_grep '^perfhunt_runs\{command="true",.*\} 500$' "$TMP/b.om" && ok

t "bench -r 500 peaks under 16 MiB, within 4 MiB of bench -r 50 (the history's page cache fills up to 2 MiB)"
if [ $have_time = 0 ]; then skip "no GNU time, or a sanitizer build"; else
	peak "$P" bench -q --style=none -r 50 --export-json "$TMP/s.json" --export-csv "$TMP/s.csv" \
		--export-openmetrics "$TMP/s.om" -- true; expect_status 0 $? &&
		check "peak RSS $big KiB at 500 runs" [ "$big" -lt 16384 ] &&
		check "growth $((big - rss)) KiB from 50 runs ($rss KiB) to 500" [ $((big - rss)) -lt 4096 ] && ok
fi

t "a bench's runs leave no spool file behind"
TMPDIR="$TMP/spool" && mkdir -p "$TMPDIR" && export TMPDIR
"$P" bench -q --no-save --style=none -r 3 -- true >"$TMP/out" 2>"$TMP/err"; expect_status 0 $? &&
	check "files left: $(ls -A "$TMPDIR")" [ -z "$(ls -A "$TMPDIR")" ] && ok

done_testing
