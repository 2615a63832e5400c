#!/bin/sh
# Markers followed at once by their work, as real programs write them:
# tests/workloads/phpin pins (mlock) or touches 16 MiB right after its begin
# marker and prints what getrusage said of each phase (TRUTH lines). Through
# <perfhunt/probe.h> each marker waits for perfhunt's sample (ping/ack on
# $PERFHUNT_ACK_FD): the phase gets all its faults in every run. A printed
# marker's program runs on until perfhunt samples: the record says how late
# (sample_lag_ms), and never calls a phase exact that lost more of its faults
# than its 1 ms tolerance allows (pinning takes ~500 faults a millisecond
# here: a quarter of 16 MiB's is well past it).
. ./lib.sh
P="$PERFHUNT"
W="$WORKLOADS/phpin"

# check_run RECORD TRUTH acked|printed: prints what is wrong, exits 1 if anything
check_run() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
rec = json.load(open(sys.argv[1]))
acked = sys.argv[3] == "acked"
truth = {}
for line in open(sys.argv[2]):
    if line.startswith("TRUTH "):
        f = dict(kv.split("=") for kv in line.split()[1:])
        truth[f["name"]] = float(f["minflt"])
got = {p["name"]: p["resources"] for p in rec["phases"]}
bad = []
for name, want in truth.items():
    r = got.get(name)
    if r is None:
        bad.append(f"{name}: no phase")
        continue
    lost = want >= 1000 and r["minflt"] < 0.99 * want
    lag = r.get("sample_lag_ms")
    if acked:
        if lost:
            bad.append(f"{name}: {r['minflt']} of {want} faults")
        if r.get("acknowledged") is not True or r["approximate"] is not False or lag != 0:
            bad.append(f"{name}: acknowledged {r.get('acknowledged')}, approximate {r['approximate']}, lag {lag}")
    else:
        if r.get("acknowledged", False) is not False or not isinstance(lag, (int, float)) or lag < 0:
            bad.append(f"{name}: acknowledged {r.get('acknowledged')}, lag {lag}")
        elif lag > 1 and not r["approximate"]:
            bad.append(f"{name}: exact with a lag of {lag} ms")
        if want >= 1000 and r["minflt"] < 0.75 * want and not r["approximate"]:
            bad.append(f"{name}: {r['minflt']} of {want} faults, yet exact (lag {lag} ms)")
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
}

# runs N acked|printed: N runs, the --bad build every other one, each
# checked; prints what is wrong with the first bad run
runs() {
	i=0
	while [ $i -lt "$1" ]; do
		i=$((i + 1))
		flag=; [ $((i % 2)) = 1 ] && flag=--bad
		# without $PERFHUNT_FD phpin prints its markers on stdout
		unset_fd=; [ "$2" = printed ] && unset_fd="-u PERFHUNT_FD"
		"$P" run -q --no-save -o "$TMP/r$i.json" -- env $unset_fd "$W" $flag --mib 16 --spin-ms 5 --sys-ms 5 \
			--gap-ms 0 >/dev/null 2>"$TMP/truth$i"
		st=$?
		[ $st = 0 ] || { echo "run $i: exit status $st"; return 1; }
		check_run "$TMP/r$i.json" "$TMP/truth$i" "$2" >"$TMP/why" || { echo "run $i ($flag): $(cat "$TMP/why")"; return 1; }
	done
}

t "markers through probe.h wait for their sample: every phase gets all its faults, in each of 6 runs"
out=$(runs 6 acked) && ok || fail "$out"

t "printed markers: each phase says its sample's lag, and is approximate past 1 ms, in each of 4 runs"
out=$(runs 4 printed) && ok || fail "$out"

t "a shell script's marker waits through the same protocol (dash: one-digit descriptors)"
# the child allocates at once after the marker and is sampled while it holds
"$P" run -q --no-save --interval 10 -o "$TMP/sh.json" --shell -- "case \$PERFHUNT_FD\$PERFHUNT_ACK_FD in [3-9][3-9]) ;; *) exit 9;; esac
	printf 'begin=load\\nping\\n' >&\$PERFHUNT_FD; read -r a <&\$PERFHUNT_ACK_FD; [ \"\$a\" = ack ] || exit 8
	'$WORKLOADS/phwork' alloc:8 sleep:40
	printf 'end=load\\nping\\n' >&\$PERFHUNT_FD; read -r a <&\$PERFHUNT_ACK_FD" >/dev/null 2>"$TMP/err"
expect_status 0 $? && check "load: $(jget "$TMP/sh.json" phases.0.resources)" /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["phases"][0]["resources"]
assert r["acknowledged"] is True and r["approximate"] is False and r["minflt"] >= 0.99 * 2048, r' "$TMP/sh.json" && ok

t "a program whose perfhunt does not answer goes on after its bounded wait"
# the descriptors are named, a writer of the answers exists (ourselves, on a
# FIFO opened both ways) but never answers: the markers' wait runs out
mkfifo "$TMP/ack"
exec 8<>"$TMP/ack" 9>/dev/null
PERFHUNT_FD=9 PERFHUNT_ACK_FD=8 timeout 20 "$WORKLOADS/phwork" begin:a end:a begin:b end:b out:done >"$TMP/out"
st=$?
exec 8<&- 9>&-
expect_status 0 $st && expect_grep '^done$' "$TMP/out" && ok

done_testing
