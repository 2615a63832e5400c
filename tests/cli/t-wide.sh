#!/bin/sh
# Wide and long: a tree wider than one page of its parent's children file is
# counted whole; a sampler over its budget stretches its interval and the
# record and summary say so (forced here by a tiny budget, never by timing);
# a watch's record keeps each merged row's min/max envelope while its CSV
# keeps every sample.
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

done_testing
