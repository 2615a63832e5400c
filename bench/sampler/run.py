#!/usr/bin/python3
"""Sampler benchmark: monitor CPU per process-sample, perfhunt vs the pread
floor, a psrecord-like psutil sampler and mprof, on trees of N sleeping
processes sampled every 10 ms.

Each monitor watches the same pre-built tree (bench/sampler/tree.c) for a
short and a long time; its own CPU time comes from wait4's rusage (the tree is
not its child, so nothing else is counted). The steady-state cost per sample
is the slope (cpu_long - cpu_short) / (samples_long - samples_short): start-up
(interpreter import, netlink and cgroup setup, discovery, record writing)
cancels out. Divided by N it is the CPU per process-sample.
usage: run.py --perfhunt BIN --helpers DIR [--sizes 1,10,100,1000] [--repeat 3] [--only floor,full,perfhunt,psutil,mprof]
       run.py --perfhunt BIN --helpers DIR --watch1 101   (watch --interval 1 --duration 3)
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def run_timed(argv, **kw):
    """Runs argv; returns (cpu_s of that process alone, stderr text, wall_s)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (argv[0], p.returncode, err[-500:]))
    return ru.ru_utime + ru.ru_stime, err, time.monotonic() - t0


def m_perfhunt(a, root, dur, tmp, sampler="tiered", interval=None):
    rec = os.path.join(tmp, "w.json")
    env = dict(os.environ, PERFHUNT_SAMPLER=sampler)
    cpu, _, wall = run_timed([a.perfhunt, "watch", "-q", "--no-save", "--interval", str(interval or a.interval),
                           "--duration", "%gs" % dur, "-o", rec, str(root)], env=env)
    s = json.load(open(rec))["summary"]
    return cpu, s["samples"], s["monitor_cpu_s"], wall


def m_perfhunt_full(a, root, dur, tmp):
    return m_perfhunt(a, root, dur, tmp, sampler="full")


def m_floor(a, root, dur, tmp):
    out = subprocess.run([os.path.join(a.helpers, "floor"), str(root), str(a.interval), str(dur),
                          "stat,status,statm,io"],
                         capture_output=True, text=True, check=True).stdout.split()
    # the floor times its own sampling loop: no start-up to cancel
    return int(out[2]) / 1e9, int(out[1]), None, dur


def m_psutil(a, root, dur, tmp):
    cpu, err, wall = run_timed([a.python, os.path.join(HERE, "psutil_sampler.py"), "--interval",
                             str(a.interval / 1000), "--duration", str(dur), str(root)])
    return cpu, int(re.search(r"samples (\d+)", err).group(1)), None, wall


def m_mprof(a, root, dur, tmp):
    dat = os.path.join(tmp, "m.dat")
    # mprof takes timeout/interval samples however long each takes
    cpu, _, wall = run_timed([a.python, "-m", "mprof", "run", "--attach", "--include-children", "-T",
                           str(a.interval / 1000), "-t", str(max(1, int(dur / 2))), "-o", dat, str(root)], cwd=tmp)
    with open(dat) as f:
        n = sum(1 for line in f if line.startswith("MEM "))
    return cpu, n, None, wall


# floor: the four text files preaded every sample, no parsing (the text floor);
# full: perfhunt reading stat, status and io every sample (PERFHUNT_SAMPLER=full);
# perfhunt: the tiered sampler, the default
MONITORS = [("floor", m_floor), ("full", m_perfhunt_full), ("perfhunt", m_perfhunt), ("psutil", m_psutil),
            ("mprof", m_mprof)]


def tree_procs(root):
    n, todo = 0, [root]
    while todo:
        pid = todo.pop()
        n += 1
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            todo += [int(x) for x in f.read().split()]
    return n


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def watch1(a):
    """watch --interval 1 --duration 3: samples taken and the share of a core used, whole
    process (start-up included), alternating full and tiered runs of one tree."""
    tree = subprocess.Popen([os.path.join(a.helpers, "tree"), str(a.watch1), "100000"],
                            stdout=subprocess.PIPE, text=True)
    root = int(tree.stdout.readline().split()[1])
    tmp = tempfile.mkdtemp(prefix="phbench-")
    print("watch --interval 1 --duration 3 of %d processes (load %s)" % (tree_procs(root), load()))
    print("| run | sampler | samples | CPU s | share of a core | load |")
    print("|---:|---|---:|---:|---:|---|")
    for rep in range(a.repeat):
        for sampler in ("full", "tiered"):
            cpu, samples, _, wall = m_perfhunt(a, root, 3.0, tmp, sampler=sampler, interval=1)
            print("| %d | %s | %d | %.3f | %.2f | %s |" % (rep + 1, sampler, samples, cpu, cpu / wall, load()),
                  flush=True)
    tree.kill()
    tree.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfhunt", required=True)
    ap.add_argument("--helpers", required=True, help="folder with the built tree and floor")
    ap.add_argument("--sizes", default="1,10,100,1000")
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--short", type=float, default=2.0)
    ap.add_argument("--long", type=float, default=4.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma list of monitors")
    ap.add_argument("--watch1", type=int, default=0, metavar="N",
                    help="instead: watch --interval 1 --duration 3 of an N-process tree, full and tiered")
    ap.add_argument("--python", default=PY, help="the interpreter with psutil")
    a = ap.parse_args()
    if a.watch1:
        return watch1(a)
    only = set(a.only.split(",")) if a.only else None
    results = {}
    tmp = tempfile.mkdtemp(prefix="phbench-")
    for n in [int(x) for x in a.sizes.split(",")]:
        tree = subprocess.Popen([os.path.join(a.helpers, "tree"), str(n), "100000"],
                                stdout=subprocess.PIPE, text=True)
        root = int(tree.stdout.readline().split()[1])
        got = tree_procs(root)
        if got != n:
            sys.exit("bench: tree has %d processes, wanted %d" % (got, n))
        for name, fn in MONITORS:
            if only and name not in only:
                continue
            per = []
            for _ in range(a.repeat):
                c1, s1, i1, w1 = fn(a, root, a.short, tmp)
                c2, s2, i2, w2 = fn(a, root, a.long, tmp)
                slope = (c2 - c1) / (s2 - s1) if s2 > s1 else float("nan")
                inner = (i2 - i1) / (s2 - s1) if i1 is not None and s2 > s1 else None
                if name == "floor":
                    slope = c2 / s2
                per.append((slope, inner, (s2 - s1) / (w2 - w1)))
            sample_s = statistics.median(p[0] for p in per)
            inner = [p[1] for p in per if p[1] is not None]
            results.setdefault(n, {})[name] = {
                "sample_ms": sample_s * 1e3,
                "proc_sample_us": sample_s * 1e6 / n,
                "inner_proc_sample_us": statistics.median(inner) * 1e6 / n if inner else None,
                "rate_hz": statistics.median(p[2] for p in per),
                "runs": [p[0] * 1e6 / n for p in per],
            }
            r = results[n][name]
            print("N=%-5d %-9s %9.3f ms/sample %8.2f us/process-sample  %5.0f samples/s  runs %s%s" %
                  (n, name, r["sample_ms"], r["proc_sample_us"], r["rate_hz"],
                   " ".join("%.2f" % x for x in r["runs"]),
                   "  (monitor_cpu_s: %.2f us)" % r["inner_proc_sample_us"] if r["inner_proc_sample_us"] else ""),
                  flush=True)
        tree.kill()
        tree.wait()
    print()
    print("load average at the end: %s" % load())
    print("| processes | floor µs | full µs | tiered µs | tiered / floor | tiered / full | psutil µs | psutil / tiered | mprof µs | mprof / tiered |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, r in results.items():
        def g(k):
            return r[k]["proc_sample_us"] if k in r else float("nan")
        print("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f× | %.1f | %.1f× |" %
              (n, g("floor"), g("full"), g("perfhunt"), g("perfhunt") / g("floor"), g("perfhunt") / g("full"),
               g("psutil"), g("psutil") / g("perfhunt"), g("mprof"), g("mprof") / g("perfhunt")))
    print()
    print("| processes | perfhunt ms/sample | psutil ms/sample | mprof ms/sample | psutil samples/s | mprof samples/s |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, r in results.items():
        def ms(k):
            return r[k]["sample_ms"] if k in r else float("nan")
        def hz(k):
            return r[k]["rate_hz"] if k in r else float("nan")
        print("| %d | %.3f | %.2f | %.2f | %.0f | %.0f |" % (n, ms("perfhunt"), ms("psutil"), ms("mprof"),
                                                           hz("psutil"), hz("mprof")))
    with open(os.path.join(tmp, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print("\nraw: %s" % os.path.join(tmp, "results.json"))


if __name__ == "__main__":
    main()
