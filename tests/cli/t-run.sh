#!/bin/sh
# End-to-end tests of `perfhunt run` on real workloads (tests/workloads/phwork).
. ./lib.sh
W="$WORKLOADS/phwork"
P="$PERFHUNT"

t "exit status is the command's own"
"$P" run -q --no-save -- "$W" exit:3; expect_status 3 $? && ok

t "a signal gives 128+N and the summary says killed"
"$P" run --no-save -o "$TMP/sig.json" -- "$W" raise:9 2>"$TMP/err"; st=$?
expect_status 137 $st && expect_grep 'killed by SIGKILL' "$TMP/err" &&
	[ "$(jget "$TMP/sig.json" exit.signal_name)" = SIGKILL ] && ok

t "command not found is 127 with one line"
"$P" run -q --no-save -- /nonexistent/cmd 2>"$TMP/err"; st=$?
expect_status 127 $st && expect_grep '^perfhunt: command not found: /nonexistent/cmd$' "$TMP/err" &&
	[ "$(wc -l <"$TMP/err")" = 1 ] && ok

t "a file that is not executable is 126"
printf 'x' >"$TMP/noexec"; chmod 644 "$TMP/noexec"
"$P" run -q --no-save -- "$TMP/noexec" 2>"$TMP/err"; st=$?
expect_status 126 $st && expect_grep 'cannot execute' "$TMP/err" && ok

t "exec failure leaves no CSV behind"
"$P" run -q --no-save --csv "$TMP/none.csv" -- /nonexistent/cmd 2>/dev/null
[ ! -e "$TMP/none.csv" ] && ok || fail "CSV left behind"

for args in "" "--interval 0 -- true" "--interval -5 -- true" "--interval abc -- true" \
	"--interval 99999999999 -- true" "--csv-format xml -- true" "--cgroup maybe -- true" "--bogus -- true"; do
	t "usage error: run $args"
	# shellcheck disable=SC2086
	"$P" run $args 2>"$TMP/err" >/dev/null; st=$?
	expect_status 2 $st && [ "$(wc -l <"$TMP/err")" -le 2 ] && ok
done

t "--help prints usage and exits 0"
"$P" run --help >"$TMP/out"; expect_status 0 $? && expect_grep '^usage: perfhunt run' "$TMP/out" && ok

t "exact peak of a 64 MiB process, with its method"
"$P" run -q --no-save -o "$TMP/a.json" -- "$W" alloc:64 sleep:150
pk=$(jget "$TMP/a.json" summary.peak_rss_kb)
between 65536 "$pk" 80000 && expect_grep '"peak_rss_method": "(wait4 ru_maxrss|VmHWM|taskstats)' "$TMP/a.json" &&
	[ "$(jget "$TMP/a.json" schema)" = perfhunt.run/1 ] && ok

t "a 50 ms spike is exact at a 1 s interval"
"$P" run -q --no-save --interval 1000 -o "$TMP/s.json" -- "$W" sleep:20 alloc:96 sleep:50 free sleep:300
pk=$(jget "$TMP/s.json" summary.peak_rss_kb)
between 98304 "$pk" 120000 && ok || fail "peak $pk KiB"

t "grandchildren are in the tree and their peak is exact"
"$P" run -q --no-save --interval 20 -o "$TMP/g.json" -- "$W" grandchild:48:300
pk=$(jget "$TMP/g.json" summary.peak_rss_kb); procs=$(jget "$TMP/g.json" summary.max_procs)
between 49152 "$pk" 70000 && [ "$procs" -ge 3 ] && ok || fail "peak $pk procs $procs"

t "children are summed in the sampled tree peak"
"$P" run -q --no-save --interval 20 -o "$TMP/c.json" -- "$W" children:3:16:400
tree=$(jget "$TMP/c.json" summary.peak_tree_rss_kb); procs=$(jget "$TMP/c.json" summary.max_procs)
between 49152 "$tree" 80000 && [ "$procs" -ge 4 ] && ok || fail "tree $tree procs $procs"

t "a daemonized grandchild stays in the measured tree"
"$P" run -q --no-save --interval 20 -o "$TMP/d.json" -- "$W" daemon:32:300 sleep:400
tree=$(jget "$TMP/d.json" summary.peak_tree_rss_kb)
between 32768 "$tree" 60000 && ok || fail "tree $tree"

t "threads are counted"
"$P" run -q --no-save --interval 20 -o "$TMP/t.json" -- "$W" threads:20:300
th=$(jget "$TMP/t.json" summary.max_threads)
[ "$th" -ge 21 ] && ok || fail "threads $th"

t "CSV: header with the seed's first three columns, rows whole"
"$P" run -q --no-save --interval 20 --csv "$TMP/f.csv" -- "$W" alloc:16 sleep:200
head -1 "$TMP/f.csv" | grep -Eq '^epoch_ms,rss_kb,rss_gib,t_ms,.*,phase,tree_(cgroup|pss)_kb$' &&
	awk -F, 'NR>1 && NF!=25 {bad=1} NR>1 && ($3+0) != sprintf("%.2f", $2/1048576)+0 {bad=1} END{exit bad}' "$TMP/f.csv" &&
	[ "$(wc -l <"$TMP/f.csv")" -ge 5 ] && ok || fail "$(head -3 "$TMP/f.csv")"

t "CSV seed format: exactly epoch_ms,rss_kb,rss_gib, no header"
"$P" run -q --no-save --interval 20 --csv "$TMP/seed.csv" --csv-format seed -- "$W" alloc:8 sleep:100
awk -F, 'NF!=3 || $1 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+\.[0-9][0-9]$/ {bad=1} END{exit bad}' "$TMP/seed.csv" && ok ||
	fail "$(head -3 "$TMP/seed.csv")"

t "output passes through unchanged, streams kept apart"
"$P" run -q --no-save -- "$W" out:hello err:world 'out:PERFHUNT: x_ms=1' >"$TMP/o" 2>"$TMP/e"
printf 'hello\nPERFHUNT: x_ms=1\n' | cmp -s - "$TMP/o" && printf 'world\n' | cmp -s - "$TMP/e" && ok ||
	fail "stdout=$(cat "$TMP/o") stderr=$(cat "$TMP/e")"

t "binary output passes through byte for byte"
head -c 300000 /dev/urandom >"$TMP/bin"
"$P" run -q --no-save -- cat "$TMP/bin" >"$TMP/bin.out"
cmp -s "$TMP/bin" "$TMP/bin.out" && ok || fail "binary output differs"

t "probe lines become phases; markers on \$PERFHUNT_FD too"
"$P" run -q --no-save -o "$TMP/p.json" -- "$W" 'out:CUZK_TIMING: pin_abc_ms=50 num_circuits=10' \
	fd:begin=load sleep:100 fd:end=load >/dev/null
/usr/bin/python3 - "$TMP/p.json" <<'PY' && ok || fail "phases wrong: $(jget "$TMP/p.json" phases)"
import json, sys
r = json.load(open(sys.argv[1]))
ph = {p["name"]: p for p in r["phases"]}
assert ph["pin_abc"]["values"]["num_circuits"] == 10
assert ph["load"]["source"] == "marker" and 0 < ph["load"]["end_ms"] - ph["load"]["start_ms"] <= 1000
PY

t "--shell runs a shell string"
"$P" run -q --no-save --shell -- 'exit 7'; expect_status 7 $? && ok

t "SIGTERM to perfhunt is forwarded; the record is still written"
"$P" run -q --no-save -o "$TMP/term.json" -- "$W" sleep:5000 &
pid=$!
sleep 0.5; kill -TERM $pid; wait $pid; st=$?
expect_status 143 $st && [ "$(jget "$TMP/term.json" exit.signal_name)" = SIGTERM ] && ok

t "a CSV on a full disk is reported and the status is non-zero"
if [ -w /dev/full ]; then
	"$P" run -q --no-save --csv /dev/full -- "$W" sleep:50 2>"$TMP/err"; st=$?
	[ "$st" != 0 ] && expect_grep "cannot (write|create) '/dev/full'" "$TMP/err" && ok
else ok; fi

t "a record that cannot be written is refused before the run; nothing partial left"
"$P" run -q --no-save -o "$TMP/nodir/x.json" -- true 2>"$TMP/err"; st=$?
expect_status 2 $st && expect_grep "cannot write '$TMP/nodir/x.json': no directory" "$TMP/err" &&
	[ ! -e "$TMP/nodir" ] && ok

t "--counters: software events counted over the tree, per marked phase too"
"$P" run --no-save --counters -o "$TMP/cnt.json" -- "$W" fd:begin=work spin:30 children:2:2:10 fd:end=work 2>"$TMP/err"
/usr/bin/python3 - "$TMP/cnt.json" <<'PY' && expect_grep 'counters +task-clock' "$TMP/err" && ok || fail "$(jget "$TMP/cnt.json" counters)"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["counters"]
assert c["task-clock"]["status"] == "counted" and c["task-clock"]["value"] > 1e6
assert c["page-faults"]["value"] >= 512          # the children's touches are inherited
for hw in ("cycles", "instructions"):
    assert c[hw]["status"] in ("counted", "not supported", "not permitted")
pc = r["phase_counters"][0]
assert pc["name"] == "work" and pc["counters"]["task-clock"]["value"] > 0
PY

# Faults the kernel takes inside mmap(MAP_POPULATE) count in minflt but are no
# perf page-faults events: the summary and the report say so in one line.
t "--counters: perf's page-faults undercount faults taken inside a system call, and the summary says so"
"$P" run --no-save --counters -o "$TMP/pop.json" -- "$W" populate:16 2>"$TMP/err"; st=$?
pf=$(jget "$TMP/pop.json" counters.page-faults.status 2>/dev/null)
minflt=$(jget "$TMP/pop.json" summary.minflt 2>/dev/null)
if [ "$st" = 0 ] && [ "$pf" != counted ]; then
	skip "perf page-faults event is $pf here (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
elif [ "$st" = 0 ] && [ "$minflt" -lt 4096 ]; then
	skip "16 MiB populated in $minflt faults: transparent huge pages ($(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null))"
else
	# the populated 4096 pages are in minflt, not in page-faults (an ASan
	# build's own faults are in both)
	gap=$(( minflt + $(jget "$TMP/pop.json" summary.majflt) - $(jget "$TMP/pop.json" counters.page-faults.value) ))
	expect_status 0 $st && check "minflt - page-faults = $gap >= 3500" [ "$gap" -ge 3500 ] &&
		expect_grep '^  note: perf counted [0-9.]+( k)? page-faults events but the task counters [0-9.]+( k)? faults .*MAP_POPULATE' "$TMP/err" &&
		check "one note line" [ "$(grep -c 'page-faults events' "$TMP/err")" = 1 ] &&
		"$P" show "$TMP/pop.json" >"$TMP/show" 2>&1 && expect_grep 'note: perf counted .* page-faults events' "$TMP/show" &&
		"$P" report -o "$TMP/pop.html" "$TMP/pop.json" 2>/dev/null &&
		expect_grep '<th>note</th><td>perf counted .* page-faults events but the task counters' "$TMP/pop.html" &&
		"$P" run --no-save --counters -- "$W" alloc:16 2>"$TMP/err2" &&
		expect_no_grep 'page-faults events' "$TMP/err2" && ok
fi

t "-e with an unknown event is a usage error"
"$P" run --no-save -e bogus-event -- true 2>"$TMP/err"; expect_status 2 $? && expect_grep 'bogus-event' "$TMP/err" && ok

t "no GPU: a note in the record, nothing on the terminal"
if [ ! -e /dev/nvidiactl ]; then
	"$P" run --no-save -o "$TMP/gpu.json" -- true 2>"$TMP/err"
	[ "$(jget "$TMP/gpu.json" gpu.sampled)" = False ] && expect_no_grep 'GPU|NVML' "$TMP/err" && ok
else skip "an NVIDIA driver is present (GPU sampling is checked by examples/gpu/measure.sh)"; fi

t "runs are saved to the history, with tags"
PERFHUNT_DB="$TMP/h.db" "$P" run --tag base -- "$W" alloc:4 2>"$TMP/err"; st=$?
PERFHUNT_DB="$TMP/h.db" "$P" history --tag base >"$TMP/hist"
expect_status 0 $st && expect_grep 'saved +run 1' "$TMP/err" && expect_grep 'phwork' "$TMP/hist" && ok

t "a history that cannot be written: one line, status 1, records still written"
echo "not a database" >"$TMP/bad.db"
PERFHUNT_DB="$TMP/bad.db" "$P" run -q -o "$TMP/kept.json" -- true 2>"$TMP/err"; st=$?
expect_status 1 $st && expect_grep '^perfhunt: run not saved to the history: ' "$TMP/err" &&
	[ "$(wc -l <"$TMP/err")" = 1 ] && [ -s "$TMP/kept.json" ] && ok

t "show prints a stored run: summary, phases, sparkline"
"$P" run -q --no-save --interval 10 -o "$TMP/show.json" -- "$WORKLOADS/probe_demo" 2 10 >/dev/null 2>&1
"$P" show "$TMP/show.json" >"$TMP/out"; st=$?
expect_status 0 $st && expect_grep '^ +peak RSS' "$TMP/out" && expect_grep '^phase +count' "$TMP/out" &&
	expect_grep '^ +memory +[▁▂▃▄▅▆▇█]+$' "$TMP/out" && ok

t "show a history reference"
PERFHUNT_DB="$TMP/h.db" "$P" show @last >"$TMP/out"; expect_status 0 $? && expect_grep 'phwork' "$TMP/out" && ok

t "show errors: a missing file, a record of another kind"
"$P" show "$TMP/missing.json" 2>"$TMP/err"; st1=$?
echo '{"schema":"perfhunt.compare/1"}' >"$TMP/cmp.json"
"$P" show "$TMP/cmp.json" 2>"$TMP/err2"; st2=$?
expect_status 1 $st1 && expect_status 1 $st2 && expect_grep "schema is 'perfhunt.compare/1'" "$TMP/err2" && ok

t "without the process-events connector (as without root): discovery by polling finds the tree"
PERFHUNT_NO_PROC_EVENTS=1 "$P" run -q --no-save --interval 20 -o "$TMP/poll.json" -- "$W" children:2:8:300 grandchild:8:300
procs=$(jget "$TMP/poll.json" summary.max_procs)
check "max_procs $procs" [ "$procs" -ge 3 ] && [ "$(jget "$TMP/poll.json" monitor.discovery)" = "children files (polled)" ] && ok ||
	fail "discovery: $(jget "$TMP/poll.json" monitor.discovery)"

t "the OOM killer inside --memory-limit: status 137, named in the record and the summary"
"$P" run --no-save --memory-limit 32 -o "$TMP/oom.json" -- "$W" alloc:64 sleep:100 2>"$TMP/err"; st=$?
if [ "$(jget "$TMP/oom.json" summary.cgroup_peak_kb 2>/dev/null)" = "" ]; then
	skip "no memory cgroup could be made here"
else
	expect_status 137 $st && [ "$(jget "$TMP/oom.json" exit.oom_killed)" = True ] &&
		expect_grep 'killed by SIGKILL, out of memory' "$TMP/err" && ok || fail "$(cat "$TMP/err")"
fi

t "the exact peak is placed in the phases of the sample window it fell in"
"$P" run -q --no-save --interval 20 -o "$TMP/win.json" -- "$W" fd:begin=idle sleep:200 fd:end=idle \
	fd:begin=spike alloc:48 sleep:100 free fd:end=spike fd:begin=tail sleep:300 fd:end=tail
ph=$(jget "$TMP/win.json" peaks.0.phase)
case "$ph" in *spike*) case "$ph" in *tail*) fail "window reaches tail: $ph" ;; *) ok ;; esac ;; *) fail "phase '$ph'" ;; esac

t "--interval longer than the run: no start-up sample passed off as the sampled peak; processes counted in all"
# 4: phwork and its 3 children (a sanitizer build adds LeakSanitizer's tracer at exit)
"$PERFHUNT" run --no-save --interval 5000 -o "$TMP/long.json" -- "$WORKLOADS/phwork" alloc:16 children:3:1:20 >/dev/null 2>"$TMP/err"
expect_status 0 $? && expect_grep '^  sampled peak +- +no sample inside the run: --interval 5000 ms' "$TMP/err" &&
	expect_grep '^  tree +[4-9] processes in all' "$TMP/err" &&
	check "inside false" [ "$(jget "$TMP/long.json" peaks.2.inside 2>/dev/null || jget "$TMP/long.json" peaks.1.inside)" = False ] && ok

t "the command keeps its scheduling: perfhunt's short slice is not inherited"
# perfhunt asks for a 0.3 ms slice (EEVDF custom slices, Linux 6.12) so that
# its wake-ups preempt a busy command; the command's slice is the default.
slice() { sed -n 's/^se\.slice *: *//p' "$1"; }
if [ ! -r /proc/self/sched ] || [ -z "$(slice /proc/self/sched)" ]; then
	skip "no /proc/PID/sched slice (CONFIG_SCHED_DEBUG)"
else
	bare=$(sh -c 'sed -n "s/^se\.slice *: *//p" /proc/self/sched')
	"$P" run -q --no-save -- sh -c 'sed -n "s/^se\.slice *: *//p" /proc/self/sched' >"$TMP/slice" 2>"$TMP/err"
	expect_status 0 $? && check "command's slice $(cat "$TMP/slice"), bare $bare" [ "$(cat "$TMP/slice")" = "$bare" ] && ok
fi

t "the git facts of a kept record write nothing in the repository: the index stays as it was"
# git status refreshes the index and rewrites it (taking index.lock) unless
# told not to: a touched, unchanged file makes it do so
R=$TMP/repo
mkdir "$R" && (cd "$R" && git init -q . && echo a >f && git add f &&
	git -c user.name=t -c user.email=t@example.com commit -qm one) &&
	touch -d '+2 seconds' "$R/f" && cp "$R/.git/index" "$TMP/index.before"
(cd "$R" && "$P" run -q --no-save -o "$TMP/git.json" -- true) 2>"$TMP/err"
expect_status 0 $? && check "index unchanged" cmp -s "$R/.git/index" "$TMP/index.before" &&
	check "dirty false" [ "$(jget "$TMP/git.json" git.dirty)" = False ] && ok

done_testing
