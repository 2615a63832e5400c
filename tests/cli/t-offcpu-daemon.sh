#!/bin/sh
# Where an attached daemon's wall time went: tests/workloads/phdaemon serves
# requests from a client on a pool of 4 workers (its msm phase, logged as a
# duration probe, and the daemon's own clocks on "truth" lines of its log);
# the bad build holds one mutex across the msm work. Recorded with
# --attach-pidfile and --profile: the daemon's thread states per phase and in
# trees.daemon against its clocks, its blocked time cut at the phases' ends,
# and compare of 6 + 6 runs naming msm's lock wait. The client is a copy of
# the binary named phclient, so the daemon's stacks are told from its own.
. ./lib.sh
P="$PERFHUNT"
cp "$WORKLOADS/phdaemon" "$TMP/phclient" || exit 1
D="$WORKLOADS/phdaemon"
C="$TMP/phclient"
S="$TMP/d.sock"

start_daemon() { # start_daemon EXTRA...: msm of 160 ms a request on 4 workers
	rm -f "$S" "$TMP/d.pid"
	"$D" serve "$S" "$TMP/d.log" 4 1 stamp msm=160 pidfile="$TMP/d.pid" "$@" &
	DPID=$!
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do [ -S "$S" ] && break; sleep 0.1; done
	"$C" request "$S" 1 >/dev/null # it has served before anyone measures it
	: >"$TMP/d.log"
}
stop_daemon() { kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; }

t "attach: the daemon's thread states per msm phase and over the run, against its own clocks"
start_daemon lock
"$P" run -q --no-save --profile --interval 10 --idle-ms 100 --attach-pidfile "$TMP/d.pid" --probe-log "$TMP/d.log" \
	-o "$TMP/r.json" -- "$C" request "$S" 3 >/dev/null 2>"$TMP/err"
st=$?
stop_daemon
cp "$TMP/d.log" "$TMP/r.log"
expect_status 0 $st && /usr/bin/python3 - "$TMP/r.json" "$TMP/r.log" <<'EOF' && ok || fail "$(cat "$TMP/r.log")"
import json, sys
r = json.load(open(sys.argv[1]))
msm, req = [], []
for line in open(sys.argv[2]):
    w = line.split()
    if w[:2] in (["truth", "msm"], ["truth", "request"]):
        (msm if w[1] == "msm" else req).append({k: float(v) for k, v in (kv.split("=") for kv in w[2:])})
phases = [p for p in r["phases"] if p["name"] == "msm"]
assert len(phases) == 3 and len(msm) == 3 and len(req) == 3, (len(phases), len(msm), len(req))
# per phase: the daemon's 5 threads (the resources are the daemon's tree);
# the phase's ends are whole milliseconds of a logged duration, and sampled
for p, t in zip(phases, msm):
    res = p["resources"]
    for key in ("oncpu_ms", "runnable_ms", "blocked_ms"):
        slack = 0.10 * t[key] + 5 * t["threads"] + 0.02 * t["wall_ms"] * t["threads"]
        assert abs(res[key] - t[key]) <= slack, (key, res[key], t[key], slack)
    assert res["threads_max"] == 5, res
    assert abs(res["parallelism"] - res["oncpu_ms"] / p["duration_ms"]) < 0.01, res
# over the run: every thread of the daemon, its requests its only work
d = r["trees"]["daemon"]
on, wait = sum(t["oncpu_ms"] for t in req), sum(t["runnable_ms"] for t in req)
assert abs(d["oncpu_ms"] - on) <= 0.10 * on + 10, (d["oncpu_ms"], on)
assert abs(d["runnable_ms"] - wait) <= 0.10 * wait + 25, (d["runnable_ms"], wait)
assert d["threads_max"] == 5, d
# its window: from the attach (the clock's start) to the end, the command's start in it
wall_ms = r["trees"]["client"]["start_ms"] + r["summary"]["wall_s"] * 1000
assert abs(d["parallelism"] - d["oncpu_ms"] / wall_ms) < 0.01, (d["parallelism"], d["oncpu_ms"], wall_ms)
assert abs(d["cpu_pct"] - 100 * (d["user_s"] + d["sys_s"]) / (wall_ms / 1000)) < 0.01, (d["cpu_pct"], wall_ms)
# alive: 5 threads all through its window, less what the last sample leaves out
alive = d["oncpu_ms"] + d["runnable_ms"] + d["blocked_ms"]
assert 0.95 * 5 * wall_ms <= alive <= 1.02 * 5 * wall_ms, (alive, wall_ms)
EOF

t "show prints the daemon's thread time beside the client's"
"$P" show "$TMP/r.json" >"$TMP/show.txt" 2>&1
expect_grep '^  thread time +[0-9.]+ parallel, ' "$TMP/show.txt" &&
	expect_grep '^ +[0-9.]+ parallel, [0-9.]+ (s|ms) blocked, .* \(daemon\)$' "$TMP/show.txt" && ok

# offget EXPR: a Python expression over r.json's off-CPU profile o
offget() { /usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); o=r.get("profile",{}).get("offcpu",{})
def ms(phase, root):
    return sum(s["ms"] for s in o["phases"][phase]["stacks"] if s["stack"].split(";")[0].startswith(root))
print(eval(sys.argv[2]))' "$TMP/r.json" "$1"; }

t "the daemon's blocked stacks per phase: its workers in msm near its clocks, no phase charged past its length"
if ! command -v perf >/dev/null 2>&1; then
	skip "perf is not installed"
	OFF=0
elif [ "$(offget 'o.get("event","")' 2>/dev/null)" != "context-switches" ]; then
	skip "no off-CPU profile here: $(grep 'profile' "$TMP/err" | head -1)"
	OFF=0
else
	OFF=1
	truth=$(sed -n 's/^truth msm .*blocked_ms=\([0-9.]*\).*/\1/p' "$TMP/r.log" | awk '{s += $1} END {print s}')
	got=$(offget 'ms("msm", "phdaemon")')
	# a thread blocked from one request's end to the next one's start (the
	# daemon waiting for the client, the client for the daemon) is in each
	# phase it spans for its time there: at most 6 threads (5 daemon's, the
	# client) times a phase's length, where a whole interval counted at its
	# switch-out put seconds into alloc's few milliseconds
	over=$(/usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); o=r["profile"]["offcpu"]["phases"]
dur={}
for p in r["phases"]: dur[p["name"]] = dur.get(p["name"], 0) + p["duration_ms"]
for n, t in o.items():
    if t["ms"] > 6 * dur[n] + 0.01:
        print("%s %.1f ms of %.1f" % (n, t["ms"], 6 * dur[n]))' "$TMP/r.json")
	check "the daemon blocked $got ms in msm against its clocks' $truth ms" \
		between "$(echo "$truth" | awk '{print $1 * 0.8}')" "$got" "$(echo "$truth" | awk '{print $1 * 1.2}')" &&
	check "no phase holds more blocked time than its threads lived in it: $over" [ -z "$over" ] &&
	check "most of msm's in the workers' mutex wait: $(offget 'ms("msm","phdaemon-w")')" \
		[ "$(offget 'sum(s["ms"] for s in o["phases"]["msm"]["stacks"] if "lll_lock_wait" in s["stack"]) >= 0.5 * ms("msm", "phdaemon-w")')" = True ] &&
	ok
fi

t "bench --attach-pidfile --profile, 6 + 6 runs: compare names msm waiting, blocked in the mutex's wait, the pool by its pattern"
if [ "$OFF" = 1 ]; then
	for side in good bad; do
		if [ $side = bad ]; then start_daemon lock; else start_daemon; fi
		"$P" bench -q --no-save -n 6 --profile --interval 10 --idle-ms 100 --attach-pidfile "$TMP/d.pid" \
			--probe-log "$TMP/d.log" --export-json "$TMP/$side.json" -- "$C" request "$S" 2 >/dev/null 2>&1
		stop_daemon
	done
	"$P" compare "$TMP/good.json" "$TMP/bad.json" >"$TMP/out" 2>&1
	line=$(grep -E '^ +msm ' "$TMP/out")
	code=$(grep -A1 -E '^ +msm ' "$TMP/out" | grep 'code:')
	check "msm regressed, waiting: $line" sh -c 'echo "$1" | grep -qE "msm +\+.*(blocked \+|parallelism)"' - "$line" &&
	check "the code line is blocked time: $code" sh -c 'echo "$1" | grep -qE "code: \+[0-9.]+ (ms|s) blocked in futex"' - "$code" &&
	check "it reaches the mutex's wait: $code" sh -c 'echo "$1" | grep -qE "lll_lock_wait"' - "$code" &&
	check "the daemon's pool by its pattern, not one worker: $code" \
		sh -c 'echo "$1" | grep -qE "\(phdaemon-w\*, 4 threads\)"' - "$code" &&
	ok
else skip "no off-CPU profile here"; fi

t "the code line goes on to the daemon's code that took the lock, where perf unwound a stack that far"
full=$( [ "$OFF" = 1 ] && unwound_past_lock "$TMP/bad.json" msm msm_chunk 2>/dev/null)
if [ "$OFF" != 1 ]; then skip "no off-CPU profile here"
elif [ "${full:-0}" -lt 50 ]; then skip "perf unwound ${full:-0} % of the time blocked in the mutex's wait past it in these runs"
else
	check "it reaches the mutex's wait and its caller: $code" \
		sh -c 'echo "$1" | grep -qE "(pthread_mutex_lock|lll_lock_wait) ← msm_chunk ← worker_main"' - "$code" && ok
fi

done_testing
