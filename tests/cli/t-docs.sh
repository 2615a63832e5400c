#!/bin/sh
# The docs cannot drift: every command in `perfhunt --help` has a section in
# the man page, and every long option its --help lists is documented there.
. ./lib.sh
MAN="$SRCDIR/docs/perfhunt.1"
# the man page spells "--opt-name" as "\-\-opt\-name"
sed 's/\\-/-/g' "$MAN" >"$TMP/man.txt"

"$PERFHUNT" --help >"$TMP/help"
cmds=$(awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}' "$TMP/help")
[ -n "$cmds" ] || fail "no commands in perfhunt --help"
for c in $cmds; do
	t "man page documents '$c'"
	grep -q "^\.SS \"\?$c" "$TMP/man.txt" && ok || { fail "no .SS $c in docs/perfhunt.1"; continue; }
	"$PERFHUNT" "$c" --help >"$TMP/h.$c" 2>&1
	for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$TMP/h.$c" | sort -u); do
		[ "$opt" = "--help" ] && continue
		t "man page documents '$c $opt'"
		grep -q -- "$opt" "$TMP/man.txt" && ok || fail "$opt of '$c' missing from docs/perfhunt.1"
	done
done

t "every command is in the README"
missing=""
for c in $cmds; do grep -q "perfhunt $c" "$SRCDIR/README.md" || missing="$missing $c"; done
[ -z "$missing" ] && ok || fail "README lacks:$missing"

# The man page's first EXAMPLES block runs as written.
awk '/^\.SH EXAMPLES/{on=1} on && /^\.nf/{n++; if (n == 1) {grab=1; next}} grab && /^\.fi/{exit} grab' "$MAN" |
	sed 's/\\-/-/g' >"$TMP/examples.sh"
t "the man page's examples run as written"
if [ -s "$TMP/examples.sh" ]; then
	( cd "$TMP" && PATH="$(dirname "$PERFHUNT"):$PATH" sh -e "$TMP/examples.sh" >"$TMP/ex.out" 2>&1 ); st=$?
	expect_status 0 $st && check "report written" [ -s "$TMP/report.html" ] && ok ||
		sed 's/^/# /' "$TMP/ex.out" | tail -20
else
	fail "no EXAMPLES block in the man page"
fi

done_testing
