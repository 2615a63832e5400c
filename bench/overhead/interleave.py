#!/usr/bin/python3
# Launch latencies with the commands interleaved: round after round, each
# command once (posix_spawn + waitpid, wall clock from spawn to reaped exit),
# so that the drift of a shared 2-core VM (other builds starting and ending)
# falls on every command alike, unlike hyperfine's one block per command.
# GAP_MS (default 0) sleeps between two runs: 0 measures back-to-back runs
# (a run's detached history fold overlaps the next run), 50 runs apart.
# usage: interleave.py ROUNDS NAME=CMD... (CMD split on spaces; leading
# VAR=VALUE words are the command's environment, set without an `env` exec;
# the first command is the reference of the "added" column); prints a
# markdown table.
import os, statistics, sys, time

rounds = int(sys.argv[1])
cmds = []
for a in sys.argv[2:]:
    name, _, cmd = a.partition("=")
    words = cmd.split()
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("/"):
        k, _, v = words.pop(0).partition("=")
        env[k] = v
    cmds.append((name, words, env))
gap = float(os.environ.get("GAP_MS", "0")) / 1e3
null = os.open("/dev/null", os.O_RDWR)
acts = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
times = [[] for _ in cmds]
for r in range(rounds + 3):
    for i, (_, argv, env) in enumerate(cmds):
        if gap:
            time.sleep(gap)
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=acts)
        os.waitpid(pid, 0)
        if r >= 3:  # three warm-up rounds
            times[i].append(time.perf_counter() - t0)
ref = statistics.median(times[0])
print("| command | median ms | mean ms | p90 ms | added vs %s ms |" % cmds[0][0])
print("|---|---:|---:|---:|---:|")
for (name, _, _), t in zip(cmds, times):
    t.sort()
    med = statistics.median(t)
    print("| `%s` | %.2f | %.2f | %.2f | %+.2f |" % (name, med * 1e3, statistics.mean(t) * 1e3,
          t[int(len(t) * 0.9)] * 1e3, (med - ref) * 1e3))
