"""Stale shard-folder cleanup deletes only what profdb made (reliability
round 3, items 2 and 4).

Before: an ingest or merge removed every `.profdb-shards-*` entry next to
its target that was a minute old and unlocked, following links: a planted
`.profdb-shards-x -> /some/folder` (top level or nested one level down) had
every `shard-*`, `merge-*`, `fresh-*` file of that folder deleted (the names
the Slurm array writes), and a folder holding `.profdb-shards-up -> ..` and
`.profdb-shards-self -> .` made the cleanup recurse for ever, ignoring
SIGINT. Now a folder is removed only when it is a real directory of this
user holding profdb's owner mark, nothing is reached through a link, and
the walk is one level deep. Checked here: each planted shape leaves the
victim's files as they were, the ingest ends at once with exit 0, and a
folder a killed profdb really left is still removed (test_merge.py has the
kill -9 case)."""

import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import PROFDB, SOURCE, Checker, tempdir  # noqa: E402

STEPLOG = os.path.join(SOURCE, "samples", "steplogs", "train.jsonl")
PSTATS = os.path.join(SOURCE, "samples", "pstats", "sample.prof")
OLD = time.time() - 7200


def age(*paths):
    for p in paths:
        os.utime(p, (OLD, OLD), follow_symlinks=False)


def victim_folder(tmp, name):
    v = os.path.join(tmp, name)
    os.mkdir(v)
    for f in ("shard-0.db", "merge-1.db", "fresh-2.db", ".profdb-owner", "notes.txt"):
        with open(os.path.join(v, f), "w") as out:
            out.write(f"{name}/{f}")
    age(v)
    return v


def listing(folder):
    return sorted(os.listdir(folder))


def ingest(c, what, db, extra=()):
    """--jobs needs two inputs to make a shard folder (one input is read in
    the main process)."""
    inputs = [STEPLOG, PSTATS] if "--jobs" in extra else [STEPLOG]
    try:
        p = subprocess.run([PROFDB, "--db", db, "ingest", "-q", *extra, *inputs],
                           capture_output=True, text=True, timeout=60)
        c.eq(f"{what}: exit", p.returncode, 0)
        return p.stderr
    except subprocess.TimeoutExpired:
        c.true(f"{what}: ends (it ran past 60 s)", False)
        return ""


def main():
    c = Checker()
    with tempdir() as tmp:
        for extra in ((), ("--jobs", "2", "--run", "again")):
            tag = "--jobs 2" if extra else "first ingest"
            base = os.path.join(tmp, "jobs" if extra else "first")
            os.mkdir(base)
            shared = os.path.join(base, "shared")
            os.mkdir(shared)
            top = victim_folder(base, "victim-top")
            nested = victim_folder(base, "victim-nested")
            before = {v: listing(v) for v in (top, nested)}
            os.symlink(top, os.path.join(shared, ".profdb-shards-x"))
            outer = os.path.join(shared, ".profdb-shards-outer")
            os.mkdir(outer)
            with open(os.path.join(outer, ".profdb-owner"), "w") as f:
                f.write("planted")
            os.symlink(nested, os.path.join(outer, ".profdb-shards-in"))
            loop = os.path.join(shared, ".profdb-shards-loop")
            os.mkdir(loop)
            with open(os.path.join(loop, ".profdb-owner"), "w") as f:
                f.write("planted")
            os.symlink("..", os.path.join(loop, ".profdb-shards-up"))
            os.symlink(".", os.path.join(loop, ".profdb-shards-self"))
            unmarked = os.path.join(shared, ".profdb-shards-unmarked")
            os.mkdir(unmarked)
            with open(os.path.join(unmarked, "shard-9.db"), "w") as f:
                f.write("not profdb's")
            age(outer, loop, unmarked)
            db = os.path.join(shared, "new.db")
            if extra:  # --jobs cleans up beside an existing database
                ingest(c, f"{tag}: the database", db)
            ingest(c, f"{tag}: beside planted folders", db, extra)
            for v in (top, nested):
                c.eq(f"{tag}: {os.path.basename(v)} untouched", listing(v), before[v])
            c.true(f"{tag}: the planted links are left as they are",
                   os.path.islink(os.path.join(shared, ".profdb-shards-x")) and
                   os.path.islink(os.path.join(outer, ".profdb-shards-in")))
            c.true(f"{tag}: a folder without profdb's mark keeps its files",
                   os.path.exists(os.path.join(unmarked, "shard-9.db")))
            c.true(f"{tag}: the shared folder itself still there",
                   os.path.exists(os.path.join(shared, "new.db")))

        # a stale folder profdb made (its mark, its file names) is removed,
        # but the file it did not write stays, and so does the folder
        base = os.path.join(tmp, "stale")
        os.mkdir(base)
        db = os.path.join(base, "t.db")
        ingest(c, "stale: the database", db)
        mine = os.path.join(base, ".profdb-shards-killed")
        os.mkdir(mine)
        for f in (".profdb-owner", "shard-1.db", "shard-1.db-wal"):
            with open(os.path.join(mine, f), "w") as out:
                out.write("x")
        mixed = os.path.join(base, ".profdb-shards-mixed")
        shutil.copytree(mine, mixed)
        with open(os.path.join(mixed, "notes.txt"), "w") as out:
            out.write("mine")
        age(mine, mixed)
        err = ingest(c, "stale: --jobs 2 beside a killed ingest's folder", db,
                     ("--jobs", "2", "--run", "again"))
        c.true("stale: the killed ingest's folder is removed", not os.path.exists(mine), err)
        c.true("stale: says so", "removed" in err and "killed" in err, err)
        c.eq("stale: a folder with a file profdb did not write keeps it", listing(mixed),
             ["notes.txt"])
    c.close()


if __name__ == "__main__":
    main()
