"""`profdb merge` reads a shard's own tables only, and every refusal names
the shard (reliability round 3, items 12 and 16's merge messages).

Before: a shard whose table was replaced by a view had the view run (rows
made up; a recursive view never ended), and errors came as SQLite's bare
words: "database error: no such column: x.ingest_ms", "no such table:
shard0.skips", "database disk image is malformed", a folder as "disk I/O
error", a string id with no string merged and then broke `analyze` with a
UNIQUE error. Each shard below is a profdb database changed with Python's
sqlite3; merging it into a new and into an existing database must exit 2
within the time limit with one line naming the shard, leave an existing
target exactly as it was and create no new one."""

import os
import random
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import (PROFDB, SOURCE, TIMEOUT, Checker, run, table_counts,  # noqa: E402
                    tempdir)

TRACE = os.path.join(SOURCE, "samples", "traces", "train_rank0.pt.trace.json.gz")
PSTATS = os.path.join(SOURCE, "samples", "pstats", "sample.prof")


def edit(path, *statements):
    con = sqlite3.connect(path)
    for s in statements:
        con.execute(s)
    con.commit()
    con.close()




def corrupt(path):
    size = os.path.getsize(path)
    rnd = random.Random(7)
    with open(path, "r+b") as f:
        for page in range(2, size // 4096, 3):
            f.seek(page * 4096 + 100)
            f.write(bytes(rnd.randrange(256) for _ in range(200)))


def main():
    c = Checker()
    with tempdir() as tmp:
        good = os.path.join(tmp, "good.db")
        run("ingest", "-q", "--run", "a", TRACE, db=good)
        cases = {
            "view_for_table": ["ALTER TABLE slices RENAME TO slices_x",
                               "CREATE VIEW slices AS SELECT * FROM slices_x"],
            "endless_view": ["ALTER TABLE skips RENAME TO skips_x",
                             "CREATE VIEW skips AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL"
                             " SELECT i + 1 FROM n) SELECT 1 AS run_id, 1 AS source_id,"
                             " 'x' || i AS reason, 1 AS count FROM n"],
            "trigger": ["CREATE TRIGGER t AFTER INSERT ON runs BEGIN SELECT 1; END"],
            "extra_view": ["CREATE VIEW extra AS SELECT 1"],
            "missing_column": ["ALTER TABLE sources DROP COLUMN ingest_ms"],
            "missing_table": ["DROP TABLE skips"],
            "dangling_string": ["UPDATE slices SET name = 987654 WHERE id ="
                                " (SELECT min(id) FROM slices)"],
            "deleted_string": ["DELETE FROM strings WHERE id = (SELECT name FROM slices"
                               " ORDER BY id LIMIT 1)"],
        }
        shards = {}
        for name, statements in cases.items():
            path = os.path.join(tmp, f"{name}.db")
            shutil.copy(good, path)
            edit(path, *statements)
            shards[name] = path
        shards["corrupt"] = os.path.join(tmp, "corrupt.db")
        shutil.copy(good, shards["corrupt"])
        corrupt(shards["corrupt"])
        shards["folder"] = os.path.join(tmp, "folder.db")
        os.mkdir(shards["folder"])

        existing = os.path.join(tmp, "existing.db")
        run("ingest", "-q", "--run", "other", PSTATS, db=existing)
        before = table_counts(existing)
        says = {"view_for_table": "slices", "endless_view": "skips", "trigger": "trigger t",
                "extra_view": "view extra", "missing_column": "sources",
                "missing_table": "skips", "dangling_string": "987654",
                "deleted_string": "lacks", "corrupt": "malformed", "folder": "folder"}
        # a merge without --full leaves the events in the shard, unread: the
        # string ids damaged in slices are found by --full alone
        events_only = ("dangling_string", "deleted_string")
        for name, path in shards.items():
            for target, mode in (("new", "--full"), ("existing", "--full"),
                                 ("new", None), ("existing", None)):
                if mode is None and name in events_only:
                    continue
                out = os.path.join(tmp, "new.db") if target == "new" else existing
                what = f"{name} into a {target} database{' (--full)' if mode else ''}"
                try:
                    p = subprocess.run([PROFDB, "merge", "-q"] + ([mode] if mode else [])
                                       + [out, path], capture_output=True,
                                       text=True, timeout=TIMEOUT)
                except subprocess.TimeoutExpired:
                    c.true(f"{what}: ends", False)
                    continue
                c.eq(f"{what}: exit", p.returncode, 2)
                c.true(f"{what}: one line naming the shard and what is wrong ({p.stderr!r})",
                       p.stderr.startswith(f"profdb: {path}: ") and p.stderr.count("\n") == 1
                       and says[name] in p.stderr, p.stderr)
                if target == "new":
                    c.true(f"{what}: no database made", not os.path.exists(out))
                else:
                    c.eq(f"{what}: the target unchanged", table_counts(existing), before)
        # the untouched shard still merges, and merges into the first
        rc, _, err = run("merge", "-q", existing, good, check=False)
        c.eq(f"the good shard merges ({err.strip()})", rc, 0)
    c.close()


if __name__ == "__main__":
    main()
