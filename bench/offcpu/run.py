#!/usr/bin/python3
"""--profile's off-CPU cost on a switch-heavy workload, in one run: phthreads'
relay step (a token passed round 4 threads through pipes, ~10 000 blocking
switches a second here) timed by its own clock (the relay phase's wall),
bare, under perfhunt run, under perfhunt run --profile (on-CPU samples, every
switch record, and the stacks of the switch-outs: every one while the tree
switches under 1 000 times a second, 1 in 7 of each thread's above), and
under `perf sched record` (the scheduler's tracepoints, no stacks),
alternated REPEAT times; medians and their ratios to bare, of the wall and
of the threads' own CPU. Also the switches a second, the record's off-CPU ms
against schedstat's blocked ms, and how many intervals had a stack.

  bench/offcpu/run.py --perfhunt build/perfhunt --workload build/tests/workloads/phthreads

With --variants, perf record alone with the ways to take the blocked stacks
instead (where the cost per switch is), and the perf.data each writes a
second: the sched_switch tracepoint with DWARF stacks (what --profile ran
before) sampled every switch-out or 1 in N, with frame-pointer stacks,
without stacks; perf's switch records alone; the context-switch software
event with DWARF stacks every switch, 1 in 7 (what --profile runs below and
above 1 000 switches a second), and at the kernel's frequency mode.
"""
import argparse, json, os, re, statistics, subprocess, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--perfhunt", default="build/perfhunt")
ap.add_argument("--workload", default="build/tests/workloads/phthreads")
ap.add_argument("--hops", type=int, default=20000)
ap.add_argument("--us", type=int, default=50)
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--variants", action="store_true", help="perf record's ways to take blocked stacks, alone")
ap.add_argument("--kinds", help="only these modes (comma-separated names as printed), bare always first")
a = ap.parse_args()
tmp = tempfile.mkdtemp()
rec, sched = os.path.join(tmp, "r.json"), os.path.join(tmp, "sched.data")
step = f"relay:{a.hops}:{a.us}"

def truth(err):
    m = re.search(r"^truth relay wall_ms=([0-9.]+) oncpu_ms=([0-9.]+)", err, re.M)
    return float(m.group(1)), float(m.group(2))

PERF = ["perf", "record", "-q", "-B", "--no-bpf-event", "-k", "mono", "-o", os.path.join(tmp, "v.data"),
        "-e", "cpu-clock/freq=99/", "--switch-events"]
TP = ["-e", "sched:sched_switch", "--filter", "prev_state != 0"]
VARIANTS = {
    "tp -c 1 dwarf": TP + ["-c", "1", "--call-graph", "dwarf"],
    "tp -c 8 dwarf": TP + ["-c", "8", "--call-graph", "dwarf"],
    "tp -c 1 fp": TP + ["-c", "1", "--call-graph", "fp"],
    "tp -c 1 no stacks": TP + ["-c", "1"],
    "switch records only": [],
    "cs/period=1/ dwarf": ["-e", "cs/period=1/", "--call-graph", "dwarf"],
    "cs/period=7/ dwarf": ["-e", "cs/period=7/", "--call-graph", "dwarf"],
    "cs/freq=100/ dwarf": ["-e", "cs/freq=100/", "--call-graph", "dwarf"],
}

def run(kind):
    if kind in VARIANTS:
        p = subprocess.run(PERF + VARIANTS[kind] + ["--", a.workload, step], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        w, c = truth(p.stderr)
        datas.setdefault(kind, []).append(os.path.getsize(os.path.join(tmp, "v.data")) / w * 1e3 / 2**20)
        return (w, c), None
    cmd = {"bare": [a.workload, step],
           "perfhunt": [a.perfhunt, "run", "-q", "--no-save", "-o", rec, "--", a.workload, step],
           "perfhunt --profile": [a.perfhunt, "run", "-q", "--no-save", "--profile", "-o", rec, "--", a.workload, step],
           "perf sched record": ["perf", "sched", "record", "-q", "-o", sched, "--", a.workload, step]}[kind]
    p = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    off = None
    if kind == "perfhunt --profile":
        r = json.load(open(rec))
        o = r["profile"].get("offcpu", {})
        ss = sum(p.get("resources", {}).get("blocked_ms", 0) for p in r["phases"] if p["name"] == "relay")
        off = (o.get("phases", {}).get("relay", {}).get("ms", 0), ss, o.get("intervals_with_stack", 0),
               o.get("intervals_without_stack", 0), o.get("dropped", 0), o.get("sampled"))
    return truth(p.stderr), off

kinds = ["bare", "perfhunt", "perfhunt --profile", "perf sched record"] + (list(VARIANTS) if a.variants else [])
if a.kinds:
    kinds = ["bare"] + [k for k in a.kinds.split(",") if k != "bare"]
walls = {k: [] for k in kinds}
cpus = {k: [] for k in kinds}
offs = []
datas = {}
for i in range(a.repeat):
    for k in kinds:
        (w, c), off = run(k)
        walls[k].append(w)
        cpus[k].append(c)
        if off:
            offs.append(off)
bare = statistics.median(walls["bare"])
print(f"{step}: {a.hops / bare * 1e3:.0f} hand-offs (blocking switches) a second bare; relay phase wall, median of {a.repeat}:")
for k in kinds:
    m = statistics.median(walls[k])
    print(f"  {k:20s} {m:8.1f} ms  x{m / bare:.3f}  (min {min(walls[k]):.1f}, max {max(walls[k]):.1f})")
# the threads' own CPU (each thread's clock): what the recording costs the
# program in its own context (the tracepoint, the stack copied at each
# switch-out), less sensitive than wall to other load on the machine
cbare = statistics.median(cpus["bare"])
print(f"the relay threads' own CPU, median of {a.repeat} (per hand-off over bare):")
for k in kinds:
    m = statistics.median(cpus[k])
    print(f"  {k:20s} {m:8.1f} ms  x{m / cbare:.3f}  ({(m - cbare) / a.hops * 1e3:+.1f} us a hand-off)")
if datas:
    print("perf.data written a second of the relay, median:")
    for k in datas:
        print(f"  {k:20s} {statistics.median(datas[k]):8.1f} MiB/s")
if offs:
    for ms, ss, with_stack, without, dropped, sampled in offs:
        print(f"off-CPU profile of a run: relay {ms:.0f} ms blocked (schedstat {ss:.0f} ms), {with_stack} intervals "
              f"with a stack of their own, {without} without, sampled {sampled}, {dropped} dropped")
