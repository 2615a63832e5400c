#!/usr/bin/python3
# trace_check.py [--stacks] FILE: checks a perfhunt --export-trace file against the
# documented fields of the Chrome trace-event format, since Perfetto's trace
# processor is not packaged in Debian (no `perfetto` package, no
# python3-perfetto) and so cannot load it here.
#
# What is checked, and where the rule comes from:
#  * the JSON Object Format: an object whose "traceEvents" is the event list;
#    "displayTimeUnit", if present, is "ms" or "ns"; "otherData" an object
#    (Trace Event Format, "JSON Object Format").
#  * every event: "ph" one of the types perfhunt writes (M, X, C, i, P, s, f), "name" a
#    string, "pid" an integer, "tid" an integer where the event is on a thread,
#    "ts" a finite number of microseconds, "cat" a string and "args" an object
#    where present (Trace Event Format, "Event Descriptions").
#  * X (complete events): "dur" a number >= 0; slices on one track (pid, tid)
#    nest perfectly: Perfetto's data model requires duration events to nest as
#    the spec mandates, and lays out overlapping ones on an overflow track
#    (perfetto.dev docs/getting-started/other-formats, "Chrome JSON format").
#  * C (counter events): "args" a non-empty object of numbers (each key a
#    series); counters are process-local, so a track is (pid, name); its
#    timestamps increase (one value per instant).
#  * i (instant events): a scope "s" of g, p or t; on a thread track.
#  * s and f (flow events, an arrow from one slice to another): a string "cat"
#    and an "id"; each s has one f of the same cat, name and id, and each f
#    one s; the s binds to the slice enclosing its ts on its thread, and the f
#    with "bp": "e" to the slice enclosing its ts (without it, to the next
#    slice: perfhunt always writes "e"), so each must fall inside an X slice
#    of its track (Trace Event Format, "Flow Events").
#  * M (metadata events): "process_name" / "thread_name" with "args.name" a
#    string, once per process / thread; every process that has events and every
#    thread track holding X, i or P events is named.
#  * P (sample events) as Chrome writes a CPU profile, which DevTools shows as
#    a flame chart under the thread: a "Profile" (args.data.startTime) then its
#    "ProfileChunk"s with the same id on that thread; args.data.cpuProfile
#    "nodes" each {id, callFrame.functionName, parent} with a parent already
#    given, "samples" node ids, "timeDeltas" one per sample, >= 0 (in time
#    order).
#  * "stackFrames" (id -> {name, parent}) and "samples" (each {ts, tid, sf,
#    weight}) at the top level (Trace Event Format, "Stack Frames" and
#    "Samples"): every sf and parent is a frame of stackFrames, no cycle.
# With --stacks the trace must carry stacks both ways: samples whose frames
# chain at least two deep, and a CPU profile with samples.
# Prints the event types seen ("C M X i") and counts; exits 1 with the first
# problems found, one a line.
import bisect
import json
import math
import sys


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check(doc):
    bad = []
    if not isinstance(doc, dict):
        return ["the trace is not a JSON object (the JSON Object Format)"], {}
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        bad.append("displayTimeUnit is %r, not ms or ns" % doc["displayTimeUnit"])
    if not isinstance(doc.get("otherData", {}), dict):
        bad.append("otherData is not an object")
    ev = doc.get("traceEvents")
    if not isinstance(ev, list) or not ev:
        return bad + ["traceEvents is not a non-empty list"], {}
    count = {}
    pnames, tnames = {}, {}
    pids_used = set()
    slices = {}    # (pid, tid) -> [(ts, dur, name)]
    on_thread = set()  # (pid, tid) holding X or i events
    last_ts = {}   # counter track (pid, name) -> ts
    profiles = {}  # (pid, id) -> {"tid", "nodes": {id: parent}, "samples": n}
    flows = {}     # (cat, name, id) -> {"s": [(pid, tid, ts)], "f": [...]}
    for k, e in enumerate(ev):
        where = "event %d" % k
        if not isinstance(e, dict):
            bad.append(where + ": not an object")
            continue
        ph = e.get("ph")
        if ph not in ("M", "X", "C", "i", "P", "s", "f"):
            bad.append(where + ": ph %r is not one of M X C i P s f" % (ph,))
            continue
        count[ph] = count.get(ph, 0) + 1
        name, pid, tid = e.get("name"), e.get("pid"), e.get("tid")
        where = "event %d (%s %r)" % (k, ph, name)
        if not isinstance(name, str) or not name:
            bad.append(where + ": name is not a non-empty string")
        if not is_int(pid):
            bad.append(where + ": pid is not an integer")
            continue
        if "tid" in e and not is_int(tid):
            bad.append(where + ": tid is not an integer")
            continue
        if "cat" in e and not isinstance(e["cat"], str):
            bad.append(where + ": cat is not a string")
        if "args" in e and not isinstance(e["args"], dict):
            bad.append(where + ": args is not an object")
            continue
        args = e.get("args", {})
        if ph == "M":
            if name not in ("process_name", "thread_name"):
                bad.append(where + ": metadata name is not process_name or thread_name")
            elif not isinstance(args.get("name"), str) or not args["name"]:
                bad.append(where + ": args.name is not a non-empty string")
            elif name == "process_name":
                if pid in pnames:
                    bad.append(where + ": process %d named twice" % pid)
                pnames[pid] = args["name"]
            elif not is_int(tid):
                bad.append(where + ": thread_name without an integer tid")
            else:
                if (pid, tid) in tnames:
                    bad.append(where + ": thread %d/%d named twice" % (pid, tid))
                tnames[(pid, tid)] = args["name"]
            continue
        pids_used.add(pid)
        ts = e.get("ts")
        if not is_num(ts) or ts < 0:
            bad.append(where + ": ts %r is not a number of microseconds >= 0" % (ts,))
            continue
        if ph == "X":
            dur = e.get("dur")
            if not is_num(dur) or dur < 0:
                bad.append(where + ": dur %r is not a number >= 0" % (dur,))
            elif not is_int(tid):
                bad.append(where + ": a complete event without a tid")
            else:
                on_thread.add((pid, tid))
                slices.setdefault((pid, tid), []).append((ts, dur, name))
        elif ph == "C":
            if not args or not all(is_num(v) for v in args.values()):
                bad.append(where + ": args %r is not a non-empty object of numbers" % (args,))
            track = (pid, name)
            if track in last_ts and ts <= last_ts[track]:
                bad.append(where + ": ts %r does not increase on counter %r (last %r)" % (ts, name, last_ts[track]))
            last_ts[track] = ts
        elif ph == "P":
            if not is_int(tid):
                bad.append(where + ": a sample event without a tid")
                continue
            on_thread.add((pid, tid))
            bad += profile_event(where, e, args, profiles)
        elif ph in ("s", "f"):
            if not isinstance(e.get("cat"), str) or "id" not in e or not is_int(tid):
                bad.append(where + ": a flow event without a string cat, an id and an integer tid")
            elif ph == "f" and e.get("bp") != "e":
                bad.append(where + ": a flow end without bp e (it would bind to the next slice)")
            else:
                f = flows.setdefault((e["cat"], name, str(e["id"])), {"s": [], "f": []})
                f[ph].append((pid, tid, ts))
        elif ph == "i":
            if e.get("s") not in ("g", "p", "t"):
                bad.append(where + ": scope s %r is not g, p or t" % (e.get("s"),))
            if not is_int(tid):
                bad.append(where + ": an instant event without a tid")
            else:
                on_thread.add((pid, tid))
    for pid in sorted(pids_used - set(pnames)):
        bad.append("process %d has events but no process_name" % pid)
    for pid, tid in sorted(on_thread - set(tnames)):
        bad.append("thread %d/%d has events but no thread_name" % (pid, tid))
    # Complete events on one track must nest: sorted by start (the longer first
    # at one start), each starts after the enclosing one ends, or ends within it.
    eps = 1e-3  # a nanosecond: the export's rounding
    for track, sl in sorted(slices.items()):
        open_ = []
        for ts, dur, name in sorted(sl, key=lambda s: (s[0], -s[1])):
            while open_ and ts >= open_[-1][0] + open_[-1][1] - eps:
                open_.pop()
            if open_ and ts + dur > open_[-1][0] + open_[-1][1] + eps:
                o = open_[-1]
                bad.append("track %d/%d: %r [%g, %g] overlaps %r [%g, %g] without nesting" %
                           (track[0], track[1], name, ts, ts + dur, o[2], o[0], o[0] + o[1]))
            open_.append((ts, dur, name))
    bad += flow_ends(flows, slices)
    count["flows"] = len(flows)
    bad += stack_samples(doc, count)
    count["profile samples"] = sum(p["samples"] for p in profiles.values())
    return bad, count


def flow_ends(flows, slices):
    """Each flow one s and one f, each inside a slice of its track."""
    bad = []
    eps = 1e-3
    starts = {k: sorted((a, d) for a, d, _ in v) for k, v in slices.items()}
    for key, f in sorted(flows.items()):
        if len(f["s"]) != 1 or len(f["f"]) != 1:
            bad.append("flow %r: %d starts and %d ends, not one of each" % (key, len(f["s"]), len(f["f"])))
            continue
        for ph in ("s", "f"):
            pid, tid, ts = f[ph][0]
            sl = starts.get((pid, tid), [])
            i = bisect.bisect_right(sl, (ts + eps, math.inf))
            # slices of a track nest: the enclosing one is among the last few started
            if not any(a + d + eps >= ts for a, d in sl[max(0, i - 64):i]):
                bad.append("flow %r: its %s at %g is inside no slice of track %d/%d" % (key, ph, ts, pid, tid))
    return bad[:20]


def profile_event(where, e, args, profiles):
    """A Profile or ProfileChunk event against the profiles seen so far."""
    bad = []
    data = args.get("data")
    key = (e["pid"], e.get("id"))
    if not isinstance(e.get("id"), str) or not isinstance(data, dict):
        return [where + ": a sample event without a string id and args.data"]
    if e["name"] == "Profile":
        if key in profiles:
            bad.append(where + ": profile %r started twice" % (e["id"],))
        if not is_num(data.get("startTime")):
            bad.append(where + ": Profile without a numeric startTime")
        profiles[key] = {"tid": e["tid"], "nodes": {}, "samples": 0}
        return bad
    if e["name"] != "ProfileChunk":
        return [where + ": a sample event that is neither Profile nor ProfileChunk"]
    prof = profiles.get(key)
    if prof is None:
        return [where + ": ProfileChunk before its Profile"]
    if prof["tid"] != e["tid"]:
        bad.append(where + ": ProfileChunk on another thread than its Profile")
    cp = data.get("cpuProfile", {})
    nodes, samples, deltas = cp.get("nodes", []), cp.get("samples", []), data.get("timeDeltas", [])
    for n in nodes:
        nid, parent = n.get("id"), n.get("parent")
        if not is_int(nid) or nid in prof["nodes"]:
            bad.append(where + ": node id %r not a new integer" % (nid,))
        elif not isinstance(n.get("callFrame", {}).get("functionName"), str):
            bad.append(where + ": node %d without callFrame.functionName" % nid)
        elif parent is not None and parent not in prof["nodes"]:
            bad.append(where + ": node %d's parent %r is not an earlier node" % (nid, parent))
        else:
            prof["nodes"][nid] = parent
    if not isinstance(samples, list) or not isinstance(deltas, list) or len(samples) != len(deltas):
        return bad + [where + ": samples and timeDeltas are not lists of one length"]
    bad += [where + ": sample of unknown node %r" % (s,) for s in samples if s not in prof["nodes"]][:3]
    bad += [where + ": timeDelta %r is not a number >= 0 (time order)" % (d,) for d in deltas
            if not is_num(d) or d < 0][:3]
    prof["samples"] += len(samples)
    return bad


def stack_samples(doc, count):
    """The top-level stackFrames and samples."""
    frames, samples = doc.get("stackFrames", {}), doc.get("samples", [])
    if not isinstance(frames, dict) or not isinstance(samples, list):
        return ["stackFrames is not an object or samples not a list"]
    bad = []
    for fid, f in frames.items():
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            bad.append("stack frame %s has no name" % fid)
        elif "parent" in f and str(f["parent"]) not in frames:
            bad.append("stack frame %s's parent %r is not a frame" % (fid, f["parent"]))
    depth = []
    for k, s in enumerate(samples):
        if not isinstance(s, dict) or not is_num(s.get("ts")) or not is_int(s.get("tid")):
            bad.append("sample %d: no numeric ts and integer tid" % k)
            continue
        sf, d = s.get("sf"), 0
        if str(sf) not in frames:
            bad.append("sample %d: sf %r is not a frame" % (k, sf))
            continue
        while sf is not None and d <= len(frames):
            d, sf = d + 1, frames[str(sf)].get("parent")
        if d > len(frames):
            bad.append("sample %d: its frames make a cycle" % k)
        depth.append(d)
    count["stack samples"] = len(depth)
    count["deepest stack"] = max(depth, default=0)
    return bad[:20]


def require_stacks(count):
    bad = []
    if count.get("stack samples", 0) == 0 or count.get("deepest stack", 0) < 2:
        bad.append("no samples with stacks (stackFrames and samples) at least two frames deep")
    if count.get("profile samples", 0) == 0:
        bad.append("no CPU profile (Profile and ProfileChunk events) with samples")
    return bad


def main():
    args = sys.argv[1:]
    stacks = args[:1] == ["--stacks"]
    args = args[1:] if stacks else args
    if len(args) != 1:
        print("usage: trace_check.py [--stacks] TRACE.json", file=sys.stderr)
        return 2
    with open(args[0]) as f:
        doc = json.load(f)
    bad, count = check(doc)
    if stacks:
        bad += require_stacks(count)
    print(" ".join(sorted(k for k in count if len(k) == 1)))
    print("# " + ", ".join("%s %d" % (k, count[k]) for k in sorted(count)))
    for b in bad[:20]:
        print("problem: " + b)
    if len(bad) > 20:
        print("problem: ... and %d more" % (len(bad) - 20))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
