#!/bin/sh
# -e takes what perf stat -e takes: perf's names with modifiers, raw rNNNN,
# PMU/terms/ from sysfs, SYS:TRACEPOINT from tracefs and {a,b} groups. Each
# list runs under perf stat -x, and under perfhunt on the same command: the
# same events, in the same order, the same ones <not supported>, and the same
# count where the count is exact (three forks of a shell).
. ./lib.sh
P="$PERFHUNT"
LIST='sched:sched_process_fork,task-clock:u,cycles:u,r003c,cpu/cycles/,{page-faults,cs}:u,software/config=2/,msr/tsc/'
CMD='/bin/true; /bin/true; /bin/true'

t "run -e: the events, their order and what is <not supported> agree with perf stat -e"
if ! command -v perf >/dev/null 2>&1 || ! perf stat -e task-clock -- true >/dev/null 2>&1; then
	skip "no working perf stat here"
elif [ ! -r /sys/kernel/tracing/events/sched/sched_process_fork/id ]; then
	skip "tracefs is not readable here"
else
	# perf stat refuses a PMU it cannot find; perfhunt keeps the event as not supported
	plist=$LIST
	[ -d /sys/bus/event_source/devices/cpu ] || plist=$(echo "$LIST" | sed 's|cpu/cycles/,||')
	[ -d /sys/bus/event_source/devices/msr ] || plist=$(echo "$plist" | sed 's|,msr/tsc/||')
	perf stat -x, -o "$TMP/perf.csv" -e "$plist" -- sh -c "$CMD" >/dev/null 2>&1
	"$P" run -q --no-save -e "$LIST" -o "$TMP/r.json" -- sh -c "$CMD"; st=$?
	expect_status 0 $st && /usr/bin/python3 - "$TMP/perf.csv" "$TMP/r.json" >"$TMP/py.err" 2>&1 <<'PY' &&
import json, sys
perf = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split(",")
    if len(f) > 2 and not line.startswith("#") and f[2]:
        perf[f[2]] = f[0]
c = json.load(open(sys.argv[2]))["counters"]
ours = [k for k in c if k in perf]
assert ours == list(perf), (list(c), perf)
for name, value in perf.items():
    assert (value == "<not supported>") == (c[name]["status"] == "not supported"), (name, value, c[name])
assert perf["sched:sched_process_fork"] == "3" and c["sched:sched_process_fork"]["value"] == 3, (perf, c)
if "cpu/cycles/" not in perf:   # the PMU is absent: kept, not supported
    assert c["cpu/cycles/"]["status"] == "not supported", c["cpu/cycles/"]
assert c["page-faults"]["user_only"] and c["cs"]["user_only"], c
PY
	ok || fail "$(cat "$TMP/py.err")"
fi

t "run -e: the summary says <not supported> per event, and a bad list is a usage error"
"$P" run --no-save -e 'task-clock,cycles:u,no_such_pmu/x/' -- true >"$TMP/s.out" 2>"$TMP/s.err"; st=$?
"$P" run --no-save -e '{cycles,instructions' -- true >"$TMP/b.out" 2>"$TMP/b.err"; bst=$?
expect_status 0 $st && expect_grep 'no_such_pmu/x/ <not supported>' "$TMP/s.err" &&
	expect_grep "'{' without '}'" "$TMP/b.err" && expect_status 2 $bst && ok

done_testing
