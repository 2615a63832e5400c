#!/bin/sh
# End-to-end test of `perfhunt bisect --daemon`: a scratch repository of five
# commits of a small C daemon that serves requests through a FIFO and logs
# each one's solve phase (CPU time) as a CUZK_TIMING line; one commit makes
# that phase eight times longer, the rest change nothing. With a daemon a
# batch runs commit by commit, so a load burst during one commit's runs is
# not cancelled: on this loaded 2-core machine a neutral commit's solve phase
# once came out 1.9x its neighbour's, hence the 100 % threshold against an
# 8x effect. Each tested commit's runs must attach to a daemon started fresh
# in that commit's worktree (the daemon notes its PID and worktree in a
# file), the hunt must name exactly the culprit, and no daemon may be left
# running. A daemon that exits before it is ready makes its commit unusable,
# with the reason said.
. ./lib.sh
P="$PERFHUNT"
scratch_repo

cat >d.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SOLVE_SPIN 30000000UL

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* d serve PIDS: serves requests on the FIFO ./req, answers on ./rep, logs
 * each request's solve phase to ./d.log; notes "PID WORKTREE" in PIDS.
 * d request: one request, waits for its answer. */
int main(int argc, char **argv)
{
	char line[64];
	if (argc == 2 && !strcmp(argv[1], "request")) {
		FILE *q = fopen("req", "w"), *a;
		if (!q || fputs("go\n", q) < 0 || fclose(q))
			return 1;
		return (a = fopen("rep", "r")) && fgets(line, sizeof(line), a) ? 0 : 1;
	}
	if (argc != 3 || strcmp(argv[1], "serve"))
		return 2;
	char cwd[4096];
	FILE *pids = fopen(argv[2], "a"), *log = fopen("d.log", "a");
	if (!pids || !log || !getcwd(cwd, sizeof(cwd)))
		return 1;
	fprintf(pids, "%d %s\n", (int)getpid(), strrchr(cwd, '/') + 1);
	fclose(pids);
	unlink("req");
	unlink("rep");
	if (mkfifo("req", 0600) || mkfifo("rep", 0600))
		return 1;
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		FILE *q = fopen("req", "r"), *a;
		if (!q)
			return 1;
		while (fgets(line, sizeof(line), q))
			;
		fclose(q);
		double t = cpu_ms();
		for (unsigned long i = 0; i < SOLVE_SPIN; i++)
			sink += i;
		fprintf(log, "CUZK_TIMING: solve_ms=%.3f\n", cpu_ms() - t);
		fflush(log);
		if (!(a = fopen("rep", "w")))
			return 1;
		fputs("done\n", a);
		fclose(a);
	}
}
C
printf 'd\nd.log\nreq\nrep\n' >.gitignore
C0=$(commit "A daemon that solves on request")
echo "A solver daemon." >README
C1=$(commit "Say what it is")
sed -i 's/#define SOLVE_SPIN 30000000UL/#define SOLVE_SPIN 240000000UL/' d.c
C2=$(commit "Solve eight rounds")
sed -i 's|^static volatile unsigned long sink;|static volatile unsigned long sink; /* the spin result */|' d.c
C3=$(commit "Comment the sink")
echo "A solver daemon, faster soon." >README
C4=$(commit "Promise speed")
PIDS="$TMP/pids"

t "bisect --daemon names exactly the culprit, each tested commit's runs attached to a fresh daemon"
"$P" bisect --good "$C0" --bad HEAD --build 'cc -O1 -o d d.c' --threshold 100 --max-runs 12 --metric phase:solve \
	--daemon "./d serve $PIDS" --ready '^listening$' --attach-name d --idle-ms 50ms --probe-log d.log \
	--export-json "$TMP/b.json" -- ./d request >"$TMP/out" 2>"$TMP/err"
st=$?
if expect_status 0 $st; then
	# per tested commit: its worktree's daemons (PIDS) and the daemon its runs attached to
	got=$(/usr/bin/python3 -c 'import json,sqlite3,sys
r=json.load(open(sys.argv[1]))
starts=[l.split() for l in open(sys.argv[2])]
pids=[int(p) for p, _ in starts]
db=sqlite3.connect(sys.argv[3])
print(" ".join(c["commit"] for c in r["culprits"]))
print(len(starts), len(set(pids)), len(r["tested"]))
bad=[]
for c in r["tested"]:
    mine={int(p) for p, w in starts if w == c["commit"][:12]}
    att={json.loads(j)["trees"]["daemon"]["pid"] for (j,) in db.execute("select record_json from runs where git_commit = ?", (c["commit"],))}
    if not mine or not att <= mine:
        bad.append("%s: daemons %s, runs attached to %s" % (c["commit"][:7], sorted(mine), sorted(att)))
print("; ".join(bad) or "each attached to its own")
print(" ".join(map(str, pids)))
print(r["daemon"] == {"command": "./d serve " + sys.argv[2], "ready": "^listening$", "log": None})' "$TMP/b.json" "$PIDS" "$PERFHUNT_DB")
	culprits=$(echo "$got" | sed -n 1p) counts=$(echo "$got" | sed -n 2p) attached=$(echo "$got" | sed -n 3p)
	left=""
	for p in $(echo "$got" | sed -n 4p); do
		kill -0 "$p" 2>/dev/null && left="$left $p"
	done
	set -- $counts
	started=$(grep -c 'daemon started' "$TMP/err")
	check "culprits: $culprits; out: $(cat "$TMP/out")" [ "$culprits" = "$C2" ] &&
		check "daemon starts $1, distinct PIDs $2, tested commits $3" [ "$1" = "$2" ] && [ "$3" -ge 3 ] &&
		check "starts noted $1, said $started" [ "$1" = "$started" ] &&
		check "$attached" [ "$attached" = "each attached to its own" ] &&
		check "daemons still running:$left" [ -z "$left" ] &&
		check "the record names the daemon command and its ready pattern" [ "$(echo "$got" | sed -n 5p)" = True ] && ok
else
	fail "$(tail -20 "$TMP/err") $(cat "$TMP/out")"
fi

t "a daemon that goes to the background in a session of its own is found by name, used and stopped"
# the command exits 0 at once; setsid's daemon leaves bisect's process group
"$P" bisect --good "$C1" --bad "$C2" --build 'cc -O1 -o d d.c' --threshold 100 --max-runs 8 --metric phase:solve \
	--daemon "setsid ./d serve $TMP/pids2 >>d.out 2>&1 &" --daemon-log d.out --ready '^listening$' --attach-name d \
	--idle-ms 50ms --probe-log d.log -- sh -c './d request' >"$TMP/out4" 2>"$TMP/err4"
st=$?
left=""
for p in $(cut -d' ' -f1 "$TMP/pids2" 2>/dev/null); do
	kill -0 "$p" 2>/dev/null && left="$left $p" && kill -9 "$p"
done
expect_status 0 $st && expect_grep "daemon's command exited 0: it went to the background" "$TMP/err4" &&
	check "culprit: $(cat "$TMP/out4")" grep -q "${C2%"${C2#???????}"}" "$TMP/out4" &&
	check "two daemons started: $(cat "$TMP/pids2")" [ "$(wc -l <"$TMP/pids2")" -ge 2 ] &&
	check "daemons still running:$left" [ -z "$left" ] && ok

t "a daemon that exits before it is ready makes its commit unusable, with the reason"
# another command line ("env ./d request"), so none of the runs above is reused
"$P" bisect --good "$C0" --bad HEAD --daemon 'echo no license; exit 3' --ready '^listening$' \
	-- env ./d request >"$TMP/out2" 2>"$TMP/err2"
expect_status 1 $? && expect_grep 'the daemon exited \(status 3\) before it was ready, log: .*\.daemon\.log' "$TMP/err2" &&
	expect_grep 'no license' "$TMP/bisect/${C0%"${C0#????????????}"}.daemon.log" && ok

t "--ready without --daemon is a usage error"
"$P" bisect --good "$C0" --bad HEAD --ready x -- ./d request >/dev/null 2>"$TMP/err3"
expect_status 2 $? && expect_grep 'needs --daemon' "$TMP/err3" && ok

"$P" bisect --clean >/dev/null 2>&1
done_testing
