#!/bin/sh
# Hostile records and names at the presentation end: values that are valid
# JSON but absurd (1e308) must not hang report or show (each run under
# `timeout`, so a hang fails its case, not the suite); a record of the wrong
# shape is one line and exit 1; escape sequences in a command, tag, phase or
# file name reach the terminal quoted, never raw; no figure names a method
# that was not used (a watched zombie).
. ./lib.sh
P="$PERFHUNT"
export PERFHUNT_DB="$TMP/h.db" PERFHUNT_STATE_DIR="$TMP/state"
cd "$TMP" || exit 1
ESC=$(printf '\033')
BEL=$(printf '\007')
LIMIT=30 # seconds: far beyond what any case needs; reaching it is the bug

# edit IN OUT PYTHON: writes OUT, the record IN changed by PYTHON (r is the record)
edit() {
	/usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r,open(sys.argv[2],"w"))' "$1" "$2" "$3"
}
no_raw_escape() { # FILE: holds no ESC, BEL or CSI byte
	! grep -q "[$ESC$BEL]" "$1" && ! LC_ALL=C grep -q "$(printf '\302\233')" "$1" ||
		{ fail "raw control bytes in $1: $(od -c "$1" | grep -m3 '033\|007')"; return 1; }
}
expect_line() { # LINE FILE: FILE has exactly this line (no pattern)
	grep -q -F -x -- "$1" "$2" || { fail "line '$1' not in $2: $(head -c 400 "$2")"; return 1; }
}
no_sanitizer() { ! grep -q -E 'Sanitizer|runtime error:' "$1" || { fail "sanitizer report in $1"; return 1; }; }
# in_time STATUS CMD...: CMD ends within LIMIT seconds with STATUS
in_time() {
	want=$1; shift
	timeout "$LIMIT" "$@" >"$TMP/out" 2>"$TMP/err"; got=$?
	[ "$got" != 124 ] || { fail "still running after ${LIMIT}s (a hang): $*"; return 1; }
	expect_status "$want" "$got" && no_sanitizer "$TMP/err"
}

"$P" run -q --no-save -o run.json -- sh -c 'echo "PERFHUNT: begin=load"; sleep 0.2; echo "PERFHUNT: end=load"; echo "PERFHUNT: k_ms=40 gpu_tid=1"; sleep 0.1' >/dev/null 2>&1
"$P" bench -q --no-save -n 2 --export-json bench.json -- true ::: sleep 0.01 >/dev/null 2>&1
[ -s run.json ] && [ -s bench.json ] || { echo "Bail out! cannot record the fixtures"; exit 1; }

t "report of a run with wall_s = 1e308 finishes, the clamping said in the chart"
edit run.json wall.json 'r["summary"]["wall_s"]=1e308'
in_time 0 "$P" report -o wall.html wall.json && expect_grep 'drawn at the limit' wall.html &&
	expect_grep '</html>' wall.html && ok

t "report of a sample rss_kb = 1.7e308 finishes (and the memory SVG)"
edit run.json rss.json 'c=r["samples"]["columns"].index("rss_kb"); r["samples"]["rows"][1][c]=1.7e308; r["samples"]["rows"][2][c]=-1.7e308'
in_time 0 "$P" report -o rss.html --svg rss.svg rss.json && expect_grep 'drawn at the limit' rss.html &&
	expect_grep '</svg>' rss.svg && expect_no_grep 'inf|nan' rss.svg && ok

t "report of huge phases, a tiny span and 5000 lanes finishes"
edit run.json lanes.json 'r["summary"]["wall_s"]=5e-324
r["phases"]=[{"name":"p%d"%i,"lane":"l%d"%i,"start_ms":-1.7e308 if i%2 else 0,"end_ms":1.7e308} for i in range(5000)]'
in_time 0 "$P" report -o lanes.html lanes.json && expect_grep 'not drawn' lanes.html && ok

t "report of a bench and a compare record with 1e308 values finishes"
edit bench.json bench-huge.json 'r["commands"][0]["runs"][0]["summary"]["wall_s"]=1.7e308; r["commands"][1]["runs"][0]["summary"]["peak_rss_kb"]=-1.7e308'
"$P" compare run.json run.json --export-json cmp.json >/dev/null 2>&1
edit cmp.json cmp-huge.json 'r["metrics"][0]["delta_pct"]=1.7e308; r["metrics"][0]["ci_low"]=-1.7e308; r["threshold_pct"]=1e308'
in_time 0 "$P" report -o bench.html bench-huge.json && expect_grep 'drawn at the limit' bench.html &&
	in_time 0 "$P" report -o cmp.html cmp-huge.json && expect_grep 'drawn at the limit' cmp.html && ok

t "show and compare of 1e308 values finish"
in_time 0 "$P" show rss.json && expect_grep 'max .* at' "$TMP/out" &&
	in_time 0 "$P" show wall.json && in_time 0 "$P" compare run.json rss.json && ok

t "show of a record whose summary is a string: one line, exit 1, no (null)"
edit run.json strsum.json 'r["summary"]="oops"'
in_time 1 "$P" show strsum.json && check "one stderr line" [ "$(wc -l <"$TMP/err")" = 1 ] &&
	expect_grep "summary is a string, expected an object" "$TMP/err" && check "stdout empty" [ ! -s "$TMP/out" ] && ok

t "show and report of other wrong shapes: one line naming the field, exit 1"
edit run.json noshape.json 'r["peaks"]=[{"kb":"big"}]'
edit run.json nosum.json 'del r["summary"]'
in_time 1 "$P" show noshape.json && expect_grep 'peaks\[0\]\.kb is a string, expected a number' "$TMP/err" &&
	in_time 1 "$P" report -o x.html noshape.json && expect_grep 'peaks\[0\]\.kb is a string' "$TMP/err" &&
	check "no page written" [ ! -e x.html ] &&
	in_time 1 "$P" show nosum.json && expect_grep 'summary is missing' "$TMP/err" && ok

t "the run summary quotes the command as a shell would"
"$P" run --no-save -- sh -c 'kill -SEGV $$' >"$TMP/out" 2>"$TMP/err"
expect_grep "^perfhunt: sh -c 'kill -SEGV \\$\\$'$" "$TMP/err" && ok

t "an escape sequence in a command reaches the summary quoted"
"$P" run -o esc.json --tag "${ESC}[2Jtag" -- sh -c ': "$1"' x "${ESC}[31mRED${ESC}]0;pwned${BEL}" >"$TMP/out" 2>"$TMP/err"
no_raw_escape "$TMP/err" && expect_line "perfhunt: sh -c ': \"\$1\"' x \$'\\e[31mRED\\e]0;pwned\\a'" "$TMP/err" &&
	check "the JSON keeps the exact bytes" [ "$(jget esc.json command.4)" = "${ESC}[31mRED${ESC}]0;pwned${BEL}" ] && ok

t "history and history show quote the command and the tag"
"$P" history >"$TMP/out" 2>"$TMP/err"
no_raw_escape "$TMP/out" && expect_grep '"\\033\[2Jtag"' "$TMP/out" && expect_grep '\\033\[31mRED' "$TMP/out" &&
	"$P" history show @last >"$TMP/out" 2>"$TMP/err" && no_raw_escape "$TMP/out" &&
	expect_grep "\\\\e\]0;pwned\\\\a" "$TMP/out" && ok

t "show quotes the command, phase, lane and note of a record"
edit esc.json esc2.json 'e="\x1b]0;pwned\x07"
r["phase_stats"]=[{"name":"ph"+e,"count":1,"total_ms":5,"median_ms":5,"min_ms":5,"max_ms":5}]
r["lanes"]=[{"lane":"l"+e,"phases":1,"busy_ms":5,"busy_pct":50,"span_ms":10,"gaps":0,"longest_gap_ms":0}]
r["notes"]=["note\x9b31m"]; r["peaks"][0]["comm"]="c"+e'
in_time 0 "$P" show esc2.json && no_raw_escape "$TMP/out" && expect_grep '"ph\\033\]0;pwned\\a"' "$TMP/out" &&
	expect_grep '"note\\302\\233' "$TMP/out" && ok

t "compare quotes phase names and file names"
edit run.json ph-a.json 'r["phase_stats"]=[{"name":"x\x1b[31m","count":1,"total_ms":5,"median_ms":5,"min_ms":5,"max_ms":5}]; r["phases"]=[{"name":"x\x1b[31m","lane":"","start_ms":0,"end_ms":5}]'
cp ph-a.json "b${ESC}[31m.json"
in_time 0 "$P" compare ph-a.json "b${ESC}[31m.json" && no_raw_escape "$TMP/out" &&
	expect_grep '"phase:x\\033\[31m"' "$TMP/out" && expect_grep '"b\\033\[31m.json"' "$TMP/out" && ok

t "bench quotes a command name with an escape"
in_time 0 "$P" bench -n 1 --no-save -- sh -c ': "$1"' x "${ESC}[31m"
no_raw_escape "$TMP/out" && no_raw_escape "$TMP/err" && cat "$TMP/out" "$TMP/err" >"$TMP/both" &&
	expect_grep 'Benchmark 1: "sh -c' "$TMP/both" && expect_grep '\\033\[31m' "$TMP/both" && ok

t "an error message naming a file with an escape is quoted"
in_time 1 "$P" show "no${ESC}[2J.json" && no_raw_escape "$TMP/err" && expect_grep '\\033\[2J' "$TMP/err" && ok

t "watch of a zombie names no method it did not use"
sh -c 'sleep 0 & echo $! >zpid; exec sleep 4' &
holder=$!
sleep 0.5
z=$(cat zpid)
if [ "$(ps -o stat= -p "$z" 2>/dev/null | cut -c1)" != Z ]; then
	kill "$holder" 2>/dev/null
	skip "no zombie could be made"
else
	in_time 0 "$P" watch --no-save --duration 1 -o zombie.json "$z"
	expect_no_grep 'wait4' "$TMP/err" && expect_grep 'not measured' "$TMP/err" &&
		check "method none" [ "$(jget zombie.json summary.peak_rss_method)" = none ] &&
		check "not exact" [ "$(jget zombie.json peaks.0.exact)" = False ] && ok
	kill "$holder" 2>/dev/null
fi
wait

done_testing
