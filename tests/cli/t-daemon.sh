#!/bin/sh
# The daemon workflow end to end: a daemon that has run for a while (its
# first sample is a baseline), its costs beside the client's, one peak told
# the same way everywhere, bench --attach of a good and a bad build compared
# by phase and by the daemon's metrics, and a hung client under --timeout.
# The daemon logs as Rust's tracing does, colours included.
. ./lib.sh
P="$PERFHUNT"
D="$WORKLOADS/phdaemon"
export PERFHUNT_STATE_DIR="$TMP/state"
S="$TMP/d.sock"

start_daemon() { # start_daemon EXTRA...: holds 40 MiB, 24 MiB per request, some history
	rm -f "$S"
	"$D" serve "$S" "$TMP/d.log" 40 24 log=tracing color "$@" &
	DPID=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$S" ] && break; sleep 0.1; done
	"$D" request "$S" 2 >/dev/null # it has worked before anyone measures it
}
stop_daemon() { kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; }

t "run --attach: the first sample is a baseline; the daemon's lifetime is at_attach, not a delta"
start_daemon
"$P" run -q --no-save --interval 10 --idle-ms 200 --attach "$DPID" --probe-log "$TMP/d.log" \
	--csv "$TMP/a.csv" -o "$TMP/a.json" -- "$D" request "$S" 3 >/dev/null; st=$?
expect_status 0 $st && /usr/bin/python3 - "$TMP/a.json" "$TMP/a.csv" <<'PY' && ok || fail "$(head -3 "$TMP/a.csv")"
import csv, json, sys
r = json.load(open(sys.argv[1]))
d = r["trees"]["daemon"]
# 40 MiB held plus two requests of 24 MiB before attach: its own faults, not the run's
assert d["at_attach"]["minflt"] >= 10240 + 2 * 6144, d["at_attach"]
rows = list(csv.DictReader(open(sys.argv[2])))
first = rows[0]
for k in ("user_ms", "sys_ms", "minflt", "majflt", "vcsw", "ivcsw", "read_bytes", "write_bytes"):
    assert float(first[k]) == 0, (k, first[k])
# the run's own work is in the later rows: 3 requests of 24 MiB
assert sum(int(x["minflt"]) for x in rows) >= 3 * 6144 * 0.9
assert d["minflt"] >= 3 * 6144 * 0.9 and d["minflt"] < d["at_attach"]["minflt"] + 3 * 6144
cols = r["samples"]["columns"]
row0 = r["samples"]["rows"][0]
assert row0[cols.index("minflt")] == 0 and row0[cols.index("user_ms")] == 0
PY

t "one peak: the summary, the peaks, the report's chart and the CSV name the same sample and phases"
"$P" peak --column tree_pss_kb "$TMP/a.csv" >"$TMP/peak.txt" 2>&1
"$P" report -o "$TMP/a.html" "$TMP/a.json" 2>/dev/null
/usr/bin/python3 - "$TMP/a.json" "$TMP/peak.txt" "$TMP/a.html" <<'PY' && ok || fail "$(cat "$TMP/peak.txt")"
import json, re, sys
r = json.load(open(sys.argv[1]))
d, c, s = r["trees"]["daemon"], r["trees"]["client"], r["summary"]
peaks = {p["scope"]: p for p in r["peaks"] if not p["exact"]}
assert peaks["daemon"]["at_ms"] == d["peak_at_ms"] and peaks["daemon"]["phase"] == d["peak_phase"]
assert peaks["client"]["at_ms"] == c["peak_at_ms"] and peaks["client"]["phase"] == c["peak_phase"]
assert peaks["both"]["at_ms"] == s["peak_at_ms"] and peaks["both"]["phase"] == s["peak_phase"]
assert peaks["both"]["kb"] == s["peak_tree_rss_kb"]
# the working set is touched in alloc and held through prove: the top falls in either
# (or, sampled right at their boundary, in neither: the durations are whole ms)
assert d["peak_phase"] in ("", "alloc", "prove", "alloc+prove"), d["peak_phase"]
# the CSV's peak is the daemon's (its tree column: the daemon is in no cgroup) at the daemon's sample
m = re.search(r"tree_pss_kb (\d+) .*, line \d+: (\S+)", open(sys.argv[2]).read())
row = m.group(2).split(",")   # the row itself: its t_ms is the sample's
assert int(m.group(1)) == d["peak_rss_kb"] and abs(float(row[3]) - d["peak_at_ms"]) < 0.1, (m.groups(), d)
html = open(sys.argv[3]).read()
assert "daemon peak" in html and html.count("peak (tree, sampled)") == 0
assert "peak (daemon)" in html and "peak (client)" in html and "peak (both trees)" in html
PY

t "the summary shows the daemon's CPU, faults, context switches, I/O and peak beside the client's"
"$P" show "$TMP/a.json" >"$TMP/show.txt" 2>&1
expect_grep '^ +client +daemon \(pid [0-9]+\)$' "$TMP/show.txt" &&
	expect_grep '^  CPU user / sys ' "$TMP/show.txt" &&
	expect_grep '^  page faults +[0-9.]+ / 0 +1[0-9.]+ k / 0 ' "$TMP/show.txt" &&
	expect_grep '^  context switches ' "$TMP/show.txt" &&
	expect_grep '^  daemon peak .* above its idle ' "$TMP/show.txt" &&
	expect_grep '^  daemon before .* minor faults: its lifetime until perfhunt attached' "$TMP/show.txt" && ok

t "--counters reach the attached daemon and the watched tree (or say why not)"
"$P" run -q --no-save --interval 20 --idle-ms 100 --attach "$DPID" -e task-clock,page-faults \
	-o "$TMP/c.json" -- "$D" request "$S" 2 >/dev/null 2>&1
# --detach returns once the monitor samples, its counters open: the
# requests after it are counted whole, however long perfhunt took to start
wid=$("$P" watch -q --no-save --detach --interval 20 -e task-clock,page-faults -o "$TMP/wc.json" "$DPID")
"$D" request "$S" 2 >/dev/null
"$P" stop "$wid" >/dev/null 2>&1
/usr/bin/python3 - "$TMP/c.json" "$TMP/wc.json" <<'PY' && ok || fail "$(jget "$TMP/wc.json" counters) $(jget "$TMP/wc.json" notes)"
import json, sys
r, w = (json.load(open(f)) for f in sys.argv[1:])
def counted(c, why):
    pf = c.get("page-faults", {})
    if pf.get("status") == "not permitted":   # perf_event_paranoid: said, not silent
        return True
    assert pf.get("status") == "counted", (why, c)
    assert pf["value"] >= 2 * 6144 * 0.9, (why, pf)    # two requests of 24 MiB
    return True
counted(r["trees"]["daemon"]["counters"], "daemon")
assert w["counters"] or w["notes"], "watch --counters recorded nothing and said nothing"
if w["counters"]:
    counted(w["counters"], "watch")
PY

t "watch --detach, a client by hand, stop: the baseline rule and the daemon's phases"
: >"$TMP/w.csv"
id=$("$P" watch --no-save --detach --interval 10 --probe-log "$TMP/d.log" --csv "$TMP/w.csv" \
	-o "$TMP/w.json" "$DPID")
"$D" request "$S" 3 >/dev/null
sleep 0.3
"$P" stop "$id" 2>"$TMP/stop"; st=$?
expect_status 0 $st && expect_grep 'sampled peak .* in phase (alloc|prove)' "$TMP/stop" &&
	expect_grep '^  before attach .* minor faults' "$TMP/stop" &&
	/usr/bin/python3 - "$TMP/w.json" "$TMP/w.csv" <<'PY' && ok || fail "$(head -3 "$TMP/w.csv")"
import csv, json, sys
r = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert all(float(rows[0][k]) == 0 for k in ("user_ms", "sys_ms", "minflt", "vcsw"))
assert r["summary"]["at_attach"]["minflt"] >= 10240
assert [p["name"] for p in r["phases"]].count("prove") == 3
PY
stop_daemon

t "bench --attach, a good and a bad build, 5 runs each; compare names the phase and the daemon's metrics"
start_daemon
# the daemon's figures are its PSS (it is in no cgroup of perfhunt's): 24 and 40 MiB
# above idle, within half a MiB (under ASan its allocator reuses a few idle pages)
"$P" bench -q --no-save -n 5 --interval 10 --idle-ms 100 --attach "$DPID" --probe-log "$TMP/d.log" \
	--export-json "$TMP/good.json" -- "$D" request "$S" 2 >"$TMP/bg.txt" 2>&1; st1=$?
stop_daemon
start_daemon bad pidfile="$TMP/d.pid"
"$P" bench -q --no-save -n 5 --interval 10 --idle-ms 100 --attach-pidfile "$TMP/d.pid" --probe-log "$TMP/d.log" \
	--export-json "$TMP/bad.json" -- "$D" request "$S" 2 >"$TMP/bb.txt" 2>&1; st2=$?
stop_daemon
"$P" compare "$TMP/good.json" "$TMP/bad.json" >"$TMP/cmp.txt" 2>&1
# 5 runs a side: a few metrics at a time, or Holm's correction over all of them hides a change
"$P" compare --metric phase:prove --metric phase:alloc --metric daemon.peak_rss_kb "$TMP/good.json" \
	"$TMP/bad.json" >"$TMP/cmp1.txt" 2>&1; st3=$?
expect_status 0 $st1 && expect_status 0 $st2 && expect_status 0 $st3 &&
	expect_grep '^  daemon +peak .* above idle' "$TMP/bg.txt" &&
	expect_grep '^daemon\.peak_above_idle_kb +2(3\.[5-9][0-9]|4\.0[0-9]) MiB +(39\.[5-9][0-9]|40\.0[0-9]) MiB' "$TMP/cmp.txt" &&
	expect_grep '^daemon\.minflt ' "$TMP/cmp.txt" && expect_grep '^phase:prove ' "$TMP/cmp.txt" &&
	expect_grep '^phase:prove .*regressed' "$TMP/cmp1.txt" &&
	expect_grep '^daemon\.peak_rss_kb .*regressed' "$TMP/cmp1.txt" && expect_grep '^phase:alloc ' "$TMP/cmp1.txt" &&
	/usr/bin/python3 - "$TMP/good.json" "$TMP/bad.json" <<'PY' && ok || fail "$(cat "$TMP/cmp.txt")"
import json, sys
g, b = (json.load(open(f)) for f in sys.argv[1:])
for rec in (g, b):
    runs = rec["commands"][0]["runs"]
    assert len(runs) == 5
    for r in runs:   # each run attached for the client's lifetime, with its own idle level
        d = r["trees"]["daemon"]
        assert 40 * 1024 <= d["idle_rss_kb"] <= 60 * 1024 and d["at_attach"]["minflt"] > 0
        assert [p["name"] for p in r["phases"]].count("prove") == 2
    assert "daemon.peak_rss_kb" in rec["commands"][0]["stats"]
gp = g["commands"][0]["stats"]["daemon.peak_above_idle_kb"]["median"]
bp = b["commands"][0]["stats"]["daemon.peak_above_idle_kb"]["median"]
assert bp - gp >= 12 * 1024, (gp, bp)   # the bad build's 16 MiB more in prove
PY

t "bench --timeout: a hung client is killed, recorded as failed with its timeline, the bench goes on"
start_daemon
"$P" bench --no-save -n 2 --interval 20 --idle-ms 50 --timeout 700ms --attach "$DPID" \
	--export-json "$TMP/to.json" -- "$D" request "$S" 1 ::: "$D" request "$S" 1 hang \
	>"$TMP/to.txt" 2>"$TMP/to.err"; st=$?
stop_daemon
expect_status 1 $st && expect_grep "timed out \(run 2 of 2\): its tree was killed" "$TMP/to.err" &&
	expect_grep '^  failed +2 runs timed out' "$TMP/to.txt" &&
	/usr/bin/python3 - "$TMP/to.json" <<'PY' && ok || fail "$(cat "$TMP/to.txt" "$TMP/to.err")"
import json, sys
r = json.load(open(sys.argv[1]))
good, hung = r["commands"]
assert len(good["runs"]) == 2 and not good.get("failed")
assert len(hung["runs"]) == 0 and len(hung["failed"]) == 2
for f in hung["failed"]:
    assert f["exit"]["timed_out"] is True and f["exit"]["signal_name"] == "SIGKILL"
    assert 0.6 <= f["summary"]["wall_s"] < 3, f["summary"]["wall_s"]
    assert len(f["samples"]["rows"]) >= 5          # the partial timeline is kept
    assert any("timed out" in n for n in f["notes"])
PY

t "usage: bench --timeout needs a duration; two ways of naming the daemon"
"$P" bench --timeout 0 -- true 2>/dev/null; s1=$?
"$P" bench --attach 1 --attach-name x -- true 2>/dev/null; s2=$?
expect_status 2 $s1 && expect_status 2 $s2 && ok

done_testing
