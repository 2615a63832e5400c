#!/usr/bin/python3
"""A day's watch in a quarter of an hour: `perfhunt watch --interval 1` of a
process whose memory rises and falls (tests/workloads/phwork: 4 MiB
allocated and freed every 480 ms) until it has taken --samples samples, as
many as a 24 h watch at 100 ms takes (864 000). perfhunt's RSS is read from
/proc/PID/status every --every seconds (VmRSS, and VmHWM at the end); at the
end the record's and the CSV's sizes, the timeline's rows and stride, and the
envelope's least and most against the CSV's.
usage: day.py --perfhunt build/perfhunt --phwork build/tests/workloads/phwork [--samples 864000]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time


def status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", required=True)
    ap.add_argument("--phwork", required=True)
    ap.add_argument("--samples", type=int, default=864000)
    ap.add_argument("--every", type=float, default=30)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="phday-")
    rec, csv_path = os.path.join(tmp, "day.json"), os.path.join(tmp, "day.csv")
    # the target outlives the watch; perfhunt stops at --duration
    secs = a.samples / 1000 * 1.6 + 60
    steps = ["alloc:4", "sleep:240", "free", "sleep:240"] * int(secs / 0.48 + 1)
    target = subprocess.Popen([a.phwork] + steps)
    argv = [a.perfhunt, "watch", "-q", "--no-save", "--interval", "1", "--duration", "%gs" % secs,
            "--csv", csv_path, "-o", rec, str(target.pid)]
    t0 = time.monotonic()
    w = subprocess.Popen(argv)
    print("| s | perfhunt VmRSS KiB |")
    print("|---:|---:|")
    csv_rows = 0
    while w.poll() is None:
        time.sleep(a.every)
        try:
            rss = status_kb(w.pid, "VmRSS")
            hwm = status_kb(w.pid, "VmHWM")
        except OSError:
            break
        print("| %.0f | %d |" % (time.monotonic() - t0, rss), flush=True)
        with open(csv_path, "rb") as f:
            csv_rows = sum(1 for _ in f) - 1
        if csv_rows >= a.samples:
            w.send_signal(2)  # SIGINT: the watch ends as at --duration
            break
    w.wait()
    target.kill()
    target.wait()
    r = json.load(open(rec))
    s = r["summary"]
    cols = r["samples"]["columns"]
    rows = [dict(zip(cols, x)) for x in r["samples"]["rows"]]
    with open(csv_path) as f:
        tree = [int(x["tree_pss_kb"]) for x in csv.DictReader(f)]
    print()
    print("samples %d in %.0f s (CSV rows %d); perfhunt VmHWM %d KiB before its end" %
          (s["samples"], s["wall_s"], len(tree), hwm))
    print("record %d bytes (%d timeline rows, stride %d); CSV %d bytes" %
          (os.path.getsize(rec), len(rows), r["samples"]["stride"], os.path.getsize(csv_path)))
    print("envelope min/max %d/%d KiB; CSV min/max %d/%d KiB" %
          (min(x["mem_min_kb"] for x in rows), max(x["mem_max_kb"] for x in rows), min(tree), max(tree)))
    print("monitor CPU %.1f s (%.1f us a sample), stretched %d" %
          (s["monitor_cpu_s"], s["monitor_cpu_s"] * 1e6 / max(1, s["samples"]), s.get("samples_stretched", 0)))
    print("files in %s" % tmp)


if __name__ == "__main__":
    sys.exit(main())
