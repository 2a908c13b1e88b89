#!/usr/bin/env python3
"""Schema migrations (common/db.c, schemas/migrations/): a database written by
profdb at schema version 1 (tests/migrate/v1.db.gz, where every step-log value
was a row of the table steplog_values) is refused by read-only commands with
how to upgrade it, upgraded by `profdb migrate` in one step, and then holds
every value of every step log exactly (all 17 columns, in log order), every
other table unchanged (the step-log metric rules: every old one kept, and
the built-in ones of a new database, which migration 006 adds to), and the
same schema as a database made new. Writing
into it afterwards works: a new step log stores what a fresh database stores,
and replacing a migrated run leaves no context behind. The old rows are read
with Python's sqlite3, not with profdb."""

import gzip
import os
import re
import shutil
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checker, run, tempdir  # noqa: E402

SOURCE = os.environ.get("PROFDB_SOURCE", ".")
FIXTURES = os.path.join(SOURCE, "tests", "migrate")
COLS = ("run_id, source_id, record, line, kind, rank, loader, split, step, epoch, wall_time,"
        " metric, value, unit, agg, window, raw_name")


def rows(db, sql):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def tables(db):
    return [r[0] for r in rows(db, "SELECT name FROM sqlite_schema WHERE type = 'table'"
                                   " AND name NOT LIKE 'sqlite_%' ORDER BY name")]


def table_rows(db, name):
    ncols = len(rows(db, f"PRAGMA table_info(\"{name}\")"))
    order = ", ".join(str(i) for i in range(1, ncols + 1))
    return rows(db, f"SELECT * FROM \"{name}\" ORDER BY {order}")


def normalise_sql(sql):
    """SQL text without comments and with single spaces: the schema file and
    the migration may comment the same statement differently."""
    sql = re.sub(r"--[^\n]*", " ", sql or "")
    return re.sub(r"\s+", " ", sql).strip()


def schema_shape(db):
    """Every object of a database by name: columns of tables (table_xinfo),
    columns of indexes, and the normalised SQL of views and triggers."""
    shape = {}
    for kind, name, tbl, sql in rows(db, "SELECT type, name, tbl_name, sql FROM sqlite_schema"
                                         " WHERE name NOT LIKE 'sqlite_%'"):
        if kind == "table":
            shape[name] = (kind, rows(db, f"PRAGMA table_xinfo(\"{name}\")"))
        elif kind == "index":
            shape[name] = (kind, tbl, rows(db, f"PRAGMA index_xinfo(\"{name}\")"))
        else:
            shape[name] = (kind, tbl, normalise_sql(sql))
    return shape


def values_in_log_order(db, table_has_rowid):
    if table_has_rowid:  # version 1: a table, in the order the rows were stored
        return rows(db, f"SELECT {COLS} FROM steplog_values ORDER BY source_id, record, rowid")
    return rows(db, f"SELECT {COLS} FROM steplog_points ORDER BY source_id, record, pos")


def fresh_db(tmp, name, inputs, run_name):
    db = os.path.join(tmp, name)
    run("ingest", "-q", "--db", db, "--run", run_name, *inputs)
    return db


def main():
    c = Checker()
    with tempdir() as tmp:
        old = os.path.join(tmp, "old.db")  # stays at version 1, read with sqlite3
        with gzip.open(os.path.join(FIXTURES, "v1.db.gz")) as src, open(old, "wb") as dst:
            shutil.copyfileobj(src, dst)
        db = os.path.join(tmp, "v1.db")
        shutil.copy(old, db)
        c.eq("fixture is version 1", rows(old, "PRAGMA user_version")[0][0], 1)

        current = int(run("schema")[1].splitlines()[0].split()[-1])
        c.true("the current version is newer than 1", current > 1, current)
        # schemas/migrations/NNN_what.sql takes version NNN - 1 to NNN: the files
        # number 2, 3, ... with no gap or repeat (two branches that each add a
        # migration fail here until one is renumbered)
        names = sorted(os.listdir(os.path.join(SOURCE, "schemas", "migrations")))
        numbers = [int(n[:3]) for n in names if re.fullmatch(r"\d{3}_\w+\.sql", n)]
        c.eq("migration files: NNN_what.sql", len(numbers), len(names))
        c.eq("migration files: numbered 2 to the current version", numbers,
             list(range(2, current + 1)))

        # read-only commands refuse, naming the way out; nothing changes
        for cmd in (("runs",), ("report", "--run", "megatron", "metrics"),
                    ("sql", "SELECT count(*) FROM runs")):
            code, out, err = run(*cmd, "--db", db, check=False)
            c.eq(f"{cmd[0]} on a version-1 database: exit", code, 2)
            c.true(f"{cmd[0]}: says how to upgrade",
                    "older than this profdb" in err and "profdb migrate" in err, err)
        c.eq("refused opens change nothing", rows(db, "PRAGMA user_version")[0][0], 1)

        code, out, err = run("migrate", "--db", db, check=False)
        c.eq("migrate: exit", code, 0)
        c.true("migrate: says what it did",
                f"schema upgraded from version 1 to {current}" in out and "VACUUM" in out, out)
        c.eq("migrated: user_version", rows(db, "PRAGMA user_version")[0][0], current)
        migrate_err = err

        # every value, with every column, in the order the log had it
        before = values_in_log_order(old, True)
        after = values_in_log_order(db, False)
        c.eq("values: count", len(after), len(before))
        diff = [(b, a) for b, a in zip(before, after) if b != a]
        c.true("values: all 17 columns equal, in log order", not diff, diff[:3])
        c.eq("values: the view has the same rows",
             sorted(rows(db, f"SELECT {COLS} FROM steplog_values"), key=repr),
             sorted(before, key=repr))
        c.true("values: NaN stays NULL", any(r[12] is None for r in after))

        # every other table as it was
        # (tables that gained columns: the old columns as they were, the new
        # ones at their defaults, 0, until `profdb analyze` fills them)
        fresh = fresh_db(tmp, "fresh.db", [os.path.join(FIXTURES, "ds_chat_two_engines.log")],
                         "ds_fresh")
        for name in tables(old):
            if name == "steplog_values":
                continue
            if name == "steplog_metric_rules":  # migration 006 adds built-in rules
                rules = "SELECT * FROM steplog_metric_rules ORDER BY 1, 2"
                got = rows(db, rules)
                c.true("steplog_metric_rules: every old rule kept",
                       set(table_rows(old, name)) <= set(got))
                c.eq("steplog_metric_rules: the rules of a new database", got, rows(fresh, rules))
                continue
            old_cols = [r[1] for r in rows(old, f"PRAGMA table_info(\"{name}\")")]
            new_cols = [r[1] for r in rows(db, f"PRAGMA table_info(\"{name}\")")]
            c.eq(f"table {name}: the old columns first", new_cols[:len(old_cols)], old_cols)
            cols = ", ".join(f'"{x}"' for x in old_cols)
            order = ", ".join(str(i) for i in range(1, len(old_cols) + 1))
            c.eq(f"table {name}: unchanged",
                 rows(db, f"SELECT {cols} FROM \"{name}\" ORDER BY {order}"), table_rows(old, name))
            for added in new_cols[len(old_cols):]:
                if added == "name_id":  # migration 007: the key is the name's string id
                    c.eq(f"table {name}: name_id is the id of name in strings",
                         rows(db, f"SELECT count(*) FROM \"{name}\" WHERE name_id IS NOT"
                                  " (SELECT id FROM strings WHERE value = name)")[0][0], 0)
                    continue
                if added == "run":  # migration 017: the run's name, on views of old tables
                    c.eq(f"table {name}: run is the name of run_id",
                         rows(db, f"SELECT count(*) FROM \"{name}\" WHERE run IS NOT"
                                  f" (SELECT name FROM runs r WHERE r.run_id = \"{name}\".run_id)")
                         [0][0], 0)
                    continue
                if added == "first_slice":  # migration 013: unknown for traces stored before
                    c.eq(f"table {name}: first_slice unknown (NULL)",
                         rows(db, f"SELECT count(*) FROM \"{name}\" WHERE first_slice IS NOT"
                                  " NULL")[0][0], 0)
                    continue
                c.eq(f"table {name}: new column {added} at 0",
                     rows(db, f"SELECT count(*) FROM \"{name}\" WHERE \"{added}\" IS NOT 0")[0][0], 0)

        # the same schema as a new database
        want, got = schema_shape(fresh), schema_shape(db)
        c.eq("schema: the same objects", sorted(got), sorted(want))
        for name in sorted(set(want) & set(got)):
            c.eq(f"schema: {name}", got[name], want[name])

        # writing after the migration
        c.eq("migrate again: nothing to do", run("migrate", "--db", db)[1].strip(),
             f"{db}: schema version {current} is current")
        run("ingest", "-q", "--db", db, "--run", "ds_new",
            os.path.join(FIXTURES, "ds_chat_two_engines.log"))
        new_vals = rows(db, f"SELECT {COLS.replace('run_id, source_id, ', '')} FROM steplog_points"
                            " WHERE run_id = (SELECT run_id FROM runs WHERE name = 'ds_new')"
                            " ORDER BY record, pos")
        fresh_vals = rows(fresh, f"SELECT {COLS.replace('run_id, source_id, ', '')}"
                                 " FROM steplog_points ORDER BY record, pos")
        c.true("a log ingested after the migration is stored as in a new database",
                new_vals == fresh_vals and len(new_vals) > 0, (len(new_vals), len(fresh_vals)))
        old_ds = rows(old, f"SELECT {COLS.replace('run_id, source_id, ', '')} FROM steplog_values"
                           " WHERE run_id = (SELECT run_id FROM runs WHERE name = 'ds')"
                           " ORDER BY record, rowid")
        # since version 1 DeepSpeed-Chat's reward and latency records also
        # carry the epoch of their "epoch: E|step: N" line (it stored the
        # step only); every other column is as version 1 stored it
        kind, epoch = 2, 7  # in COLS without run_id, source_id
        as_v1 = [v[:epoch] + (None,) + v[epoch + 1:] if v[kind] in ("e2e", "reward") else v
                 for v in new_vals]
        c.true("... and as version 1 stored it (engine0 labels, some of a series)",
               as_v1 == old_ds, (new_vals[:2], old_ds[:2]))
        c.true("... the reward and latency records with their PPO line's epoch",
               any(v[kind] == "e2e" and v[epoch] is not None for v in new_vals), new_vals[:8])
        ctx_before = rows(db, "SELECT count(*) FROM steplog_contexts")[0][0]
        run("ingest", "-q", "--db", db, "--replace", "--run", "megatron",
            os.path.join(SOURCE, "tests", "golden", "steplog_megatron_new", "train.log"))
        c.eq("replacing a migrated run: contexts as many as before",
             rows(db, "SELECT count(*) FROM steplog_contexts")[0][0], ctx_before)
        c.eq("every context is some value's",
             rows(db, "SELECT count(*) FROM steplog_contexts WHERE ctx_id NOT IN"
                      " (SELECT ctx + (k.i - 1) * stride FROM steplog_chunks"
                      "  JOIN steplog_slots k ON k.i <= n)")[0][0], 0)
        megatron = fresh_db(tmp, "megatron.db", [os.path.join(
            SOURCE, "tests", "golden", "steplog_megatron_new", "train.log")], "megatron")
        no_ids = COLS.replace("run_id, source_id, ", "")
        c.eq("the replaced run: what a new database stores",
             rows(db, f"SELECT {no_ids} FROM steplog_points WHERE run_id = (SELECT run_id"
                      " FROM runs WHERE name = 'megatron') ORDER BY record, pos"),
             rows(megatron, f"SELECT {no_ids} FROM steplog_points ORDER BY record, pos"))

        # tables SQL cannot fill (migrations 002 and 004) start empty; the
        # warning names `profdb analyze`, which fills them for the trace run
        c.eq("migrated: the launch queue is empty until analyze",
             rows(db, "SELECT count(*) FROM analysis_queue")[0][0], 0)
        c.true("migrate: names profdb analyze for the trace runs",
                "launch queue lengths" in migrate_err and "profdb analyze" in migrate_err,
                migrate_err)
        run("analyze", "--db", db, "trace")
        c.true("analyze fills the launch queue of the migrated trace run",
                rows(db, "SELECT count(*) FROM analysis_queue WHERE mode = 'exact'"
                         " AND run_id = (SELECT run_id FROM runs WHERE name = 'trace')")[0][0] > 0)
    c.close()


if __name__ == "__main__":
    main()
