#!/bin/sh
# The docs cannot drift: every command in `perfhunt --help` has a section in
# the man page, every long option its --help mentions is documented there (by
# its whole name), and each command's options agree with its own section.
. ./lib.sh
MAN="$SRCDIR/docs/perfhunt.1"
# the man page spells "--opt-name" as "\-\-opt\-name"
sed 's/\\-/-/g' "$MAN" >"$TMP/man.txt"

# option tokens of a text, whole: "--push" is not found inside "--push-job"
tokens() { grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z0-9][A-Za-z0-9-]*' "$1" | sed 's/^[^-]*//' | sort -u; }
tokens "$TMP/man.txt" >"$TMP/man.tokens"
# section NAME: the man page's .SS block of a command, up to the next .SS or .SH
section() { awk -v c="$1" '/^\.S[SH] /{on = ($1 == ".SS" && ($2 == c || $2 == "\"" c "\""))} on' "$TMP/man.txt"; }

"$PERFHUNT" --help >"$TMP/help"
cmds=$(awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}' "$TMP/help")
[ -n "$cmds" ] || fail "no commands in perfhunt --help"
for c in $cmds; do
	t "man page documents '$c'"
	grep -q "^\.SS \"\?$c" "$TMP/man.txt" && ok || { fail "no .SS $c in docs/perfhunt.1"; continue; }
	"$PERFHUNT" "$c" --help >"$TMP/h.$c" 2>&1
	for opt in $(grep -oE -- '(^|[^A-Za-z0-9-])--[a-z][a-z0-9-]*' "$TMP/h.$c" | sed 's/^[^-]*//' | sort -u); do
		[ "$opt" = "--help" ] && continue
		t "man page documents '$c $opt'"
		grep -qxF -- "$opt" "$TMP/man.tokens" && ok || fail "$opt of '$c' missing from docs/perfhunt.1"
	done
done

# Each command's options, from its own table (--help-options), and its man
# page section agree: every option is in the section, and every option the
# section defines (a .TP item) is the command's. history's subcommands share
# its section.
subs=$("$PERFHUNT" history --help | sed -n 's/^.*perfhunt history \[\{0,1\}\([a-z]*\).*/\1/p' | sort -u)
for c in $cmds; do
	section "$c" >"$TMP/s.$c"
	tokens "$TMP/s.$c" >"$TMP/st.$c"
	if [ "$c" = history ]; then
		for s in $subs; do "$PERFHUNT" history "$s" --help-options; done
	else
		"$PERFHUNT" "$c" --help-options
	fi >"$TMP/o.$c" 2>&1 || { t "$c --help-options"; fail "exit $?: $(head -c 300 "$TMP/o.$c")"; continue; }
	t "'$c' options and its man page section agree"
	missing= foreign=
	for opt in $(sort -u "$TMP/o.$c"); do
		grep -qxF -- "$opt" "$TMP/st.$c" || missing="$missing $opt"
	done
	awk 'prev == ".TP" {print} {prev = $1}' "$TMP/s.$c" >"$TMP/tp.$c"
	for opt in $(tokens "$TMP/tp.$c"); do
		grep -qxF -- "$opt" "$TMP/o.$c" || foreign="$foreign $opt"
	done
	[ -z "$missing$foreign" ] && ok ||
		fail "${missing:+not in its section of docs/perfhunt.1:$missing}${foreign:+; documented but not an option of '$c':$foreign}"
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
