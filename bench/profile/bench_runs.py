#!/usr/bin/python3
"""--profile's cost per run of a bench, in one run: `bench -n N -- CMD` with and
without --profile, alternated REPEAT times. Each bench's runs give their start
times, so the cost splits into what each run pays (the median gap between two
runs' starts: the run, perfhunt's work around it and, with --profile, perf
turned on and off) and what the bench pays once (the rest of its wall time:
perf started once, perf script once). With --baseline, another perfhunt's
profiled benches alternate with them (before and after a change, one run).

  bench/profile/bench_runs.py --perfhunt build/perfhunt [--baseline OLD] [-n 30] [-- CMD ...]
"""
import argparse, json, os, statistics, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--perfhunt", default="build/perfhunt")
ap.add_argument("--baseline", help="another perfhunt binary: its profiled benches too")
ap.add_argument("-n", "--runs", type=int, default=30)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("cmd", nargs="*", default=["true"])
a = ap.parse_args()
tmp = tempfile.mkdtemp()
os.environ.setdefault("TMPDIR", tmp)
rec = os.path.join(tmp, "b.json")

def bench(binary, profile):
    t = time.monotonic()
    subprocess.run([binary, "bench", "-q", "--no-save", "-n", str(a.runs), "--export-json", rec] +
                   (["--profile"] if profile else []) + ["--"] + a.cmd,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = time.monotonic() - t
    runs = json.load(open(rec))["commands"][0]["runs"]
    starts = sorted(r["started_epoch_ms"] for r in runs)
    gaps = [(b - c) / 1e3 for c, b in zip(starts, starts[1:])]
    wall = statistics.median(r["summary"]["wall_s"] for r in runs)
    samples = sum(r.get("profile", {}).get("samples", 0) for r in runs)
    return total, statistics.median(gaps), statistics.mean(gaps), wall, samples

kinds = [("without --profile", a.perfhunt, False), ("--profile", a.perfhunt, True)]
if a.baseline:
    kinds.append(("--profile, baseline", a.baseline, True))
got = {k: [] for k, _, _ in kinds}
for i in range(a.repeat):
    for k, binary, prof in kinds:
        got[k].append(bench(binary, prof))
med = {k: [statistics.median(x[j] for x in v) for j in range(5)] for k, v in got.items()}
plain = med["without --profile"]
print(f"bench -n {a.runs} -- {' '.join(a.cmd)}, medians of {a.repeat} alternated benches:")
for k, _, _ in kinds:
    total, gap, mean_gap, wall, samples = med[k]
    fixed = total - a.runs * mean_gap
    print(f"  {k:20s} bench {total*1e3:7.0f} ms (x{total / plain[0]:.2f})  a run every {gap*1e3:6.1f} ms "
          f"({(gap - plain[1])*1e3:+.1f} ms)  once a bench {fixed*1e3:6.0f} ms  run wall {wall*1e3:.1f} ms  "
          f"{samples:.0f} samples")
