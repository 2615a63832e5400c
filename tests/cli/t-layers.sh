#!/bin/sh
# The layers of docs/ARCHITECTURE.md hold in the code: every folder under
# src/ has a row, every `#include "DIR/..."` between folders is one its row
# allows, and the allowed graph itself has no loop.
. ./lib.sh
SRC=${SRCDIR:?}/src
DOC=${SRCDIR:?}/docs/ARCHITECTURE.md

t "every src/ folder has a row, every include between folders is allowed, no loop"
/usr/bin/python3 - "$SRC" "$DOC" >"$TMP/py" 2>&1 <<'EOF'
import os, re, sys
src, doc = sys.argv[1], sys.argv[2]
allowed = {}
for line in open(doc):
    m = re.match(r"\|\s*`(\w+)`\s*\|.*\|\s*([\w ]+|—)\s*\|\s*$", line)
    if m:
        allowed[m.group(1)] = set() if m.group(2).strip() == "—" else set(m.group(2).split())
folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
problems = [f"src/{d}/ has no row in ARCHITECTURE.md" for d in folders if d not in allowed]
for d in folders:
    for name in sorted(os.listdir(os.path.join(src, d))):
        if not name.endswith((".c", ".h")):
            continue
        for n, line in enumerate(open(os.path.join(src, d, name)), 1):
            m = re.match(r'#include "(\w+)/', line)
            if m and m.group(1) != d and m.group(1) not in allowed.get(d, set()):
                problems.append(f"src/{d}/{name}:{n} includes {m.group(1)}/, not allowed for {d}")
def reach(a, seen):
    for b in allowed.get(a, ()):
        if b not in seen:
            seen.add(b)
            reach(b, seen)
    return seen
problems += [f"loop: {d} reaches itself" for d in allowed if d in reach(d, set())]
print("\n".join(problems))
sys.exit(1 if problems else 0)
EOF
[ $? = 0 ] && ok || fail "$(cat "$TMP/py")"

done_testing
