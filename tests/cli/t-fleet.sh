#!/bin/sh
# End-to-end tests of the fleet features against real servers on 127.0.0.1,
# started here in temporary directories and stopped on exit: Debian's
# prometheus-pushgateway (push, then scrape /metrics and check the values; the
# gateway down or refusing) and a throwaway PostgreSQL cluster (the history
# written by two concurrent benches, read back and compared; SQLite exported
# and imported into it gives the same list; the database down). A server
# whose binary is absent is skipped with a "skipped:" line, never failed.
. ./lib.sh
D=$PWD/data/history
FIX=$PWD/../unit/data/openmetrics/run.json
GW_BIN=/usr/bin/prometheus-pushgateway
PG_BIN=/usr/lib/postgresql/15/bin
GW_PID=
PGDIR=
# Loopback only: no proxy between us and the test servers.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
cleanup() {
	[ -n "$GW_PID" ] && kill "$GW_PID" 2>/dev/null
	[ -n "$PGDIR" ] && [ -d "$PGDIR/data" ] && as_pg "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m immediate -w -t 20 stop >/dev/null 2>&1
	[ -n "$PGDIR" ] && rm -rf "$PGDIR"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_for SECONDS COMMAND...: retries COMMAND every 0.1 s
wait_for() {
	n=$(($1 * 10)); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
	return 1
}
P() { timeout 60 "$PERFHUNT" "$@" >"$TMP/out" 2>"$TMP/err"; }
# scrape NAME LABEL-REGEX: the value of the first sample of NAME whose labels match
scrape() {
	curl -s -m 5 "$GW/metrics" | awk -v n="$1" -v re="$2" \
		'index($0, n "{") == 1 && $0 ~ re { print $NF; exit }'
}
num_eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 == b + 0 && a != "") }'; }

# ---- Pushgateway ----
if [ ! -x "$GW_BIN" ]; then
	t "Pushgateway tests"; skip "$GW_BIN not installed; scripts/setup installs prometheus-pushgateway"
else
	GW_PORT=$(free_port)
	GW=http://127.0.0.1:$GW_PORT
	# Debian's default persists to /var/lib/prometheus: keep this one's state in $TMP.
	"$GW_BIN" --web.listen-address=127.0.0.1:$GW_PORT --persistence.file="$TMP/gw.data" \
		>"$TMP/gw.log" 2>&1 &
	GW_PID=$!
	t "pushgateway starts"
	check "gateway ready: $(tail -3 "$TMP/gw.log")" wait_for 20 curl -sf -m 1 -o /dev/null "$GW/-/ready" && ok

	t "push a record: one line on stderr, values scraped back"
	P push --gateway "$GW" --label branch=feature/x "$FIX"; expect_status 0 $? &&
		expect_grep "^perfhunt: pushed .*run.json to $GW \(job perfhunt\)$" "$TMP/err" &&
		v=$(scrape perfhunt_wall_seconds 'instance="gpu-01".*job="perfhunt"') &&
		check "wall 1.5, got '$v'" num_eq "$v" 1.5 &&
		v=$(scrape perfhunt_peak_rss_bytes 'branch="feature/x".*method="cgroup v2 memory.peak"') &&
		check "cgroup peak, got '$v'" num_eq "$v" 1126400000 &&
		v=$(scrape perfhunt_phase_seconds 'lane="gpu_tid=0".*phase="msm"') &&
		check "msm lane 0, got '$v'" num_eq "$v" 0.75 &&
		v=$(scrape perfhunt_page_faults 'kind="major"') && check "majflt, got '$v'" num_eq "$v" 3 &&
		v=$(scrape perfhunt_exit_status 'instance="gpu-01"') && check "exit, got '$v'" num_eq "$v" 9 &&
		curl -s -m 5 "$GW/metrics" | grep -q 'command="sh -c '"'"'echo \\"a\\\\b\\"\\nexit 9'"'"'"' &&
		ok

	t "push a recorded run: the gateway holds its wall time"
	timeout 60 "$PERFHUNT" run -q --no-save -o "$TMP/run.json" -- sh -c 'echo PERFHUNT: begin=load; sleep 0.05; echo PERFHUNT: end=load' >/dev/null 2>&1
	expect_status 0 $? && P push --gateway "$GW" --job ci --label instance=box1 "$TMP/run.json" &&
		v=$(scrape perfhunt_wall_seconds 'instance="box1".*job="ci"') &&
		check "wall $(jget "$TMP/run.json" summary.wall_s), got '$v'" num_eq "$v" "$(jget "$TMP/run.json" summary.wall_s)" &&
		v=$(scrape perfhunt_phase_seconds 'instance="box1".*phase="load"') &&
		check "load phase, got '$v'" between 0.04 "$v" 5 && ok

	t "run --push and --export-openmetrics: the file first, then the gateway"
	timeout 60 "$PERFHUNT" run -q --no-save --export-openmetrics "$TMP/r.prom" --push "$GW" --push-job runs \
		--push-label instance=box2 -- "$WORKLOADS/phwork" alloc:8 sleep:50 2>"$TMP/err"; expect_status 0 $? &&
		expect_grep '^perfhunt_wall_seconds' "$TMP/r.prom" &&
		v=$(scrape perfhunt_wall_seconds 'instance="box2".*job="runs"') && check "wall pushed, got '$v'" between 0.04 "$v" 5 && ok

	t "bench --push: the bench's medians reach the gateway"
	timeout 60 "$PERFHUNT" bench -q --no-save -n 2 --push "$GW" --push-job benches --push-label instance=box3 -- \
		"$WORKLOADS/phwork" sleep:20 >/dev/null 2>"$TMP/err"; expect_status 0 $? &&
		v=$(scrape perfhunt_wall_seconds 'instance="box3".*job="benches"') && check "bench wall, got '$v'" between 0.01 "$v" 5 && ok

	t "watch --push-every: live samples while the daemon runs, the group removed at the end"
	"$WORKLOADS/phwork" alloc:16 sleep:3000 & T=$!
	timeout 60 "$PERFHUNT" watch -q --no-save --interval 50 --push "$GW" --push-job live --push-every 200ms \
		--duration 1500ms "$T" 2>"$TMP/err" & M=$!
	sleep 0.8
	live=$(curl -s -m 5 "$GW/metrics" | grep -c 'stream="live"')
	wait "$M"; st=$?
	kill "$T" 2>/dev/null; wait "$T" 2>/dev/null
	after=$(curl -s -m 5 "$GW/metrics" | grep -c 'stream="live"')
	expect_status 0 $st && check "live series while watching: $live" [ "$live" -gt 0 ] &&
		check "live group left behind: $after" [ "$after" = 0 ] && ok

	t "watch --detach with --export-openmetrics, --push and two labels: stop writes the file and pushes"
	mkdir -p -m 700 "$TMP/state"
	"$WORKLOADS/phwork" alloc:8 sleep:4000 & T=$!
	id=$(PERFHUNT_STATE_DIR="$TMP/state" timeout 60 "$PERFHUNT" watch --no-save --detach --interval 50 \
		--export-openmetrics "$TMP/detach.prom" --push "$GW" --push-job detached \
		--push-label instance=box4 --push-label branch=main "$T" 2>"$TMP/err")
	sleep 0.3
	PERFHUNT_STATE_DIR="$TMP/state" timeout 60 "$PERFHUNT" stop "$id" 2>"$TMP/stop"; st=$?
	kill "$T" 2>/dev/null; wait "$T" 2>/dev/null
	expect_status 0 $st && expect_grep 'stopped by SIGTERM' "$TMP/stop" &&
		expect_grep '^perfhunt_wall_seconds' "$TMP/detach.prom" &&
		v=$(scrape perfhunt_wall_seconds 'branch="main".*instance="box4".*job="detached"') &&
		check "wall pushed by the detached monitor, got '$v'" between 0.1 "$v" 30 && no_sanitizer "$TMP/stop" && ok

	t "--push-every without --push is a usage error"
	"$PERFHUNT" watch --push-every 1s 1 2>/dev/null; expect_status 2 $? && ok

	t "a PUT replaces the group: a second push of another record leaves no old series"
	P push --gateway "$GW" --job ci --label instance=box1 "$D/base-1.json" &&
		v=$(scrape perfhunt_wall_seconds 'instance="box1".*job="ci"') &&
		check "wall 88.9, got '$v'" num_eq "$v" 88.9 &&
		check "old phase gone" [ -z "$(scrape perfhunt_phase_seconds 'instance="box1".*phase="load"')" ] && ok

	t "a 4xx answer is final: one line with the status, no retries"
	P push --gateway "$GW/nowhere" "$FIX"; expect_status 1 $? &&
		expect_grep "^perfhunt: pushgateway at '$GW/nowhere/metrics/job/perfhunt/instance/gpu-01' answered HTTP 404" "$TMP/err" &&
		expect_no_grep "attempts" "$TMP/err" && check "one line" [ "$(wc -l <"$TMP/err")" = 1 ] && ok

	t "bad --label is a usage error"
	P push --gateway "$GW" --label 9x=1 "$FIX"; expect_status 2 $? && expect_grep "bad label name '9x'" "$TMP/err" && ok

	kill "$GW_PID"; wait "$GW_PID" 2>/dev/null; GW_PID=
	t "gateway down: exit 1, one line naming the URL, the OpenMetrics file still written"
	start=$(date +%s)
	P push --gateway "$GW" --retries 2 --export-openmetrics "$TMP/run.prom" "$FIX"; expect_status 1 $? &&
		expect_grep "^perfhunt: cannot push to '$GW/metrics/job/perfhunt/instance/gpu-01': .* \(3 attempts\)$" "$TMP/err" &&
		check "one line" [ "$(wc -l <"$TMP/err")" = 1 ] &&
		check "file written" cmp -s "$TMP/run.prom" "$PWD/../unit/data/openmetrics/run.prom" &&
		check "bounded time" [ $(($(date +%s) - start)) -lt 10 ] && ok
fi

t "export-openmetrics alone writes the text (node_exporter's textfile collector)"
P push --export-openmetrics - "$FIX"; expect_status 0 $? &&
	check "same text" cmp -s "$TMP/out" "$PWD/../unit/data/openmetrics/run.prom" && ok

# ---- PostgreSQL ----
if [ "$(id -u)" = 0 ]; then
	as_pg() { runuser -u postgres -- "$@"; }
else
	as_pg() { "$@"; }
fi
if [ ! -x "$PG_BIN/initdb" ] || { [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; }; then
	t "PostgreSQL tests"; skip "$PG_BIN/initdb or the postgres user missing; scripts/setup installs postgresql"
	done_testing
	exit $?
fi
PGDIR=$(mktemp -d /tmp/perfhunt-pg.XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres "$PGDIR"
PG_PORT=$(free_port)
PGURL="postgresql://perfhunt@127.0.0.1:$PG_PORT/postgres?connect_timeout=5"
t "a throwaway PostgreSQL cluster starts"
as_pg timeout 60 "$PG_BIN/initdb" -D "$PGDIR/data" -U perfhunt -A trust --no-sync >"$TMP/initdb.log" 2>&1 &&
	as_pg timeout 60 "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w -t 30 \
		-o "-k $PGDIR -p $PG_PORT -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null 2>&1
check "cluster up: $(tail -3 "$PGDIR/log" 2>/dev/null) $(tail -3 "$TMP/initdb.log")" [ $? = 0 ] && ok

t "no perfhunt tables yet: history list says so in one line"
PERFHUNT_DB=$PGURL P history list; expect_status 1 $? &&
	expect_grep "^perfhunt: no history database at 'postgresql://perfhunt@127.0.0.1:$PG_PORT/postgres\?connect_timeout=5' \(no perfhunt tables" "$TMP/err" && ok

t "two concurrent benches write the shared history; read back and compared"
PERFHUNT_DB=$PGURL timeout 120 "$PERFHUNT" bench -q -n 6 --tag base -- sh -c 'echo PERFHUNT: begin=work; sleep 0.02; echo PERFHUNT: end=work' >"$TMP/b1" 2>&1 &
B1=$!
PERFHUNT_DB=$PGURL timeout 120 "$PERFHUNT" bench -q -n 6 --tag new -- sh -c 'echo PERFHUNT: begin=work; sleep 0.12; echo PERFHUNT: end=work' >"$TMP/b2" 2>&1 &
B2=$!
wait $B1; s1=$?; wait $B2; s2=$?
check "bench 1 exit $s1: $(tail -3 "$TMP/b1")" [ $s1 = 0 ] && check "bench 2 exit $s2: $(tail -3 "$TMP/b2")" [ $s2 = 0 ] &&
	PERFHUNT_DB=$PGURL P history list -n 0 && check "12 runs" [ "$(grep -c -E '^ +[0-9]+  ' "$TMP/out")" = 12 ] &&
	PERFHUNT_DB=$PGURL P history list --tag base && check "6 base" [ "$(grep -c -E '^ +[0-9]+  ' "$TMP/out")" = 6 ] &&
	PERFHUNT_DB=$PGURL P compare @tag:base @tag:new && expect_grep '^base: @tag:base \(6 runs\)' "$TMP/out" &&
	expect_grep '^new: +@tag:new \(6 runs\)' "$TMP/out" &&
	expect_grep '^phase:work .* regressed$' "$TMP/out" && ok

t "SQLite exported, imported into a new PostgreSQL database: same list, same references, same export"
MOVED="postgresql://perfhunt@127.0.0.1:$PG_PORT/moved?connect_timeout=5"
timeout 30 "$PG_BIN/psql" -q "${PGURL%%\?*}" -c "CREATE DATABASE moved" >"$TMP/psql" 2>&1 ||
	fail "create database: $(cat "$TMP/psql")"
export PERFHUNT_DB="$TMP/laptop.db"
P history import "$D/base-1.json" "$D/base-2.json" "$D/base-3.json" "$D/new-1.json" "$D/new-2.json" \
	"$D/quoted.json" "$D/bench.json" && P history export --out "$TMP/laptop.jsonl" &&
	expect_grep "exported 8 runs \(1 bench\) from $TMP/laptop.db to $TMP/laptop.jsonl" "$TMP/err" &&
	P history list -n 0 && cp "$TMP/out" "$TMP/list-sqlite" &&
	PERFHUNT_DB=$MOVED P history import "$TMP/laptop.jsonl" &&
	check "7 records stored" [ "$(grep -c 'stored as' "$TMP/out")" = 7 ] &&
	PERFHUNT_DB=$MOVED P history list -n 0 &&
	check "same list: $(diff "$TMP/list-sqlite" "$TMP/out")" cmp -s "$TMP/list-sqlite" "$TMP/out" &&
	PERFHUNT_DB=$MOVED P history show @last && expect_grep '^run 8 \(bench 1\)$' "$TMP/out" &&
	P compare @tag:baseline @commit:b7c8 && cp "$TMP/out" "$TMP/cmp-sqlite" &&
	PERFHUNT_DB=$MOVED P compare @tag:baseline @commit:b7c8 &&
	check "same comparison" cmp -s "$TMP/out" "$TMP/cmp-sqlite" &&
	PERFHUNT_DB=$MOVED P history export &&
	check "same export" cmp -s "$TMP/out" "$TMP/laptop.jsonl" && ok
unset PERFHUNT_DB

t "a password in the URL never shows in messages"
PERFHUNT_DB="postgresql://perfhunt:s3cret@127.0.0.1:$(free_port)/postgres?connect_timeout=2" P history list
expect_status 1 $? && expect_grep "cannot connect to history database 'postgresql://perfhunt:\*\*\*@127" "$TMP/err" &&
	expect_no_grep s3cret "$TMP/err" && ok

as_pg "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m fast -w -t 20 stop >/dev/null 2>&1
t "database down: run keeps its record file, exits 1 with one line"
PERFHUNT_DB=$PGURL P run -q -o "$TMP/down.json" -- true; expect_status 1 $? &&
	expect_grep "cannot connect to history database 'postgresql://perfhunt@127.0.0.1:$PG_PORT/" "$TMP/err" &&
	check "record written" [ "$(jget "$TMP/down.json" schema)" = perfhunt.run/1 ] && ok

done_testing
