#!/usr/bin/env python3
"""Migration 008 (schema version 7 -> 8): analysis_kernels, analysis_ops,
analysis_op_steps and analysis_annotations become views over tables that
store each name as its string id (*_by_id). Starting from a database written
by profdb at schema version 7 (tests/migrate/v7.db.gz: two generated ranks
and a sample trace, with rows in all four tables), `profdb migrate` must keep
every row of the four, all columns, through the views; the stored tables must
hold no name text; analysing the migrated runs again must write the same rows
(the migration's rows are the ones this profdb writes); and the schema must be
the one of a new database. The old rows are read with Python's sqlite3."""

import gzip
import os
import shutil
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checker, run, tempdir  # noqa: E402
from test_migrate import fresh_db, rows, schema_shape  # noqa: E402

SOURCE = os.environ.get("PROFDB_SOURCE", ".")
FIXTURE = os.path.join(SOURCE, "tests", "migrate", "v7.db.gz")
TABLES = ("analysis_kernels", "analysis_ops", "analysis_op_steps", "analysis_annotations")


def all_rows(db, name):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{name}")')]
        order = ", ".join(str(i) for i in range(1, len(cols) + 1))
        return cols, con.execute(f'SELECT * FROM "{name}" ORDER BY {order}').fetchall()
    finally:
        con.close()


def main():
    c = Checker()
    with tempdir() as tmp:
        old = os.path.join(tmp, "old.db")
        with gzip.open(FIXTURE) as src, open(old, "wb") as dst:
            shutil.copyfileobj(src, dst)
        db = os.path.join(tmp, "v7.db")
        shutil.copy(old, db)
        c.eq("fixture is version 7", rows(old, "PRAGMA user_version")[0][0], 7)
        c.eq("migrate: exit", run("migrate", "--db", db, check=False)[0], 0)

        for name in TABLES:
            kind = rows(db, f"SELECT type FROM sqlite_schema WHERE name = '{name}'")
            c.eq(f"{name}: a view now", kind, [("view",)])
            old_cols, old_rows = all_rows(old, name)
            new_cols, new_rows = all_rows(db, name)
            c.true(f"{name}: the fixture has rows", len(old_rows) > 0, len(old_rows))
            # analysis_op_steps had no name_id: the view adds it at the end
            c.eq(f"{name}: the old columns, in order", new_cols[:len(old_cols)], old_cols)
            keep = [new_cols.index(x) for x in old_cols]
            c.eq(f"{name}: every row, every column",
                 sorted((tuple(r[i] for i in keep) for r in new_rows), key=repr),
                 sorted(old_rows, key=repr))
            c.eq(f"{name}: name_id is the id of name in strings",
                 rows(db, f"SELECT count(*) FROM {name} WHERE name_id IS NOT"
                          " (SELECT id FROM strings WHERE value = name)")[0][0], 0)
            stored = [r[1] for r in rows(db, f"PRAGMA table_info({name}_by_id)")]
            c.true(f"{name}_by_id: no name text", "name" not in stored and "name_id" in stored,
                   stored)

        # the migrated rows are what this profdb writes
        migrated = {t: all_rows(db, t)[1] for t in TABLES}
        c.eq("analyze: exit", run("analyze", "--db", db, check=False)[0], 0)
        for name in TABLES:
            c.eq(f"{name}: analysed again, the same rows", all_rows(db, name)[1], migrated[name])

        fresh = fresh_db(tmp, "fresh.db", [os.path.join(SOURCE, "samples", "traces",
                                                        "train_rank0.pt.trace.json.gz")], "f")
        want, got = schema_shape(fresh), schema_shape(db)
        c.eq("schema: the same objects", sorted(got), sorted(want))
        for name in sorted(set(want) & set(got)):
            c.eq(f"schema: {name}", got[name], want[name])
    c.close()


if __name__ == "__main__":
    main()
