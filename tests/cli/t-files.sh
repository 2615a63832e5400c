#!/bin/sh
# End-to-end tests of where perfhunt writes: the history's location (the git
# work tree's top level, else one per user, $PERFHUNT_DB over both, and
# `history --path` saying which), the refusal of a history, CSV or record
# that another user could have planted (run as root, with directories and
# links chowned to nobody), one writer per --csv, and the memory cgroups a
# SIGKILLed run leaves behind, removed by the next start.
. ./lib.sh
P=$PERFHUNT
W=$WORKLOADS/phwork
cd "$TMP" || exit 1
unset PERFHUNT_DB PERFHUNT_SAFE_DIRECTORY XDG_DATA_HOME SUDO_UID
export HOME="$TMP/home"
mkdir -p "$HOME" nogit repo/.git repo/src
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1
# plant PATH...: hands the entries (links themselves, not their targets) to nobody
plant() { chown -h 65534:65534 "$@"; }

# --- where the history lives ---------------------------------------------------
t "outside a git work tree: the per-user database, no .perfhunt/ in the current directory"
(cd nogit && "$P" run -q -- true) 2>err; st=$?
expect_status 0 $st && check "per-user db" [ -s "$HOME/.local/share/perfhunt/history.db" ] &&
	check "no .perfhunt here" [ ! -e nogit/.perfhunt ] &&
	check "private directory" [ "$(stat -c %a "$HOME/.local/share/perfhunt")" = 700 ] && ok

t "history --path names it, and why, outside a work tree"
(cd nogit && "$P" history --path) >out 2>err; st=$?
expect_status 0 $st && check "path on stdout: $(cat out)" [ "$(cat out)" = "$HOME/.local/share/perfhunt/history.db" ] &&
	expect_grep '^\(per-user, not inside a git work tree' err && ok

t "\$XDG_DATA_HOME moves the per-user database"
(cd nogit && XDG_DATA_HOME="$TMP/xdg" "$P" history --path) >out 2>err
check "got $(cat out)" [ "$(cat out)" = "$TMP/xdg/perfhunt/history.db" ] && ok

t "inside a work tree: .perfhunt/history.db at its top level, found from a subdirectory"
(cd repo/src && "$P" run -q -- true && "$P" history --path) >out 2>err; st=$?
expect_status 0 $st && check "db at the top" [ -s repo/.perfhunt/history.db ] &&
	check "path: $(cat out)" [ "$(cat out)" = "$TMP/repo/.perfhunt/history.db" ] &&
	expect_grep '^\(at the top level of the git work tree\)$' err && ok

t "\$PERFHUNT_DB overrides both, and --path says so"
(cd repo/src && PERFHUNT_DB="$TMP/env.db" "$P" history --path) >out 2>err; st=$?
expect_status 0 $st && check "path: $(cat out)" [ "$(cat out)" = "$TMP/env.db" ] &&
	expect_grep '^\(from \$PERFHUNT_DB\)$' err && ok

t "history --path with an argument is a usage error"
"$P" history --path extra 2>err; expect_status 2 $? && expect_grep "unexpected argument 'extra'" err && ok

# --- a history another user could have planted -----------------------------------
t "a planted .perfhunt/ (nobody's, 0777, history.db a link to a victim) is refused before the run; the victim is not made"
if [ $ROOT = 1 ]; then
	mkdir -p trap/.git trap/.perfhunt && chmod 777 trap/.perfhunt &&
		ln -s "$TMP/victim.db" trap/.perfhunt/history.db && plant trap/.perfhunt trap/.perfhunt/history.db
	(cd trap && "$P" run -q -o "$TMP/kept.json" -- true) 2>err; st=$?
	expect_status 2 $st &&
		expect_grep "^perfhunt: refusing the history database '$TMP/trap/.perfhunt/history.db': '$TMP/trap/.perfhunt' is owned by nobody \(uid 65534\), not by you or root; set PERFHUNT_SAFE_DIRECTORY=$TMP/trap/.perfhunt to trust it, or PERFHUNT_DB to choose another$" err &&
		check "one line" [ "$(wc -l <err)" = 1 ] && check "victim made" [ ! -e victim.db ] &&
		check "command ran" [ ! -e kept.json ] && ok
else skip "not root: cannot plant another user's directory"; fi

t "history list and --path refuse it the same way, status 1"
if [ $ROOT = 1 ]; then
	(cd trap && "$P" history list) 2>err; st=$?
	expect_status 1 $st && expect_grep "^perfhunt: refusing the history database .*owned by nobody" err &&
		(cd trap && "$P" history --path) >out 2>err2; st=$?
	expect_status 1 $st && check "path still printed" [ "$(cat out)" = "$TMP/trap/.perfhunt/history.db" ] &&
		expect_grep "^perfhunt: refusing the history database" err2 && check "victim made" [ ! -e victim.db ] && ok
else skip "not root"; fi

t "a history directory other users may write (0777, ours) is refused; PERFHUNT_SAFE_DIRECTORY trusts it"
mkdir -p open/.git open/.perfhunt && chmod 777 open/.perfhunt
(cd open && "$P" run -q -- true) 2>err; st=$?
expect_status 2 $st && expect_grep "'$TMP/open/.perfhunt' is writable by other users \(mode 0777\)" err &&
	check "db made" [ ! -e open/.perfhunt/history.db ] &&
	(cd open && PERFHUNT_SAFE_DIRECTORY="$TMP/open" "$P" run -q -- true) 2>err; st=$?
expect_status 0 $st && check "db with the override" [ -s open/.perfhunt/history.db ] && ok

t "a sticky directory may be above the database, not hold it"
mkdir sticky && chmod 1777 sticky
PERFHUNT_DB="$TMP/sticky/h.db" "$P" run -q -- true 2>err; st=$?
expect_status 2 $st && expect_grep "mode 1777; sticky, but they could plant files beside ours" err &&
	PERFHUNT_DB="$TMP/sticky/mine/h.db" "$P" run -q -- true && check "db" [ -s sticky/mine/h.db ] && ok

t "under sudo, the invoking user's work tree is trusted"
if [ $ROOT = 1 ]; then
	mkdir -p theirs/.git && plant theirs
	(cd theirs && "$P" run -q -- true) 2>err; st=$?
	expect_status 2 $st && expect_grep "'$TMP/theirs' is owned by nobody" err &&
		(cd theirs && SUDO_UID=65534 "$P" run -q -- true) && check "db" [ -s theirs/.perfhunt/history.db ] && ok
else skip "not root"; fi

t "a history only read (another user's, not writable) is not refused"
if [ $ROOT = 1 ] && command -v setpriv >/dev/null; then
	mkdir -p ro && cp "$HOME/.local/share/perfhunt/history.db" ro/h.db && chmod 755 ro && chmod 644 ro/h.db &&
		chmod 755 "$TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups env PERFHUNT_DB="$TMP/ro/h.db" HOME=/ \
		"$P" history list >out 2>err; st=$?
	chmod 700 "$TMP"
	expect_status 0 $st && expect_grep 'true' out && ok
else skip "not root or no setpriv"; fi

# --- outputs: --csv and -o never follow a planted link --------------------------
echo precious >victim
t "--csv through a planted symlink: refused before the command runs, the target untouched"
if [ $ROOT = 1 ]; then
	ln -s "$TMP/victim" planted.csv && plant planted.csv
	"$P" run -q --no-save --csv planted.csv -- touch ran 2>err; st=$?
	expect_status 2 $st &&
		expect_grep "^perfhunt: refusing to write 'planted.csv': '$TMP/planted.csv' is owned by nobody \(uid 65534\), not by you or root \(set PERFHUNT_SAFE_DIRECTORY=$TMP/planted.csv to trust it, or choose another path\)$" err &&
		check "victim changed" [ "$(cat victim)" = precious ] && check "command ran" [ ! -e ran ] && ok
else skip "not root"; fi

t "--csv in a directory other users may write: refused; in a sticky one: written"
mkdir shared && chmod 777 shared
"$P" run -q --no-save --csv shared/t.csv -- true 2>err; st=$?
expect_status 2 $st && expect_grep "'$TMP/shared' is writable by other users \(mode 0777\)" err &&
	check "csv made" [ ! -e shared/t.csv ] &&
	"$P" run -q --no-save --csv sticky/t.csv -- true && expect_grep '^epoch_ms,rss_kb' sticky/t.csv && ok

t "--csv in another user's directory: refused; PERFHUNT_SAFE_DIRECTORY vouches for it"
if [ $ROOT = 1 ]; then
	mkdir -p hosts/out && plant hosts/out
	"$P" run -q --no-save --csv hosts/out/t.csv -- true 2>err; st=$?
	expect_status 2 $st && expect_grep "'$TMP/hosts/out' is owned by nobody \(uid 65534\), not by you or root \(set PERFHUNT_SAFE_DIRECTORY=$TMP/hosts/out to trust it" err &&
		PERFHUNT_SAFE_DIRECTORY="$TMP/hosts/out" "$P" run -q --no-save --csv hosts/out/t.csv -- true &&
		expect_grep '^epoch_ms' hosts/out/t.csv && ok
else skip "not root"; fi

t "--csv onto another name (hard link) of a file: refused, the file untouched"
ln victim hard.csv
"$P" run -q --no-save --csv hard.csv -- true 2>err; st=$?
expect_status 1 $st && expect_grep "refusing to write 'hard.csv': it has 2 hard links" err &&
	check "victim changed" [ "$(cat victim)" = precious ] && ok
rm -f hard.csv

t "--csv through our own link: followed"
: >mine.csv && ln -s mine.csv mylink.csv
"$P" run -q --no-save --csv mylink.csv -- true && check "still a link" [ -L mylink.csv ] &&
	expect_grep '^epoch_ms,rss_kb' mine.csv && ok

t "-o through a planted symlink: refused, the target untouched"
if [ $ROOT = 1 ]; then
	ln -s "$TMP/victim" planted.json && plant planted.json
	"$P" run -q --no-save -o planted.json -- true 2>err; st=$?
	expect_status 2 $st && expect_grep "^perfhunt: refusing to write 'planted.json': .*owned by nobody" err &&
		check "victim changed" [ "$(cat victim)" = precious ] && check "link replaced" [ -L planted.json ] && ok
else skip "not root"; fi

t "-o to a link into /proc/self/fd (like /dev/stdout) writes through it, never renames over it"
ln -s /proc/self/fd/1 fdlink
"$P" run -q --no-save -o fdlink -- true >through.json; st=$?
expect_status 0 $st && check "still a link" [ -L fdlink ] && check "schema" [ "$(jget through.json schema)" = perfhunt.run/1 ] && ok

# --- one writer per --csv ----------------------------------------------------------
t "a second run given the same --csv is refused; the first one's rows stay whole"
"$P" run -q --no-save --interval 10 --csv same.csv -- "$W" sleep:1500 & first=$!
i=0; while [ ! -s same.csv ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$P" run -q --no-save --interval 10 --csv same.csv -- touch ran2 2>err; st=$?
wait $first; st1=$?
expect_status 1 $st && expect_status 0 $st1 &&
	expect_grep "^perfhunt: cannot write 'same.csv': another perfhunt is writing it \(give each run its own --csv file\)$" err &&
	check "second command ran" [ ! -e ran2 ] &&
	check "rows: $(wc -l <same.csv)" [ "$(wc -l <same.csv)" -gt 20 ] &&
	check "ragged rows" [ "$(awk -F, 'NR > 1 && NF != 25' same.csv | wc -l)" = 0 ] &&
	check "one header" [ "$(grep -c '^epoch_ms' same.csv)" = 1 ] && ok

t "once the first run is done, the file is free again"
"$P" run -q --no-save --csv same.csv -- true && check "rewritten" [ "$(wc -l <same.csv)" -lt 10 ] && ok

# --- memory cgroups left by a SIGKILLed run ------------------------------------------
t "the cgroup of a SIGKILLed run is left behind, and removed by the next start once empty"
"$P" run -q --no-save -- "$W" sleep:1000 & killed=$!
# the cgroup is made before the command is moved into it: wait for both
i=0; cg=
while [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
	cg=$(find /sys/fs/cgroup -maxdepth 8 -type d -name "perfhunt-$killed-*" 2>/dev/null | head -1)
	[ -n "$cg" ] && [ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] && break
done
if [ -z "$cg" ]; then
	kill -KILL $killed; wait $killed 2>/dev/null
	skip "no memory cgroup is made here (not root, or no memory controller)"
else
	kill -KILL $killed; wait $killed 2>/dev/null
	# The child lives on in it (perfhunt cannot act after SIGKILL), so no
	# perfhunt — ours or another test's — can remove it yet.
	left=$(cat "$cg/cgroup.procs" 2>/dev/null)
	i=0; while [ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
	check "left behind with its child: $cg" [ -n "$left" ] &&
		"$P" run -q --no-save -- true && check "removed: $cg" [ ! -d "$cg" ] && ok
fi

t "stale cgroups are told by PID and start time: a reused PID's goes, a live maker's and a busy one stay"
if [ -n "$cg" ]; then
	parent=${cg%/*}
	start=$(sed 's/.*) //' /proc/$$/stat | awk '{print $20}')
	mkdir "$parent/perfhunt-$$-$((start + 1))-0" "$parent/perfhunt-$$-$start-0"
	"$W" sleep:3000 & busy_pid=$!
	mkdir "$parent/perfhunt-999999-1-0" && echo $busy_pid >"$parent/perfhunt-999999-1-0/cgroup.procs"
	"$P" run -q --no-save -- true
	check "PID reused: removed" [ ! -d "$parent/perfhunt-$$-$((start + 1))-0" ] &&
		check "live maker: kept" [ -d "$parent/perfhunt-$$-$start-0" ] &&
		check "processes in it: kept" [ -d "$parent/perfhunt-999999-1-0" ] && ok
	kill $busy_pid; wait $busy_pid 2>/dev/null
	rmdir "$parent/perfhunt-$$-$start-0" 2>/dev/null
	for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$parent/perfhunt-999999-1-0" 2>/dev/null && break; sleep 0.1; done
else skip "no memory cgroup is made here"; fi

done_testing
