#!/usr/bin/python3
"""psutil_sampler: what psrecord --include-children does, as a peer for perfhunt.

Per interval, for the root and all its children (recursive): memory_info,
cpu_times and num_threads, summed and written as one log line (psrecord's
loop, with fixed-rate pacing so the sample count is comparable to perfhunt's
timerfd). On exit prints "samples N" on stderr; the caller measures our CPU.
usage: psutil_sampler.py [--interval S] [--duration S] [--log FILE] PID
"""
import argparse
import sys
import time

import psutil


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--interval", type=float, default=0.01)
    ap.add_argument("--duration", type=float, default=None)
    ap.add_argument("--log", default="/dev/null")
    ap.add_argument("pid", type=int)
    a = ap.parse_args()
    root = psutil.Process(a.pid)
    samples = 0
    start = time.monotonic()
    deadline = start
    with open(a.log, "w") as log:
        log.write("# elapsed_s cpu_s rss_mib vms_mib threads procs\n")
        while True:
            now = time.monotonic()
            if a.duration is not None and now - start >= a.duration:
                break
            try:
                if root.status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
                    break
                procs = [root] + root.children(recursive=True)
            except psutil.NoSuchProcess:
                break
            cpu = rss = vms = threads = 0
            n = 0
            for p in procs:
                try:
                    m = p.memory_info()
                    c = p.cpu_times()
                    t = p.num_threads()
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    continue
                rss += m.rss
                vms += m.vms
                cpu += c.user + c.system
                threads += t
                n += 1
            log.write("%.3f %.2f %.1f %.1f %d %d\n" % (now - start, cpu, rss / 2**20, vms / 2**20, threads, n))
            samples += 1
            deadline += a.interval
            delay = deadline - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    print("samples %d" % samples, file=sys.stderr)


if __name__ == "__main__":
    main()
