#!/usr/bin/python3
"""Interrupts `perfhunt run`'s summary while it is being written, and says
what was kept.

Runs PERFHUNT run --export-trace TRACE -- CMD... with its stderr on a pipe
of one page that nobody reads: the summary (tens of KiB for the run's phase
table) blocks on it, as on a terminal that has stopped scrolling. Once the
run is in the history (DB), sends SIG to perfhunt and prints, one per line:
  alive=1|0      perfhunt was still writing the summary when signalled
  trace=1|0      the export was complete (parseable JSON) by then
  runs=N         runs in the history after perfhunt ended
  status=N       perfhunt's exit status (128+SIG for a signal)
  summary=1|0    the summary had begun on stderr
usage: interrupt_summary.py PERFHUNT DB TRACE INT|TERM CMD...
"""
import fcntl
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

F_SETPIPE_SZ = 1031


def runs(db):
    try:
        con = sqlite3.connect(db, timeout=10)
        try:
            return con.execute("select count(*) from runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def main():
    perfhunt, db, trace, sig = sys.argv[1:5]
    cmd = sys.argv[5:]
    sig = getattr(signal, "SIG" + sig)
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    # the signals as a terminal's foreground job has them, whatever ran us
    p = subprocess.Popen([perfhunt, "run", "--export-trace", trace, "--"] + cmd, stdout=subprocess.DEVNULL,
                         stderr=w, preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL)
                                                      for s in (signal.SIGINT, signal.SIGTERM)])
    os.close(w)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None and runs(db) == 0:
        time.sleep(0.05)
    time.sleep(0.2)  # past the save: perfhunt is writing the summary, or it has ended
    alive = p.poll() is None
    try:
        with open(trace) as f:
            json.load(f)
        complete = 1
    except (OSError, ValueError):
        complete = 0
    p.send_signal(sig)
    try:
        status = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        status = p.wait()
    err = b""
    os.set_blocking(r, False)
    try:
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            err += chunk
    except BlockingIOError:
        pass
    print(f"alive={int(alive)}")
    print(f"trace={complete}")
    print(f"runs={runs(db)}")
    print(f"status={128 - status if status < 0 else status}")
    print(f"summary={int(b'exit status' in err)}")


main()
