#!/bin/sh
# Hostile names in the files perfhunt writes for other tools: phase names that
# hold a CSV separator, a quote, a spreadsheet formula, HTML, a markdown pipe or
# a folded-stack ';', and Pushgateway job and label values that an HTTP client
# would resolve as dot segments. Each file is read back by what its users read
# it with (Python's csv module, a GFM table splitter, perfhunt peak, a listener
# on 127.0.0.1 that records the request line), and must give the same fields.
. ./lib.sh
W=$WORKLOADS/phwork
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1

# A run whose phases are named NAME...: each begins, phwork allocates, each ends.
phases_run() { # phases_run OUT.csv OUT.json NAME...
	csv=$1 json=$2; shift 2
	script=
	for n in "$@"; do script="$script printf '%s\\n' 'PERFHUNT: begin=$n';"; done
	script="$script \"\$0\" alloc:4 sleep:150;"
	for n in "$@"; do script="$script printf '%s\\n' 'PERFHUNT: end=$n';"; done
	timeout 60 "$PERFHUNT" run -q --no-save --interval 10 --csv "$csv" -o "$json" -- sh -c "$script" "$W" \
		>/dev/null 2>"$TMP/err"
}

t "timeline CSV: a phase 'a,b', a quote and a formula keep every row at the header's number of fields"
phases_run "$TMP/t.csv" "$TMP/t.json" 'a,b' '=HYPERLINK("http://evil.example/?x",A1)' 'a,b,"c'; st=$?
/usr/bin/python3 - "$TMP/t.csv" >"$TMP/py" 2>&1 <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
assert len(head) >= 24 and "phase" in head, head
ph = head.index("phase")
assert len(body) >= 5, len(body)
bad = [r for r in body if len(r) != len(head)]
assert not bad, bad[:2]
want = 'a,b+=HYPERLINK("http://evil.example/?x",A1)+a,b,"c'
named = set(r[ph] for r in body if r[ph])
assert want in named, named
print(len(body))
EOF
expect_status 0 $st && check "python csv: $(cat "$TMP/py")" [ "$(wc -l <"$TMP/py")" = 1 ] &&
	expect_grep ",\"a,b\+=HYPERLINK\(\"\"http://evil\.example/\?x\"\",A1\)\+a,b,\"\"c\"(,|$)" "$TMP/t.csv" && ok

# colmax FILE NAME: the largest value of column NAME, as Python's csv module reads the file
colmax() {
	/usr/bin/python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
i = rows[0].index(sys.argv[2])
print(max(int(r[i]) for r in rows[1:]))' "$1" "$2"
}

t "perfhunt peak reads past the quoted phase column: every row counted, the true peak"
timeout 20 "$PERFHUNT" peak --json "$TMP/t.csv" >"$TMP/out" 2>"$TMP/err"; st=$?
expect_status 0 $st && col=$(jget "$TMP/out" column) && want=$(colmax "$TMP/t.csv" "$col") &&
	v=$(jget "$TMP/out" value) && check "peak $v of $col, python's max $want" [ "$v" = "$want" ] &&
	timeout 20 "$PERFHUNT" peak --json --column rss_kb "$TMP/t.csv" >"$TMP/out2" 2>>"$TMP/err" &&
	check "rss_kb peak $(jget "$TMP/out2" value), python's max $(colmax "$TMP/t.csv" rss_kb)" \
		[ "$(jget "$TMP/out2" value)" = "$(colmax "$TMP/t.csv" rss_kb)" ] &&
	check "bad lines $(jget "$TMP/out" bad_lines)" [ "$(jget "$TMP/out" bad_lines)" = 0 ] &&
	check "rows $(jget "$TMP/out" rows) of $(($(wc -l <"$TMP/t.csv") - 1))" \
		[ "$(jget "$TMP/out" rows)" = "$(($(wc -l <"$TMP/t.csv") - 1))" ] &&
	expect_no_grep skipped "$TMP/err" && ok

t "a formula alone is neutralised ('=...' quoted, with a ' before it); a plain number is not"
phases_run "$TMP/f.csv" "$TMP/f.json" '@SUM(1+1)*cmd|x' && phases_run "$TMP/n.csv" "$TMP/n.json" '-1.5' &&
	expect_grep ",\"'@SUM\(1\+1\)\*cmd\|x\"(,|$)" "$TMP/f.csv" && expect_grep ',,-1\.5(,|$)' "$TMP/n.csv" &&
	expect_no_grep ",[=+@]" "$TMP/f.csv" && ok

t "a phase column longer than 95 bytes is cut visibly (…), never left without the name"
long=$(printf 'p%.0s' $(seq 1 120))
phases_run "$TMP/l.csv" "$TMP/l.json" short "$long" &&
	expect_grep ",short\+p{86}…(,|$)" "$TMP/l.csv" && ok

t "bench --export-csv: a command with a ',' and a formula command are one neutralised field each"
timeout 60 "$PERFHUNT" bench -q -n 1 --no-save --shell -i --export-csv "$TMP/b.csv" \
	'echo a,b' '=1+2 # "q"' >/dev/null 2>"$TMP/err"; st=$?
/usr/bin/python3 - "$TMP/b.csv" >"$TMP/py" 2>&1 <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert all(len(r) == len(rows[0]) for r in rows), rows
assert sorted(r[0] for r in rows[1:]) == ["'=1+2 # \"q\"", "echo a,b"], rows
EOF
expect_status 0 $st && check "python csv: $(cat "$TMP/py")" [ ! -s "$TMP/py" ] && ok

t "perfhunt peak on a bench CSV finds the quoted column \"phase:a,b\" by name, every row whole"
timeout 60 "$PERFHUNT" bench -q -n 2 --no-save --shell --export-csv "$TMP/p.csv" \
	"echo 'PERFHUNT: begin=a,b'; \"$W\" spin:20; echo 'PERFHUNT: end=a,b'" >/dev/null 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '^command,.*,"phase:a,b"(,|$)' "$TMP/p.csv" &&
	timeout 20 "$PERFHUNT" peak --json --column 'phase:a,b' "$TMP/p.csv" >"$TMP/out" 2>"$TMP/err" &&
	check "rows $(jget "$TMP/out" rows), bad $(jget "$TMP/out" bad_lines)" \
		[ "$(jget "$TMP/out" rows)/$(jget "$TMP/out" bad_lines)" = 2/0 ] &&
	check "column $(jget "$TMP/out" column)" [ "$(jget "$TMP/out" column)" = "phase:a,b" ] &&
	between 15 "$(jget "$TMP/out" value)" 10000 && ok

# md_check FILE NAME...: every table row splits (GFM: '\|' is no separator) into
# its header's number of cells; no raw '<' in a text cell, none that could open
# HTML elsewhere outside code spans; each NAME, unescaped, is the text of some cell.
md_check() {
	/usr/bin/python3 - "$@" <<'EOF'
import html, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
names = sys.argv[2:]
cells_seen, width = set(), None
for line in text.splitlines():
    if not line.startswith("|"):
        width = None
        # prose: no '<' that could open HTML (a tag, comment or declaration)
        # but perfhunt's own folding of unchanged rows, <details><summary>
        prose = re.sub(r"</?(details|summary)>", "", re.sub(r"`[^`]*`", "", line))
        assert not re.search(r"<[A-Za-z/!?]", prose), line
        continue
    assert line.endswith("|"), line
    cells = re.split(r"(?<!\\)\|", line)[1:-1]  # as cmark-gfm splits a row
    width = width or len(cells)
    assert len(cells) == width, (width, line)
    for c in cells:
        c = c.strip()
        if c.startswith("`") and c.endswith("`"):
            continue
        assert "<" not in c and ">" not in c, c
        plain = html.unescape(re.sub(r"\\(.)", r"\1", c)).replace("\u00a0", "")
        cells_seen.add(plain)
missing = [n for n in names if n not in cells_seen]
assert not missing, (missing, sorted(cells_seen)[:40])
EOF
}

t "compare --export-markdown: HTML and '|' in phase names stay text in their cells"
mk_rec() { # mk_rec OUT.json
	timeout 60 "$PERFHUNT" run -q --no-save -o "$1" -- sh -c \
		'for n in "<img/src=x/onerror=alert(1)>" "a|b" "x;main;fake" "[l](http://e.example)"; do
			printf "PERFHUNT: begin=%s\n" "$n"; printf "PERFHUNT: end=%s\n" "$n"; done' >/dev/null 2>&1
}
mk_rec "$TMP/c1.json" && mk_rec "$TMP/c2.json" && mk_rec "$TMP/c3.json" && mk_rec "$TMP/c4.json" &&
	timeout 60 "$PERFHUNT" compare -q --export-markdown "$TMP/c.md" "$TMP/c1.json,$TMP/c2.json" \
		"$TMP/c3.json,$TMP/c4.json" >/dev/null 2>"$TMP/err"
st=$?
if [ $st -gt 1 ]; then fail "compare exited $st: $(head -3 "$TMP/err")"
else
	md_check "$TMP/c.md" '<img/src=x/onerror=alert(1)>' 'a|b' 'x;main;fake' '[l](http://e.example)' \
		>"$TMP/py" 2>&1 && expect_no_grep '<img' "$TMP/c.md" && ok || fail "$(tail -3 "$TMP/py")"
fi

t "bench --export-markdown: a command with HTML and '|' keeps the table's shape"
timeout 60 "$PERFHUNT" bench -q -n 1 --no-save --shell --export-markdown "$TMP/b.md" \
	'echo "<img src=x>" | cat' 'true `echo` x' >/dev/null 2>"$TMP/err"; st=$?
expect_status 0 $st && md_check "$TMP/b.md" >"$TMP/py" 2>&1 && ok || fail "$(tail -3 "$TMP/py")"

t "folded stacks: a phase 'x;main;fake' is one frame, %-escaped"
timeout 60 "$PERFHUNT" run -q --no-save --profile -o "$TMP/p.json" --export-folded "$TMP/p.txt" -- \
	sh -c 'echo "PERFHUNT: begin=x;main;fake"; "$0" spin:200; echo "PERFHUNT: end=x;main;fake"' "$W" \
	>/dev/null 2>"$TMP/err"
if [ ! -s "$TMP/p.txt" ]; then
	skip "perf cannot sample here: $(grep 'profile' "$TMP/err" | head -1)"
else
	expect_grep '^\[phase:x%3Bmain%3Bfake\];' "$TMP/p.txt" && expect_no_grep '(^|;)main;fake' "$TMP/p.txt" &&
		expect_no_grep '^\[phase:x\]' "$TMP/p.txt" && ok
fi

# ---- Pushgateway paths: a listener that records each request line ----
cat >"$TMP/listen.py" <<'EOF'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        with open(sys.argv[1], "a") as f:
            f.write(self.requestline + "\n")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_PUT = do_DELETE = do_POST = answer
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[2], "w") as f:
    f.write(str(s.server_address[1]))
s.timeout = 30
for _ in range(int(sys.argv[3])):
    s.handle_request()
EOF
/usr/bin/python3 "$TMP/listen.py" "$TMP/requests" "$TMP/port" 2 &
LPID=$!
n=0; while [ ! -s "$TMP/port" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
GW=http://127.0.0.1:$(cat "$TMP/port")
/usr/bin/python3 -c 'import json,sys
r=json.load(open(sys.argv[1])); r["host"]["hostname"]=".."; json.dump(r,open(sys.argv[2],"w"))' \
	"$TMP/t.json" "$TMP/dots.json"

t "push --job .. --label a=. --label b=x: every value in its own segment, dots as base64"
timeout 30 "$PERFHUNT" push --gateway "$GW" --retries 0 --job .. --label a=. --label b=x --label c=... \
	"$TMP/t.json" >/dev/null 2>"$TMP/err"; st=$?
expect_status 0 $st &&
	expect_grep '^PUT /metrics/job@base64/Li4=/a@base64/Lg==/b/x/c/\.\.\./instance/[^/ ]+ HTTP/1\.1$' \
		"$TMP/requests" && ok

t "a record whose hostname is '..' keeps its instance label"
timeout 30 "$PERFHUNT" push --gateway "$GW" --retries 0 --job ci "$TMP/dots.json" >/dev/null 2>"$TMP/err"; st=$?
expect_status 0 $st && expect_grep '^PUT /metrics/job/ci/instance@base64/Li4= HTTP/1\.1$' "$TMP/requests" && ok
wait $LPID 2>/dev/null

t "a real Pushgateway keeps job '..' and labels '.' and '' as pushed"
GW_BIN=/usr/bin/prometheus-pushgateway
if [ ! -x "$GW_BIN" ]; then
	skip "$GW_BIN not installed; scripts/setup installs prometheus-pushgateway"
else
	port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$GW_BIN" --web.listen-address=127.0.0.1:$port --persistence.file="$TMP/gw.data" >"$TMP/gw.log" 2>&1 &
	GPID=$!
	n=0; until curl -sf -m 1 -o /dev/null "http://127.0.0.1:$port/-/ready" || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
	timeout 30 "$PERFHUNT" push --gateway "http://127.0.0.1:$port" --retries 0 --job .. --label a=. \
		--label b= --label c=x "$TMP/dots.json" >/dev/null 2>"$TMP/err"; st=$?
	curl -s -m 5 "http://127.0.0.1:$port/metrics" | grep '^perfhunt_wall_seconds{' >"$TMP/scraped"
	kill "$GPID" 2>/dev/null; wait "$GPID" 2>/dev/null
	expect_status 0 $st && expect_grep '[{,]a="\.",' "$TMP/scraped" && expect_grep '[{,]c="x",' "$TMP/scraped" &&
		expect_grep ',instance="\.\.",' "$TMP/scraped" && expect_grep ',job="\.\."}' "$TMP/scraped" &&
		expect_grep '[{,]b="",' "$TMP/scraped" && ok
fi

done_testing
