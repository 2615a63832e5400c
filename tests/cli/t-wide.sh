#!/bin/sh
# Wide and long: a tree wider than one page of its parent's children file is
# counted whole, and polled discovery still finds a late fork; a sampler over its budget stretches its interval and the
# record and summary say so (forced here by a tiny budget, never by timing);
# a watch's record keeps each merged row's min/max envelope while its CSV
# keeps every sample, and the report shades it.
. ./lib.sh
W="$WORKLOADS/phwork"
P="$PERFHUNT"

t "watch a parent of 1 000 children: every child counted, the children file read past its first page"
"$W" children:1000:0:6000 & T=$!
n=0
for _ in $(seq 100); do
	n=$(wc -w <"/proc/$T/task/$T/children" 2>/dev/null || echo 0)
	[ "$n" -ge 1000 ] && break
	sleep 0.1
done
bytes=$(wc -c <"/proc/$T/task/$T/children")
if [ "$n" -lt 1000 ]; then
	fail "only $n children started"
elif [ "$bytes" -le 4096 ]; then
	skip "the children file holds $bytes bytes here, within one read"
else
	"$P" watch -q --no-save --interval 50 --duration 300ms -o "$TMP/wide.json" $T; st=$?
	expect_status 0 $st && check "max_procs $(jget "$TMP/wide.json" summary.max_procs), wanted 1001" \
		[ "$(jget "$TMP/wide.json" summary.max_procs)" = 1001 ] && ok
fi
kill $T 2>/dev/null; wait $T 2>/dev/null

t "discovery by polling: a member asleep for many samples, then forking, has its children found"
# its children file is left unread while its CPU clock stands still; the fork moves it
PERFHUNT_NO_PROC_EVENTS=1 "$P" run -q --no-save --interval 10 -o "$TMP/poll.json" -- \
	"$W" sleep:400 children:3:0:400 sleep:200 grandchild:0:400 >/dev/null 2>&1; st=$?
expect_status 0 $st && check "max_procs $(jget "$TMP/poll.json" summary.max_procs), wanted 4" \
	[ "$(jget "$TMP/poll.json" summary.max_procs)" -ge 4 ] &&
	check "procs_seen $(jget "$TMP/poll.json" summary.procs_seen), wanted 6 (7 under LeakSanitizer: its tracer)" \
	[ "$(jget "$TMP/poll.json" summary.procs_seen)" -ge 6 ] && ok

t "a run within its budget is not stretched, and says its effective interval"
"$P" run --no-save --interval 10 -o "$TMP/plain.json" -- "$W" sleep:300 >"$TMP/out" 2>&1; st=$?
expect_status 0 $st && [ "$(jget "$TMP/plain.json" summary.samples_stretched)" = 0 ] &&
	between 5 "$(jget "$TMP/plain.json" summary.effective_interval_ms)" 1000 &&
	expect_no_grep 'stretched' "$TMP/out" && ok

t "a sample over the budget stretches the interval: the record, the note and the summary say so"
PERFHUNT_SAMPLE_BUDGET=0.01 "$P" run --no-save --interval 10 -o "$TMP/str.json" -- "$W" sleep:1500 >"$TMP/out" 2>&1; st=$?
expect_status 0 $st && check "no sample stretched" [ "$(jget "$TMP/str.json" summary.samples_stretched)" -ge 1 ] &&
	expect_grep 'samples took more than 0.01 % of a core: the interval was stretched' "$TMP/out" &&
	expect_grep 'samples every 10 ms, stretched to [0-9.]+ ms on average' "$TMP/out" &&
	expect_grep 'interval was stretched' "$TMP/str.json" && ok

t "a watch of 2 500 samples and more: each merged row's envelope in the record, every sample in the CSV"
steps=""
for _ in $(seq 60); do steps="$steps alloc:6 sleep:25 free sleep:25"; done
# shellcheck disable=SC2086
"$W" sleep:100 $steps & T=$!
"$P" watch -q --no-save --interval 1 --csv "$TMP/long.csv" -o "$TMP/long.json" $T; st=$?
wait $T 2>/dev/null
# checks the record's rows against the CSV: columns named, rows bounded, each row
# within its envelope, and the envelope's least and most the CSV's own
/usr/bin/python3 - "$TMP/long.json" "$TMP/long.csv" >"$TMP/env.out" 2>&1 <<'PY'
import csv, json, sys
rec = json.load(open(sys.argv[1]))
cols = rec["samples"]["columns"]
rows = [dict(zip(cols, r)) for r in rec["samples"]["rows"]]
keys = ["mem_min_kb", "mem_max_kb", "rss_min_kb", "rss_max_kb", "cpu_min_pct", "cpu_max_pct",
        "minflt_min_per_s", "minflt_max_per_s"]
missing = [k for k in keys if k not in cols]
assert not missing, "columns missing: %s" % missing
assert len(rows) <= 2048, "%d rows" % len(rows)
for r in rows:
    assert r["mem_min_kb"] <= r["mem_kb"] <= r["mem_max_kb"], r
    assert r["rss_min_kb"] <= r["rss_kb"] <= r["rss_max_kb"], r
    if r["cpu_min_pct"] is not None:
        assert 0 <= r["cpu_min_pct"] <= r["cpu_max_pct"], r
with open(sys.argv[2]) as f:
    csv_rows = list(csv.DictReader(f))
n = rec["summary"]["samples"]
assert len(csv_rows) == n, "%d CSV rows for %d samples" % (len(csv_rows), n)
tree = [int(r["tree_pss_kb"]) for r in csv_rows]
rss = [int(r["rss_kb"]) for r in csv_rows]
got = (min(r["mem_min_kb"] for r in rows), max(r["mem_max_kb"] for r in rows))
assert got == (min(tree), max(tree)), "envelope %s, CSV %s" % (got, (min(tree), max(tree)))
got = (min(r["rss_min_kb"] for r in rows), max(r["rss_max_kb"] for r in rows))
assert got == (min(rss), max(rss)), "RSS envelope %s, CSV %s" % (got, (min(rss), max(rss)))
print("samples %d rows %d stride %d" % (n, len(rows), rec["samples"]["stride"]))
PY
py=$?
if [ $py = 0 ] && [ "$(jget "$TMP/long.json" samples.stride)" = 1 ]; then
	skip "only $(jget "$TMP/long.json" summary.samples) samples were taken here: no row was merged"
else
	expect_status 0 $st && check "$(cat "$TMP/env.out")" [ $py = 0 ] && ok
fi

t "the report shades the tree's memory between each merged row's least and most"
if [ "$(jget "$TMP/long.json" samples.stride)" = 1 ]; then
	skip "no row was merged here"
else
	"$P" report "$TMP/long.json" --svg "$TMP/long.svg" 2>"$TMP/err"; st=$?
	expect_status 0 $st && expect_grep '<polygon class="envelope" data-series="tree"' "$TMP/long.svg" &&
		expect_grep 'min–max</text>' "$TMP/long.svg" && ok
fi

done_testing
