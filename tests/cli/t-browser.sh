#!/bin/sh
# Every kind of HTML page perfhunt writes (a run's report, a bench's, a
# comparison's, the history site's index and bench page), made from real runs
# where a run can make it, opened in headless Chromium through the DevTools
# protocol (../browser/cdp_check.py) at 1400 px and at 800 px: no console
# error, no uncaught exception, the page's script finished, no text overflowing
# its box. PERFHUNT_UPDATE_SCREENSHOTS=1 copies the 1400 px shots to docs/
# (the site's bench page to docs/history-site.png).
. ./lib.sh
W=$WORKLOADS/phwork
P=$PERFHUNT
REF=$PWD/../reference
export PERFHUNT_DB="$TMP/h.db"

# pages_ok NAME PAGE...: cdp_check passes on the pages, else the case fails; skips without chromium
pages_ok() {
	/usr/bin/python3 ../browser/cdp_check.py --shots "$TMP/shots" "$@" >"$TMP/cdp" 2>&1; st=$?
	if [ $st = 77 ]; then skip "$(cat "$TMP/cdp")"; return 1; fi
	[ $st = 0 ] && sed 's/^/# /' "$TMP/cdp" | tee "$TMP/cdp.out" && return 0
	fail "$(grep -v '^clean' "$TMP/cdp")"; return 1
}
mkdir -p "$TMP/shots"

t "run report: clean at 1400 and 800 px"
"$P" run -q --no-save --interval 10 -o "$TMP/run.json" -- "$W" alloc:16 fd:begin=load sleep:100 fd:end=load \
	'err:PERFHUNT: step_ms=40' free sleep:50 >/dev/null 2>"$TMP/err"
expect_status 0 $? && "$P" report -o "$TMP/run.html" "$TMP/run.json" 2>"$TMP/err" && pages_ok "$TMP/run.html" && ok

t "run report with a GPU trace (an H200 recording replayed): each device's kernels and copies in lanes under the phases; clean at 1400 and 800 px"
# (the collector's path is only handed to CUDA, which the replay never loads:
# any readable file stands for it where no collector was built)
PERFHUNT_GPU_COLLECTOR=$PWD/gpu_replay.py "$P" run -q --no-save --gpu-trace -o "$TMP/gpu.json" -- \
	/usr/bin/python3 ./gpu_replay.py ../unit/data/gputrace/demo/551.jsonl >/dev/null 2>"$TMP/err"
expect_status 0 $? && "$P" report -o "$TMP/gpu.html" "$TMP/gpu.json" 2>"$TMP/err" &&
	expect_grep '<svg [^>]*id="gpu-lanes"' "$TMP/gpu.html" &&
	expect_grep '<text class="lane" [^>]*><title>GPU 0: kernels</title>GPU 0</text>' "$TMP/gpu.html" &&
	expect_grep '<text class="lane" [^>]*><title>GPU 0: copies</title>copies</text>' "$TMP/gpu.html" &&
	expect_grep 'busy [^<]*, [0-9]+ started; longest there: saxpy' "$TMP/gpu.html" &&
	pages_ok "$TMP/gpu.html" && ok

t "bench report of two commands: the terminal's figures per command, relative speed; clean at 1400 and 800 px"
"$P" bench -q -n 3 --no-save --export-json "$TMP/bench.json" \
	-- "$W" sleep:20 fd:begin=work sleep:5 fd:end=work ::: "$W" sleep:40 >/dev/null 2>"$TMP/err"
expect_status 0 $? && "$P" report -o "$TMP/bench.html" "$TMP/bench.json" 2>"$TMP/err" &&
	expect_grep '<th>mean ± σ</th><th>median</th><th>min … max</th><th>user / sys</th>' "$TMP/bench.html" &&
	expect_grep '<td>1\.00 \(fastest\)</td>' "$TMP/bench.html" &&
	expect_grep 'sleep:40 ran [0-9]\.[0-9]{2} ± [0-9]\.[0-9]{2} × slower than .*sleep:20' "$TMP/bench.html" &&
	pages_ok "$TMP/bench.html" && ok

t "compare report of a record without families: no empty family row; clean at 1400 and 800 px"
"$P" report -o "$TMP/compare.html" data/report/compare.json 2>"$TMP/err"
expect_status 0 $? && expect_no_grep '<tr class="fam">' "$TMP/compare.html" && pages_ok "$TMP/compare.html" && ok

# 7 + 7 runs: Holm over the 26 phase resources reaches p < 0.05 only from 7 a side
t "compare report: a phase's resources under its row, changed first, folded when unchanged; no number wraps"
for side in base:2 new:24; do
	"$P" bench -q -r 7 --no-save --export-json "$TMP/${side%%:*}.json" -- "$W" fd:begin=idle sleep:5 fd:end=idle \
		fd:begin=load alloc:${side#*:} free fd:end=load >/dev/null 2>"$TMP/err" || break
done
"$P" compare -q --export-json "$TMP/cmp.json" --export-markdown "$TMP/cmp.md" "$TMP/base.json" "$TMP/new.json" 2>"$TMP/err" &&
	"$P" report -o "$TMP/phases.html" "$TMP/cmp.json" 2>"$TMP/err"
expect_status 0 $? && grep -A1 'summary>phase:load ' "$TMP/phases.html" | tail -1 >"$TMP/first.html" &&
	grep -A1 '^| phase:load |' "$TMP/cmp.md" | tail -1 >"$TMP/first.md" &&
	expect_grep '<details open><summary>phase:load <span class="nres">[0-9]+ resources, [0-9]+ changed' "$TMP/phases.html" &&
	expect_grep '<details><summary>phase:idle <span class="nres">[0-9]+ resources</span>' "$TMP/phases.html" &&
	check "a changed resource first under phase:load" grep -Eq '^<tr class="res">.*<td class="l (regressed|improved)">' "$TMP/first.html" &&
	check "markdown: a changed resource first under phase:load" grep -Eq '^\| .*phase:load\..*\| (regressed|improved) \|$' "$TMP/first.md" &&
	check "markdown: phase:idle's resources folded" [ "$(grep -n 'phase:idle\.' "$TMP/cmp.md" | head -1 | cut -d: -f1)" -gt \
		"$(grep -n '^<details>' "$TMP/cmp.md" | cut -d: -f1)" ] &&
	pages_ok --eval "(function(){function shown(){return Array.from(document.querySelectorAll('tbody.grp')).map(function(g){
		return g.querySelector('summary').firstChild.textContent.trim()+'='+Array.from(g.querySelectorAll('tr.res')).filter(
		function(r){return getComputedStyle(r).display!=='none'}).length}).join(' ')}
		var wrapped=Array.from(document.querySelectorAll('table.metrics td:not(.l)')).filter(function(td){
		var r=document.createRange();r.selectNodeContents(td);return r.getClientRects().length>1}).length, before=shown();
		document.querySelector('tbody.grp details:not([open]) summary').click();
		return 'wrapped '+wrapped+' '+before+' opened '+shown()})()" "$TMP/phases.html" &&
	expect_grep '^# eval: phases.html at 800 px: wrapped 0 phase:idle=0 phase:load=[1-9][0-9]* opened phase:idle=[1-9]' "$TMP/cdp.out" &&
	expect_grep '^# eval: phases.html at 1400 px: wrapped 0 phase:idle=0 phase:load=[1-9][0-9]* opened phase:idle=[1-9]' "$TMP/cdp.out" && ok

# a history of 20 commits, 3 runs each: wall_s +20 % at commit 12, peak_rss_kb -20 % at 6,
# phase pin +60 % at 15, phase sort doubled at the latest commit only (no change point can
# follow it yet), read_bytes (bytes), minflt (a count of 3 to 5) and majflt (always 0)
t "history site: what changed first (regressions by size), constant series folded, bytes in IEC units, whole ticks on counts; clean at 1400 and 800 px"
/usr/bin/python3 - "$TMP/hist.jsonl" "$REF" <<'PY'
import random, sys
sys.path.insert(0, sys.argv[2])
import histgen as h
rng = random.Random(7)
recs = [h.run_record(["./prover", "--n", "10"], i * 3 + k, (1.0 if i < 12 else 1.2) * (1 + 0.02 * rng.gauss(0, 1)),
                     commit=h.fake_commit(i), metrics={"peak_rss_kb": 1000 * (1 if i < 6 else 0.8) + rng.random(),
                                                       "read_bytes": 3 * 2**20 + rng.randrange(0, 2**19),
                                                       "minflt": 3 + rng.randrange(0, 3), "majflt": 0},
                     phases={"load": 100 + rng.random(), "pin": 50 if i < 15 else 80,
                             "sort": (30 if i < 19 else 60) + rng.random() / 4})
        for i in range(20) for k in range(3)]
h.write_jsonl(sys.argv[1], recs)
PY
"$P" history import "$TMP/hist.jsonl" >/dev/null 2>"$TMP/err" && "$P" history site "$TMP/site" >/dev/null 2>"$TMP/err"
expect_status 0 $? && /usr/bin/python3 - "$TMP/site/bench-1.html" >"$TMP/py" 2>&1 <<'PY'
import re, sys
page = open(sys.argv[1]).read()
figs = re.findall(r'<figure id="m\d+" data-change="(\w+)">.*?class="ctitle"[^>]*>([^<]*)<(.*?)</figure>', page, re.S)
order = [(name, change) for change, name, _ in figs]
ticks = {name: re.findall(r'class="ytick"[^>]*>([^<]*)<', body) for _, name, body in figs}
assert [n for n, _ in order[:3]] == ["phase:sort", "phase:pin", "wall_s"], order
assert [c for _, c in order] == ["regression"] * 3 + ["improvement"] + ["none"] * 3, order
assert re.search(r"<p class=\"note regressed\">The latest commit: \+\d+\.\d+ % against [^<]*after it\.</p>", page), "no note on phase:sort"
assert "majflt" not in ticks and re.search(r'<summary>1 constant series</summary>.*<td class="l">majflt</td>', page, re.S), ticks
for name, pat in (("read_bytes", r"\d+(\.\d)? MiB"), ("peak_rss_kb", r"\d+(\.\d)? (KiB|MiB)"), ("minflt", r"\d+"),
                  ("wall_s", r"\d+ ms")):
    assert ticks[name] and all(t == "0" or re.fullmatch(pat, t) for t in ticks[name]), (name, ticks[name])
print("ok")
PY
check "site page: $(cat "$TMP/py")" [ "$(cat "$TMP/py")" = ok ] &&
	pages_ok "$TMP/site/index.html" "$TMP/site/bench-1.html" && ok

t "the check can fail: a script error and a line wider than its box are found"
sed 's#</body>#<div style="width:100px">ThisWordIsFarTooLongToFitInAHundredPixelBox</div><script>no_such_function()</script></body>#' \
	"$TMP/compare.html" >"$TMP/broken.html"
/usr/bin/python3 ../browser/cdp_check.py "$TMP/broken.html" >"$TMP/cdp" 2>&1; st=$?
if [ $st = 77 ]; then skip "$(cat "$TMP/cdp")"; else
	expect_status 1 $st && expect_grep 'no_such_function' "$TMP/cdp" &&
		expect_grep 'text overflows: div "ThisWordIsFarTooLong.* px in a 100 px box' "$TMP/cdp" && ok
fi

if [ "${PERFHUNT_UPDATE_SCREENSHOTS:-}" = 1 ] && [ -s "$TMP/shots/run-1400.png" ]; then
	for k in run bench compare; do cp "$TMP/shots/$k-1400.png" "$SRCDIR/docs/screenshots/report-$k.png"; done
	cp "$TMP/shots/bench-1-1400.png" "$SRCDIR/docs/history-site.png"
fi
done_testing
