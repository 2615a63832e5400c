#!/bin/sh
# Probe lines inside structured logs, followed with --probe-log: JSON lines as
# Rust tracing-subscriber, Go slog and zap, pino, bunyan and Python's
# json-logger write them, and logfmt as Go slog's text handler and logrus do.
# Each record is stamped when the script starts and written a second later,
# so a record's own time field dates its probe near 0 ms, arrival near 1000.
. ./lib.sh
P="$PERFHUNT"
LIMIT="timeout -k 5 30"

cat >"$TMP/json.sh" <<'EOF'
export LC_ALL=C
rfc=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
ms=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
py=$(date '+%Y-%m-%d %H:%M:%S,%3N')
s=$(date +%s.%6N)
epoch_ms=$(date +%s%3N)
sleep 1
{
printf '{"timestamp":"%s","level":"INFO","fields":{"message":"CUZK_TIMING: tracing_ms=5 circuits=4"},"target":"cuzk_core::prover","threadId":"ThreadId(2)","span":{"name":"prove"},"spans":[{"name":"prove"}]}\n' "$rfc"
printf '{"time":"%s","level":"INFO","msg":"CUZK_TIMING: slog_ms=5","worker":3}\n' "$rfc"
printf '{"level":"info","ts":%s,"caller":"prover/main.go:42","msg":"CUZK_TIMING: zap_ms=5"}\n' "$s"
printf '{"level":30,"time":%s,"pid":4242,"hostname":"node1","msg":"CUZK_TIMING: pino_ms=5"}\n' "$epoch_ms"
printf '{"name":"api","hostname":"node1","pid":4242,"level":30,"msg":"CUZK_TIMING: bunyan_ms=5","time":"%s","v":0}\n' "$ms"
printf '{"asctime": "%s", "levelname": "INFO", "message": "CUZK_TIMING:\\tpython_ms=5"}\n' "$py"
printf '{"level":"info","msg":"ready"}\n'
} >>"$LOG"
EOF

cat >"$TMP/logfmt.sh" <<'EOF'
export LC_ALL=C
rfc=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
sec=$(date -u +%Y-%m-%dT%H:%M:%SZ)
sleep 1
{
printf 'time=%s level=INFO msg="CUZK_TIMING: slogtext_ms=5" worker=3\n' "$rfc"
printf 'time="%s" level=info msg="CUZK_TIMING: note=\\"quoted\\" logrus_ms=5" component=prover\n' "$sec"
printf 'time=%s level=INFO msg="CUZK_TIMING: bare_ms=5"\n' "nope"
} >>"$LOG"
EOF

# follow SCRIPT LOG RECORD [OPTION...]: run SCRIPT writing to LOG, followed with --probe-log
follow() {
	script=$1 log=$2 rec=$3
	shift 3
	: >"$log"
	LOG="$log" $LIMIT "$P" run -q --no-save --probe-log "$log" "$@" -o "$rec" -- sh "$script"
}

t "--probe-log on JSON lines: each logger's message is the probe, its time field dates it"
follow "$TMP/json.sh" "$TMP/j.log" "$TMP/j.json"; st=$?
expect_status 0 $st && /usr/bin/python3 - "$TMP/j.json" >"$TMP/py.err" 2>&1 <<'PY' && ok || fail "$(cat "$TMP/py.err")"
import json, sys
r = json.load(open(sys.argv[1]))
ph = {p["name"]: p for p in r["phases"]}
assert set(ph) == {"tracing", "slog", "zap", "pino", "bunyan", "python"}, sorted(ph)
for name, p in ph.items():
    assert p["end_ms"] < 600, (name, p["end_ms"])   # the record's stamp, not arrival (~1000)
    assert p["duration_ms"] == 5, (name, p)
v = ph["tracing"]["values"]
assert v == {"circuits": 4, "threadId": "ThreadId(2)", "span": "prove"}, v
assert ph["slog"]["lane"] == "worker=3", ph["slog"]           # a record's field as a lane key
for name in ("zap", "pino", "bunyan", "python"):    # the loggers' own fields are no values
    assert ph[name]["values"] == {}, (name, ph[name]["values"])
info = r["probe_info"]
assert info["ignored_tokens"] == 0 and info["unparsed"] == 0 and info["stamps_ignored"] == 0, info
PY

t "--probe-log on logfmt: quoted msg with its escapes undone, a duration at its end kept"
follow "$TMP/logfmt.sh" "$TMP/f.log" "$TMP/f.json"; st=$?
expect_status 0 $st && /usr/bin/python3 - "$TMP/f.json" >"$TMP/py.err" 2>&1 <<'PY' && ok || fail "$(cat "$TMP/py.err")"
import json, sys
r = json.load(open(sys.argv[1]))
ph = {p["name"]: p for p in r["phases"]}
assert set(ph) == {"slogtext", "logrus", "bare"}, sorted(ph)
assert ph["slogtext"]["end_ms"] < 600, ph["slogtext"]
assert ph["slogtext"]["lane"] == "worker=3", ph["slogtext"]
assert ph["logrus"]["values"] == {"note": "\"quoted\"", "component": "prover"}, ph["logrus"]
assert ph["logrus"]["end_ms"] <= ph["bare"]["end_ms"] + 50, ph   # whole seconds: within the second
assert ph["bare"]["end_ms"] >= 900, ph["bare"]                    # no usable time: arrival
info = r["probe_info"]
assert info["ignored_tokens"] == 0 and info["stamps_ignored"] == 0, info
PY

t "--probe-time arrival: the records' time fields are not used"
follow "$TMP/json.sh" "$TMP/j.log" "$TMP/a.json" --probe-time arrival; st=$?
expect_status 0 $st && /usr/bin/python3 - "$TMP/a.json" >"$TMP/py.err" 2>&1 <<'PY' && ok || fail "$(cat "$TMP/py.err")"
import json, sys
r = json.load(open(sys.argv[1]))
ends = {p["name"]: p["end_ms"] for p in r["phases"]}
assert len(ends) == 6 and min(ends.values()) >= 900, ends
PY

done_testing
