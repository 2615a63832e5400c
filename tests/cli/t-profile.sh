#!/bin/sh
# --profile: on-CPU stacks through perf, placed in the phases, in the record
# and its exports. phprof (-O2, no frame pointers) burns alpha 2:1 against
# beta, then a forked child and a thread in "spawn". Skips where perf cannot
# sample here (not installed, or no privilege).
. ./lib.sh
W=$WORKLOADS/phprof

# pyget FILE EXPR: prints a Python expression over the record r
pyget() { /usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); p=r.get("profile",{})
def share(phase, fn):
    st=p["phases"][phase]["stacks"]; n=sum(s["count"] for s in st)
    return sum(s["count"] for s in st if fn in s["stack"].split(";"))/max(n,1)
print(eval(sys.argv[2]))' "$1" "$2"; }

t "each phase's profile is its own function's, names resolved, callers present"
"$PERFHUNT" run -q --no-save --profile -o "$TMP/r.json" --export-folded "$TMP/f.txt" \
	--export-speedscope "$TMP/s.json" --export-trace "$TMP/t.json" -- "$W" 300 spawn >"$TMP/out" 2>"$TMP/err"
st=$?
if ! command -v perf >/dev/null 2>&1; then
	skip "perf is not installed"
	PERF=0
elif [ "$(jget "$TMP/r.json" profile.samples 2>/dev/null)" = "" ]; then
	skip "perf cannot sample here: $(grep 'profile not recorded' "$TMP/err" | head -1)"
	PERF=0
else
	PERF=1
	expect_status 0 "$st" &&
	check "alpha is hot_alpha's: $(pyget "$TMP/r.json" 'share("alpha","hot_alpha")')" \
		[ "$(pyget "$TMP/r.json" 'share("alpha","hot_alpha") >= 0.8')" = True ] &&
	check "beta is hot_beta's: $(pyget "$TMP/r.json" 'share("beta","hot_beta")')" \
		[ "$(pyget "$TMP/r.json" 'share("beta","hot_beta") >= 0.8')" = True ] &&
	check "callers (main) under the hot functions" \
		[ "$(pyget "$TMP/r.json" 'share("alpha","main") >= 0.8 and share("beta","main") >= 0.8')" = True ] &&
	check "alpha about twice beta: $(pyget "$TMP/r.json" 'p["phases"]["alpha"]["samples"]/max(p["phases"]["beta"]["samples"],1)')" \
		[ "$(pyget "$TMP/r.json" '1.4 <= p["phases"]["alpha"]["samples"]/max(p["phases"]["beta"]["samples"],1) <= 2.8')" = True ] &&
	check "each stack starts at its process: $(pyget "$TMP/r.json" 'p["phases"]["alpha"]["stacks"][0]["stack"][:40]')" \
		[ "$(pyget "$TMP/r.json" 'p["stacks_root"]=="process" and all(s["stack"].split(";")[0]=="phprof" for s in p["phases"]["alpha"]["stacks"] if s["stack"]!="[other]")')" = True ] &&
	check "event, frequency, unwinding and bound are stated" \
		[ "$(pyget "$TMP/r.json" 'p["frequency_hz"]==99 and p["unwinding"]=="dwarf" and p["event"] in ("cycles","cpu-clock") and p["stack_bound"]>0')" = True ] &&
	ok
fi

t "a forked child and a thread are profiled"
if [ "$PERF" = 1 ]; then
	check "child_work and thread_work in spawn: $(pyget "$TMP/r.json" '(share("spawn","child_work"), share("spawn","thread_work"))')" \
		[ "$(pyget "$TMP/r.json" 'share("spawn","child_work") > 0.2 and share("spawn","thread_work") > 0.2')" = True ] &&
	check "the measured tree holds no perf process" \
		[ "$(jget "$TMP/r.json" summary.max_procs)" -le 2 ] && ok
else skip "perf cannot sample here"; fi

t "watch --profile: a process already running is profiled (its stacks, its function)"
if [ "$PERF" = 1 ]; then
	"$WORKLOADS/phprof" 3000 >/dev/null 2>&1 & WP=$!
	sleep 0.3
	"$PERFHUNT" watch -q --no-save --profile --duration 1500ms -o "$TMP/w.json" "$WP" 2>"$TMP/err"
	st=$?
	kill "$WP" 2>/dev/null; wait "$WP" 2>/dev/null
	expect_status 0 $st &&
		check "samples: $(jget "$TMP/w.json" profile.samples)" [ "$(jget "$TMP/w.json" profile.samples)" -ge 20 ] &&
		check "unreadable lines" [ "$(jget "$TMP/w.json" profile.problems.unreadable_lines)" = 0 ] &&
		expect_grep 'hot_(alpha|beta)' "$TMP/w.json" && ok
else skip "perf cannot sample here"; fi

# flame_check PAGE RECORD: the report's flame graphs against the record's profile
flame_check() {
	/usr/bin/python3 - "$1" "$2" >"$TMP/py" 2>&1 <<'PY'
import html.parser, json, re, sys
page, rec = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
prof = rec["profile"]
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.ids = set(); s.hrefs = []; s.fig = None; s.figs = {}; s.g = []; s.text = None
    def handle_starttag(s, tag, a):
        a = dict(a)
        if "id" in a: s.ids.add(a["id"])
        if tag == "a" and "href" in a: s.hrefs.append(a["href"])
        if tag == "figure" and "flame" in a.get("class", ""):
            s.fig = a.get("id"); s.figs[s.fig] = []
        if tag == "g" and s.fig is not None: s.g.append(a.get("class", ""))
        if tag == "text" and s.fig is not None and s.g: s.text = ""
    def handle_endtag(s, tag):
        if tag == "figure": s.fig = None
        if tag == "g" and s.g: s.g.pop()
        if tag == "text" and s.text is not None:
            s.figs[s.fig].append((s.g[-1], s.text)); s.text = None
    def handle_data(s, d):
        if s.text is not None: s.text += d
p = P(); p.feed(page)
phases = [n for n, v in prof["phases"].items() if v["samples"] > 0]
want = {"flame-" + n for n in phases} | {"profile-run"}
# a graphed phase whose threads blocked (off-CPU stacks recorded) gets its wall-clock graph too
off = prof.get("offcpu", {}).get("phases", {})
want |= {"wall-" + n for n in phases if off.get(n, {}).get("stacks")}
assert set(p.figs) == want, (sorted(p.figs), sorted(want))
def labels(fig): return {t for c, t in p.figs[fig] if c.startswith("f ")}
assert "hot_alpha" in labels("flame-alpha") and "hot_alpha" not in labels("flame-beta"), labels("flame-alpha")
assert "hot_beta" in labels("flame-beta") and "hot_beta" not in labels("flame-alpha"), labels("flame-beta")
assert all(c == "f fu" for c, t in p.figs["flame-alpha"] if t in ("hot_alpha", "main")), p.figs["flame-alpha"]
kernel = any("_[k]" in st["stack"] for l in [prof["run"]] + list(prof["phases"].values()) for st in l["stacks"])
fk = re.findall(r'<g class="f fk"><title>[^<]*\[kernel\]', page)
assert (len(fk) > 0) == kernel and "_[k]</text>" not in page, (kernel, len(fk))
lanes = page[page.index('id="lanes"'):]
lanes = lanes[:lanes.index("</svg>")]
for n in phases:
    assert '<a href="#flame-%s">' % n in lanes, n
run = page[page.index('id="profile-run"'):]
run = run[:run.index("</figure>")]
for n in phases:  # the whole run's phase frames lead to their phase's graph
    assert '<a href="#flame-%s"><g class="f fm">' % n in run, n
bad = [h for h in p.hrefs if h.startswith("#") and h[1:] not in p.ids]
assert not bad and len(p.hrefs) >= 2 * len(phases), (bad, p.hrefs)
print("graphs", len(p.figs), "kernel frames", len(fk), "links", len(p.hrefs))
PY
}

t "report: a flame graph per phase, each hot function labelled in its own, the links resolve"
if [ "$PERF" = 1 ]; then
	"$PERFHUNT" report -o "$TMP/r.html" "$TMP/r.json" 2>"$TMP/err"
	expect_status 0 $? && { flame_check "$TMP/r.html" "$TMP/r.json" && echo "# $(cat "$TMP/py")" && ok || fail "$(cat "$TMP/py")"; }
else skip "perf cannot sample here"; fi

t "report of a profile: renders in headless Chromium"
if [ "$PERF" = 1 ]; then
	out=$(sh ../browser/render.sh "$TMP/r.html" "$TMP/r.png"); st=$?
	if [ $st = 77 ]; then skip "$out"; else expect_status 0 $st && echo "# $out" && ok || fail "$out"; fi
else skip "perf cannot sample here"; fi

t "--export-folded: stacks rooted at their phase, 'frames count' lines"
if [ "$PERF" = 1 ]; then
	expect_grep '^\[phase:alpha\];.*;main;hot_alpha [0-9]+$' "$TMP/f.txt" &&
	expect_grep '^\[phase:beta\];.*hot_beta [0-9]+$' "$TMP/f.txt" &&
	check "every line is 'stack count'" sh -c "! grep -v -E '^[^ ].* [0-9]+\$' '$TMP/f.txt'" && ok
else skip "perf cannot sample here"; fi

t "--export-speedscope: the schema, one profile for the run and one per phase"
if [ "$PERF" = 1 ]; then
	/usr/bin/python3 - "$TMP/s.json" >"$TMP/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
names = [p["name"] for p in d["profiles"]]
assert names[0].startswith("run") and {"phase alpha", "phase beta", "phase spawn"} <= set(names), names
nf = len(d["shared"]["frames"])
for p in d["profiles"]:
    assert p["type"] == "sampled" and p["unit"] == "milliseconds"
    assert len(p["samples"]) == len(p["weights"])
    assert all(0 <= i < nf for s in p["samples"] for i in s)
    assert abs(sum(p["weights"]) - p["endValue"]) < 1e-6
PY
	[ $? = 0 ] && ok || fail "$(cat "$TMP/py")"
else skip "perf cannot sample here"; fi

t "--export-speedscope: the run's samples in time order (Time Order is the run's chronology)"
if [ "$PERF" = 1 ]; then
	/usr/bin/python3 - "$TMP/s.json" "$TMP/r.json" >"$TMP/py" 2>&1 <<'PY'
import json, sys
d, r = (json.load(open(f)) for f in sys.argv[1:3])
fr, run = d["shared"]["frames"], d["profiles"][0]
tl = r["profile"]["timeline"]
assert tl["dropped"] == 0, "the timeline dropped samples"
assert run["name"] == "run (rooted at phases, in time order)", run["name"]
got = [";".join(fr[i]["name"] for i in s) for s in run["samples"]]
want = [tl["stacks"][s[3]] for s in sorted(tl["samples"], key=lambda s: s[0])]
assert got == want, "the samples are not the timeline's in time order"
assert len(got) == r["profile"]["samples"], (len(got), r["profile"]["samples"])
# phprof runs alpha, then beta, then spawn: their samples follow in that order
order = {"[phase:alpha]": 0, "[phase:beta]": 1, "[phase:spawn]": 2}
seq = [order[s.split(";")[0]] for s in got if s.split(";")[0] in order]
assert seq == sorted(seq) and set(seq) == {0, 1, 2}, seq
print("%d samples in time order" % len(got))
PY
	[ $? = 0 ] && echo "# $(tail -1 "$TMP/py")" && ok || fail "$(cat "$TMP/py")"
else skip "perf cannot sample here"; fi

# trace_check FILE: the trace-event format's documented fields, every event
# (trace_check.py says which, and why the trace processor is not used here);
# its first line, the event types seen, goes to $TMP/py
trace_check() { /usr/bin/python3 ./trace_check.py "$@" >"$TMP/py" 2>&1; }
# trace_ok FILE TYPES [--stacks]: trace_check passes and the types seen are TYPES, else the case fails
trace_ok() {
	trace_check ${3:-} "$1" && [ "$(head -1 "$TMP/py")" = "$2" ] || { fail "$(cat "$TMP/py")"; return 1; }
}

t "--export-trace: trace events with their documented fields (X, C, P, M), sampled stacks both ways"
if [ "$PERF" = 1 ]; then
	trace_ok "$TMP/t.json" "C M P X" --stacks && sed -n 2p "$TMP/py" && ok
else skip "perf cannot sample here"; fi

t "--export-trace: the CPU profile lies under its phases, each sample where perf took it"
if [ "$PERF" = 1 ]; then
	/usr/bin/python3 - "$TMP/t.json" "$TMP/r.json" >"$TMP/py" 2>&1 <<'PY'
import json, sys
t, r = (json.load(open(f)) for f in sys.argv[1:3])
ev = t["traceEvents"]
alpha = [e for e in ev if e["ph"] == "X" and e["name"] == "alpha"][0]
beta = [e for e in ev if e["ph"] == "X" and e["name"] == "beta"][0]
# the CPU profiles: each chunk's samples at Profile startTime + the running sum of timeDeltas
nodes, at = {}, []
starts = {(e["pid"], e["id"]): e["args"]["data"]["startTime"] for e in ev if e["name"] == "Profile"}
for e in ev:
    if e["name"] != "ProfileChunk":
        continue
    d = e["args"]["data"]
    for n in d["cpuProfile"]["nodes"]:
        nodes[n["id"]] = (n["callFrame"]["functionName"], n.get("parent"))
    ts = starts[(e["pid"], e["id"])]
    for nid, dt in zip(d["cpuProfile"]["samples"], d["timeDeltas"]):
        ts += dt
        names = []
        while nid is not None:
            names.append(nodes[nid][0]); nid = nodes[nid][1]
        at.append((ts, names))
tl = r["profile"]["timeline"]
assert len(at) == len(tl["samples"]), (len(at), len(tl["samples"]))
# at perf's times, to the microsecond the trace keeps
assert all(abs(x - y) <= 1 for x, y in zip(sorted(ts for ts, _ in at), sorted(s[0] * 1000 for s in tl["samples"])))
def inside(fn, ph):
    hits = [ts for ts, names in at if fn in names]
    return sum(ph["ts"] <= ts <= ph["ts"] + ph["dur"] for ts in hits) / max(len(hits), 1), len(hits)
a, b = inside("hot_alpha", alpha), inside("hot_beta", beta)
assert a[1] >= 10 and a[0] >= 0.95 and b[1] >= 5 and b[0] >= 0.95, (a, b)
# the legacy samples name the same stacks
sf = t["stackFrames"]
def chain(i):
    out = []
    while i is not None:
        out.append(sf[str(i)]["name"]); i = sf[str(i)].get("parent")
    return out
assert sum("hot_alpha" in chain(s["sf"]) for s in t["samples"]) == a[1]
print("hot_alpha: %d samples, %.0f %% in alpha; hot_beta: %d, %.0f %% in beta" % (a[1], 100 * a[0], b[1], 100 * b[0]))
PY
	[ $? = 0 ] && echo "# $(tail -1 "$TMP/py")" && ok || fail "$(cat "$TMP/py")"
else skip "perf cannot sample here"; fi

t "--export-trace without --profile: phases and counters"
"$PERFHUNT" run -q --no-save --export-trace "$TMP/t2.json" -- "$W" 50 >/dev/null 2>"$TMP/err"
expect_status 0 $? && trace_ok "$TMP/t2.json" "C M X" && ok

t "--export-trace: phases that overlap in one lane get a track of their own, slices nest"
"$PERFHUNT" run -q --no-save --interval 5 -o "$TMP/ov.json" --export-trace "$TMP/ov.trace" -- "$WORKLOADS/phwork" \
	begin:a sleep:20 begin:b sleep:20 end:a sleep:20 'out:PERFHUNT: x_ms=30' sleep:5 end:b sleep:10 \
	'out:PERFHUNT: y_ms=30' 'out:PERFHUNT: k_ms=15 gpu_tid=0' sleep:40 'out:PERFHUNT: k_ms=12 gpu_tid=0' >/dev/null 2>"$TMP/err"
# a [0, 40] and b [20, 65] overlap: two tracks; x [30, 60] nests in b, y [45, 75] follows a.
# The markers wait for perfhunt's sample: written to the fd without it, a
# starved perfhunt can read begin=a, begin=b and end=a at one instant: one
# track (seen once under load). The two k follow each other on their lane:
# printed at once, they nested only where perfhunt read both in one read
# (read apart, the second began 12 ms before its line, inside the first)
st=$?
tracks=$(/usr/bin/python3 -c 'import json,sys
print(sorted(e["args"]["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e["name"]=="thread_name"))' "$TMP/ov.trace")
expect_status 0 $st && trace_ok "$TMP/ov.trace" "C M X" &&
	check "tracks: $tracks" [ "$tracks" = "['gpu_tid=0', 'phases', 'phases (2)']" ] && ok

t "the trace check finds overlapping slices, a thread without a name, a profile out of order, no stacks"
printf '%s\n' '{"traceEvents":[{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"p"}},' \
	'{"name":"a","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},{"name":"b","ph":"X","ts":5,"dur":10,"pid":1,"tid":1},' \
	'{"name":"c","ph":"C","ts":1,"pid":1,"args":{"v":"x"}},{"name":"d","ph":"i","ts":1,"pid":1,"tid":2},' \
	'{"name":"ProfileChunk","ph":"P","id":"0x1","ts":1,"pid":1,"tid":3,"args":{"data":{}}},' \
	'{"name":"Profile","ph":"P","id":"0x2","ts":1,"pid":1,"tid":3,"args":{"data":{"startTime":1}}},' \
	'{"name":"ProfileChunk","ph":"P","id":"0x2","ts":1,"pid":1,"tid":3,"args":{"data":{"cpuProfile":' \
	'{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":7,"callFrame":{"functionName":"f"}}],' \
	'"samples":[1,1]},"timeDeltas":[5,-2]}}}],"stackFrames":{"1":{"name":"m","parent":9}},"samples":[{"ts":1,"tid":1,"sf":4}]}' >"$TMP/bad.trace"
if trace_check --stacks "$TMP/bad.trace"; then fail "a bad trace passed"; else
	expect_grep "overlaps 'a' \[0, 10\] without nesting" "$TMP/py" && expect_grep "thread 1/1 has events but no thread_name" "$TMP/py" &&
	expect_grep "is not a non-empty object of numbers" "$TMP/py" && expect_grep "scope s None" "$TMP/py" &&
	expect_grep "ProfileChunk before its Profile" "$TMP/py" && expect_grep "node 2's parent 7 is not an earlier node" "$TMP/py" &&
	expect_grep "timeDelta -2 is not a number >= 0" "$TMP/py" && expect_grep "stack frame 1's parent 9 is not a frame" "$TMP/py" &&
	expect_grep "sample 0: sf 4 is not a frame" "$TMP/py" && expect_grep "no samples with stacks" "$TMP/py" && ok; fi

t "show RUN --export-*: a stored record's exports are those run wrote"
if [ "$PERF" = 1 ]; then
	"$PERFHUNT" show "$TMP/r.json" --export-folded "$TMP/f3.txt" --export-speedscope "$TMP/s3.json" \
		--export-trace "$TMP/t3.json" --export-openmetrics "$TMP/o3.txt" >"$TMP/out" 2>"$TMP/err"
	expect_status 0 $? && expect_grep '^  exit status +0' "$TMP/out" && expect_grep 'hot_alpha|alpha' "$TMP/out" &&
	check "the folded stacks are run's" cmp -s "$TMP/f.txt" "$TMP/f3.txt" &&
	check "the trace is run's" cmp -s "$TMP/t.json" "$TMP/t3.json" &&
	check "the speedscope profiles are run's (weights to the record's rounding of ms_per_sample)" /usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["shared"] == b["shared"] and [p["name"] for p in a["profiles"]] == [p["name"] for p in b["profiles"]]
for p, q in zip(a["profiles"], b["profiles"]):
    assert p["samples"] == q["samples"]
    assert all(abs(x - y) <= 1e-6 * x for x, y in zip(p["weights"], q["weights"]))' "$TMP/s.json" "$TMP/s3.json" &&
	expect_grep '^perfhunt_wall_seconds\{' "$TMP/o3.txt" &&
	trace_ok "$TMP/t3.json" "C M P X" --stacks && ok
else skip "perf cannot sample here"; fi

t "show @last --export-folded -q: the history's run, nothing printed"
if [ "$PERF" = 1 ]; then
	"$PERFHUNT" run -q --profile -- "$W" 100 >/dev/null 2>&1
	"$PERFHUNT" show -q @last --export-folded "$TMP/f4.txt" --export-trace "$TMP/t4.json" >"$TMP/out" 2>"$TMP/err"
	expect_status 0 $? && check "nothing on stdout: $(cat "$TMP/out")" [ ! -s "$TMP/out" ] &&
	expect_grep '^\[phase:alpha\];.*;main;hot_alpha [0-9]+$' "$TMP/f4.txt" &&
	expect_grep 'note: @last holds no sample rows \(the history keeps none\): the trace has no counters' "$TMP/err" &&
	trace_ok "$TMP/t4.json" "M P X" --stacks && ok
else skip "perf cannot sample here"; fi

t "show --export-trace of a run without a profile: phases and counters"
"$PERFHUNT" run -q --no-save -o "$TMP/np.json" -- "$W" 30 >/dev/null 2>&1
"$PERFHUNT" show -q "$TMP/np.json" --export-trace "$TMP/np.trace" 2>"$TMP/err"
expect_status 0 $? && trace_ok "$TMP/np.trace" "C M X" && ok

t "show: a profile export of a record without one: one line, status 1, no file written"
"$PERFHUNT" show "$TMP/np.json" --export-folded "$TMP/nf.txt" --export-trace "$TMP/nt.json" >"$TMP/out" 2>"$TMP/err"
expect_status 1 $? &&
	check "one line: $(cat "$TMP/err")" [ "$(cat "$TMP/err")" = "perfhunt show: $TMP/np.json has no profile (record it with --profile)" ] &&
	check "no file written" [ ! -e "$TMP/nf.txt" ] && check "no trace written" [ ! -e "$TMP/nt.json" ] &&
	check "nothing printed" [ ! -s "$TMP/out" ] && ok

t "show @last: a profile export of a stored run without one: the same line"
"$PERFHUNT" run -q -- "$W" 10 >/dev/null 2>&1
"$PERFHUNT" show @last --export-speedscope "$TMP/ns.json" >/dev/null 2>"$TMP/err"
expect_status 1 $? && check "one line: $(cat "$TMP/err")" \
	[ "$(cat "$TMP/err")" = "perfhunt show: @last has no profile (record it with --profile)" ] &&
	check "no file written" [ ! -e "$TMP/ns.json" ] && ok

t "show of a bench record: a one-run export says how to name one run"
"$PERFHUNT" bench -q -n 2 --no-save --export-json "$TMP/b.json" -- "$W" 10 >/dev/null 2>&1
"$PERFHUNT" show "$TMP/b.json" --export-trace "$TMP/bt.json" >/dev/null 2>"$TMP/err"
expect_status 1 $? && expect_grep "^perfhunt show: .*b.json is a bench record and --export-trace writes one run: name that run by its ID \(see 'perfhunt history'\)$" "$TMP/err" &&
	check "no file written" [ ! -e "$TMP/bt.json" ] && ok

t "--export-folded without a profile: one line, status 1"
"$PERFHUNT" run -q --no-save --export-folded "$TMP/f2.txt" -- "$W" 10 >/dev/null 2>"$TMP/err"
expect_status 1 $? && expect_grep "no profile \(record it with --profile\)" "$TMP/err" && ok

t "a program without symbols: addresses and the mapping's name"
if [ "$PERF" = 1 ] && command -v objcopy >/dev/null 2>&1; then
	# without its build id too: perf would find the symbols of the same build elsewhere
	objcopy --strip-all --remove-section=.note.gnu.build-id "$W" "$TMP/phprof-stripped"
	"$PERFHUNT" run -q --no-save --profile -o "$TMP/s.rec" -- "$TMP/phprof-stripped" 100 >/dev/null 2>"$TMP/err"
	expect_status 0 $? &&
	check "phprof-stripped+0x... frames: $(pyget "$TMP/s.rec" 'p["run"]["stacks"][0]["stack"]')" \
		[ "$(pyget "$TMP/s.rec" 'any("phprof-stripped+0x" in s["stack"] for s in p["run"]["stacks"]) and p["problems"]["unnamed_frames"]>0')" = True ] && ok
else skip "perf cannot sample here, or no objcopy"; fi

t "mlock in the bad build: most of pin's samples under the kernel's page population"
# phpin pins 192 MiB: the good build touched it before (mlock takes no fault),
# the bad one did not (every page is populated inside mlock, in the kernel)
if [ "$PERF" = 1 ]; then
	for b in good bad; do
		flag=; [ $b = bad ] && flag=--bad
		# 10 runs a side of 192 MiB: with 5 of 96 MiB, outlier runs of a loaded
		# machine left pin's 30 ms regression short of significance (so no
		# profile diff); with 7, pin read +18 % at p 0.15 once, a suite beside it
		"$PERFHUNT" bench -n 10 --profile --profile-hz 499 --no-save --export-json "$TMP/pin-$b.json" -- \
			"$WORKLOADS/phpin" $flag --mib 192 --spin-ms 10 --sys-ms 10 >/dev/null 2>"$TMP/err-$b"
	done
	# the share of pin's samples, over the ten runs, whose stack holds both frames
	under() { /usr/bin/python3 -c 'import json,sys
runs=json.load(open(sys.argv[1]))["commands"][0]["runs"]
st=[s for r in runs for s in r["profile"]["phases"].get("pin",{"stacks":[]})["stacks"]]
n=sum(s["count"] for s in st)
print(round(sum(s["count"] for s in st if "__mm_populate_[k]" in s["stack"] and "sys_mlock_[k]" in s["stack"])/max(n,1),3), n)' "$1"; }
	u=$(under "$TMP/pin-bad.json")
	check "bad build: share under __mm_populate and sys_mlock, samples: $u" \
		[ "$(echo "$u" | awk '{print ($1 >= 0.5 && $2 >= 10)}')" = 1 ] && ok
else skip "perf cannot sample here"; fi

# pin_named COMPARE BENCH...: the frames compare named in pin that no stack
# through the mlock or munlock system calls in the BENCH records holds (noise
# painted as a change; the good build's mlock walks the page tables it finds
# populated, the bad one populates them: both are mlock's path; pin() unlocks
# inside the phase too, and with no pause after begin= its share can move).
# A stack through pin()'s own syscall() (its only ones are mlock and munlock)
# or of kernel frames alone counts as that path where perf cut the kernel
# chain short of the system call (set_ptes was named so once, under load)
pin_named() { /usr/bin/python3 -c 'import json,sys
ph={p["name"]:p for p in json.load(open(sys.argv[1]))["phases"]}
runs=[r for f in sys.argv[2:] for r in json.load(open(f))["commands"][0]["runs"]]
def kernel_only(st):
    fr=st.split(";")[1:]
    return fr and all(f.endswith("_[k]") for f in fr)
path=set(f for r in runs for s in r["profile"]["phases"]["pin"]["stacks"] if "sys_mlock_[k]" in s["stack"] or "sys_munlock_[k]" in s["stack"] or ";pin;syscall;" in s["stack"] or kernel_only(s["stack"]) for f in s["stack"].split(";"))
print(" ".join(f["frame"] for f in ph["pin"]["profile"]["frames"] if f["state"] in ("grown","shrunk") and f["frame"] not in path))' "$@"; }
t "compare of 10 + 10 runs names mlock's page population for pin, and nothing in the noise"
if [ "$PERF" = 1 ]; then
	"$PERFHUNT" compare --export-json "$TMP/pc.json" "$TMP/pin-good.json" "$TMP/pin-bad.json" >"$TMP/out" 2>&1
	st=$?
	code=$(grep -A1 '^  pin ' "$TMP/out" | grep 'code:')
	expect_status 0 "$st" &&
	check "pin's code line: $code (pin: $(grep -E '^ *(phase:)?pin ' "$TMP/out"))" sh -c 'echo "$1" | grep -q "CPU in kernel .*sys_mlock, called from syscall"' - "$code" &&
	check "__mm_populate grown in the JSON frames" [ "$(/usr/bin/python3 -c 'import json,sys
ph={p["name"]:p for p in json.load(open(sys.argv[1]))["phases"]}
fr={f["frame"]:f for f in ph["pin"]["profile"]["frames"]}
f=fr["__mm_populate_[k]"]
print(f["state"]=="grown" and f["p_adjusted"]<0.05 and f["delta_ms"]>0 and ph["pin"]["profile"]["new_runs"]==10)' "$TMP/pc.json")" = True ] &&
	"$PERFHUNT" report "$TMP/pc.json" -o "$TMP/pc.html" >/dev/null 2>&1 &&
	check "the compare report draws pin's differential flame graph with grown frames" [ "$(/usr/bin/python3 -c 'import re,sys
h=open(sys.argv[1]).read()
i=h.find("id=\"diff-phase.20pin\""); fig=h[i:h.find("</figure>", i)] if i >= 0 else ""
print(i >= 0 and "Which code" in h and len(re.findall(r"class=\"f fk fgrow\"", fig)) > 0 and "__mm_populate" in fig)' "$TMP/pc.html")" = True ] &&
	check "every frame named in pin lies on mlock's or munlock's path: $(pin_named "$TMP/pc.json" "$TMP/pin-good.json" "$TMP/pin-bad.json")" \
		[ "$(pin_named "$TMP/pc.json" "$TMP/pin-good.json" "$TMP/pin-bad.json")" = "" ] && ok
else skip "perf cannot sample here"; fi

t "compare with a profile on one side only: no code line, one line saying which side lacks it"
if [ "$PERF" = 1 ]; then
	/usr/bin/python3 -c 'import json,sys
b=json.load(open(sys.argv[1]))
for r in b["commands"][0]["runs"]: r.pop("profile", None)
json.dump(b, open(sys.argv[2], "w"))' "$TMP/pin-good.json" "$TMP/pin-good-np.json"
	"$PERFHUNT" compare "$TMP/pin-good-np.json" "$TMP/pin-bad.json" >"$TMP/out" 2>&1
	expect_status 0 $? &&
	check "no code line" [ "$(grep -c '^ *code:' "$TMP/out")" = 0 ] &&
	expect_grep '^\(which code: only NEW was recorded with --profile; record BASE with it too\)$' "$TMP/out" && ok
else skip "perf cannot sample here"; fi

t "bench report of a profiled bench: a flame graph per command, of all its runs' samples; none without profiles"
if [ "$PERF" = 1 ]; then
	"$PERFHUNT" report -o "$TMP/pb.html" "$TMP/pin-bad.json" 2>"$TMP/err" &&
	"$PERFHUNT" report -o "$TMP/pnp.html" "$TMP/pin-good-np.json" 2>>"$TMP/err"
	st=$?
	/usr/bin/python3 -c 'import json,re,sys
h=open(sys.argv[1]).read()
runs=json.load(open(sys.argv[2]))["commands"][0]["runs"]
n=sum(s["count"] for r in runs for s in r["profile"]["run"]["stacks"])
figs=re.findall(r"<figure class=\"flame\" id=\"([^\"]+)\"", h)
m=re.search(r"<title>command 1 \u2014 10 profiled runs, ([0-9]+) samples", h)
root=sum(float(x) for x in re.findall(r"<title>\[(?:phase:[^\]]*|no phase)\] \u2014 ([0-9]+) sample", h))
# a root frame narrower than a quarter pixel (a lone sample of a short
# phase) is left out of the drawing, and the graph says how many were
hidden=re.search(r"([0-9]+) frames? too narrow", h)
ok=figs==["profile-1"] and m and int(m.group(1))==n and (root==n or (hidden and n - root <= 0.01 * n))
open(sys.argv[3], "w").write("%s %s %s %s %s" % (figs, m and m.group(1), n, root, hidden and hidden.group(0)))
sys.exit(0 if ok else 1)' "$TMP/pb.html" "$TMP/pin-bad.json" "$TMP/py"
	g=$?
	expect_status 0 $st && check "one graph over the ten runs (figures, samples shown, in the runs, at the root): $(cat "$TMP/py")" [ $g = 0 ] &&
		expect_no_grep 'id="profile|class="flame' "$TMP/pnp.html" && ok
else skip "perf cannot sample here"; fi

t "without the privilege: one line naming kernel.perf_event_paranoid, a record without a profile"
para=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo x)
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "needs root and setpriv to run as nobody"
elif [ "$para" = x ] || [ "$para" -lt 2 ]; then
	skip "kernel.perf_event_paranoid is $para here: nobody may profile"
else
	D=$(mktemp -d /tmp/perfhunt-nobody.XXXXXX) && chown nobody:nogroup "$D"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$D" PERFHUNT_DB="$D/h.db" \
		"$PERFHUNT" run -q --no-save --profile -o "$D/r.json" -- "$W" 20 >/dev/null 2>"$TMP/err"
	st=$?
	expect_status 0 "$st" &&
	check "one line: $(cat "$TMP/err")" [ "$(grep -c 'profile not recorded' "$TMP/err")" = 1 ] &&
	expect_grep 'kernel\.perf_event_paranoid is [0-9]+' "$TMP/err" &&
	check "no profile in the record" [ "$(/usr/bin/python3 -c 'import json,sys; print("profile" in json.load(open(sys.argv[1])))' "$D/r.json")" = False ] &&
	check "the phases are still there" [ "$(jget "$D/r.json" phase_stats.0.name)" = alpha ] && ok
	rm -rf "$D"
fi

t "without perf on PATH: one line, the run goes on"
env PATH=/nonexistent "$PERFHUNT" run -q --no-save --profile -o "$TMP/np.json" -- "$W" 10 >/dev/null 2>"$TMP/err"
expect_status 0 $? && expect_grep 'profile not recorded: the perf tool is not installed' "$TMP/err" && ok

t "report of a record without a profile: no profile section, no links to flame graphs"
"$PERFHUNT" report -o "$TMP/np.html" "$TMP/np.json" 2>"$TMP/err"
expect_status 0 $? && expect_grep 'id="lanes"' "$TMP/np.html" && expect_no_grep 'id="profile|href="#|class="flame' "$TMP/np.html" && ok

t "a profiled bench: each run holds its own tree's samples, none of the other command's runs"
# one perf follows the whole bench; each run must still get the samples of
# its own command only: two commands whose threads and code differ, interleaved
if [ "$PERF" = 1 ]; then
	"$PERFHUNT" bench -r 3 --profile --no-save --export-json "$TMP/two.json" -- \
		"$W" 100 ::: "$WORKLOADS/phthreads" work:150:0 >/dev/null 2>"$TMP/err"
	st=$?
	# by each stack's thread name (its first frame after the phases), which
	# needs no unwinding, and by frames only the other command's code has
	/usr/bin/python3 -c 'import json,sys
cmds = json.load(open(sys.argv[1]))["commands"]
names = (lambda t: t == "phprof", lambda t: t == "phthreads" or t.startswith("phthreads-w"))
code = ({"hot_alpha", "hot_beta"}, {"spin_ms", "pool_main", "run_step"})
bad = []
for i, c in enumerate(cmds):
    for k, r in enumerate(c["runs"]):
        p = r.get("profile", {})
        stacks = [s["stack"].split(";") for s in p.get("run", {}).get("stacks", []) if s["stack"] != "[other]"]
        own = sum(1 for f in stacks if names[i](f[1]))
        theirs = sorted({f[1] for f in stacks if names[1 - i](f[1])} | set().union(*map(set, stacks)) & code[1 - i])
        if p.get("samples", 0) < 10 or not own:
            bad.append("command %d run %d: %d samples, %d stacks of its own" % (i + 1, k + 1, p.get("samples", 0), own))
        if theirs:
            bad.append("command %d run %d holds the other command%ss %s" % (i + 1, k + 1, chr(39), theirs))
print("; ".join(bad) or "ok", "(runs: %s)" % [len(c["runs"]) for c in cmds])' "$TMP/two.json" >"$TMP/py" 2>&1
	expect_status 0 $st &&
		check "each run its own command's samples: $(cat "$TMP/py")" grep -q '^ok ' "$TMP/py" && ok
else skip "perf cannot sample here"; fi

t "bench refuses the per-run exports"
"$PERFHUNT" bench -n 1 --export-folded "$TMP/x" -- true >/dev/null 2>"$TMP/err"
expect_status 2 $? && expect_grep 'export-folded is not available here' "$TMP/err" && ok

done_testing
