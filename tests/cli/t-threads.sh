#!/bin/sh
# Thread states against each thread's own clocks: tests/workloads/phthreads
# runs phases of known thread states on a pool of 4 threads and prints, per
# phase, what its threads' clocks said (truth lines: on-CPU, run-queue wait,
# the rest of their alive time); perfhunt's phases[].resources must agree at
# --interval 10 and 100 (marker phases: their ends are exact). Also: every
# thread's context switches counted, every process of a 2 000-child churn,
# and CPU rates no sample draws above the cores or the threads present.
. ./lib.sh
P="$PERFHUNT"
W="$WORKLOADS/phthreads"

# states RECORD TRUTH: each phase's oncpu, runnable and blocked thread time
# within 10 % of the truth (and a few ms per thread: the sample at a marker
# is read a moment after the line, the truth between the barriers inside it)
states() {
	/usr/bin/python3 - "$1" "$2" <<'EOF'
import json, sys
rec = json.load(open(sys.argv[1]))
truth = {}
for line in open(sys.argv[2]):
    if line.startswith("truth "):
        w = line.split()
        truth[w[1]] = {k: float(v) for k, v in (kv.split("=") for kv in w[2:])}
got = {p["name"]: p for p in rec["phases"]}
bad = []
for name, t in truth.items():
    p = got.get(name)
    if p is None:
        bad.append(f"{name}: no phase")
        continue
    r = p["resources"]
    for key in ("oncpu_ms", "runnable_ms", "blocked_ms"):
        slack = 0.10 * t[key] + 5 * t["threads"] + 0.02 * t["wall_ms"] * t["threads"]
        if abs(r[key] - t[key]) > slack:
            bad.append(f"{name}.{key}: {r[key]} against {t[key]} (+-{slack:.0f})")
    if r.get("approximate"):
        bad.append(f"{name}: approximate")
    if r["threads_max"] < t["threads"]:
        bad.append(f"{name}.threads_max: {r['threads_max']} of {t['threads']}")
for name in ("lock", "pipe", "starve"):
    r = got[name]["resources"] if name in got else None
    if r and abs(r["parallelism"] - r["oncpu_ms"] / got[name]["duration_ms"]) > 0.01:
        bad.append(f"{name}.parallelism {r['parallelism']} is not oncpu over wall")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
}

for iv in 10 100; do
	t "thread states per phase at --interval $iv: on a CPU, waiting for one, blocked (lock, pipe, starved, sleeps)"
	"$P" run -q --no-save --interval $iv -o "$TMP/s$iv.json" -- "$W" sleeps:100:2 lock:60 pipe:150 starve:150:2 \
		>/dev/null 2>"$TMP/truth$iv"
	if out=$(states "$TMP/s$iv.json" "$TMP/truth$iv"); then ok; else fail "$out
$(cat "$TMP/truth$iv")"; fi
done

t "iowait_ms only where delay accounting is on, and the record says which"
d=$(cat /proc/sys/kernel/task_delayacct 2>/dev/null)
w=$(jget "$TMP/s10.json" monitor.iowait)
if [ "$d" = 1 ]; then
	case "$w" in measured:*) jget "$TMP/s10.json" phases.0.resources.iowait_ms >/dev/null && ok ||
		fail "no iowait_ms with delay accounting on" ;; *) fail "monitor.iowait: $w (kernel.task_delayacct: 1)" ;; esac
elif jget "$TMP/s10.json" phases.0.resources.iowait_ms >/dev/null 2>&1; then
	fail "iowait_ms present (kernel.task_delayacct: $d)"
else
	case "$d" in 0) want="delay accounting is off" ;; *) want="unknown" ;; esac
	case "$w" in *"$want"*) ok ;; *) fail "monitor.iowait: $w (kernel.task_delayacct: $d)" ;; esac
fi

# iowait: delay accounting switched on for the case (root), as it is restored after
io_case() { # io_case INTERVAL
	"$P" run -q --no-save --interval "$1" -o "$TMP/io$1.json" -- /usr/bin/python3 "$SRCDIR/tests/workloads/phio.py" \
		"$TMP/phio.dat" >/dev/null 2>"$TMP/io$1.err"
}
for iv in 10 100; do
	t "a phase blocked on block I/O at --interval $iv: iowait_ms is its delay-accounting wait, within blocked_ms"
	d=$(cat /proc/sys/kernel/task_delayacct 2>/dev/null)
	if [ -z "$d" ] || [ "$(id -u)" != 0 ] || ! echo 1 2>/dev/null >/proc/sys/kernel/task_delayacct; then
		skip "cannot switch on kernel.task_delayacct here"; continue
	fi
	io_case $iv; st=$?
	echo "$d" >/proc/sys/kernel/task_delayacct
	truth=$(sed -n 's/^TRUTH iowait_ms=//p' "$TMP/io$iv.err")
	if grep -q 'Invalid argument' "$TMP/io$iv.err"; then skip "no O_DIRECT on the file system of $TMP"; continue; fi
	if [ "$st" != 0 ] || [ -z "$truth" ]; then fail "status $st: $(cat "$TMP/io$iv.err")"; continue; fi
	if [ "$truth" -lt 20 ]; then skip "the device answered O_DIRECT writes without a wait ($truth ms)"; continue; fi
	# one tick (10 ms) each side: the kernel counts the wait in ticks; capped by blocked_ms
	/usr/bin/python3 - "$TMP/io$iv.json" "$truth" >"$TMP/py" 2>&1 <<'EOF'
import json, sys
r = json.load(open(sys.argv[1])); truth = float(sys.argv[2])
ph = {p["name"]: p["resources"] for p in r["phases"]}
io, idle = ph["io"], ph["idle"]
assert r["monitor"]["iowait"].startswith("measured"), r["monitor"]
assert io["iowait_ms"] <= io["blocked_ms"] + 0.001, io
assert min(truth, io["blocked_ms"]) - 20 <= io["iowait_ms"] <= truth + 20, (truth, io)
assert idle["iowait_ms"] <= 10 and idle["blocked_ms"] >= 150, idle
assert r["summary"]["iowait_ms"] >= io["iowait_ms"] - 0.001, r["summary"]
stats = {p["name"]: p for p in r["phase_stats"]}
assert abs(stats["io"]["resources"]["total"]["iowait_ms"] - io["iowait_ms"]) < 0.01, stats["io"]
EOF
	[ $? = 0 ] && ok || fail "$(cat "$TMP/py")"
done

t "the lock phase serializes: parallelism about 1, blocked about 3 x its wall"
if out=$(/usr/bin/python3 - "$TMP/s10.json" <<'EOF'
import json, sys
rec = json.load(open(sys.argv[1]))
p = [p for p in rec["phases"] if p["name"] == "lock"][0]
r = p["resources"]
why = []
wall = p["duration_ms"]
# one thread holds the lock at a time: on a CPU, or waiting for one when
# the machine is busy (then parallelism itself is below 1)
if r["parallelism"] > 1.1 or not (0.7 <= (r["oncpu_ms"] + r["runnable_ms"]) / wall <= 1.3):
    why.append(f"parallelism {r['parallelism']}, runnable {r['runnable_ms']} ms over {wall} ms wall")
# 4 threads alive, the other 3 blocked on the lock
if not (2.4 <= r["blocked_ms"] / wall <= 3.3):
    why.append(f"blocked {r['blocked_ms']} ms over {wall} ms wall")
print("; ".join(why))
sys.exit(1 if why else 0)
EOF
); then ok; else fail "$out"; fi

# (the begin marker's sample is taken when perfhunt reads the line: on a
# loaded machine the threads may have slept a few times before it)
t "the phase table and the report show parallelism and where the thread time went"
"$P" show "$TMP/s10.json" >"$TMP/show.txt" 2>&1
"$P" report "$TMP/s10.json" -o "$TMP/r.html" >/dev/null 2>&1
expect_grep 'RSS growth +par off-CPU$' "$TMP/show.txt" &&
	expect_grep '^pipe .* 0\.0[0-9] +(9[0-9]|100)%$' "$TMP/show.txt" &&
	expect_grep '<th>parallelism</th><th>thread time: on a CPU / waiting for one / blocked</th>' "$TMP/r.html" &&
	expect_grep '<td>0\.0[0-9]</td><td>[0-9]+ % / [0-9]+ % / (9[0-9]|100) %</td>' "$TMP/r.html" && ok

t "every thread's context switches: 100 sleeps over 4 threads are about 100 voluntary switches or more"
v=$(/usr/bin/python3 -c 'import json, sys
print([p for p in json.load(open(sys.argv[1]))["phases"] if p["name"] == "sleeps"][0]["resources"]["vcsw"])' "$TMP/s100.json")
between 90 "$v" 200 && ok || fail "phase sleeps: vcsw $v (the main thread alone made 25 of them)"

t "CPU rates never above the cores, nor the threads present, at --interval 6 with markers, and at 1 past 2 048 rows"
"$P" run -q --no-save --interval 6 -o "$TMP/r6.json" -- "$W" starve:200:2 lock:40 sleeps:40:2 starve:100:0 \
	>/dev/null 2>&1
# over 2 048 samples the record's timeline merges rows in pairs: a merged
# row's CPU covers both intervals (its span_ms)
"$P" run -q --no-save --interval 1 -o "$TMP/r1.json" -- "$W" starve:300:2 sleeps:1000:8 >/dev/null 2>&1
for f in "$TMP/r6.json" "$TMP/r1.json"; do
/usr/bin/python3 - "$f" "$(getconf _NPROCESSORS_ONLN)" <<'EOF' >"$TMP/why" || { fail "$(basename "$f"): $(cat "$TMP/why")"; break; }
import json, sys
rec = json.load(open(sys.argv[1]))
cores = int(sys.argv[2])
s = rec["samples"]
c = s["columns"]
rows = [dict(zip(c, r)) for r in s["rows"]]
bad = []
for a, b in zip(rows, rows[1:]):
    dt = b["span_ms"]
    cpu = b["user_ms"] + b["sys_ms"]
    # a merged row shows the threads of one of its samples: only the cores bound it
    cap = dt * (min(cores, max(a["threads"], b["threads"])) if s["stride"] == 1 else cores)
    if cpu > cap + 2e-3:  # span_ms (times the threads) and the CPU are written to the microsecond
        bad.append(f"{b['t_ms']:.1f} ms: {cpu:.2f} ms of CPU in {dt:.2f} ms, {b['threads']} threads")
# nanosecond clocks, not whole ticks (10 ms, 4 ms) moving in lumps
busy = [b["user_ms"] + b["sys_ms"] for b in rows if b["user_ms"] + b["sys_ms"] > 0]
lumps = [x for x in busy if abs(x / 4 - round(x / 4)) < 1e-6]
if len(lumps) > len(busy) / 2:
    bad.append(f"{len(lumps)} of {len(busy)} intervals hold whole ticks of CPU")
# the rows hold all of the run's CPU time: nothing lost to the bound
total = sum(busy)
if abs(total - rec["summary"]["oncpu_ms"]) > 0.05 * rec["summary"]["oncpu_ms"] + 1:
    bad.append(f"rows hold {total:.1f} ms of CPU, the run {rec['summary']['oncpu_ms']} ms")
if s["stride"] < 2 and sys.argv[1].endswith("/r1.json"):  # not the temporary folder's name
    bad.append(f"{len(rows)} rows of stride {s['stride']}: no merged rows to check")
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
EOF
done
[ "$T_DONE" = 1 ] || ok

t "every process of a 2 000-child churn is counted (process events), at least what was seen without them"
"$P" run -q --no-save --interval 10 -o "$TMP/c.json" -- "$W" churn:2000 >/dev/null 2>&1
if [ "$(jget "$TMP/c.json" monitor.discovery)" != "process events connector" ]; then
	skip "no process-events connector here (needs root)"
else
	n=$(jget "$TMP/c.json" summary.procs_seen)
	c=$(jget "$TMP/c.json" summary.procs_seen_complete)
	# a sanitizer build's leak checker stops the world from a process of its own at exit
	most=2001; ldd "$W" 2>/dev/null | grep -q libasan && most=2002
	between 2001 "$n" "$most" && [ "$c" = True ] && ok || fail "procs_seen $n (complete: $c), expected 2001"
fi

t "every process of a fork tree is counted: 2 048 shells, each forking while its parent forks"
"$P" run -q --no-save --interval 10 -o "$TMP/ft.json" -- sh -c \
	'f() { if [ "$1" -gt 0 ]; then f $(($1 - 1)) & f $(($1 - 1)); wait; fi; }; f 11' >/dev/null 2>&1
if [ "$(jget "$TMP/ft.json" monitor.discovery)" != "process events connector" ]; then
	skip "no process-events connector here (needs root)"
else
	n=$(jget "$TMP/ft.json" summary.procs_seen)
	[ "$n" = 2048 ] && [ "$(jget "$TMP/ft.json" summary.procs_seen_complete)" = True ] && ok ||
		fail "procs_seen $n, expected 2048"
fi

t "without process events the count is a lower bound and says so"
PERFHUNT_NO_PROC_EVENTS=1 "$P" run --no-save --interval 10 -o "$TMP/cp.json" -- "$W" churn:300 \
	>"$TMP/cp.out" 2>&1
n=$(jget "$TMP/cp.json" summary.procs_seen)
[ "$(jget "$TMP/cp.json" summary.procs_seen_complete)" = False ] && between 1 "$n" 301 &&
	expect_grep "at least $n processes in all" "$TMP/cp.out" && ok

t "an attached daemon's context switches are all its threads' (the kernel's per-thread counts around the run)"
"$W" sleeps:1200:2 >/dev/null 2>&1 &
DPID=$!
sleep 0.2
switches() { cat /proc/"$DPID"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ { s += $2 } END { print s + 0 }'; }
before=$(switches)
"$P" run -q --no-save --interval 20 --idle-ms 0 --attach "$DPID" -o "$TMP/d.json" -- sleep 0.3 >/dev/null 2>&1
after=$(switches)
wait "$DPID"
v=$(jget "$TMP/d.json" trees.daemon.vcsw)
# the main thread alone made a quarter of them
between "$(( (after - before) * 6 / 10 ))" "$v" "$((after - before))" && ok ||
	fail "daemon vcsw $v; its threads switched $((after - before)) times around the run"

t "compare of 5 + 5 runs: a CPU-starved phase says it waited for a CPU"
# the bad build starts 4 more spinners than the good one beside the pool on
# this machine's cores: each thread's run-queue wait grows with them
"$P" bench -q --no-save -n 5 --export-json "$TMP/st-good.json" -- "$W" starve:100:0 >/dev/null 2>&1 &&
	"$P" bench -q --no-save -n 5 --export-json "$TMP/st-bad.json" -- "$W" starve:100:4 >/dev/null 2>&1
"$P" compare "$TMP/st-good.json" "$TMP/st-bad.json" >"$TMP/out" 2>&1
line=$(grep -E '^ +starve ' "$TMP/out")
check "starve regressed, waiting for a CPU: $line" \
	sh -c 'echo "$1" | grep -qE "^ +starve +\+.*: .*waiting for a CPU \+[0-9.]+ (ms|s) \(thread time\)"' - "$line" && ok

done_testing
