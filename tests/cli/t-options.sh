#!/bin/sh
# Options, end to end: every command parses with the one table-driven parser
# (src/util/parseopt.c), so every command answers an unknown option with the
# same single line and status, its --help lists what its table holds, and
# getopt's spellings keep working: --opt=value and --opt value, bundles,
# prefixes, repeatable options, options after the operands (but not after a
# CMD, nor after "--").
. ./lib.sh
P="$PERFHUNT"
W="$WORKLOADS/phwork"
export PERFHUNT_STATE_DIR="$TMP/state"
cd "$TMP" || exit 1

# one_line STATUS PATTERN CMD...: CMD exits STATUS with exactly one stderr line matching PATTERN
one_line() {
	want=$1 pat=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"; got=$?
	expect_status "$want" "$got" || return 1
	check "one stderr line, got $(wc -l <"$TMP/err"): $(head -c 400 "$TMP/err")" \
		[ "$(wc -l <"$TMP/err")" = 1 ] || return 1
	expect_grep "$pat" "$TMP/err"
}

"$P" --help >"$TMP/help"
cmds=$(awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}' "$TMP/help")
subs="list show trend import export"
t "the commands are listed"
[ "$(echo $cmds | wc -w)" -ge 12 ] && ok || fail "commands: $cmds"

for c in $cmds "history list" "history show" "history trend" "history import" "history export"; do
	name=${c%% *}
	# bisect-check's usage errors are 128: git bisect run must stop, not judge a commit
	want=2; [ "$c" = bisect-check ] && want=128
	for o in --bogus --bogus=1 -Z; do
		shown=${o%%=*}
		t "$c $o: one line, status $want"
		# shellcheck disable=SC2086
		one_line $want "^perfhunt $name: unknown option '$shown' \\(see 'perfhunt $c --help'" "$P" $c $o && ok
	done
	t "$c --help: generated from its table"
	# shellcheck disable=SC2086
	"$P" $c --help >"$TMP/h" 2>"$TMP/err"; st=$?
	# shellcheck disable=SC2086
	"$P" $c --help-options >"$TMP/o" 2>>"$TMP/err"; st2=$?
	missing=
	for opt in $(cat "$TMP/o"); do
		grep -qE -- "(^|[ ,])$opt([ ,=]|\$)" "$TMP/h" || missing="$missing $opt"
	done
	expect_status 0 $st && expect_status 0 $st2 && expect_grep "^usage: perfhunt $name" "$TMP/h" &&
		expect_grep '^  -h, --help +show this help$' "$TMP/h" &&
		check "options of --help-options not in --help:$missing" [ -z "$missing" ] && ok
done

t "a missing value names the option"
one_line 2 "^perfhunt peak: option '--column' needs a value" "$P" peak --column && ok
t "a value given to a flag"
one_line 2 "^perfhunt compare: option '--quiet' takes no value" "$P" compare --quiet=yes a b && ok
t "an ambiguous prefix lists the candidates"
one_line 2 "^perfhunt run: option '--pu' is ambiguous \\(--push, --push-job, --push-label\\)" "$P" run --pu x -- true && ok
t "a value out of range names the option as given"
one_line 2 "^perfhunt bench: -n: 0 is out of range" "$P" bench -n 0 -- true && ok

t "run: --opt=value, --opt value, a bundle, a prefix, repeated --tag"
"$P" run --no-save --interval=20 -qo r.json --inter 30 --tag a --tag=b -- "$W" sleep:30 2>"$TMP/err"; st=$?
expect_status 0 $st && check "stderr not empty (-q): $(head -c 300 "$TMP/err")" [ ! -s "$TMP/err" ] &&
	[ "$(jget r.json tags)" = '["a", "b"]' ] && ok || fail "tags $(jget r.json tags 2>&1)"

t "run: the command's own options are its own"
"$P" run -q --no-save "$W" --bogus 2>"$TMP/err" >/dev/null; st=$?
# phwork exits 2 on an argument it does not know: its status, not a usage error of perfhunt
check "perfhunt parsed the command's option: $(head -c 300 "$TMP/err")" \
	[ "$(grep -c '^perfhunt run:' "$TMP/err")" = 0 ] && ok

t "report: options after the record"
"$P" report r.json -o page.html 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '^<!DOCTYPE html>' page.html && check "r.html written" [ ! -e r.html ] && ok

t "report: after --, a name that starts with - is a record"
cp r.json ./-r.json
"$P" report -o page2.html -- -r.json 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '^<!DOCTYPE html>' page2.html && ok

t "peak: options after the files"
printf '1000,10,0.1\n2000,30,0.3\n3000,20,0.2\n' >seed.csv
"$P" peak seed.csv --json >"$TMP/out" 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '"raw": *"30"' "$TMP/out" && ok

t "compare: options after BASE NEW, repeated --metric"
"$P" compare r.json r.json --quiet --metric wall_s --metric=peak_rss_kb --export-json c.json >"$TMP/out" 2>"$TMP/err"
st=$?
expect_status 0 $st && check "not quiet" [ ! -s "$TMP/out" ] &&
	expect_grep '"wall_s"' c.json && expect_grep '"peak_rss_kb"' c.json && expect_no_grep '"user_s"' c.json && ok

t "watch: options after the PID"
"$P" watch 999999 --no-save --duration 1s 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep '^perfhunt: no process with PID 999999$' "$TMP/err" && ok

t "history: options after the operand"
"$P" history import r.json --tag imported >/dev/null 2>"$TMP/err"; st=$?
expect_status 0 $st && "$P" history list >"$TMP/out" && expect_grep '[ ,]imported ' "$TMP/out" && ok

done_testing
