#!/bin/sh
# render.sh: renders an HTML report in headless Chromium, offline, and checks it.
#
# Writes a screenshot to PNG and fails (exit 1, one line) when the page is blank
# (under 2 % non-white pixels, or fewer than 6 colours: no charts drawn), when the
# page's error hook recorded a script error, when its script did not finish
# (no data-ready), or when Chromium logged an uncaught error.
# Exit 77 with "skipped: chromium not installed" when there is no chromium.
# Usage: render.sh PAGE.html OUT.png [text]   ("text": a page of tables, no
# blank check — every other check still applies)
set -u
page=$1 png=$2 kind=${3:-charts}
command -v chromium >/dev/null 2>&1 || { echo "skipped: chromium not installed"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/perfhunt-chromium.XXXXXX")
trap 'rm -rf "$work"' EXIT
abs=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")
flags="--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
 --disable-sync --no-first-run --disable-extensions --hide-scrollbars"
# shellcheck disable=SC2086
timeout 120 chromium $flags --user-data-dir="$work/p1" --window-size=1200,1600 \
	--screenshot="$png" "file://$abs" >"$work/shot.log" 2>&1
[ -s "$png" ] || { echo "no screenshot: $(tail -3 "$work/shot.log")"; exit 1; }
# shellcheck disable=SC2086
timeout 120 chromium $flags --user-data-dir="$work/p2" --enable-logging=stderr --v=0 \
	--dump-dom "file://$abs" >"$work/dom.html" 2>"$work/dom.log"
grep -q 'data-ready="1"' "$work/dom.html" || { echo "page script did not finish"; exit 1; }
if grep -q 'data-error=' "$work/dom.html"; then
	echo "script error: $(grep -o 'data-error="[^"]*"' "$work/dom.html" | head -1)"; exit 1
fi
if grep -E 'CONSOLE.*(Uncaught|Error)' "$work/dom.log" >/dev/null; then
	echo "console error: $(grep -E 'CONSOLE.*(Uncaught|Error)' "$work/dom.log" | head -1)"; exit 1
fi
stat=$(/usr/bin/python3 "$here/pngstat.py" "$png") || exit 1
set -- $stat
px=${1#pixels=} nw=${2#nonwhite=} col=${3#colors=}
if [ "$kind" != text ] && { [ $((nw * 50)) -lt "$px" ] || [ "$col" -lt 6 ]; }; then
	echo "blank page: $stat"; exit 1
fi
echo "rendered: $stat"
