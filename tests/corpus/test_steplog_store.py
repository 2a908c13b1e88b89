#!/usr/bin/env python3
"""How step-log values are stored (ingest/steplog/steplog_store.c, schemas/40_steplog.sql):
series, contexts and chunks of up to 32 values, read back through the view
steplog_values. Against Python's own reading of generated JSON Lines logs:

- an irregular log (keys that come and go, change order, are null; 40,000
  rare names, more than the writer caches, so its caches start again; eval
  records; records without a step) reads back value for value: record,
  step, epoch, raw name, value (NULL for null), split, and the order of the
  values within each record (steplog_points.pos);
- a regular log fills its chunks (a series of N values takes about N / 32
  rows) and its contexts (one per record);
- writing through the view: INSERT stores a row, DELETE removes exactly
  that value, UPDATE is refused with exit 2;
- replacing a run (--replace) leaves no series, chunk or context of the old
  one behind.
The database is read with Python's sqlite3, not with profdb."""

import json
import os
import random
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checker, run, tempdir  # noqa: E402


def rows(db, sql, args=()):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def irregular_log(path, n):
    """Records as Python writes them, and what each should store."""
    rnd = random.Random(14)
    want = []  # (record, step, epoch, [(name, value), ...])
    with open(path, "w") as f:
        for r in range(1, n + 1):
            rec = {}
            has_step = rnd.random() > 0.02
            if has_step:
                rec["step"] = r * 10
            rec["epoch"] = r // 1000
            vals = []
            for name in ("loss", "lr", "grad_norm", "tokens", "mfu"):
                if rnd.random() < 0.85:
                    v = None if rnd.random() < 0.01 else round(rnd.uniform(-5, 5), rnd.randint(0, 9))
                    vals.append((name, v))
            for _ in range(3):
                vals.append((f"rare_{rnd.randrange(40000)}", rnd.random()))
            if rnd.random() < 0.05:
                vals = [("val_loss", rnd.random()), ("val_acc", rnd.random())]
            if rnd.random() < 0.1:
                rnd.shuffle(vals)
            seen = set()
            vals = [(k, v) for k, v in vals if not (k in seen or seen.add(k))]
            for k, v in vals:
                rec[k] = v
            f.write(json.dumps(rec) + "\n")
            want.append((r, r * 10 if has_step else None, float(r // 1000), vals))
    return want


def main():
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        log = os.path.join(tmp, "irregular.jsonl")
        want = irregular_log(log, 30000)
        run("ingest", "-q", "--db", db, "--run", "irr", "--format", "steplog:jsonl", log)
        got = {}
        for record, step, epoch, raw, value, split in rows(
                db, "SELECT record, step, epoch, raw_name, value, split FROM steplog_points"
                    " ORDER BY record, pos"):
            got.setdefault(record, []).append((step, epoch, raw, value, split))
        bad = []
        for record, step, epoch, vals in want:
            stored = got.pop(record, [])
            expect = [(step, epoch, k, v, "val" if k.startswith("val_") else None)
                      for k, v in vals]
            same = stored == expect  # exact: JSON numbers read back as the same doubles
            if not same:
                bad.append((record, stored[:4], expect[:4]))
        c.true("irregular log: every record reads back, values in log order", not bad, bad[:3])
        c.eq("irregular log: no record that was not written", sorted(got), [])
        nseries = rows(db, "SELECT count(*) FROM steplog_series")[0][0]
        c.true("irregular log: more series than the writer caches (16384)", nseries > 16384,
               nseries)

        # a regular log: chunks full, one context a record
        reg = os.path.join(tmp, "regular.jsonl")
        n = 10000
        with open(reg, "w") as f:
            for r in range(1, n + 1):
                f.write(json.dumps({"step": r, "loss": 1 / r, "lr": 3e-4, "a": r * 0.5,
                                    "b": -r, "c": r % 7}) + "\n")
        run("ingest", "-q", "--db", db, "--run", "reg", reg)
        chunks, values = rows(
            db, "SELECT count(DISTINCT chunk_id), count(*) FROM steplog_points"
                " WHERE run_id = (SELECT run_id FROM runs WHERE name = 'reg')")[0]
        c.eq("regular log: values", values, 5 * n)
        c.true("regular log: 32 values a chunk", chunks <= 5 * (n // 32 + 1), chunks)
        contexts = rows(db, "SELECT count(DISTINCT ctx_id) FROM steplog_points"
                            " WHERE run_id = (SELECT run_id FROM runs WHERE name = 'reg')")[0][0]
        c.eq("regular log: one context a record", contexts, n)

        # writing through the view
        src = rows(db, "SELECT source_id, run_id FROM sources ORDER BY source_id DESC LIMIT 1")[0]
        run("sql", "--db", db, "--write",
            "INSERT INTO steplog_values (run_id, source_id, record, line, kind, step, metric,"
            f" value, unit, agg, raw_name) VALUES ({src[1]}, {src[0]}, {n + 1}, {n + 1},"
            " 'jsonl', 99999, 'loss', 0.125, '', 'point', 'loss')")
        c.eq("INSERT through the view: the row reads back",
             rows(db, "SELECT record, step, value FROM steplog_values WHERE step = 99999"),
             [(n + 1, 99999, 0.125)])
        before = rows(db, "SELECT count(*) FROM steplog_values")[0][0]
        run("sql", "--db", db, "--write",
            "DELETE FROM steplog_values WHERE raw_name = 'a' AND step = 5000"
            " AND run_id = (SELECT run_id FROM runs WHERE name = 'reg')")
        c.eq("DELETE through the view: one value fewer",
             rows(db, "SELECT count(*) FROM steplog_values")[0][0], before - 1)
        c.eq("DELETE through the view: that value",
             rows(db, "SELECT count(*) FROM steplog_values WHERE raw_name = 'a'"
                      " AND step IN (4999, 5000, 5001) AND run_id = (SELECT run_id FROM runs"
                      " WHERE name = 'reg')")[0][0], 2)
        code, _, err = run("sql", "--db", db, "--write",
                           "UPDATE steplog_values SET value = 0 WHERE raw_name = 'b'",
                           check=False)
        c.eq("UPDATE through the view: exit", code, 2)
        c.true("UPDATE through the view: SQLite says why", "steplog_values" in err, err)

        # --replace leaves nothing of the old run
        def counts():
            return rows(db, "SELECT (SELECT count(*) FROM steplog_series),"
                            " (SELECT count(*) FROM steplog_chunks),"
                            " (SELECT count(*) FROM steplog_contexts)")[0]
        run("ingest", "-q", "--db", db, "--run", "reg2", reg)
        with_two = counts()
        run("ingest", "-q", "--db", db, "--replace", "--run", "reg2", reg)
        c.eq("--replace: series, chunks, contexts as before", counts(), with_two)
        c.eq("--replace: the replaced run reads back whole",
             rows(db, "SELECT count(*) FROM steplog_values WHERE run_id = (SELECT run_id"
                      " FROM runs WHERE name = 'reg2')")[0][0], 5 * n)
    c.close()


if __name__ == "__main__":
    main()
