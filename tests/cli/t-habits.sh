#!/bin/sh
# Habits users bring from hyperfine, GNU time and perf stat: the same words
# mean the same thing to perfhunt. Where Debian has the other tool, the case
# runs it beside perfhunt on the same command and compares what both say
# (exact where the figure is exact, ratios within a loose factor for times);
# where it is missing the case is a TAP skip, never a pass.
. ./lib.sh
W="$WORKLOADS/phwork"
P="$PERFHUNT"
cd "$TMP" || exit 1
have_hyperfine() { command -v hyperfine >/dev/null 2>&1; }

# ---- bench: hyperfine's command strings and options ----

t "bench 'sleep 0.01' 'sleep 0.02': each argument is one shell command, as in hyperfine"
"$P" bench -q --no-save -r 2 --export-json b.json 'sleep 0.01' 'sleep 0.02' >out 2>err; st=$?
expect_status 0 $st && expect_grep '^Benchmark 1: sleep 0\.01$' out && expect_grep '^Benchmark 2: sleep 0\.02$' out &&
	check "2 runs each" [ "$(jget b.json commands.0.stats.wall_s.n)" = 2 ] && ok

t "a command string with shell syntax runs through sh -c; plain words run directly"
"$P" bench -q --no-save -r 1 --export-json s.json 'echo a | cat >/dev/null' 'true' >out 2>err; st=$?
expect_status 0 $st && check "the pipeline ran by sh" [ "$(jget s.json commands.0.command.0)" = 'echo a | cat >/dev/null' ] &&
	check "true ran as true, no shell" [ "$(jget s.json commands.1.runs.0.command.0)" = true ] && ok

t "-N splits a command string into words without a shell; -S names the shell"
"$P" bench -q --no-save -r 1 -N --export-json n.json "$W sleep:1" >out 2>err; st=$?
"$P" bench -q --no-save -r 1 -S 'sh -e' --export-json sh.json 'exit 0' >>out 2>>err; st2=$?
expect_status 0 $st && expect_status 0 $st2 &&
	check "argv of -N" [ "$(jget n.json commands.0.command)" = "[\"$W\", \"sleep:1\"]" ] &&
	check "argv of -S" [ "$(jget sh.json commands.0.command)" = '["sh", "-e", "-c", "exit 0"]' ] && ok

t "-n names the commands in order; -n with a whole number is still the number of runs"
"$P" bench -q --no-save -n 3 -n fast -n slow --export-json names.json 'true' 'sleep 0.01' >out 2>err; st=$?
expect_status 0 $st && expect_grep '^Benchmark 1: fast$' out && expect_grep '^Benchmark 2: slow$' out &&
	check "3 runs" [ "$(jget names.json commands.1.stats.wall_s.n)" = 3 ] && ok

t "-P NAME MIN MAX -D STEP scans a parameter as hyperfine does"
"$P" bench -q --no-save -r 1 -P ms 0 4 -D 2 --export-json p.json 'sleep 0.00{ms}' >out 2>err; st=$?
expect_status 0 $st &&
	check "values 0 2 4" [ "$(/usr/bin/python3 -c 'import json,sys
print(" ".join(c["parameters"]["ms"] for c in json.load(open(sys.argv[1]))["commands"]))' p.json)" = "0 2 4" ] && ok

t "-m and -M bound the runs; -r with them is refused"
"$P" bench -q --no-save -M 2 --export-json m.json true >out 2>err; st=$?
"$P" bench -q --no-save -r 2 -m 3 true >/dev/null 2>err2; st2=$?
expect_status 0 $st && check "2 runs" [ "$(jget m.json commands.0.stats.wall_s.n)" = 2 ] &&
	expect_status 2 $st2 && expect_grep 'either --runs or --min-runs' err2 && ok

t "--show-output shows the command's output; by default it is discarded"
"$P" bench -q --no-save -r 1 --show-output 'echo shown-output' >out 2>err; st=$?
"$P" bench -q --no-save -r 1 'echo hidden-output' >out2 2>err2; st2=$?
expect_status 0 $st && expect_status 0 $st2 && expect_grep '^shown-output$' out && expect_no_grep '^hidden-output$' out2 &&
	ok

t "--export-asciidoc and --export-orgmode write the markdown table's rows in their markup"
"$P" bench -q --no-save -r 2 --export-markdown b.md --export-asciidoc b.adoc --export-orgmode b.org 'true' 'echo a|cat' >/dev/null 2>err; st=$?
expect_status 0 $st && expect_grep '^\|===$' b.adoc && expect_grep '^\| `echo a\\\|cat` \| [0-9.]+ [mµ]s \|' b.adoc &&
	expect_grep '^\|--\+' b.org && expect_grep '^\| =true= \| ' b.org && expect_grep '^\| echo a\\vert\{\}cat \| ' b.org &&
	check "the same cells" [ "$(sed -n 3p b.md | cut -d"|" -f3-)" = "$(sed -n 3p b.org | cut -d"|" -f3-)" ] && ok

t "--style: none prints no results, full colours them even into a file, basic does not"
"$P" bench -r 1 --no-save --style none true >none.out 2>err; st=$?
"$P" bench -q -r 1 --no-save --style full true >full.out 2>err2; st2=$?
"$P" bench -q -r 1 --no-save --style basic true >basic.out 2>err3; st3=$?
esc=$(printf '\033')
expect_status 0 $st && expect_status 0 $st2 && expect_status 0 $st3 && check "none: nothing" [ ! -s none.out ] &&
	expect_grep "^${esc}\[1mBenchmark 1: true" full.out && expect_grep '^Benchmark 1: true$' basic.out && ok

t "--input FILE: every run reads the file from its start on stdin; a pipe is refused"
printf 'one\ntwo\n' >in.txt
"$P" bench -q --no-save -r 2 --input in.txt --show-output 'wc -l' >out 2>err; st=$?
echo x | "$P" bench -q --no-save -r 1 --input /dev/stdin true >/dev/null 2>err2; st2=$?
expect_status 0 $st && check "2 lines, twice: $(head -2 out | tr '\n' ' ')" [ "$(grep -c '^2$' out)" = 2 ] &&
	expect_status 2 $st2 && expect_grep 'cannot be read again from its start' err2 && ok

t "-u millisecond shows every wall time in milliseconds; an unknown unit is refused"
"$P" bench -q --no-save -r 2 -u millisecond --style basic 'sleep 0.002' >out 2>err; st=$?
"$P" bench -q --no-save -r 1 -u hour true >/dev/null 2>err2; st2=$?
expect_status 0 $st && expect_grep '^  wall         median [0-9]+\.[0-9] ms   mean [0-9]+\.[0-9] ms ± [0-9]+\.[0-9] ms ' out &&
	expect_grep '^  min … max    [0-9]+\.[0-9] ms … [0-9]+\.[0-9] ms$' out &&
	expect_status 2 $st2 && expect_grep "expected microsecond, millisecond or second, got 'hour'" err2 && ok

t "--sort: auto lists the summary by time, command as given, mean-time the blocks too"
for o in auto command mean-time; do
	"$P" bench -q --no-save -r 2 --style basic --sort $o 'sleep 0.08' 'sleep 0.001' 'sleep 0.03' >sort.$o 2>>err || echo "status $?" >>err
done
expect_no_grep status err &&
	check "auto: $(grep faster sort.auto | tr '\n' ' ')" [ "$(grep -o 'than sleep .*' sort.auto | tr '\n' ' ')" = "than sleep 0.03 than sleep 0.08 " ] &&
	check "command: $(grep faster sort.command | tr '\n' ' ')" [ "$(grep -o 'than sleep .*' sort.command | tr '\n' ' ')" = "than sleep 0.08 than sleep 0.03 " ] &&
	check "mean-time blocks" [ "$(grep -o '^Benchmark [0-9]' sort.mean-time | tr '\n' ' ')" = "Benchmark 2 Benchmark 3 Benchmark 1 " ] && ok

t "--output inherit shows the output, null discards it, as hyperfine's; a bare word is no file"
"$P" bench -q --no-save -r 1 --output inherit 'echo inherited-output' >out 2>err; st=$?
"$P" bench -q --no-save -r 1 --output null 'echo null-output' >out2 2>>err; st2=$?
"$P" bench -q --no-save -r 1 --output f.txt true >/dev/null 2>err3; st3=$?
expect_status 0 $st && expect_status 0 $st2 && expect_grep '^inherited-output$' out && expect_no_grep '^null-output$' out2 &&
	expect_status 2 $st3 && expect_grep "null, pipe, inherit or a file path, got 'f.txt' \(a file in this directory: ./f.txt\)" err3 &&
	check "no file f.txt" [ ! -e f.txt ] && ok

# each run prints its own line on stdout, one on stderr, and a probe
OUTCMD='sh -c "echo run \$\$; echo on-stderr >&2; echo PERFHUNT: step_ms=2"'

t "--output FILE: the file holds the last run's stdout (truncated before each run), stderr dropped, probes still read"
echo stale-line-1 >po.txt; echo stale-line-2 >>po.txt
"$P" bench -q --no-save -r 3 -w 1 --output ./po.txt --export-json po.json "$OUTCMD" >out 2>err; st=$?
expect_status 0 $st && check "one line in po.txt: $(head -c 300 po.txt)" [ "$(wc -l <po.txt)" = 2 ] &&
	expect_grep '^run [0-9]+$' po.txt && expect_grep '^PERFHUNT: step_ms=2$' po.txt && expect_no_grep 'stale|on-stderr' po.txt &&
	expect_no_grep '^(run [0-9]+|on-stderr)$' out && expect_no_grep '^on-stderr$' err &&
	check "3 runs of phase step" [ "$(jget po.json commands.0.stats.phase:step.n)" = 3 ] && ok

t "--output FILE writes what hyperfine --output FILE writes for the same command"
if have_hyperfine; then
	hyperfine -r 3 -w 1 --output ./ho.txt "$OUTCMD" >/dev/null 2>&1; hst=$?
	"$P" bench -q --no-save -r 3 -w 1 --output ./po2.txt "$OUTCMD" >/dev/null 2>err; st=$?
	expect_status 0 $hst && expect_status 0 $st &&
		check "the same lines but the PID: $(head -c 200 ho.txt) / $(head -c 200 po2.txt)" \
			[ "$(sed 's/[0-9]*$//' ho.txt)" = "$(sed 's/[0-9]*$//' po2.txt)" ] && ok
else
	skip "hyperfine is not installed (apt-get install hyperfine)"
fi

# ---- hyperfine's JSON: a user's results are a baseline; perfhunt's carry results[] ----

t "compare reads hyperfine's --export-json as a baseline against perfhunt's bench of the same command"
if have_hyperfine; then
	hyperfine -N -r 4 --export-json hf.json "$W sleep:20" >/dev/null 2>&1; hst=$?
	"$P" bench -q --no-save -r 4 --export-json pb.json "$W sleep:20" >/dev/null 2>err; st=$?
	"$P" compare hf.json pb.json >cmp 2>err2; cst=$?
	expect_status 0 $hst && expect_status 0 $st && expect_status 0 $cst &&
	expect_grep '^base: hf\.json \(4 runs\)$' cmp && expect_grep '^wall_s ' cmp &&
	expect_no_grep 'different commands' cmp && ok
else
	skip "hyperfine is not installed (apt-get install hyperfine)"
fi

t "perfhunt's bench JSON carries results[] in hyperfine's shape: the keys and types hyperfine writes"
if have_hyperfine; then
	hyperfine -N -r 3 -P ms 10 20 -D 10 --export-json hfp.json "$W sleep:{ms}" >/dev/null 2>&1; hst=$?
	"$P" bench -q --no-save -r 3 -P ms 10 20 -D 10 --export-json pbp.json "$W sleep:{ms}" >/dev/null 2>err; st=$?
	cat >shape.py <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["results"]; p = json.load(open(sys.argv[2]))["results"]
assert len(h) == len(p) == 2, (len(h), len(p))
for a, b in zip(h, p):
    assert sorted(a) == sorted(b), (sorted(a), sorted(b))
    for k in a:
        assert type(a[k]) == type(b[k]) or {type(a[k]), type(b[k])} <= {int, float}, (k, a[k], b[k])
    assert a["command"] == b["command"] and a["parameters"] == b["parameters"], (a["command"], b["command"])
    assert len(b["times"]) == len(b["exit_codes"]) == 3 and b["exit_codes"] == [0, 0, 0]
    assert b["min"] <= b["median"] <= b["max"] and min(b["times"]) == b["min"]
PY
	expect_status 0 $hst && expect_status 0 $st &&
	check "results[] differ: $(/usr/bin/python3 shape.py hfp.json pbp.json 2>&1)" /usr/bin/python3 shape.py hfp.json pbp.json &&
	ok
else
	skip "hyperfine is not installed (apt-get install hyperfine)"
fi

t "history import stores hyperfine's results as a bench; compare reads it back by reference"
if have_hyperfine && [ -f hf.json ]; then
	PERFHUNT_DB="$TMP/hist.db" "$P" history import hf.json >imp 2>err; st=$?
	PERFHUNT_DB="$TMP/hist.db" "$P" compare @last hf.json >cmp2 2>err2; cst=$?
	expect_status 0 $st && expect_grep 'hf\.json: stored as bench [0-9]+$' imp &&
	expect_status 0 $cst && expect_grep '\(4 runs\)' cmp2 && expect_grep '^wall_s .* same$' cmp2 && ok
else
	skip "hyperfine is not installed (apt-get install hyperfine)"
fi

t "a hyperfine file with a bad time is refused, naming the result"
printf '{"results": [{"command": "x", "times": [0.1, "fast"]}]}' >bad.json
"$P" compare bad.json bad.json >/dev/null 2>err; st=$?
expect_status 1 $st && expect_grep "^perfhunt: cannot read .bad\.json.: hyperfine result 1 \('x'\): time 2 is not a number of seconds" err && ok

# ---- run: durations with units, - for stdout ----

t "every duration option takes units: --interval 50ms and --idle-ms 0.2s"
"$P" run -q --no-save --interval 50ms -o r.json -- "$W" sleep:120 2>err; st=$?
"$P" run -q --no-save --interval 1x -- true 2>err2; st2=$?
expect_status 0 $st && check "interval 50" [ "$(jget r.json options.interval_ms)" = 50 ] &&
	expect_status 2 $st2 && expect_grep "unknown unit in '1x'" err2 && ok

t "--csv - writes the timeline to stdout, as -o - does, and no file named -"
"$P" run -q --no-save --csv - -- "$W" sleep:50 >out 2>err; st=$?
expect_status 0 $st && expect_grep '^epoch_ms,rss_kb,' out && check "no file named -" [ ! -e ./- ] && ok

# ---- run: GNU time's -f, -v, -o, -a ----

GNU_TIME=/usr/bin/time
gnu_time() { [ -x "$GNU_TIME" ] && "$GNU_TIME" --version 2>&1 | grep -q 'GNU'; }
FMT='%x|%C|%e|%U|%S|%M'
# fixed work (a shell loop), so its CPU time is the same under either tool even on a busy machine
LOOP='i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; exit 3'
# field N of line $1 over field N of line $2
ratio() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN{split(a, x, "|"); split(b, y, "|"); print (f == 4 ? x[4] + x[5] : x[f]) / (f == 4 ? y[4] + y[5] : y[f])}'; }

t "run -f prints GNU time's lines for the same command: exit status and %C identical, times close"
if gnu_time; then
	# three runs each, alternated: the times are compared run against run
	# of the quickest, as a loaded machine stretched one GNU time run's 80 ms
	# to 1.00 s of wall time
	for k in 1 2 3; do
		"$GNU_TIME" -f "$FMT" sh -c "$LOOP" 2>gnu$k >/dev/null
		"$P" run --no-save -f "$FMT" -- sh -c "$LOOP" 2>ph$k >/dev/null; st=$?
	done
	quickest() { for f in "$@"; do tail -n 1 "$f"; done | sort -t'|' -k3,3g | head -1; }
	cp gnu1 gnu && cp ph1 ph
	g=$(quickest gnu1 gnu2 gnu3) && p=$(quickest ph1 ph2 ph3)
	expect_status 3 $st && check "the first line, as GNU time's" [ "$(sed -n 1p ph)" = "$(sed -n 1p gnu)" ] &&
	check "two lines, as GNU time's" [ "$(wc -l <ph)" = 2 ] && [ "$(wc -l <gnu)" = 2 ] &&
	check "%x|%C: '$p' against '$g'" [ "$(echo "$p" | cut -d'|' -f1-2)" = "$(echo "$g" | cut -d'|' -f1-2)" ] &&
	check "%x is 3" [ "$(echo "$p" | cut -d'|' -f1)" = 3 ] &&
	check "%U+%S within x3 of GNU time's ($p, $g)" between 0.33 "$(ratio "$p" "$g" 4)" 3 &&
	check "%e within x5 ($p, $g)" between 0.2 "$(ratio "$p" "$g" 3)" 5 &&
	check "%M within x1.5 ($p, $g)" between 0.67 "$(ratio "$p" "$g" 6)" 1.5 && ok
else
	skip "GNU time is not installed (apt-get install time)"
fi

t "run -v lists what GNU time -v lists, line for line"
if gnu_time; then
	"$GNU_TIME" -v "$W" sleep:10 2>gnu >/dev/null
	"$P" run --no-save -v -- "$W" sleep:10 2>ph >/dev/null; st=$?
	expect_status 0 $st && sed 's/: .*//' gnu >gnu.labels && sed 's/: .*//' ph >ph.labels &&
	check "labels differ: $(diff gnu.labels ph.labels)" cmp -s gnu.labels ph.labels &&
	expect_grep "^	Command being timed: \"$W sleep:10\"$" ph && expect_grep '^	Exit status: 0$' ph && ok
else
	skip "GNU time is not installed (apt-get install time)"
fi

t "run -f with -o writes the lines to the file (no JSON); -a appends"
"$P" run --no-save -f '%x %C' -o t.txt -- true 2>err; st=$?
"$P" run --no-save -f '%x %C' -a -o t.txt -- sh -c 'exit 2' 2>err2; st2=$?
expect_status 0 $st && expect_status 2 $st2 &&
	check "t.txt: $(cat t.txt)" [ "$(cat t.txt)" = "$(printf '0 true\nCommand exited with non-zero status 2\n2 sh -c exit 2')" ] && ok

t "run -x, prints the counters as perf stat -x, does for the same command: events, units, fields"
if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock,page-faults true 2>pst >/dev/null && grep -q ',page-faults,' pst; then
	perf stat -x, -e task-clock,page-faults,context-switches "$W" alloc:4 2>ps >/dev/null
	"$P" run --no-save -x, -e task-clock,page-faults,context-switches -- "$W" alloc:4 2>ph >/dev/null; st=$?
	expect_status 0 $st &&
	check "event and unit columns: $(cut -d, -f2-3 ph | tr '\n' ' ') against $(cut -d, -f2-3 ps | tr '\n' ' ')" \
		[ "$(cut -d, -f2-3 ph)" = "$(cut -d, -f2-3 ps)" ] &&
	check "7 fields a line" [ "$(awk -F, '{print NF}' ph | sort -u)" = 7 ] &&
	check "page-faults within x1.5 of perf's" between 0.67 "$(awk -F, '$3 == "page-faults" {v[n++] = $1} END {print v[0] / v[1]}' ph ps)" 1.5 &&
	ok
else
	skip "perf stat cannot count here (not installed, or perf_event_paranoid)"
fi

t "run -r N says that bench repeats runs"
"$P" run -r 5 -- true 2>err; st=$?
expect_status 2 $st && expect_grep "perfhunt bench -r 5" err && ok

done_testing
