# Writes the compare fixtures: hand-specified run and bench records in the
# perfhunt.run/1 and perfhunt.bench/1 formats of docs/FORMATS.md. The seed's
# story: pin_abc grows from ~30 ms to ~5733 ms (a page-fault storm), the other
# phases stay, so wall time goes from ~88.9 s to ~94.5 s.
# Run from this folder: /usr/bin/python3 make-fixtures.py
import json, random

rnd = random.Random(4)

def run(i, new):
    jitter = lambda scale: 1 + rnd.uniform(-scale, scale)
    pin = (5733 if new else 30) * jitter(0.002)
    ntt = 21417 * jitter(0.002)
    msm = 61000 * jitter(0.002)
    other = 6400 * jitter(0.002)
    phases, t = [], 0.0
    for name, d in (("pin_abc", pin), ("ntt_msm_h", ntt), ("msm", msm), ("finalize", other)):
        phases.append({"name": name, "lane": "", "start_ms": round(t, 3), "end_ms": round(t + d, 3),
                       "source": "duration", "values": {}})
        t += d
    wall = round((t + 40) / 1000, 4)
    minflt = int((32000000 if new else 250000) * jitter(0.003))
    return {
        "schema": "perfhunt.run/1", "kind": "run", "command": ["./prover", "--circuits", "10"],
        "started_at": "2026-11-30T08:%02d:00.000Z" % i, "started_epoch_ms": 1796026351123 + i * 100000,
        "host": {"hostname": "h", "kernel": "6.1.0", "cpu_model": "AMD EPYC", "cores": 2, "memory_kb": 24000000},
        "git": None, "tags": [],
        "exit": {"code": 0, "signal": 0, "signal_name": None, "core_dumped": False, "status": 0},
        "options": {"interval_ms": 100, "pss": False, "cgroup": "auto"},
        "summary": {"wall_s": wall, "user_s": round(wall * 0.8 * jitter(0.003), 4),
                    "sys_s": round(wall * 0.05 * jitter(0.003), 4), "cpu_pct": 85.0,
                    "peak_rss_kb": int(131000000 * jitter(0.001)), "peak_rss_method": "wait4 ru_maxrss",
                    "peak_rss_pid": 1234, "peak_rss_comm": "prover",
                    "peak_tree_rss_kb": int(131500000 * jitter(0.001)), "peak_at_ms": 5000, "peak_phase": "pin_abc",
                    "minflt": minflt, "majflt": 0, "vcsw": 10, "ivcsw": 3, "read_bytes": 0, "write_bytes": 0,
                    "max_procs": 1, "max_threads": 5, "samples": 900, "interval_ms": 100, "monitor_cpu_s": 0.01},
        "peaks": [], "phases": phases, "phase_stats": [], "lanes": [], "probes": [], "counters": {},
        "notes": [], "samples": {"csv": None, "stride": 1, "columns": ["t_ms", "rss_kb"], "rows": []},
    }

def bench(runs, extra=None):
    cmds = [{"name": "prover", "command": ["./prover", "--circuits", "10"], "parameters": {}, "runs": runs, "stats": {}}]
    if extra:
        cmds.insert(0, extra)
    return {"schema": "perfhunt.bench/1", "started_at": "2026-11-30T08:00:00.000Z", "host": {}, "git": None,
            "options": {"runs": len(runs), "warmup": 0, "interleave": False}, "commands": cmds}

def dump(name, obj):
    with open(name, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")

base = [run(i, False) for i in range(10)]
new = [run(i, True) for i in range(10)]
for i, r in enumerate(base):
    dump("base-%d.json" % (i + 1), r)
dump("new-1.json", new[0])
dump("bench-base.json", bench(base))
dump("bench-new.json", bench(new))
# two commands: "warm" first, so --command prover (or 2) must pick the second
warm = {"name": "warm", "command": ["true"], "parameters": {}, "runs": [run(0, False), run(1, False)], "stats": {}}
dump("bench-two.json", bench(new, warm))
