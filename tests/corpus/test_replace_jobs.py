"""`ingest --replace` of the newest run with several inputs keeps every input
(reliability round 3, item 1), and a run id is never used twice.

The replaced run was the newest, so the new run took its id; the bound "runs
this ingest found" then covered the new run, and the merge of the workers'
shards deleted the main process's share as if it were the run being
replaced: exit 0, every file said "into run", and `runs --sources` missed
the first inputs (a 4-rank folder kept ranks 2-3 with --jobs 2, only rank 3
with --jobs 3 or 4). Checked for --jobs 1 to 4, with mixed inputs and with a
folder of four generated ranks, against the list of inputs given; and
directly: the ids of deleted runs are not given again, after --replace and
after a migration from schema 8 (tests/migrate/v7.db.gz, migrated)."""

import gzip
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import GENTRACE, SOURCE, Checker, run, sql, tempdir  # noqa: E402

SAMPLES = os.path.join(SOURCE, "samples")
MIXED = [os.path.join(SAMPLES, "steplogs", "train.jsonl"),
         os.path.join(SAMPLES, "steplogs", "generic_trainer.log"),
         os.path.join(SAMPLES, "pstats", "sample.prof")]


def sources(db, run_name):
    return sorted(r["path"] for r in sql(db, "SELECT s.path FROM sources s JOIN runs r"
                                         f" USING (run_id) WHERE r.name = '{run_name}'"))


def ranks(db, run_name):
    return sorted(r["rank"] for r in sql(db, "SELECT t.rank FROM traces t JOIN runs r"
                                         f" USING (run_id) WHERE r.name = '{run_name}'"))


def run_ids(db):
    return [r["run_id"] for r in sql(db, "SELECT run_id FROM runs ORDER BY run_id")]


def main():
    c = Checker()
    with tempdir() as tmp:
        for jobs in (1, 2, 3, 4):
            db = os.path.join(tmp, f"mixed{jobs}.db")
            run("ingest", "-q", "--run", "other", MIXED[2], db=db)
            run("ingest", "-q", "--run", "r", MIXED[0], db=db)
            before = run_ids(db)
            code, _, err = run("ingest", "-q", "--jobs", jobs, "--run", "r", "--replace",
                               *MIXED, db=db, check=False)
            c.eq(f"--jobs {jobs} --replace: exit", code, 0)
            c.eq(f"--jobs {jobs} --replace: every input is in run r", sources(db, "r"),
                 sorted(MIXED))
            c.eq(f"--jobs {jobs}: run 'other' kept", sources(db, "other"), [MIXED[2]])
            after = run_ids(db)
            c.true(f"--jobs {jobs}: the new run has an id never used before",
                   max(after) > max(before), (before, after))

        folder = os.path.join(tmp, "ranks")
        os.mkdir(folder)
        for rank in range(4):
            subprocess.run([GENTRACE, "--steps", "2", "--rank", str(rank), "--world", "4",
                            os.path.join(folder, f"rank{rank}.json")], check=True)
        for jobs in (2, 3, 4):
            db = os.path.join(tmp, f"ranks{jobs}.db")
            run("ingest", "-q", "--run", "job", folder, db=db)
            run("ingest", "-q", "--jobs", jobs, "--run", "job", "--replace", folder, db=db)
            c.eq(f"4-rank folder, --jobs {jobs} --replace: ranks", ranks(db, "job"),
                 [0, 1, 2, 3])

        # deleting the newest run does not free its id (plain --jobs 1 too)
        db = os.path.join(tmp, "ids.db")
        run("ingest", "-q", "--run", "a", MIXED[2], db=db)
        run("ingest", "-q", "--run", "b", MIXED[2], db=db)
        old = run_ids(db)
        run("ingest", "-q", "--run", "b", "--replace", MIXED[2], db=db)
        new = run_ids(db)
        c.eq("replacing the newest run: ids", new, [old[0], old[1] + 1])

        # a migrated schema-7 database gets the same guarantee
        fixture = os.path.join(SOURCE, "tests", "migrate", "v7.db.gz")
        db = os.path.join(tmp, "v7.db")
        with gzip.open(fixture) as src, open(db, "wb") as dst:
            shutil.copyfileobj(src, dst)
        run("migrate", db=db)
        old = run_ids(db)
        newest = sql(db, f"SELECT name FROM runs WHERE run_id = {max(old)}")[0]["name"]
        run("ingest", "-q", "--run", newest, "--replace", MIXED[2], db=db)
        c.eq("migrated database: the replaced newest run gets a new id",
             max(run_ids(db)), max(old) + 1)
        con = sqlite3.connect(db)
        rows = con.execute("SELECT name FROM sqlite_schema WHERE tbl_name LIKE 'runs%'"
                           " AND type = 'table'").fetchall()
        con.close()
        c.eq("migrated database: one runs table", rows, [("runs",)])
    c.close()


if __name__ == "__main__":
    main()
