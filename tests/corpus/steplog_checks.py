"""Helpers of the tests on the real step logs in tests/steplogs
(test_steplog_real.py, test_steplog_families.py): ingest one file, read the
stored rows back directly, and check a value or the mean step time that a user
and a CI gate see."""

import json
import math
import os
import re
import sqlite3

from common import SOURCE, Checker, run

DIR = os.path.join(SOURCE, "tests", "steplogs")
chk = Checker()


def path(name):
    return os.path.join(DIR, name)


def lines(name):
    with open(path(name), encoding="utf-8", newline="") as f:
        return f.read().split("\n")


def sql(db, query):
    """Reads the stored rows directly (one profdb run fewer per query: these
    tests also run under valgrind)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute(query)]
    finally:
        con.close()


def run_name(name):
    return re.sub(r"\W", "_", name.split(".")[0])


def ingest(db, name, fmt="steplog:"):
    """Ingests tests/steplogs/NAME as run NAME-without-extension; checks exit 0
    and the format named (a prefix such as 'steplog:' or 'steplog:text').
    Returns (run name, stderr)."""
    r = run_name(name)
    code, _, err = run("ingest", "--db", db, "--run", r, path(name), check=False)
    chk.eq(f"{name}: exit code", code, 0)
    chk.true(f"{name}: read as {fmt}", f": {fmt}" in err, err)
    return r, err


def where_run(r):
    return f"run_id = (SELECT run_id FROM runs WHERE name = '{r}')"


def steps(db, r):
    """Step records: training records of kind step (or the flavor's record kind)."""
    return sql(db, "SELECT count(DISTINCT record) AS n FROM steplog_values WHERE "
                   f"{where_run(r)} AND coalesce(split, 'train') = 'train'"
                   " AND kind NOT IN ('val', 'summary', 'epoch', 'eval')")[0]["n"]


def value(db, r, where):
    rows = sql(db, f"SELECT value FROM steplog_values WHERE {where_run(r)} AND ({where})")
    chk.eq(f"{r}: one value where {where}", len(rows), 1)
    return rows[0]["value"] if rows else None


def close(what, got, want, rel=1e-6):
    ok = got is not None and want is not None and math.isclose(got, want, rel_tol=rel,
                                                                abs_tol=1e-12)
    chk.true(what, ok, f"got {got}, want {want}")


def spot(db, r, where, want, rel=1e-9):
    close(f"{r}: {where}", value(db, r, where), want, rel)


def step_time_mean(db, r):
    """1 / steps_per_s of `report throughput` (overall) and its source, or None
    (also when the report does not apply: no step times in the log)."""
    rc, out, err = run("report", "--db", db, "--run", r, "--format", "json", "throughput",
                       check=False)
    if rc == 2 and "does not apply" in err:
        return None, None
    if rc != 0:
        raise AssertionError(f"report throughput on {r} exited {rc}: {err.strip()}")
    for row in json.loads(out):
        if row["scope"] == "overall" and row["metric"] == "steps_per_s":
            return 1.0 / row["value"], row["derived_from"]
    return None, None


def check_mean(db, r, want, source, rel=1e-6):
    got, src = step_time_mean(db, r)
    close(f"{r}: mean step time (s) from {src}", got, want, rel)
    chk.eq(f"{r}: step time comes from", src, source)
