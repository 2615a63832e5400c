#!/usr/bin/python3
# How long after `perfhunt run -q -- true` exits its history file alone is
# complete: the detached fold holds a shared flock on the database while it
# works, so the time from the run's exit to an exclusive flock is the window
# in which a plain copy of history.db would lack the latest run. GAP_MS
# (default 50) between runs; a fresh database in a temporary directory.
# usage: foldwindow.py PERFHUNT RUNS
import fcntl, os, statistics, sys, tempfile, time

ph, runs = sys.argv[1], int(sys.argv[2])
gap = float(os.environ.get("GAP_MS", "50")) / 1e3
d = tempfile.mkdtemp(prefix="phfold-")
db = os.path.join(d, "h.db")
env = dict(os.environ, PERFHUNT_DB=db)
null = os.open("/dev/null", os.O_RDWR)
acts = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
win = []
for r in range(runs + 1):
    pid = os.posix_spawn(ph, [ph, "run", "-q", "--", "/usr/bin/true"], env, file_actions=acts)
    os.waitpid(pid, 0)
    t0 = time.perf_counter()
    fd = os.open(db, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    t1 = time.perf_counter()
    os.close(fd)
    if r:  # the first run creates the database and folds it itself
        win.append((t1 - t0) * 1e3)
    time.sleep(gap)
win.sort()
print("fold window over %d runs: median %.2f ms, p90 %.2f ms, max %.2f ms; WAL %d bytes at the end" % (
    len(win), statistics.median(win), win[int(len(win) * 0.9)], win[-1], os.path.getsize(db + "-wal")))
