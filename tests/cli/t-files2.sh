#!/bin/sh
# End-to-end tests of limits, exit statuses, files and sizes under hostile or
# careless use: a --memory-limit that cannot be enforced is refused before the
# command runs, a cancelled bisect-check aborts `git bisect run`, devices and
# other users' links are refused as outputs, records are read by one reader
# with one set of bounds, and renderers stay linear in what they are given.
# Each command that could hang runs under `timeout`; run as root, the
# non-root cases use setpriv to become nobody.
. ./lib.sh
P=$PERFHUNT
W=$WORKLOADS/phwork
cd "$TMP" || exit 1
unset PERFHUNT_SAFE_DIRECTORY SUDO_UID SUDO_GID
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1
# nobody CMD...: runs CMD as nobody (65534), from /
nobody() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
CAN_NOBODY=0
[ $ROOT = 1 ] && command -v setpriv >/dev/null && CAN_NOBODY=1

# --- limits that cannot be enforced ------------------------------------------------
t "--memory-limit with --cgroup off: refused (exit 2) before the command runs"
timeout 20 "$P" run --no-save --cgroup off --memory-limit 16 -- "$W" out:RAN >out 2>err; st=$?
expect_status 2 $st && expect_grep 'memory-limit needs the memory cgroup' err &&
	expect_no_grep RAN out && check "one line: $(cat err)" [ "$(wc -l <err)" = 1 ] && ok

t "--memory-limit as a user who cannot create a cgroup: refused (exit 2), the command never runs"
if [ $CAN_NOBODY = 1 ]; then
	nobody timeout 20 env PERFHUNT_DB=/nonexistent/h.db "$P" run --no-save --memory-limit 16 -- "$W" out:RAN \
		>out 2>err; st=$?
	expect_status 2 $st && expect_grep '^perfhunt: --memory-limit cannot be enforced here: ' err &&
		expect_no_grep RAN out && check "one line: $(cat err)" [ "$(wc -l <err)" = 1 ] && ok
else skip "not root or no setpriv"; fi

t "--memory-limit where perfhunt can write a cgroup: enforced (the tree is killed past it)"
timeout 30 "$P" run --no-save -q --memory-limit 16 -- "$W" alloc:64 out:SURVIVED >out 2>err; st=$?
if grep -q 'cannot be enforced here' err; then skip "no writable memory cgroup here: $(cat err)"
else expect_status 137 $st && expect_no_grep SURVIVED out && ok; fi

# --- signals and exit statuses of bisect-check ----------------------------------------
"$P" run -q --no-save -o base.json -- "$W" spin:20 2>err || fail "baseline run: $(cat err)"
for signum in TERM:15 HUP:1; do
	sig=${signum%:*}
	t "bisect-check cancelled by SIG$sig during a run: exit 128+N (git bisect run aborts), not 125 (skip)"
	rm -f started.pid
	timeout 60 "$P" bisect-check --baseline base.json -n 3 -- "$W" pidfile:started.pid sleep:20000 >out 2>err &
	M=$!
	i=0; while [ ! -s started.pid ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -$sig $M; wait $M; st=$?
	want=$((128 + ${signum#*:}))
	expect_status $want $st && expect_grep "^bisect-check: cancelled \($want\): SIG$sig received during run 1 of 3" out &&
		expect_no_grep 'skip \(125\)' out && ok
done

t "bisect-check against a baseline of another command on another host: both said on stderr"
sed 's/"hostname": "[^"]*"/"hostname": "elsewhere"/' base.json >other.json
timeout 60 "$P" bisect-check --baseline other.json -n 1 -- "$W" spin:21 >out 2>err; st=$?
check "status 0 or 1, got $st" [ $st -le 1 ] && expect_grep '^note: BASE and NEW ran different commands:' err &&
	expect_grep 'spin:20$' err && expect_grep 'spin:21$' err &&
	expect_grep '^note: BASE and NEW were recorded on different hosts:' err && expect_grep '^  base: elsewhere$' err &&
	check "one line on stdout" [ "$(wc -l <out)" = 1 ] && ok

t "compare of runs from two hosts says so, as it says two commands (text, JSON and its report)"
timeout 30 "$P" compare --export-json cmp.json other.json base.json >out 2>err; st=$?
expect_status 0 $st && expect_grep '^note: BASE and NEW were recorded on different hosts:' out &&
	expect_grep '^  base: elsewhere$' out && expect_no_grep 'different commands' out &&
	check "hosts in the JSON" [ "$(jget cmp.json base.host)" = elsewhere ] &&
	check "new host in the JSON" [ "$(jget cmp.json new.host)" = "$(jget base.json host.hostname)" ] &&
	timeout 30 "$P" report -o cmp.html cmp.json 2>err && expect_grep 'recorded on different hosts' cmp.html && ok

# --- renderers linear, odd figures, long names, the probe descriptor -------------------
# bigcmd N OUT: base.json with a command of N arguments
bigcmd() {
	/usr/bin/python3 -c 'import json,sys
r=json.load(open("base.json")); r["command"]=["arg%d" % i for i in range(int(sys.argv[1]))]
json.dump(r, open(sys.argv[2], "w"))' "$1" "$2"
}
# best_ms CMD...: CPU time (user + sys) of the least of three runs of CMD, in ms: the
# machine is shared, and time spent preempted is no part of what the renderer costs
best_ms() {
	best=
	for _ in 1 2 3; do
		/usr/bin/time -f '%U %S' -o cpu.txt "$@" >/dev/null 2>&1
		took=$(awk '{ printf "%d", ($1 + $2) * 1000 }' cpu.txt)
		if [ -z "$best" ] || [ $took -lt $best ]; then best=$took; fi
	done
	echo $best
}
t "report and show of a 160 000-argument command: CPU time linear in the command (ratio to 40 000 < 8; quadratic was 16)"
if [ -x /usr/bin/time ]; then
	bigcmd 40000 c40.json && bigcmd 160000 c160.json
	r40=$(best_ms timeout 120 "$P" report -o c40.html c40.json); r160=$(best_ms timeout 120 "$P" report -o c160.html c160.json)
	s40=$(best_ms timeout 120 "$P" show c40.json); s160=$(best_ms timeout 120 "$P" show c160.json)
	# +10: the clock's 10 ms tick
	check "report CPU: 40k args $r40 ms, 160k args $r160 ms" [ $r160 -lt $((8 * (r40 + 10))) ] &&
		check "show CPU: 40k args $s40 ms, 160k args $s160 ms" [ $s160 -lt $((8 * (s40 + 10))) ] &&
		expect_grep 'arg159999' c160.html && ok
else skip "no /usr/bin/time"; fi

t "history list of a stored infinite wall time prints '-', not '-inf h'"
"$P" history import base.json >out 2>err && sql "$PERFHUNT_DB" "update runs set wall_s = -9e999" 2>>err
timeout 20 "$P" history list >out 2>>err; st=$?
expect_status 0 $st && expect_no_grep 'inf|nan' out && expect_grep ' -  +[0-9.]+ (KiB|MiB) ' out && ok

t "begin= and end= with the same 1 MiB name make one phase (one cut for both), its name cut visibly"
printf '%s\n' '#!/bin/sh' 'N=$(head -c 1048576 /dev/zero | tr "\0" n)' 'echo "PERFHUNT: begin=$N"' \
	'echo "PERFHUNT: end=$N"' >longname.sh
chmod +x longname.sh
timeout 30 "$P" run --no-save -q -o long.json -- ./longname.sh >/dev/null 2>err; st=$?
expect_status 0 $st && check "one phase, 1024 bytes ending ...: $(jget long.json probe_info)" /usr/bin/python3 -c '
import json,sys; r=json.load(open("long.json")); p=r["phases"]; i=r["probe_info"]
sys.exit(not (len(p)==1 and len(p[0]["name"])==1024 and p[0]["name"].endswith("n...") and i["unmatched_ends"]==0 and i["unfinished"]==0))' && ok

t "\$PERFHUNT_FD is one digit, so dash's '>&\$PERFHUNT_FD' works"
if command -v dash >/dev/null; then
	timeout 30 "$P" run --no-save -q -o fd.json -- dash -c 'echo "fd=$PERFHUNT_FD"; echo begin=viafd >&$PERFHUNT_FD && echo end=viafd >&$PERFHUNT_FD' \
		>out 2>err; st=$?
	expect_status 0 $st && expect_grep '^fd=[3-9]$' out && expect_no_grep 'Bad fd' err &&
		check "phase viafd from the descriptor: $(jget fd.json phases)" [ "$(jget fd.json phases.0.name)" = viafd ] && ok
else skip "no dash"; fi

t "\$PERFHUNT_FD leaves a descriptor the command inherits in 3..9 alone"
if command -v dash >/dev/null; then
	timeout 30 dash -c 'exec 3>inherited.txt; exec "$0" run --no-save -q -o fd3.json -- dash -c "echo kept >&3; echo begin=p >&\$PERFHUNT_FD; echo end=p >&\$PERFHUNT_FD; echo fd=\$PERFHUNT_FD"' "$P" \
		>out 2>err; st=$?
	expect_status 0 $st && check "fd 3 still the file: $(cat inherited.txt)" [ "$(cat inherited.txt)" = kept ] &&
		expect_grep '^fd=[4-9]$' out && check "phase p" [ "$(jget fd3.json phases.0.name)" = p ] && ok
else skip "no dash"; fi

# --- files: devices, other users' links, reports, sudo -----------------------------------
for dev in /dev/null /dev/zero; do
	t "PERFHUNT_DB=$dev is refused (not a regular file); no $dev-journal is made"
	if [ -e "$dev-journal" ]; then skip "$dev-journal exists already"; continue; fi
	PERFHUNT_DB=$dev timeout 20 "$P" run -- "$W" out:RAN >out 2>err; st=$?
	PERFHUNT_DB=$dev timeout 20 "$P" history list >out2 2>err2; st2=$?
	made=0; [ -e "$dev-journal" ] && { made=1; rm -f "$dev-journal"; }
	expect_status 2 $st && expect_status 1 $st2 && check "$dev-journal made" [ $made = 0 ] &&
		expect_grep "refusing the history database '$dev': not a regular file \(a character device\)" err &&
		expect_grep 'not a regular file' err2 && expect_no_grep RAN out && ok
done

t "PERFHUNT_DB naming a FIFO: refused at once, never blocks"
mkfifo db.fifo
PERFHUNT_DB=$TMP/db.fifo timeout 20 "$P" history list >out 2>err; st=$?
expect_status 1 $st && expect_grep 'not a regular file \(a FIFO\)' err && ok

t "history site DIR, DIR another user's link: refused before anything is made in its target"
if [ $ROOT = 1 ]; then
	mkdir -p sitedb target && ln -s target planted && chown -h 65534:65534 planted
	PERFHUNT_DB=$TMP/sitedb/h.db "$P" history import base.json >/dev/null 2>&1
	PERFHUNT_DB=$TMP/sitedb/h.db timeout 60 "$P" history site planted >out 2>err; st=$?
	expect_status 1 $st && expect_grep "refusing to write 'planted/runs': .* is owned by nobody" err &&
		check "made in the target: $(ls target)" [ -z "$(ls target)" ] && ok
else skip "not root: cannot plant another user's link"; fi

t "report @last and report - are named after the run; a report.html of the user's is left alone"
mkdir -p rep && echo mine >rep/report.html
(cd rep && PERFHUNT_DB=$TMP/sitedb/h.db timeout 30 "$P" report @last && timeout 30 "$P" report - <../base.json) \
	>out 2>err; st=$?
id=$(PERFHUNT_DB=$TMP/sitedb/h.db "$P" history list 2>/dev/null | awk 'NR == 2 { print $1 }')
stamp=$(jget base.json started_at | tr -cd '0-9TZ')
expect_status 0 $st && check "rep/report-$id.html: $(ls rep)" [ -s "rep/report-$id.html" ] &&
	check "rep/report-$stamp.html: $(ls rep)" [ -s "rep/report-$stamp.html" ] &&
	check "report.html untouched" [ "$(cat rep/report.html)" = mine ] && ok

t "report's default output never replaces a file perfhunt did not write; -o does, a page of ours is rewritten"
cp base.json mine.json && echo mine >mine.html
timeout 30 "$P" report mine.json >out 2>err; st=$?
expect_status 2 $st && expect_grep "refusing to overwrite 'mine.html': perfhunt did not write it \(name it with -o" err &&
	check "mine.html untouched" [ "$(cat mine.html)" = mine ] &&
	timeout 30 "$P" report -o mine.html mine.json 2>err && expect_grep 'generator' mine.html &&
	timeout 30 "$P" report mine.json 2>err && ok

t "sudo (root with SUDO_UID) in the user's work tree: .perfhunt/ and its history are the user's, who can use them"
if [ $CAN_NOBODY = 1 ]; then
	chmod 755 "$TMP"
	mkdir -p urepo/.git && chown -R 65534:65534 urepo
	(cd urepo && env -u PERFHUNT_DB SUDO_UID=65534 SUDO_GID=65534 timeout 30 "$P" run -q -- true) >out 2>err; st=$?
	expect_status 0 $st && check ".perfhunt owner: $(stat -c '%u:%g %a' urepo/.perfhunt)" \
		[ "$(stat -c '%u:%g %a' urepo/.perfhunt)" = "65534:65534 700" ] &&
		check "history.db owner: $(stat -c %u urepo/.perfhunt/history.db)" [ "$(stat -c %u urepo/.perfhunt/history.db)" = 65534 ] &&
		(cd urepo && setpriv --reuid=65534 --regid=65534 --clear-groups env -u PERFHUNT_DB HOME="$TMP/urepo" \
			timeout 30 "$P" run -q -- true) 2>err && expect_no_grep . err &&
		check "two runs listed by the user" [ "$(cd urepo && setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -u PERFHUNT_DB HOME="$TMP/urepo" "$P" history list 2>/dev/null | grep -c ' true$')" = 2 ] && ok
else skip "not root or no setpriv"; fi

# --- one record reader: duplicate keys, sizes, long strings -----------------------------
sed 's/"schema": "perfhunt.run\/1"/"schema": "perfhunt.run\/1", "summary": {"wall_s": 9}/' base.json >dup.json
for c in "compare dup.json base.json" "compare base.json dup.json" "show dup.json" "report -o dup.html dup.json" \
	"history import dup.json" "bisect-check --baseline dup.json -n 1 -- true"; do
	t "$c: duplicate keys refused by the one reader, as every command does"
	PERFHUNT_DB=$TMP/dupdb/h.db timeout 30 $P $c >out 2>err; st=$?
	case $c in bisect*) want=128 ;; *) want=1 ;; esac
	expect_status $want $st && expect_grep "cannot read 'dup.json': duplicate object key near '\"summary\"' \(line [0-9]+\)" err && ok
done

t "a record over 64 MiB is refused at once with one line, by show and report; compare (a bench run by run) at its first byte"
truncate -s 70M huge.json # sparse: no memory, no disk
ok=1
for c in "show huge.json" "report -o huge.html huge.json" "compare huge.json base.json"; do
	PERFHUNT_DB=$TMP/dupdb/h.db timeout 20 $P $c >out 2>err; st=$?
	case $c in
	compare*) why="not a perfhunt record \(not a JSON object\)" ;;
	*) why="70.0 MiB, over the 64 MiB a record may be" ;;
	esac
	expect_status 1 $st && expect_grep "cannot read 'huge.json': $why" err || ok=0
	[ $ok = 1 ] || break
done
[ $ok = 1 ] && ok

t "a 3 MiB note is cut to 128 KiB, visibly, in show and in an import (stored cut)"
/usr/bin/python3 -c 'import json
r=json.load(open("base.json"))
r["peaks"].append({"scope": "cgroup", "kb": 1024, "method": "m", "exact": True, "note": "n" * (3 << 20)})
json.dump(r, open("note.json", "w"))'
timeout 20 "$P" show note.json >out 2>&1; st=$?
expect_status 0 $st && expect_grep 'n\.\.\.\[3014704 bytes cut\]' out &&
	check "show printed $(wc -c <out) bytes" [ "$(wc -c <out)" -lt 200000 ] &&
	PERFHUNT_DB=$TMP/notedb/h.db timeout 20 "$P" history import note.json >/dev/null 2>err &&
	check "stored text $(sql "$TMP/notedb/h.db" 'select max(length(record_json)) from runs') bytes" \
		[ "$(sql "$TMP/notedb/h.db" 'select max(length(record_json)) from runs')" -lt 200000 ] && ok

t "history import streams JSON Lines: 300 records in one file, each read within the bound"
/usr/bin/python3 -c 'import json
r=json.load(open("base.json"))
with open("many.jsonl", "w") as f:
    for i in range(300):
        r["started_epoch_ms"] += 1; f.write(json.dumps(r) + "\n")'
PERFHUNT_DB=$TMP/manydb/h.db timeout 60 "$P" history import many.jsonl >out 2>err; st=$?
expect_status 0 $st && check "stored $(sql "$TMP/manydb/h.db" 'select count(*) from runs')" \
	[ "$(sql "$TMP/manydb/h.db" 'select count(*) from runs')" = 300 ] && ok

t "a token cut at the end of a chunk the reader read (a number, true, a \\u escape, UTF-8) still reads"
/usr/bin/python3 -c 'import json, subprocess, sys
base = json.load(open("base.json")); prefix = json.dumps(base)[:-1] + ", \"pad\": \""
bad = []
for tok in ["-1.7e308", "true", "\"\\u00e9\\u00e9\"", "\"\u00e9\u00e9\u00e9\""]:
    for shift in [e + k for e in (65536, 131071) for k in range(0, 14)]:
        pad = shift - len(prefix.encode()) - 16
        open("cut.json", "w").write(prefix + "p" * pad + "\", \"z\": " + tok + "}")
        p = subprocess.run([sys.argv[1], "show", "cut.json"], capture_output=True, text=True, timeout=60)
        if p.returncode: bad.append("%s+%d: %s" % (tok, shift, p.stderr.strip()))
print("\n".join(bad)); sys.exit(1 if bad else 0)' "$P" >out 2>&1; st=$?
expect_status 0 $st && ok || echo "# $(head -3 out)"

done_testing
