#!/usr/bin/env python3
"""Migrations 010 and 011 (schema version 9 -> 11): steplog_readings, how
each step log was read, and steplog_patterns, the rules users taught (with
the readings' pattern column). Starting from a database written by profdb at schema version 9
(tests/migrate/v9.db.gz: Marian, OLMo and timm logs read by the general
reader, a Megatron log, a trace), `profdb migrate` must add the table, empty
(the old sources were read without a reading), keep every other table's rows
as they were, and give the schema of a new database; `profdb runs --reading`
then says the old step logs have no reading recorded (the trace is not a step
log: not listed), and re-ingesting one with --replace records it. The old
rows are read with Python's sqlite3."""

import gzip
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checker, run, tempdir  # noqa: E402
from test_migrate import fresh_db, rows, schema_shape, table_rows, tables  # noqa: E402

SOURCE = os.environ.get("PROFDB_SOURCE", ".")
FIXTURE = os.path.join(SOURCE, "tests", "migrate", "v9.db.gz")


def main():
    c = Checker()
    with tempdir() as tmp:
        old = os.path.join(tmp, "old.db")
        with gzip.open(FIXTURE) as src, open(old, "wb") as dst:
            shutil.copyfileobj(src, dst)
        db = os.path.join(tmp, "v9.db")
        shutil.copy(old, db)
        c.eq("fixture is version 9", rows(old, "PRAGMA user_version")[0][0], 9)
        c.true("fixture has no steplog_readings", "steplog_readings" not in tables(old))
        code, _, err = run("migrate", "--db", db, check=False)
        c.eq("migrate: exit", code, 0)
        c.eq("migrated: user_version", rows(db, "PRAGMA user_version")[0][0],
             int(run("schema")[1].splitlines()[0].split()[-1]))
        c.eq("steplog_readings: empty", rows(db, "SELECT count(*) FROM steplog_readings"),
             [(0,)])
        c.eq("steplog_patterns: empty", rows(db, "SELECT count(*) FROM steplog_patterns"),
             [(0,)])
        for name in tables(old):
            got = table_rows(db, name)
            if name == "traces":  # migration 13 adds first_slice, unknown (NULL) before it
                c.eq("traces: first_slice unknown", {r[-1] for r in got}, {None})
                got = [r[:-1] for r in got]
            c.eq(f"{name}: rows as they were", got, table_rows(old, name))

        fresh = fresh_db(tmp, "fresh.db", [os.path.join(SOURCE, "tests", "steplogs",
                                                        "marian_issue376_excerpt.log")], "f")
        want, got = schema_shape(fresh), schema_shape(db)
        c.eq("schema: the same objects", sorted(got), sorted(want))
        for name in sorted(set(want) & set(got)):
            c.eq(f"schema: {name}", got[name], want[name])

        _, out, _ = run("runs", "--db", db, "--reading", "--format", "json")
        listed = json.loads(out)
        step_logs = rows(db, "SELECT count(*) FROM sources WHERE format LIKE 'steplog:%'")[0][0]
        c.eq("runs --reading: every step log, none else", len(listed), step_logs)
        c.true("runs --reading: an old source says it has no reading",
               all(r["reader"].startswith("(not recorded") and r["counter"] is None
                   for r in listed), listed)
        _, out, _ = run("runs", "--db", db, "--format", "json")
        c.true("runs: no reading for old runs", all(r["reading"] is None
                                                    for r in json.loads(out)), out)

        log = os.path.join(SOURCE, "tests", "steplogs", "marian_issue376_excerpt.log")
        code, _, err = run("ingest", "--db", db, "--replace", "--run", "marian", log,
                           check=False)
        c.eq("re-ingest: exit", code, 0)
        _, out, _ = run("runs", "--db", db, "--reading", "--format", "json", "marian")
        got = json.loads(out)
        c.true("re-ingest: the reading is recorded",
               len(got) == 1 and got[0]["reader"] == "text" and got[0]["counter"] == '"Up. N"'
               and got[0]["pattern"] is None, got)
        rules = os.path.join(SOURCE, "tests", "patterns", "marian.rules")
        code, _, err = run("ingest", "--db", db, "--replace", "--run", "marian", "--rules",
                           rules, log, check=False)
        _, out, _ = run("runs", "--db", db, "--reading", "--format", "json", "marian")
        got = json.loads(out)
        c.true("a pattern ingest into the migrated database: the rules are stored and named",
               code == 0 and got[0]["reader"] == "pattern" and got[0]["pattern"] ==
               rows(db, "SELECT rules FROM steplog_patterns")[0][0], (err, got))
    c.close()


if __name__ == "__main__":
    main()
