#!/bin/sh
# Nothing perfhunt starts for itself is part of a measured tree's figures.
# bench --attach --profile runs perf script after each run; perf script
# leaves its addr2line children to exit after it, and a perfhunt that stayed
# the subreaper reaped them into the next run's wait4 figures (a 1.5 MiB
# client recorded at 23 MiB and 40 ms of CPU). Every profiled run of a tiny
# client must keep the figures of the same client measured without
# --profile, its peak named after the client. Skips where perf cannot sample.
. ./lib.sh
D=$WORKLOADS/phdaemon

# figures FILE: per run, "peak_kb cpu_ms pid comm method"
figures() {
	/usr/bin/python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["commands"][0]["runs"]:
    s = r["summary"]; p = r["peaks"][0]
    print(s["peak_rss_kb"], round((s["user_s"] + s["sys_s"]) * 1000, 3), p.get("pid", 0), p.get("comm", "") or "-",
          s["peak_rss_method"].replace(" ", "_"))' "$1"
}

t "bench --attach --profile: every run keeps the client's own peak and CPU, the peak names the client"
if ! command -v perf >/dev/null 2>&1; then
	skip "perf is not installed"
else
	S="$TMP/d.sock"
	# each request touches 32 MiB in the daemon: samples in its code for perf script to resolve
	"$D" serve "$S" "$TMP/d.log" 2 32 &
	DP=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$S" ] && break; sleep 0.1; done
	"$PERFHUNT" bench -n 4 --no-save --attach $DP --export-json "$TMP/plain.json" -- "$D" request "$S" 1 \
		>/dev/null 2>"$TMP/err0"
	st0=$?
	"$PERFHUNT" bench -n 4 --no-save --attach $DP --profile --export-json "$TMP/prof.json" -- "$D" request "$S" 1 \
		>/dev/null 2>"$TMP/err"
	st=$?
	kill $DP; wait $DP 2>/dev/null
	if grep -q 'profile not recorded' "$TMP/err"; then
		skip "perf cannot sample here: $(grep 'profile not recorded' "$TMP/err" | head -1)"
	elif expect_status 0 $st0 && expect_status 0 $st; then
		figures "$TMP/plain.json" >"$TMP/plain"
		figures "$TMP/prof.json" >"$TMP/prof"
		# the plain runs' largest peak and CPU, with room for perfhunt's own
		# pre-exec image (a bench's perfhunt grows by a few hundred KiB)
		max_kb=$(awk '$1 > m { m = $1 } END { print m + 1024 }' "$TMP/plain")
		max_ms=$(awk '$2 > m { m = $2 } END { print m + 10 }' "$TMP/plain")
		bad=$(awk -v kb="$max_kb" -v ms="$max_ms" '$1 > kb || $2 > ms || $3 == 0 || $4 != "phdaemon"' "$TMP/prof")
		check "profiled runs above the plain ones ($max_kb KiB, $max_ms ms) or not named after the client: $bad
plain runs: $(cat "$TMP/plain")" [ -z "$bad" ] && ok
	fi
fi

done_testing
