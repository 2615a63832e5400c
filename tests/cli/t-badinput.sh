#!/bin/sh
# Bad input, end to end: wrong options for every command, odd values, missing
# or foreign commands and PIDs, broken files, a locked, corrupt or read-only
# history, outputs that cannot be written, a closed stdout, plus the security
# checks (no shell, no symlink followed, HTML escaping). Every case checks the
# documented exit status, one line on stderr that names the problem, no crash
# (status >= 128 or a sanitizer report) and no partial file passed off as whole.
. ./lib.sh
P="$PERFHUNT"
W="$WORKLOADS/phwork"
export PERFHUNT_DB="$TMP/h.db" PERFHUNT_STATE_DIR="$TMP/state"
cd "$TMP" || exit 1

# bad STATUS PATTERN CMD...: CMD fails with STATUS and exactly one stderr line matching PATTERN
bad() {
	want=$1 pat=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"; got=$?
	expect_status "$want" "$got" || return 1
	check "no sanitizer report" no_sanitizer || return 1
	check "one stderr line, got $(wc -l <"$TMP/err"): $(head -c 400 "$TMP/err")" \
		[ "$(wc -l <"$TMP/err")" = 1 ] || return 1
	expect_grep "$pat" "$TMP/err"
}
one_line_err() { # PATTERN: err holds one line matching it, no sanitizer report
	no_sanitizer && check "one stderr line: $(head -c 300 "$TMP/err")" [ "$(wc -l <"$TMP/err")" = 1 ] &&
		expect_grep "$1" "$TMP/err"
}
# absent FILE: the file was not left behind
absent() { check "$1 left behind" [ ! -e "$1" ]; }

# --- options of every command ----------------------------------------------
for c in peak compare history report; do
	t "$c: unknown option"
	bad 2 "^perfhunt $c: unknown option '--bogus'" "$P" $c --bogus x && ok
done
for c in run watch; do
	# getopt prints its own line there, then a second one: status and name only
	t "$c: unknown option"
	"$P" $c --bogus x >out 2>err; expect_status 2 $? && no_sanitizer && expect_grep "'--bogus'" err && ok
done
t "show: unknown option is a usage error, not an unreadable file"
bad 2 "^perfhunt show: unknown option '--bogus'" "$P" show --bogus && ok
t "stop: unknown option"
bad 2 "^perfhunt stop: unknown option '-x'" "$P" stop -x && ok
t "ps: unexpected argument"
bad 2 "^perfhunt ps: unexpected argument 'x'" "$P" ps x && ok
t "unknown command"
bad 2 "^perfhunt: unknown command 'frob'" "$P" frob && ok
t "no command at all"
"$P" >/dev/null 2>&1; expect_status 2 $? && ok

for c in run peak report show history\ import history\ trend compare; do
	t "$c: missing operand"
	# shellcheck disable=SC2086
	bad 2 "^perfhunt ${c%% *}: " "$P" $c && ok
done

for v in 0 -5 99999999999999999999 abc "" 1.5 " 7"; do
	t "run --interval '$v'"
	bad 2 "^perfhunt run: --interval: " "$P" run --no-save --interval "$v" -- true && ok
done
t "run --interval with the value missing"
bad 2 "^perfhunt run: --interval: expected a duration like 500ms, 2s or 1h, got '--'" "$P" run --interval -- true && ok
t "run --interval huge but in range is accepted"
"$P" run -q --no-save --interval 3600000 -- true; expect_status 0 $? && ok

for v in -1 abc 1e308h 0 nan 5parsecs; do
	t "watch --duration '$v'"
	bad 2 "^perfhunt watch: --duration" "$P" watch --no-save --duration "$v" 1 && ok
done
for v in 0 -5 2147483648 12abc; do
	t "watch PID '$v'"
	bad 2 "^perfhunt watch: PID: " "$P" watch --no-save -- "$v" && ok
done
for o in "--csv-format xml" "--cgroup on" "--gpu maybe" "--tag ''" "--probe 'a b'" \
	"--lane-key ''" "--memory-limit -3" "--memory-limit lots" "-e nosuchevent"; do
	t "run $o"
	eval "bad 2 '^perfhunt run: ' \"\$P\" run --no-save $o -- true" && ok
done
for o in "--threshold -1" "--threshold nan" "--alpha 2" "--alpha 0"; do
	t "compare $o"
	# shellcheck disable=SC2086
	bad 2 "^perfhunt compare: ${o%% *}" "$P" compare $o a b && ok
done
t "peak -c 0"
bad 2 "^perfhunt peak: --column: " "$P" peak -c 0 /dev/null && ok
t "history list -n -1"
bad 2 "^perfhunt history: -n: " "$P" history list -n -1 && ok
t "history: unknown subcommand"
bad 2 "unknown subcommand 'frob'" "$P" history frob && ok

# --- commands and PIDs -------------------------------------------------------
t "command not found: 127, no record, no CSV"
bad 127 "^perfhunt: command not found: ./no-such-cmd" \
	"$P" run --no-save -o nf.json --csv nf.csv -- ./no-such-cmd && absent nf.json && absent nf.csv && ok
t "command not executable: 126"
printf '#!/bin/sh\n' >noexec.sh; chmod 644 noexec.sh
bad 126 "^perfhunt: cannot execute './noexec.sh': Permission denied" \
	"$P" run --no-save -o ne.json -- ./noexec.sh && absent ne.json && ok
t "a directory as the command: 126"
bad 126 "^perfhunt: cannot execute '/tmp'" "$P" run --no-save -- /tmp && ok
t "watch a PID that does not exist"
bad 1 "^perfhunt: no process with PID 999999999$" "$P" watch --no-save 999999999 && ok
t "stop a monitor ID that does not exist"
bad 1 "^perfhunt: no monitor with ID 424242" "$P" stop 424242 && ok
t "watch, as nobody, a process of another user"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	"$W" sleep:3000 & T=$!
	sleep 0.2
	bad 1 "cannot watch PID $T: permission denied" setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PERFHUNT_STATE_DIR=/tmp/perfhunt-nobody-$$ "$P" watch -q --no-save --duration 200ms $T && ok
	kill $T 2>/dev/null; wait $T 2>/dev/null
else skip "not root or no setpriv"; fi

# --- broken files ------------------------------------------------------------
"$P" run -q --no-save -o good.json --csv good.csv --interval 20 -- "$W" alloc:8 sleep:150 ||
	fail "could not record the fixture run"
: >empty
head -c 4000 /dev/urandom >binary
head -c 600 good.json >truncated.json
printf 'epoch_ms,rss_kb,rss_gib\n1,2,0.0\n' >huge-line.csv
awk 'BEGIN { s = "9"; for (i = 0; i < 21; i++) s = s s; print s }' >>huge-line.csv
sed 's/"wall_s": *[0-9.e+-]*/"wall_s": NaN/' good.json >nan.json
sed 's/"wall_s": *[0-9.e+-]*/"wall_s": 1e999/' good.json >inf.json
sed 's/"wall_s": *[0-9.e+-]*/"wall_s": -1/' good.json >negative.json
sed 's/"peak_rss_kb": *[0-9]*/"peak_rss_kb": -5/' good.json >negsize.json
for f in empty binary truncated.json; do
	for c in show report "history import"; do
		t "$c of a file that is $f"
		# shellcheck disable=SC2086
		bad 1 "^perfhunt: cannot read '$f': " "$P" $c "$f" && absent "${f%.json}.html" && ok
	done
	t "compare with a BASE that is $f"
	bad 1 "^perfhunt: cannot read '$f': " "$P" compare "$f" good.json && ok
done
t "peak of an empty file"
bad 1 "^perfhunt: empty: no valid row in 0 lines" "$P" peak empty && ok
t "peak of a binary file: reported, no raw bytes on the terminal"
"$P" peak binary >/dev/null 2>err; expect_status 1 $? && no_sanitizer &&
	check "raw bytes echoed" [ -z "$(LC_ALL=C tr -d '\n -~' <err)" ] && ok
t "peak of a file with a 2 MiB line: the line is skipped and named"
"$P" peak huge-line.csv >out 2>err; expect_status 0 $? && expect_grep 'line 3 \(longer than' err &&
	expect_grep 'line 2: 1,2,0.0' out && ok
t "peak of a truncated JSON record"
bad 1 "truncated.json" "$P" peak truncated.json && ok
for f in nan inf; do
	t "a record with $f in it is refused by every reader"
	for c in show "history import"; do
		# shellcheck disable=SC2086
		bad 1 "^perfhunt: cannot read '$f.json': .*(NaN|1e999)" "$P" $c "$f.json" || break
	done && ok
done
for f in negative negsize; do
	t "compare and import refuse the $f record, naming the field"
	bad 1 "summary\.(wall_s|peak_rss_kb) must be a non-negative number" "$P" compare "$f.json" good.json &&
		bad 1 "summary\.(wall_s|peak_rss_kb) must be a non-negative number" "$P" history import "$f.json" && ok
	t "show and report display the $f record without crashing"
	"$P" show "$f.json" >/dev/null 2>err; expect_status 0 $? && no_sanitizer &&
		"$P" report -o "$f.html" "$f.json" 2>err && no_sanitizer && ok
done

# --- history database ----------------------------------------------------------
t "history in a folder that does not exist"
bad 1 "^perfhunt: no history database at" env PERFHUNT_DB="$TMP/no/dir/h.db" "$P" history list && ok
rm -f "$PERFHUNT_DB"
"$P" history import good.json >/dev/null || fail "import"
t "corrupt history database (random bytes)"
head -c 8192 /dev/urandom >corrupt.db
bad 1 "'.*corrupt.db' is not a perfhunt history database" env PERFHUNT_DB="$TMP/corrupt.db" "$P" history list && ok
t "corrupt history database (cut in half)"
head -c 4096 "$PERFHUNT_DB" >half.db
bad 1 "history database '.*half.db' is corrupt|is not a perfhunt history" env PERFHUNT_DB="$TMP/half.db" "$P" history list && ok
t "run into a corrupt history: the run's status, one line, record still written"
bad 1 "^perfhunt: run not saved to the history: " \
	env PERFHUNT_DB="$TMP/corrupt.db" "$P" run -q -o saved.json -- true && [ -s saved.json ] && ok
t "read-only history (a user who may not write it)"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	mkdir -p ro && cp "$PERFHUNT_DB" ro/h.db && chmod 755 ro && chmod 644 ro/h.db && chmod 755 "$TMP"
	before=$(cksum <ro/h.db)
	setpriv --reuid=65534 --regid=65534 --clear-groups env PERFHUNT_DB="$TMP/ro/h.db" \
		"$P" history import good.json >out 2>err; st=$?
	expect_status 1 $st && check "one line" [ "$(wc -l <err)" = 1 ] && expect_grep 'read-only|permission|cannot' err &&
		check "database changed" [ "$(cksum <ro/h.db)" = "$before" ] &&
		setpriv --reuid=65534 --regid=65534 --clear-groups env PERFHUNT_DB="$TMP/ro/h.db" \
			"$P" history list >out 2>err && expect_grep 'phwork' out && ok
else skip "not root or no setpriv"; fi
t "locked history: a writer gives up after the busy timeout with one line"
if command -v sqlite3 >/dev/null; then
	# sqlite3 holds an exclusive lock longer than perfhunt's busy timeout (10 s)
	(echo 'BEGIN EXCLUSIVE;'; echo 'DELETE FROM tags WHERE 0;'; sleep 13; echo 'COMMIT;') |
		sqlite3 "$PERFHUNT_DB" & L=$!
	sleep 0.5
	bad 1 "history database '.*h.db' is locked by another process" "$P" history import good.json && ok
	wait $L
else skip "no sqlite3"; fi

# --- outputs that cannot be written ------------------------------------------
t "run -o /dev/full: status 1, the error and where the record went instead"
mkdir -p fallback
TMPDIR="$TMP/fallback" "$P" run -q --no-save -o /dev/full -- true 2>err; st=$?
expect_status 1 $st && no_sanitizer && check "two lines: $(cat err)" [ "$(wc -l <err)" = 2 ] &&
	expect_grep "^perfhunt: cannot write '/dev/full': No space left on device$" err &&
	expect_grep "^perfhunt: the record was written to '$TMP/fallback/perfhunt-record-.*.json' instead$" err && ok
t "run --csv /dev/full"
bad 1 "^perfhunt: cannot write '/dev/full'" "$P" run -q --no-save --csv /dev/full -- "$W" sleep:100 && ok
t "run -o into a missing folder: refused before the command runs"
bad 2 "^perfhunt: cannot write '$TMP/no/x.json': no directory '$TMP/no'$" "$P" run -q --no-save -o "$TMP/no/x.json" -- true && ok
t "run --csv into a missing folder"
bad 2 "^perfhunt: cannot write '$TMP/no/x.csv': no directory" "$P" run -q --no-save --csv "$TMP/no/x.csv" -- true && ok
t "report -o /dev/full"
bad 1 "^perfhunt: cannot write '/dev/full'" "$P" report -o /dev/full good.json && ok
t "report --svg into a missing folder"
bad 2 "^perfhunt: cannot write '$TMP/no/x.svg': no directory" "$P" report --svg "$TMP/no/x.svg" good.json && ok
t "compare --export-json /dev/full"
bad 1 "^perfhunt: cannot write '/dev/full'" "$P" compare -q --export-json /dev/full good.json good.json && ok
t "compare --export-markdown into a missing folder"
bad 2 "^perfhunt: cannot write '$TMP/no/x.md': no directory" "$P" compare -q --export-markdown "$TMP/no/x.md" good.json good.json && ok
t "a symlink planted at the output path is replaced, its target untouched"
echo secret >victim; ln -sf "$TMP/victim" planted.json
"$P" run -q --no-save -o planted.json -- true && [ "$(cat victim)" = secret ] && [ ! -L planted.json ] &&
	jget planted.json schema >/dev/null && ln -sf "$TMP/victim" planted.md &&
	"$P" compare -q --export-markdown planted.md good.json good.json && [ "$(cat victim)" = secret ] && ok
if [ "$(id -u)" = 0 ] && mkdir -p small && mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
	t "a full small tmpfs during run: record absent or complete, the CSV error named"
	# most of it taken first, so the CSV fills however few samples a loaded machine takes
	head -c 48k /dev/zero >small/filler 2>/dev/null
	TMPDIR="$TMP" "$P" run -q --no-save --interval 1 --csv small/t.csv -o small/t.json -- "$W" sleep:1500 2>err; st=$?
	expect_status 1 $st && expect_grep "cannot write 'small/t.csv': No space left on device" err && no_sanitizer &&
		{ [ ! -e small/t.json ] || jget small/t.json schema >/dev/null; } && ok
	t "a full small tmpfs: a failed rewrite leaves the old record untouched, no temp file"
	rm -f small/*; cp good.json small/keep.json; before=$(cksum <small/keep.json)
	head -c 1M /dev/zero >small/filler 2>/dev/null
	bad 1 "^perfhunt: cannot write 'small/keep.json': No space left" "$P" report -o small/keep.json good.json &&
		check "keep.json changed" [ "$(cksum <small/keep.json)" = "$before" ] &&
		check "temp file left: $(ls small)" [ "$(ls small | wc -l)" = 2 ] &&
		bad 1 "^perfhunt: cannot write 'small/c.md'" "$P" compare -q --export-markdown small/c.md good.json good.json &&
		absent small/c.md && ok
	umount small
else skip "not root (tmpfs mount)"; fi

# --- closed stdout -------------------------------------------------------------
for c in "peak good.csv" "show good.json" "compare good.json good.json" "history list" "--help"; do
	t "$c with stdout closed (>&-)"
	# shellcheck disable=SC2086
	"$P" $c >&- 2>err; expect_status 1 $? && one_line_err "^perfhunt: error writing output: Bad file descriptor" && ok
	t "$c into /dev/full"
	# shellcheck disable=SC2086
	"$P" $c >/dev/full 2>err; expect_status 1 $? && one_line_err "^perfhunt: error writing output: No space left" && ok
	t "$c into a pipe whose reader is gone (| head -c0): no crash, no message"
	# shellcheck disable=SC2086
	st=$( { "$P" $c 2>err; echo $? >st; } | head -c0; cat st)
	check "status $st" [ "$st" -le 1 ] && check "stderr" [ ! -s err ] && ok
done

# --- security ------------------------------------------------------------------
t "no shell without --shell: ';' is an argument"
"$P" run -q --no-save -- "$W" 'out:a;touch pwned' >out 2>err; expect_status 0 $? &&
	absent pwned && expect_grep '^a;touch pwned$' out && ok
t "no shell: a command name with ';' is not found, not split"
bad 127 "command not found: true;touch pwned" "$P" run -q --no-save -- 'true;touch pwned' && absent pwned && ok
t "--shell does run a shell"
"$P" run -q --no-save --shell -- 'echo x >shelled' && [ -s shelled ] && ok
t "record files are not world-writable, whatever the umask"
(umask 0; "$P" run -q --no-save -o perm.json --csv perm.csv -- true) &&
	check "json mode $(stat -c %a perm.json)" [ "$(stat -c %a perm.json)" = 644 ] &&
	check "csv mode $(stat -c %a perm.csv)" [ "$(stat -c %a perm.csv)" = 644 ] && ok
t "state files are private (0600 in a 0700 directory)"
"$W" sleep:3000 & T=$!
id=$("$P" watch --no-save --detach $T 2>/dev/null)
check "state dir mode" [ "$(stat -c %a "$PERFHUNT_STATE_DIR")" = 700 ] &&
	check "state file mode" [ "$(stat -c %a "$PERFHUNT_STATE_DIR/$id.json")" = 600 ] && ok
"$P" stop "$id" >/dev/null 2>&1; kill $T 2>/dev/null; wait $T 2>/dev/null
t "PERFHUNT_STATE_DIR that is a symlink is refused"
mkdir -p realstate && ln -sfn realstate linkstate
"$W" sleep:2000 & T=$!
bad 1 "state directory '.*linkstate' is not a private directory" \
	env PERFHUNT_STATE_DIR="$TMP/linkstate" "$P" watch --no-save --detach $T &&
	check "state written: $(ls realstate)" [ -z "$(ls realstate)" ] && ok
kill $T 2>/dev/null; wait $T 2>/dev/null
t "a state file planted as a symlink is not followed by stop"
mkdir -p "$PERFHUNT_STATE_DIR" && chmod 700 "$PERFHUNT_STATE_DIR"
echo secret >victim; ln -sf "$TMP/victim" "$PERFHUNT_STATE_DIR/31337.json"
"$P" stop 31337 >out 2>err; st=$?
check "status $st" [ "$st" = 1 ] && no_sanitizer && [ "$(cat victim)" = secret ] && ok
rm -f "$PERFHUNT_STATE_DIR/31337.json"
t "stop does not signal a process it did not start (state file forged for a live PID)"
sleep 30 & S=$!
printf '{"id":"%s","pid":%d,"starttime_ticks":1,"target_pid":%d,"target":"x","started_at":"","log":"x.log"}' \
	"$S" "$S" "$S" >"$PERFHUNT_STATE_DIR/$S.json"
"$P" stop "$S" 2>err; st=$?
expect_status 1 $st && kill -0 $S && ok
kill $S; wait $S 2>/dev/null
t "HTML report escapes a <script> probe line of a real run"
"$P" run -q --no-save -o xss.json -- "$W" 'out:PERFHUNT: note=<script>alert(1)</script> x_ms=5' \
	'out:PERFHUNT: begin=<img/src=x/onerror=alert(2)>' >/dev/null &&
	"$P" report -o xss.html xss.json 2>/dev/null && expect_no_grep '<script>alert|<img/src' xss.html &&
	expect_grep '&lt;script&gt;|&lt;img' xss.html && ok

done_testing
