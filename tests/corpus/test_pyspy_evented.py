"""speedscope `evented` profiles (open/close events) read as time-weighted
samples (ingest/pyspy/pyspy_speedscope.c): speedscope's own sample files
(tests/pyspy/evented/, provenance in its README) against answers computed
by hand from their events, a time unit (seconds in the reports), and the
refusals of unbalanced events with their byte offsets (speedscope's
invalid samples)."""

import csv
import io
import json
import os
import sqlite3

from common import SOURCE, Checker, run, tempdir

HERE = os.path.join(SOURCE, "tests", "pyspy", "evented")

# simple.speedscope.json, by hand: a, b, c open at 0; c closes at 2 (a;b;c
# held 2), d opens at 2 and closes at 6 (a;b;d 4), c opens at 6 and closes
# at 9 (a;b;c 3 more), b and a close at 14 (a;b alone 9..14: 5). Unit
# "none": stored as whole units, no rate.
SIMPLE_FOLDED = {"a;b": 5, "a;b;c": 5, "a;b;d": 4}
SIMPLE_TOP = [  # name, self, total (ties in name order)
    ("a", 0, 14), ("b", 5, 14), ("c", 5, 5), ("d", 4, 4)]


def folded(db):
    _, out, _ = run("report", "folded", db=db)
    got = {}
    for line in out.splitlines():
        stack, n = line.rsplit(" ", 1)
        got[stack] = got.get(stack, 0) + int(n)
    return got


def top(db, *args):
    _, out, _ = run("report", "pyspy", "--format", "csv", *args, db=db)
    return list(csv.DictReader(io.StringIO(out)))


def check_simple(c, tmp, name):
    db = os.path.join(tmp, "simple.db")
    run("ingest", "-q", os.path.join(HERE, name), db=db)
    con = sqlite3.connect(db)
    prof = con.execute("SELECT name, samples, rate_hz, weight_unit FROM pyspy_profiles").fetchall()
    con.close()
    c.eq(f"{name}: the profile (14 units open, no rate)", prof,
         [("simple.txt", 14, None, "none")])
    c.eq(f"{name}: stacks", folded(db), SIMPLE_FOLDED)
    rows = top(db)
    c.eq(f"{name}: top functions", [(r["name"], int(r["self_samples"]), int(r["total_samples"]))
                                    for r in rows], SIMPLE_TOP)
    c.eq(f"{name}: shares", [r["self_pct"] for r in rows], ["0.00", "35.71", "35.71", "28.57"])
    _, out, _ = run("report", "pyspy", db=db)
    c.true(f"{name}: the table says what a sample is", "time-weighted" in out
           and "('none'" in out, out)
    os.remove(db)


def check_time_unit(c, tmp):
    """Milliseconds with fractions: nanoseconds stored, seconds reported."""
    doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
           "shared": {"frames": [{"name": "train", "file": "t.py", "line": 3},
                                 {"name": "step", "file": "t.py", "line": 9},
                                 {"name": "load", "file": "d.py", "line": 1}]},
           "profiles": [{"type": "evented", "name": "MainThread", "unit": "milliseconds",
                         "startValue": 0, "endValue": 10, "events": [
                             {"type": "O", "frame": 0, "at": 0.5},
                             {"type": "O", "frame": 1, "at": 1.25},
                             {"type": "O", "frame": 0, "at": 2},  # recursion: train in step
                             {"type": "C", "frame": 0, "at": 3},
                             {"type": "C", "frame": 1, "at": 4.75},
                             {"type": "O", "frame": 2, "at": 4.75},
                             {"type": "C", "frame": 2, "at": 8},
                             {"type": "C", "frame": 0, "at": 10}]}]}
    path = os.path.join(tmp, "ms.speedscope.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    db = os.path.join(tmp, "ms.db")
    run("ingest", "-q", path, db=db)
    # by hand, in ms: train 0.5..1.25 and 4.75 (load 4.75..8) .. 10; step
    # 1.25..2 and 3..4.75; train (inner) 2..3
    want = {"train (t.py:3)": 0.75 + 2, "train (t.py:3);step (t.py:9)": 0.75 + 1.75,
            "train (t.py:3);step (t.py:9);train (t.py:3)": 1,
            "train (t.py:3);load (d.py:1)": 3.25}
    c.eq("ms: stacks in nanoseconds", folded(db), {k: round(v * 1e6) for k, v in want.items()})
    rows = {r["name"]: r for r in top(db)}
    c.eq("ms: train total once per stack (9.5 ms), self 3.75 ms",
         (rows["train"]["total_s"], rows["train"]["self_s"]), ("0.0095", "0.00375"))
    c.eq("ms: step", (rows["step"]["total_s"], rows["step"]["self_s"]), ("0.0035", "0.0025"))
    c.eq("ms: load", (rows["load"]["total_samples"], rows["load"]["total_pct"]),
         ("3250000", "34.21"))
    _, out, _ = run("report", "pyspy", db=db)
    c.true("ms: the table says samples are nanoseconds", "a nanosecond a stack was open" in out,
           out)
    os.remove(db)


def check_refused(c, tmp, name, where, what):
    db = os.path.join(tmp, "bad.db")
    run("ingest", "-q", "--run", "before", os.path.join(HERE, "simple.speedscope.json"), db=db)
    code, _, err = run("ingest", os.path.join(HERE, name), db=db, check=False)
    lines = err.strip().splitlines()
    c.eq(f"{name}: exit", code, 2)
    c.true(f"{name}: one line naming byte {where} and {what!r}", len(lines) == 1
           and f"byte {where}:" in lines[0] and what in lines[0], err)
    con = sqlite3.connect(db)
    c.eq(f"{name}: database unchanged", con.execute(
        "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM pyspy_profiles)").fetchone(),
        (1, 1))
    con.close()
    os.remove(db)


def main():
    c = Checker()
    with tempdir() as tmp:
        check_simple(c, tmp, "simple.speedscope.json")
        check_simple(c, tmp, "simple-no-pretty-print.speedscope.json")
        check_time_unit(c, tmp)
        # the close of frame 1 at 4 while frame 0 is open: the end of that event
        text = open(os.path.join(HERE, "out-of-order-events.json")).read()
        event = '{"type": "C", "frame": 1, "at": 4}'
        check_refused(c, tmp, "out-of-order-events.json", text.index(event) + len(event),
                      "unbalanced open/close: a close of frame 1 while frame 0")
        # frame 0 never closed: the end of the profile
        text = open(os.path.join(HERE, "incomplete-trace.json")).read()
        check_refused(c, tmp, "incomplete-trace.json", text.rindex("}\n  ]") + 1,
                      "1 frame still open")
    c.close()


if __name__ == "__main__":
    main()
