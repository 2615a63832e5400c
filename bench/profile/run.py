#!/usr/bin/python3
"""--profile's cost, in one run: a CPU-bound workload (phprof: 3 x MS of CPU
in marked phases) recorded with and without --profile at 99 Hz, alternated,
REPEAT times each; the wall ratio of the medians. Then the post-processing:
perfhunt's own time after the command ended (perf stopped, perf script,
parsing, folding), per 10 k samples, from a run at --profile-hz HZ.

  bench/profile/run.py --perfhunt build/perfhunt --workload build/tests/workloads/phprof
"""
import argparse, json, os, statistics, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--perfhunt", default="build/perfhunt")
ap.add_argument("--workload", default="build/tests/workloads/phprof")
ap.add_argument("--ms", type=int, default=500)
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--hz", type=int, default=999)
a = ap.parse_args()
tmp = tempfile.mkdtemp()
rec = os.path.join(tmp, "r.json")

def run(extra):
    t = time.monotonic()
    subprocess.run([a.perfhunt, "run", "-q", "--no-save", "-o", rec] + extra + ["--", a.workload, str(a.ms)],
                   check=True, stdout=subprocess.DEVNULL)
    total = time.monotonic() - t
    r = json.load(open(rec))
    return r["summary"]["wall_s"], total, r.get("profile", {}).get("samples", 0)

plain, prof = [], []
for i in range(a.repeat):
    plain.append(run([])[0])
    prof.append(run(["--profile"])[0])
mp, mq = statistics.median(plain), statistics.median(prof)
print(f"wall, median of {a.repeat}: without {mp*1e3:.0f} ms, with --profile (99 Hz) {mq*1e3:.0f} ms, "
      f"ratio {mq/mp:.3f}")
post = []
for i in range(3):
    wall, total, n = run(["--profile", "--profile-hz", str(a.hz)])
    post.append((total - wall, n))
# perfhunt's time after the command: minus the same overhead without --profile
over = statistics.median([t - w for w, t, _ in (run([]) for _ in range(3))])
per = statistics.median([(p - over) / max(n, 1) * 1e4 for p, n in post])
print(f"post-processing at {a.hz} Hz: {statistics.median([n for _, n in post]):.0f} samples, "
      f"{per:.2f} s per 10 k samples (perfhunt's time after the command, less {over*1e3:.0f} ms without --profile)")
