#!/bin/sh
# compare reads a bench file run by run: it holds a value per run per metric,
# never the file's JSON, and the bound on a record applies to each run, not
# to the file. The benches are a real `bench -r 5` of a program with two
# phases, its runs repeated (new: 10 % slower) as a long bench would write
# them. $PERFHUNT_TEST_RECORD_MAX_MIB lowers the bound (a test hook) so a
# file over it needs no 64 MiB. Memory bounds only (GNU time's %M).
. ./lib.sh
P=$PERFHUNT
have_time=1
[ -x /usr/bin/time ] || have_time=0
grep -q __asan_init "$P" && have_time=0
peak() { /usr/bin/time -o "$TMP/rss" -f %M "$@" >"$TMP/out" 2>"$TMP/err"; st=$?; rss=$(tail -1 "$TMP/rss"); echo "# peak RSS $rss KiB: $*" | sed "s|$P|perfhunt|"; return $st; }

"$P" bench -q --no-save --style=none -r 5 --export-json "$TMP/b5.json" -- \
	"$WORKLOADS/phwork" begin:load spin:1 end:load begin:work spin:1 end:work >/dev/null 2>&1
# grow SRC N OUT SCALE [indent|late]: N runs of SRC's, their times and
# phases times SCALE; "indent" writes it pretty-printed, "late" with the
# schema after the commands (read whole, as any other record)
grow() {
	/usr/bin/python3 - "$@" <<'PY'
import json, sys
src, n, out, scale = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
how = sys.argv[5] if len(sys.argv) > 5 else ""
b = json.load(open(src))
runs = b["commands"][0]["runs"]
grown = []
for i in range(n):
    r = json.loads(json.dumps(runs[i % len(runs)]))
    for k in ("wall_s", "user_s", "sys_s"):
        r["summary"][k] *= scale * (1 + 0.001 * (i % 7))
    for p in r.get("phases", []):
        p["start_ms"] *= scale
        p["end_ms"] *= scale
    grown.append(r)
b["commands"][0]["runs"], b["order"], b["options"]["runs"] = grown, [0] * n, n
if how == "late":
    b["schema"] = b.pop("schema")
with open(out, "w") as f:
    if how == "indent":
        json.dump(b, f, indent=2)
    else:
        f.write("{\n" + ",\n".join(json.dumps(k) + ": " + json.dumps(v, separators=(",", ":"))
                                   for k, v in b.items() if k != "commands"))
        f.write(',\n"commands": [' + ",\n".join(
            "{" + ", ".join(json.dumps(k) + ": " + json.dumps(v) for k, v in c.items() if k != "runs")
            + ', "runs": [\n' + ",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in c["runs"])
            + "]}" for c in b["commands"]) + "]\n}\n")
PY
}
grow "$TMP/b5.json" 3000 "$TMP/base.json" 1.0
grow "$TMP/b5.json" 3000 "$TMP/new.json" 1.1
size=$(($(wc -c <"$TMP/base.json") / 1024))
echo "# a side: 3000 runs, $size KiB"

t "compare of two benches over the record bound: each run is within it, so both are read"
PERFHUNT_TEST_RECORD_MAX_MIB=1 "$P" show "$TMP/base.json" >/dev/null 2>"$TMP/show.err"
shown=$?
PERFHUNT_TEST_RECORD_MAX_MIB=1 "$P" compare "$TMP/base.json" "$TMP/new.json" >"$TMP/out" 2>"$TMP/err"
expect_status 0 $? && check "show of a side read it whole (status $shown)" [ $shown = 1 ] &&
	expect_grep "over the 1 MiB a record may be" "$TMP/show.err" &&
	expect_grep '^base: .*base.json \(3000 runs\)$' "$TMP/out" && expect_grep '^new: .*new.json \(3000 runs\)$' "$TMP/out" &&
	expect_grep '^wall_s .* regressed$' "$TMP/out" && expect_grep '^phase:load .* regressed$' "$TMP/out" &&
	expect_grep '^  work .*explains' "$TMP/out" && ok

t "a run over the bound is refused, naming it"
grow "$TMP/b5.json" 2 "$TMP/two.json" 1.0
/usr/bin/python3 -c '
import json, sys
b = json.load(open(sys.argv[1])); b["commands"][0]["runs"][1]["tags"] = ["x" * 100000] * 12
json.dump(b, open(sys.argv[1], "w"))' "$TMP/two.json"
PERFHUNT_TEST_RECORD_MAX_MIB=1 "$P" compare "$TMP/two.json" "$TMP/new.json" >"$TMP/out" 2>"$TMP/err"; expect_status 1 $? &&
	expect_grep "cannot read '.*two.json': record .* is over 1 MiB, the most a record may be" "$TMP/err" && ok

t "the same runs read whole (schema after the commands) or pretty-printed compare the same, byte for byte"
"$P" compare "$TMP/base.json" "$TMP/new.json" --export-json "$TMP/c1.json" >"$TMP/o1" 2>&1
grow "$TMP/b5.json" 3000 "$TMP/late.json" 1.0 late
grow "$TMP/b5.json" 3000 "$TMP/indent.json" 1.1 indent
"$P" compare "$TMP/late.json" "$TMP/indent.json" --export-json "$TMP/c2.json" >"$TMP/o2" 2>&1
sed "s|late.json|base.json|; s|indent.json|new.json|" "$TMP/o2" >"$TMP/o2s"
check "tables differ: $(diff "$TMP/o1" "$TMP/o2s" | head -5)" cmp -s "$TMP/o1" "$TMP/o2s" &&
	check "records differ" [ "$(sed 's|late.json|base.json|; s|indent.json|new.json|' "$TMP/c2.json")" = "$(cat "$TMP/c1.json")" ] && ok

t "a bench on stdin with a named command (read once) compares as the file does"
"$P" compare --command 1 - "$TMP/new.json" <"$TMP/base.json" >"$TMP/o3" 2>&1; expect_status 0 $? &&
	sed 's|^base: -|base: '"$TMP"'/base.json|' "$TMP/o3" >"$TMP/o3s" &&
	check "tables differ: $(diff "$TMP/o1" "$TMP/o3s" | head -5)" cmp -s "$TMP/o1" "$TMP/o3s" && ok

t "compare of two 3000-run benches peaks below one file's size, and within half of it of 300 runs'"
if [ $have_time = 0 ]; then skip "no GNU time, or a sanitizer build"; else
	grow "$TMP/b5.json" 300 "$TMP/base300.json" 1.0
	grow "$TMP/b5.json" 300 "$TMP/new300.json" 1.1
	peak "$P" compare "$TMP/base.json" "$TMP/new.json"; expect_status 0 $? && big=$rss &&
		peak "$P" compare "$TMP/base300.json" "$TMP/new300.json"; expect_status 0 $? &&
		check "peak RSS $big KiB at 3000 runs a side, a file $size KiB" [ "$big" -lt "$size" ] &&
		check "growth $((big - rss)) KiB from 300 runs ($rss KiB)" [ $((big - rss)) -lt $((size / 2)) ] && ok
fi

done_testing
