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

# trace_check FILE: the trace-event format's documented fields
trace_check() {
	/usr/bin/python3 - "$1" >"$TMP/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
assert isinstance(ev, list) and ev
phs = set()
for e in ev:
    ph = e["ph"]; phs.add(ph)
    assert isinstance(e["name"], str) and isinstance(e["pid"], int), e
    if ph == "M":
        assert e["name"] in ("process_name", "thread_name") and isinstance(e["args"]["name"], str), e
        continue
    assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    if ph == "X":
        assert isinstance(e["tid"], int) and e["dur"] >= 0, e
    elif ph == "C":
        assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values()), e
    elif ph == "i":
        assert e["s"] in ("g", "p", "t") and isinstance(e["tid"], int), e
    else:
        raise AssertionError("unexpected phase type " + ph)
print(" ".join(sorted(phs)))
PY
}

t "--export-trace: trace events with their documented fields (X, C, i, M)"
if [ "$PERF" = 1 ]; then
	trace_check "$TMP/t.json" && expect_grep '^C M X i$' "$TMP/py" && ok || fail "$(cat "$TMP/py")"
else skip "perf cannot sample here"; fi

t "--export-trace without --profile: phases and counters"
"$PERFHUNT" run -q --no-save --export-trace "$TMP/t2.json" -- "$W" 50 >/dev/null 2>"$TMP/err"
expect_status 0 $? && { trace_check "$TMP/t2.json" && expect_grep '^C M X$' "$TMP/py" && ok || fail "$(cat "$TMP/py")"; }

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

t "bench refuses the per-run exports"
"$PERFHUNT" bench -n 1 --export-folded "$TMP/x" -- true >/dev/null 2>"$TMP/err"
expect_status 2 $? && expect_grep 'export-folded is not available here' "$TMP/err" && ok

done_testing
