#!/bin/sh
# --profile's off-CPU stacks: where threads blocked and for how long (perf's
# context-switch event and switch records), per phase, against
# tests/workloads/phthreads' own clocks — every switch-out's stack at a low
# rate, 1 in 7 at 10 000 switches a second, the blocked time exact either
# way; and compare's code line following them when blocked time carries a
# phase's change (a mutex held across the msm work in the bad build). Skips
# where perf or the event cannot be used here.
. ./lib.sh
W=$WORKLOADS/phthreads

# offget FILE EXPR: a Python expression over the record's off-CPU profile o
offget() { /usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); o=r.get("profile",{}).get("offcpu",{})
def ms(phase, fn):
    return sum(s["ms"] for s in o["phases"][phase]["stacks"] if any(fn in f for f in s["stack"].split(";")))
print(eval(sys.argv[2]))' "$1" "$2"; }

t "--profile: the msm lock's blocked time in the phase, in the mutex's wait, near the threads' own clocks"
"$PERFHUNT" run -q --no-save --profile -o "$TMP/r.json" -- "$W" msm:160:1 >"$TMP/out" 2>"$TMP/err"
st=$?
truth=$(sed -n 's/^truth msm .*blocked_ms=\([0-9.]*\).*/\1/p' "$TMP/err")
lockw=$(sed -n 's/^truth msm .*lock_wait_ms=\([0-9.]*\).*/\1/p' "$TMP/err")
if ! command -v perf >/dev/null 2>&1; then
	skip "perf is not installed"
	OFF=0
elif [ "$(offget "$TMP/r.json" 'o.get("event","")' 2>/dev/null)" != "context-switches" ]; then
	skip "no off-CPU profile here: $(grep 'profile' "$TMP/err" | head -1)"
	OFF=0
else
	OFF=1
	got=$(offget "$TMP/r.json" 'o["phases"]["msm"]["ms"]')
	expect_status 0 "$st" &&
	check "blocked $got ms against the threads' $truth ms" between "$(echo "$truth" | awk '{print $1 * 0.8}')" "$got" "$(echo "$truth" | awk '{print $1 * 1.2}')" &&
	lock=$(offget "$TMP/r.json" 'ms("msm","lll_lock_wait")')
	# the rest is the pool's barrier at the phase's end and the threads' sleeps
	check "in the mutex's wait $lock ms against the threads' $lockw ms in pthread_mutex_lock" \
		between "$(echo "$lockw" | awk '{print $1 * 0.8}')" "$lock" "$(echo "$lockw" | awk '{print $1 * 1.2}')" &&
	check "each stack is its thread's, then the [off-cpu] marker" \
		[ "$(offget "$TMP/r.json" 'all(s["stack"].split(";")[1]=="[off-cpu]" and s["stack"].startswith("phthreads") for s in o["phases"]["msm"]["stacks"] if s["stack"]!="[other]")')" = True ] &&
	check "unit, marker, bound and what could not be paired are stated" \
		[ "$(offget "$TMP/r.json" 'o["unit"]=="ms" and o["marker"]=="[off-cpu]" and o["stack_bound"]==300 and o["dropped"]==0 and "open_at_end" in o')" = True ] &&
	check "a few hundred switches a second: every blocked interval has its own stack ($(offget "$TMP/r.json" 'o["intervals_with_stack"], o["intervals_without_stack"]'))" \
		[ "$(offget "$TMP/r.json" 'o["sampled"] is False and o["intervals_without_stack"]==0 and o["intervals_with_stack"]>0')" = True ] &&
	"$PERFHUNT" report "$TMP/r.json" -o "$TMP/r.html" >/dev/null 2>&1 &&
	check "the report draws msm's wall-clock graph, off-CPU frames in their own colour" \
		[ "$(grep -c -e 'id="wall-msm"' -e '>off-CPU (blocked)</text>' -e 'class="f fo"' "$TMP/r.html")" -ge 3 ] &&
	check "on-CPU samples are not off-CPU time" \
		[ "$(/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["profile"]; print(all("[off-cpu]" not in s["stack"] for s in p["phases"]["msm"]["stacks"]))' "$TMP/r.json")" = True ] &&
	ok
fi

t "10 000 switches a second: stacks sampled 1 in 7, said in the record; the blocked time still whole"
# relay: a token passed round the pool through pipes, a blocking switch per
# hand-off (~10 000 a second here); the switch records time every interval,
# the sampled stacks share it out. Its time from switch-out to switch-in
# holds the wait for a CPU after the wake-up, which schedstat counts as
# runnable (3-22 % more than schedstat's blocked time at load 2-8): from
# half schedstat's blocked time to 1.5 times its blocked and runnable.
if [ "$OFF" = 1 ]; then
	"$PERFHUNT" run -q --no-save --profile -o "$TMP/relay.json" -- "$W" relay:20000:50 >"$TMP/out" 2>"$TMP/err"
	st=$?
	ss=$(/usr/bin/python3 -c 'import json,sys; r=[p for p in json.load(open(sys.argv[1]))["phases"] if p["name"]=="relay"][0]["resources"]
print(r["blocked_ms"], r["blocked_ms"] + r["runnable_ms"])' "$TMP/relay.json")
	got=$(offget "$TMP/relay.json" 'o["phases"]["relay"]["ms"]')
	expect_status 0 "$st" &&
	check "the record says the stacks were sampled, at what period, and how many intervals had one: $(offget "$TMP/relay.json" 'o["period"], o["intervals_sampled"], o["intervals_with_stack"], o["intervals_without_stack"]')" \
		[ "$(offget "$TMP/relay.json" 'o["sampled"] is True and o["period"]==7 and o["intervals_sampled"]>0 and o["intervals_without_stack"]>0')" = True ] &&
	check "relay blocked $got ms in the profile; by schedstat blocked, and blocked + runnable: $ss ms" \
		between "$(echo "$ss" | awk '{print $1 * 0.5}')" "$got" "$(echo "$ss" | awk '{print $2 * 1.5}')" &&
	check "the stacks share out all of it" \
		[ "$(offget "$TMP/relay.json" 'abs(sum(s["ms"] for s in o["phases"]["relay"]["stacks"]) - o["phases"]["relay"]["ms"]) <= 0.01 * o["phases"]["relay"]["ms"]')" = True ] &&
	check "most of it in the pipe's read, as the workload waits" \
		[ "$(offget "$TMP/relay.json" 'ms("relay","read") >= 0.5 * o["phases"]["relay"]["ms"]')" = True ] &&
	ok
else skip "no off-CPU profile here"; fi

t "compare of 5 + 5 profiled runs: the lock phase waited, blocked in futex under the mutex from msm_chunk, the pool by its pattern"
# devwait: msm's chunks, mostly their device wait: the good build's own
# spinning, slowed by a loaded machine's other work, once made msm:160:0 as
# slow as the bad build (msm -72.3 ms, not established; load average 29)
if [ "$OFF" = 1 ]; then
	"$PERFHUNT" bench -n 5 --profile --export-json "$TMP/good.json" -- "$W" devwait:240:0 >/dev/null 2>&1 &&
	"$PERFHUNT" bench -n 5 --profile --export-json "$TMP/bad.json" -- "$W" devwait:240:1 >/dev/null 2>&1
	"$PERFHUNT" compare "$TMP/good.json" "$TMP/bad.json" >"$TMP/out" 2>&1
	line=$(grep -E '^ +devwait ' "$TMP/out")
	code=$(grep -A1 -E '^ +devwait ' "$TMP/out" | grep 'code:')
	check "devwait regressed, waiting: $line" sh -c 'echo "$1" | grep -qE "devwait +\+.*(blocked \+|parallelism)"' - "$line" &&
	check "the code line is blocked time: $code" sh -c 'echo "$1" | grep -qE "code: \+[0-9.]+ (ms|s) blocked in futex"' - "$code" &&
	check "it reaches the mutex's wait: $code" sh -c 'echo "$1" | grep -qE "lll_lock_wait"' - "$code" &&
	check "the pool is named by its pattern, not one thread: $code" sh -c 'echo "$1" | grep -qE "\((phthreads-w\*, 3 threads|phthreads)\)" && ! echo "$1" | grep -qE "phthreads-w[0-9]"' - "$code" &&
	ok
else skip "no off-CPU profile here"; fi

t "the code line goes on to the workload's code that took the lock, where perf unwound a stack that far"
# (seen under ASan: "… ← __GI___lll_lock_wait ← work ← pool_main": perf
# stepped from it straight to a caller further up)
full=$( [ "$OFF" = 1 ] && unwound_past_lock "$TMP/bad.json" devwait msm_chunk work 2>/dev/null)
if [ "$OFF" != 1 ]; then skip "no off-CPU profile here"
elif [ "${full:-0}" -lt 50 ]; then skip "perf unwound ${full:-0} % of the time blocked in the mutex's wait past it in these runs"
else
	check "it reaches the mutex's wait and its caller: $code" \
		sh -c 'echo "$1" | grep -qE "(pthread_mutex_lock|lll_lock_wait) ← (msm_chunk|work)"' - "$code" && ok
fi

t "a record without phases, 6 + 6 runs: the whole run's code line is the mutex's blocked time, the pool by its pattern"
# --no-probes: the workload's markers are not read, so the runs have no
# phase; the wall time's change is all the lock's (devwait: msm's chunks,
# mostly their device wait, so the good build's time changes little when the
# machine is loaded: msm's spinning slowed it to the bad build's there)
if [ "$OFF" = 1 ]; then
	"$PERFHUNT" bench -n 6 --no-probes --profile --export-json "$TMP/np-good.json" -- "$W" devwait:240:0 >/dev/null 2>&1 &&
	"$PERFHUNT" bench -n 6 --no-probes --profile --export-json "$TMP/np-bad.json" -- "$W" devwait:240:1 >/dev/null 2>&1
	"$PERFHUNT" compare --export-json "$TMP/np.json" "$TMP/np-good.json" "$TMP/np-bad.json" >"$TMP/out" 2>&1
	code=$(grep -A1 '^the whole run (wall-time delta +' "$TMP/out" | grep 'code:')
	check "no phase in the records" [ "$(jget "$TMP/np-bad.json" commands.0.runs.0.phases)" = "[]" ] &&
	check "the wall time regressed: $(grep -E '^wall_s ' "$TMP/out")" grep -qE '^wall_s .* regressed$' "$TMP/out" &&
	check "the whole run's line is blocked time in the mutex's wait: $code" \
		sh -c 'echo "$1" | grep -qE "^ +code: \+[0-9.]+ (ms|s) blocked in futex .*lll_lock_wait"' - "$code" &&
	check "the pool is named by its pattern: $code" sh -c 'echo "$1" | grep -qE "\(phthreads-w\*, 3 threads\)"' - "$code" &&
	check "compare's JSON marks it off-CPU" [ "$(jget "$TMP/np.json" run_profile.offcpu)" = True ] &&
	"$PERFHUNT" report -o "$TMP/np.html" "$TMP/np.json" >/dev/null 2>&1
	check "the compare report's flame graph weighs it as blocked time" \
		grep -q 'the whole run — blocked per run' "$TMP/np.html" &&
	ok
else skip "no off-CPU profile here"; fi

done_testing
