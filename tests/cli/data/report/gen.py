#!/usr/bin/python3
# gen.py: writes the fixture records of the report tests (run, bench, compare, hostile).
#
# Deterministic (fixed seed), so the committed JSON only changes when this file does.
# The run is shaped after the proving engine of the design notes: a 60 s run sampled at
# 100 ms, a page-fault storm while pin_abc pins host memory, two GPU lanes (gpu_tid=0/1)
# with the seed's phase durations, and a one-sample RSS spike that is the peak.
# Usage: /usr/bin/python3 gen.py   (writes next to itself)
import json, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rnd = random.Random(5)
GIB = 1048576  # KB per GiB

def host():
    return {"hostname": "prover-07", "kernel": "6.1.0-18-amd64",
            "cpu_model": "AMD EPYC 7443P 24-Core Processor", "cores": 48,
            "memory_kb": 263850000}

def phases():
    # (name, lane, start_ms, end_ms): durations from examples/seed-timing.log
    p = [("pin_abc", "", 100.0, 5833.0), ("prep_msm", "", 5833.0, 7555.0),
         ("b_g2_msm", "", 7600.0, 30449.0)]
    for lane, off in (("gpu_tid=0", 0.0), ("gpu_tid=1", 180.0)):
        t = 7555.0 + off
        for name, d in (("ntt_msm_h", 21417.0), ("batch_add", 1446.0), ("tail_msm", 1259.0)):
            p.append((name, lane, t, t + d))
            t += d + 21.0
    p.append(("verify", "", 32000.0, 36500.0))
    p.append(("write_proof", "", 36500.0, 58000.0))
    return p

def active(ph, t):
    return "+".join(n for n, lane, s, e in ph if s <= t < e and lane == "")

def run_record():
    ph = phases()
    interval = 100
    cols = ["t_ms", "rss_kb", "anon_kb", "file_kb", "shmem_kb", "swap_kb", "pss_kb",
            "user_ms", "sys_ms", "minflt", "majflt", "minflt_total", "majflt_total",
            "procs", "threads", "gpu_mib", "phase"]
    rows = []
    mint = majt = 0
    peak = (0, 0, "")
    for i in range(600):
        t = i * interval
        base = 2.0 * GIB
        if t < 100:
            pinned = 0.0
        elif t < 5833:
            pinned = 125.0 * GIB * (t - 100) / 5733
        elif t < 58000:
            pinned = 125.0 * GIB
        else:
            pinned = 125.0 * GIB * max(0.0, 1 - (t - 58000) / 1500)
        work = 0.0
        if 7555 <= t < 31700:
            work = 60.0 * GIB + 4.0 * GIB * ((t // 1000) % 3)
        elif 32000 <= t < 36500:
            work = 70.0 * GIB
        anon = base + pinned + work + rnd.uniform(-0.2, 0.2) * GIB
        if t == 33400:  # a single-sample spike: the peak, inside "verify"
            anon += 8.0 * GIB
        anon = int(anon)
        file_kb = int(1.5 * GIB + (t / 60000) * 0.5 * GIB)
        shmem = int(0.25 * GIB)
        rss = anon + file_kb + shmem
        pss = int(rss * 0.97)
        if 100 <= t < 5833:
            minflt = int(3200000 * 0.1 * rnd.uniform(0.9, 1.1))  # the storm: ~3.2 M faults/s
            sys_ms, user_ms = 95, 8
        else:
            minflt = int(rnd.uniform(200, 2000))
            busy = 7555 <= t < 36500
            user_ms = int(rnd.uniform(2800, 3400)) if busy else int(rnd.uniform(80, 120))
            sys_ms = int(rnd.uniform(40, 90))
        majflt = 0 if t < 58000 else int(rnd.uniform(0, 30))
        mint += minflt
        majt += majflt
        gpu = 0
        if 7555 <= t < 31900:
            gpu = 2 * 38000 + int(rnd.uniform(-500, 500))
        phase = active(ph, t)
        if rss > peak[0]:
            peak = (rss, t, phase)
        rows.append([t, rss, anon, file_kb, shmem, 0, pss, user_ms, sys_ms, minflt,
                     majflt, mint, majt, 3, 41, gpu, phase])
    wall_s = 60.012
    user_s = sum(r[7] for r in rows) / 1000
    sys_s = sum(r[8] for r in rows) / 1000
    stats = {}
    for n, lane, s, e in ph:
        stats.setdefault(n, []).append(e - s)
    phase_stats = [{"name": n, "count": len(v), "total_ms": sum(v),
                    "median_ms": sorted(v)[len(v) // 2], "min_ms": min(v), "max_ms": max(v)}
                   for n, v in stats.items()]
    lanes = [{"lane": "gpu_tid=0", "busy_ms": 24122, "busy_pct": 99.8, "span_ms": 24164,
              "gaps": 2, "longest_gap_ms": 21},
             {"lane": "gpu_tid=1", "busy_ms": 24122, "busy_pct": 99.8, "span_ms": 24164,
              "gaps": 2, "longest_gap_ms": 21}]
    probes = []
    for n, lane, s, e in ph:
        f = {n + "_ms": e - s}
        if lane:
            f["gpu_tid"] = int(lane.split("=")[1])
        probes.append({"t_ms": e, "prefix": "CUZK_TIMING", "stream": "stderr", "fields": f})
    return {
        "schema": "perfhunt.run/1", "kind": "run",
        "command": ["./prover", "--circuits", "10", "--pin-host-memory"],
        "started_at": "2026-11-30T08:12:31.123Z", "started_epoch_ms": 1796026351123,
        "host": host(), "git": {"commit": "9f3c2a1d5e7b8c0f1a2b3c4d5e6f708192a3b4c5", "dirty": True},
        "tags": ["after-opt-5"],
        "exit": {"code": 0, "signal": 0, "signal_name": None, "core_dumped": False, "status": 0},
        "options": {"interval_ms": interval, "pss": True, "cgroup": "auto"},
        "summary": {
            "wall_s": wall_s, "user_s": round(user_s, 3), "sys_s": round(sys_s, 3),
            "cpu_pct": round(100 * (user_s + sys_s) / wall_s, 1),
            "peak_rss_kb": peak[0] - 3 * GIB, "peak_rss_method": "wait4 ru_maxrss",
            "peak_rss_pid": 41873, "peak_rss_comm": "prover",
            "peak_tree_rss_kb": peak[0], "peak_at_ms": peak[1], "peak_phase": peak[2],
            "cgroup_peak_kb": peak[0] + 96000, "cgroup_method": "cgroup v2 memory.peak",
            "pss_peak_kb": int(peak[0] * 0.97), "gpu_peak_mib": 76500,
            "minflt": mint, "majflt": majt, "vcsw": 91234, "ivcsw": 5321,
            "read_bytes": 1073741824, "write_bytes": 2147483648,
            "max_procs": 3, "max_threads": 41, "samples": 600, "interval_ms": interval,
            "monitor_cpu_s": 0.41},
        "peaks": [
            {"scope": "process", "kb": peak[0] - 3 * GIB, "method": "wait4 ru_maxrss",
             "exact": True, "pid": 41873, "comm": "prover"},
            {"scope": "tree", "kb": peak[0] + 96000, "method": "cgroup v2 memory.peak",
             "exact": True, "note": "includes page cache"},
            {"scope": "tree", "kb": peak[0], "method": "sampled sum", "exact": False,
             "at_ms": peak[1]}],
        "phases": [{"name": n, "lane": lane, "start_ms": s, "end_ms": e, "source": "duration",
                    "values": {"num_circuits": 10} if n == "pin_abc" else {}}
                   for n, lane, s, e in ph],
        "phase_stats": phase_stats, "lanes": lanes, "probes": probes, "counters": {},
        "notes": ["cgroup peak includes page cache"],
        "samples": {"csv": None, "stride": 1, "columns": cols, "rows": rows},
    }

def small_run(i, variant):
    slow = 1.0 if variant == "a" else 1.062
    wall = 88.9 * slow * rnd.uniform(0.985, 1.015)
    pin = (30.0 if variant == "a" else 5733.0) * rnd.uniform(0.95, 1.05)
    rss = int((203.1 if variant == "a" else 205.4) * GIB * rnd.uniform(0.995, 1.005))
    ps = [("pin_abc", pin), ("prep_msm", 1722 * rnd.uniform(0.97, 1.03)),
          ("ntt_msm_h", 21417 * rnd.uniform(0.98, 1.02)), ("b_g2_msm", 22849 * rnd.uniform(0.98, 1.02))]
    return {"schema": "perfhunt.run/1", "kind": "run",
            "command": ["./prover", "--variant", variant],
            "exit": {"code": 0, "signal": 0, "signal_name": None, "core_dumped": False, "status": 0},
            "summary": {"wall_s": round(wall, 3), "user_s": round(wall * 20, 2),
                        "sys_s": round(wall * 0.9, 2), "peak_rss_kb": rss,
                        "peak_rss_method": "wait4 ru_maxrss", "peak_tree_rss_kb": rss + 2048,
                        "minflt": 33000000, "majflt": 0},
            "phase_stats": [{"name": n, "count": 1, "total_ms": round(v, 1), "median_ms": round(v, 1),
                             "min_ms": round(v, 1), "max_ms": round(v, 1)} for n, v in ps]}

def stat(v):
    v = sorted(v)
    n = len(v)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    mean = sum(v) / n
    sd = (sum((x - mean) ** 2 for x in v) / (n - 1)) ** 0.5
    mad = sorted(abs(x - med) for x in v)[n // 2]
    return {"median": med, "mean": mean, "stddev": sd, "mad": mad, "min": v[0], "max": v[-1], "n": n}

def bench_record():
    cmds = []
    for variant in ("a", "b"):
        runs = [small_run(i, variant) for i in range(10)]
        cmds.append({"name": "./prover --variant " + variant,
                     "command": ["./prover", "--variant", variant], "parameters": {"V": variant},
                     "runs": runs,
                     "stats": {"wall_s": stat([r["summary"]["wall_s"] for r in runs]),
                               "peak_rss_kb": stat([r["summary"]["peak_rss_kb"] for r in runs])}})
    return {"schema": "perfhunt.bench/1", "started_at": "2026-11-30T09:00:00.000Z",
            "host": host(), "git": {"commit": "9f3c2a1d5e7b8c0f1a2b3c4d5e6f708192a3b4c5", "dirty": False},
            "options": {"runs": 10, "warmup": 1, "interleave": True}, "commands": cmds}

def compare_record():
    m = [("wall_s", 88.9, 94.4, 1.05, 1.07, 0.0002, 0.001, "regressed"),
         ("user_s", 1778.0, 1781.5, 0.995, 1.006, 0.41, 0.82, "~"),
         ("sys_s", 80.1, 97.3, 1.18, 1.25, 0.0001, 0.0006, "regressed"),
         ("peak_rss_kb", 212987468, 215404544, 1.008, 1.014, 0.003, 0.012, "~"),
         ("minflt", 33100000, 32750000, 0.982, 0.997, 0.04, 0.12, "~"),
         ("cpu_pct", 2090.0, 1986.0, 0.935, 0.965, 0.0003, 0.0015, "improved")]
    return {"schema": "perfhunt.compare/1",
            "base": {"label": "baseline.json", "n": 10}, "new": {"label": "opt5.json", "n": 10},
            "threshold_pct": 2.0, "alpha": 0.05,
            "metrics": [{"name": n, "base": b, "new": w, "delta_pct": round(100 * (w - b) / b, 2),
                         "ci_low": lo, "ci_high": hi, "p_value": p, "p_adjusted": pa, "verdict": v}
                        for n, b, w, lo, hi, p, pa, v in m],
            "phases": [{"name": "pin_abc", "base_ms": 30, "new_ms": 5733, "delta_ms": 5703, "share_pct": 103.7},
                       {"name": "ntt_msm_h", "base_ms": 21390, "new_ms": 21417, "delta_ms": 27, "share_pct": 0.5},
                       {"name": "prep_msm", "base_ms": 1790, "new_ms": 1722, "delta_ms": -68, "share_pct": -1.2}],
            "geomean": {"ratio": 1.03}}

def hostile_record():
    r = run_record()
    r["command"] = ["sh", "-c", "echo '</script><script>alert(1)</script>' & <b>x</b>"]
    r["host"]["hostname"] = "<img src=x onerror=alert(2)>"
    r["samples"]["rows"] = r["samples"]["rows"][:50]
    r["summary"]["wall_s"] = 5.0
    r["summary"]["peak_at_ms"] = 4900
    r["phases"] = [{"name": "<script>alert(3)</script>", "lane": "w=\"1\"", "start_ms": 100.0,
                    "end_ms": 3000.0, "source": "marker", "values": {}}]
    r["phase_stats"] = [{"name": "<script>alert(3)</script>", "count": 1, "total_ms": 2900,
                         "median_ms": 2900, "min_ms": 2900, "max_ms": 2900}]
    r["lanes"] = [{"lane": "w=\"1\"", "busy_ms": 2900, "busy_pct": 100.0, "span_ms": 2900,
                   "gaps": 0, "longest_gap_ms": 0}]
    r["summary"]["peak_phase"] = "<script>alert(3)</script>"
    r["probes"] = []
    return r

for name, rec in (("run.json", run_record()), ("bench.json", bench_record()),
                  ("compare.json", compare_record()), ("hostile.json", hostile_record())):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(rec, f, separators=(",", ":"))
        f.write("\n")
