#!/bin/sh
# Per-phase resources against the kernel's own figures: tests/workloads/phpin
# prints what getrusage said of each phase (TRUTH lines); perfhunt's
# phases[].resources must put >= 90 % of the known faults and CPU in the right
# phase — marker phases at 10, 100 and 1000 ms; duration probes (85 % at
# 10 ms, 75 % at 100 ms) — in the good build (faults in synth) and the bad
# one (in pin).
# A duration probe's window is dated by its arrival, so the time perfhunt
# takes to wake up is lost at the phase's start, and the interval holding
# the start is apportioned linearly (an idle gap before it shares its
# interval): those phases are longer and follow each other closely.
. ./lib.sh
P="$PERFHUNT"
W="$WORKLOADS/phpin"

# attributed RECORD TRUTH [SHARE [said]]: checks every phase's faults, user
# and sys CPU (at least SHARE of each, 0.9 by default); with "said", a phase
# that falls short but whose record says it is approximate (a log line read
# late, an end inside an interval a starved monitor stretched) exits 2, not
# 1, where no other phase fell short
attributed() {
	/usr/bin/python3 - "$1" "$2" "${3:-0.9}" "${4:-}" <<'EOF'
import json, re, sys
rec = json.load(open(sys.argv[1]))
share = float(sys.argv[3])
excuse = sys.argv[4] == "said"
truth = {}
for line in open(sys.argv[2]):
    if line.startswith("TRUTH "):
        f = dict(kv.split("=") for kv in line.split()[1:])
        truth[f["name"]] = {k: float(v) for k, v in f.items() if k != "name"}
got = {p["name"]: p["resources"] for p in rec["phases"]}
bad = []
late = []
for name, t in truth.items():
    r = got.get(name)
    if r is None:
        bad.append(f"{name}: no phase")
        continue
    short = []
    # CPU comes from /proc in 10 ms ticks: only phases with 150 ms or more are held to 90 %
    for key, floor in (("minflt", 1000), ("user_ms", 150), ("sys_ms", 150)):
        if t[key] >= floor and r[key] < share * t[key]:
            short.append(f"{name}.{key}: {r[key]} of {t[key]}")
    # nothing large lands in a phase that did not take it
    if t["minflt"] < 100 and r["minflt"] > 1000:
        short.append(f"{name}.minflt: {r['minflt']} attributed, {t['minflt']} taken")
    if short and excuse and r["approximate"]:
        late.append(f"{'; '.join(short)}: approximate (sample lag {r.get('sample_lag_ms', -1):.1f} ms)")
    else:
        bad += short
    for key in ("minflt", "majflt", "vcsw", "ivcsw", "read_bytes", "write_bytes", "user_ms", "sys_ms", "rss_max_kb"):
        if r[key] < 0:
            bad.append(f"{name}.{key} negative")
print("; ".join(bad or late))
sys.exit(1 if bad else 2 if late else 0)
EOF
}

for build in good bad; do
	flag=; [ $build = bad ] && flag=--bad
	for iv in 10 100 1000; do
		t "markers, $build build, --interval $iv: faults and CPU in the right phase"
		"$P" run -q --no-save --interval $iv -o "$TMP/m.json" -- "$W" $flag >/dev/null 2>"$TMP/truth"
		st=$?
		expect_status 0 $st && out=$(attributed "$TMP/m.json" "$TMP/truth") && ok || fail "$out"
	done
	for iv in 10 100; do
		t "duration probes, $build build, --interval $iv: most of the faults and CPU in the right phase"
		# a duration probe's window is dated by its line's arrival, and the
		# interval holding its start is apportioned linearly: under a full
		# parallel suite (and a sanitizer) 10 % of a phase three intervals
		# long moved out at 10 ms, 17 % at 100 ms. Synth once got 21 424 of
		# 40 960 faults with three suites beside it (that run was not kept); a
		# monitor starved that long stretches the interval holding an end:
		# the phase then says approximate, and such a run is taken again, up
		# to 3 times
		share=0.85; [ $iv = 100 ] && share=0.75
		try=0
		while :; do
			try=$((try + 1))
			"$P" run -q --no-save --interval $iv -o "$TMP/d.json" -- "$W" $flag --probes duration --mib 160 --spin-ms 300 --sys-ms 300 --gap-ms 5 >/dev/null 2>"$TMP/truth"
			st=$?
			out=$(attributed "$TMP/d.json" "$TMP/truth" $share said)
			ast=$?
			[ $st = 0 ] && [ $ast = 2 ] && [ $try -lt 3 ] || break
		done
		if [ $st = 0 ] && [ $ast = 2 ]; then
			skip "perfhunt sampled too seldom on this loaded machine in 3 runs, and its record said so ($out)"
		else
			expect_status 0 $st && [ $ast = 0 ] && ok || fail "$out"
		fi
	done
done

t "a 50 ms marker phase at --interval 1000 is exact, not approximate"
"$P" run -q --no-save --interval 1000 -o "$TMP/s.json" -- "$WORKLOADS/phwork" sleep:30 begin:short alloc:8 sleep:40 end:short sleep:30 >/dev/null 2>&1
/usr/bin/python3 - "$TMP/s.json" >"$TMP/py" 2>&1 <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["phases"][0]["resources"]
assert r["approximate"] is False and r["acknowledged"] is True, r
assert r["minflt"] >= 0.99 * 2048, r
assert r["rss_growth_kb"] >= 0.9 * 8192, r
EOF
[ $? = 0 ] && ok || fail "$(cat "$TMP/py")"

t "the phase table shows CPU, faults and RSS growth, nested phases indented"
# synth allocates at once after its begin: its marker waits for its sample
"$P" run --no-save --interval 20 -- "$WORKLOADS/phwork" begin:prove begin:synth alloc:8 end:synth \
	spin:30 end:prove >/dev/null 2>"$TMP/err"
expect_grep '^phase +count +total +median +min +max +CPU +sys +minor flt +RSS growth' "$TMP/err" &&
	expect_grep '^prove +1 ' "$TMP/err" && expect_grep '^  synth +1 .* \+[0-9.]+ MiB( |$)' "$TMP/err" && ok

t "per name: totals and per-instance medians in phase_stats"
"$P" run -q --no-save --interval 20 -o "$TMP/n.json" -- "$WORKLOADS/phwork" begin:a alloc:2 end:a \
	begin:a alloc:4 end:a >/dev/null 2>&1
/usr/bin/python3 - "$TMP/n.json" >"$TMP/py" 2>&1 <<'EOF'
import json, sys
st = json.load(open(sys.argv[1]))["phase_stats"][0]
res = st["resources"]
assert st["count"] == 2, st
assert res["total"]["minflt"] >= 0.9 * 1536, res
assert 0.9 * 512 <= res["median"]["minflt"] <= 1.1 * 1024, res
assert "rss_max_kb" in res["total"], res
EOF
[ $? = 0 ] && ok || fail "$(cat "$TMP/py")"

t "bad phases: past the run, overlapping their own name, instant ones: defined figures, never negative"
"$P" run -q --no-save --interval 50 -o "$TMP/b.json" -- sh -c \
	'echo "PERFHUNT: long_ms=100000"; echo "PERFHUNT: begin=x"; echo "PERFHUNT: begin=x"; echo "PERFHUNT: end=x"; echo "PERFHUNT: end=x"; echo "PERFHUNT: begin=i"; echo "PERFHUNT: end=i"; echo "PERFHUNT: begin=open"' \
	>/dev/null 2>"$TMP/err"
expect_status 0 $? && no_sanitizer &&
/usr/bin/python3 - "$TMP/b.json" >"$TMP/py" 2>&1 <<'EOF'
import json, sys
for p in json.load(open(sys.argv[1]))["phases"]:
    r = p["resources"]
    for k, v in r.items():
        assert k == "approximate" or v >= 0 or k == "rss_growth_kb", (p["name"], k, v)
    assert isinstance(r["approximate"], bool)
EOF
[ $? = 0 ] && ok || fail "$(cat "$TMP/py")"

# 10 + 10 runs of 256 MiB: with 6 + 6 of 160 MiB, pin's 60 ms against 110 ms
# left the pair at Holm-adjusted p 0.041 ("inconclusive — run more") when
# two good runs of a loaded machine took 140 ms (seen with three suites
# beside it; 8 + 8 read p 0.028 with four)
t "compare of 10 + 10 runs: pin regressed with minor faults in its line, synth improved"
i=0
while [ $i -lt 10 ]; do
	i=$((i + 1))
	"$P" run -q --no-save --interval 50 -o "$TMP/good$i.json" -- "$W" --mib 256 --spin-ms 20 --sys-ms 20 >/dev/null 2>&1
	"$P" run -q --no-save --interval 50 -o "$TMP/bad$i.json" -- "$W" --bad --mib 256 --spin-ms 20 --sys-ms 20 >/dev/null 2>&1
done
good=$(echo "$TMP"/good[1-9].json "$TMP"/good10.json | tr ' ' ,); bad=$(echo "$TMP"/bad[1-9].json "$TMP"/bad10.json | tr ' ' ,)
"$P" compare --metric phase:pin --metric phase:synth --metric phase:pin.minflt --metric phase:synth.minflt \
	--metric phase:pin.sys_s --metric phase:synth.sys_s --export-json "$TMP/c.json" "$good" "$bad" >"$TMP/out" 2>&1
expect_grep '^phase:pin .* regressed$' "$TMP/out" && expect_grep '^phase:synth .* improved$' "$TMP/out" &&
	expect_grep '^  pin +\+[0-9.]+ ms .*: (.*, )?minor faults [0-9]+ → [1-9][0-9.]* k' "$TMP/out" &&
	expect_grep '^  synth +-[0-9.]+ ms .*: (.*, )?minor faults [1-9][0-9.]* k → [0-9]+' "$TMP/out" &&
	check "reasons in JSON" /usr/bin/python3 -c '
import json, sys
ph = {p["name"]: p for p in json.load(open(sys.argv[1]))["phases"]}
assert ph["pin"]["changed"] and ph["pin"]["reasons"][0]["metric"] == "minflt", ph["pin"]
assert ph["synth"]["reasons"][0]["metric"] == "minflt", ph["synth"]' "$TMP/c.json" && ok

t "compare: a nested phase is under its parent, and only top-level phases share the wall-time delta"
for s in a b; do
	ms=20; [ $s = b ] && ms=120
	"$P" run -q --no-save -o "$TMP/n$s.json" -- "$WORKLOADS/phwork" fd:begin=total fd:begin=inner sleep:$ms \
		fd:end=inner sleep:20 fd:end=total >/dev/null 2>&1
done
"$P" compare "$TMP/na.json" "$TMP/nb.json" >"$TMP/out" 2>&1
expect_grep '^  total +\+[0-9.]+ ms .*explains' "$TMP/out" && expect_grep '^    inner +\+[0-9.]+ ms' "$TMP/out" &&
	expect_no_grep '^    inner .*explains' "$TMP/out" && ok

t "attach mode: the daemon's log carries the phases; its tree's faults land in pin, the client's apart"
# a log line is read when the follower wakes: its marker cannot wait for the
# sample, so each phase waits 20 ms before its work (--settle-ms). A line
# perfhunt read over a millisecond after its own timestamp (woken late on a
# loaded machine) is interpolated, and its phases say approximate: a run
# where such a phase fell short is taken again, up to 3 times
try=0
while :; do
	try=$((try + 1))
	F="$TMP/ph$try.fifo"
	"$W" --bad --mib 64 --settle-ms 20 --fifo "$F" --log "$TMP/ph$try.log" 2>"$TMP/dtruth" &
	DP=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -s "$F.pid" ] && break; sleep 0.1; done
	"$P" run -q --no-save --interval 50 --idle-ms 200 --attach-pidfile "$F.pid" --probe-log "$TMP/ph$try.log" \
		-o "$TMP/att.json" -- sh -c "echo go >'$F'; while [ ! -s '$F.done' ]; do sleep 0.05; done" >/dev/null 2>"$TMP/err"
	st=$?
	echo quit >"$F"; wait $DP 2>/dev/null
	out=$(attributed "$TMP/att.json" "$TMP/dtruth" 0.9 said)
	ast=$?
	[ $st = 0 ] && [ $ast = 2 ] && [ $try -lt 3 ] || break
done
if [ $st = 0 ] && [ $ast = 2 ]; then
	skip "perfhunt read the daemon's log late in 3 runs, and its record said so ($out)"
else
	expect_status 0 $st && [ $ast = 0 ] &&
		check "client_resources" /usr/bin/python3 -c '
import json, sys
ph = {p["name"]: p for p in json.load(open(sys.argv[1]))["phases"]}
assert "client_resources" in ph["pin"] and ph["pin"]["client_resources"]["minflt"] < 1000, ph["pin"]' "$TMP/att.json" &&
		ok || fail "${out:-$(cat "$TMP/err")}"
fi

done_testing
