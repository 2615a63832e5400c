"""histgen: perfhunt.run/1 records with chosen values, for change-point tests.

Tests, the reference comparison and the benchmarks build histories with
known steps from these records and feed them to `perfhunt history import`
(one JSON record per line), so the C side reads them exactly as it reads
recorded runs. Standard library only.
"""
import datetime
import hashlib
import json

EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def started_at(i):
    """ISO time of the i-th record: one minute apart."""
    t = EPOCH + datetime.timedelta(minutes=i)
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def run_record(command, when, wall_s, commit=None, dirty=False, metrics=None, phases=None):
    """A minimal run record: wall_s plus other summary metrics; phases as
    {name: ms}, laid end to end."""
    rec = {"schema": "perfhunt.run/1", "command": list(command), "started_at": started_at(when),
           "exit": {"status": 0}, "summary": {"wall_s": wall_s}}
    if metrics:
        rec["summary"].update(metrics)
    if commit is not None:
        rec["git"] = {"commit": commit, "dirty": bool(dirty)}
    if phases:
        t, out = 0.0, []
        for name, ms in phases.items():
            out.append({"name": name, "start_ms": t, "end_ms": t + ms})
            t += ms
        rec["phases"] = out
    return rec


def fake_commit(i):
    """A 40-hex commit ID for point i (not in any repository)."""
    return hashlib.sha1(b"perfhunt point %d" % i).hexdigest()


def write_jsonl(path, records):
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
