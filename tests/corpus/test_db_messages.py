"""Messages that say what went wrong with the database file (reliability
round 3, item 16: a full disk, a read-only folder).

Before: a write that failed for want of space (here: a file-size limit,
RLIMIT_FSIZE, which fails writes as a full disk does) printed "cannot
rollback - no transaction is active": SQLite had ended the transaction
itself and profdb's ROLLBACK's message replaced the real one. A read command
on a WAL database in a folder the user cannot write printed "not a readable
SQLite database (attempt to write a readonly database)", an ingest there
"unable to open database file". Now each is one line that says what failed
and why, exit 2, and the database is exactly as it was. The read-only cases
run profdb as user nobody (root ignores folder permissions); they are left
out, with a note, when the test does not run as root."""

import os
import resource
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import (PROFDB, SOURCE, Checker, missing_part, run, table_counts,  # noqa: E402
                    tempdir)

SAMPLES = os.path.join(SOURCE, "samples")
TRACES = [os.path.join(SAMPLES, "traces", f"train_rank{r}.pt.trace.json.gz") for r in (0, 1)]
PSTATS = os.path.join(SAMPLES, "pstats", "sample.prof")




def limited(limit):
    def setup():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return setup


def as_nobody():
    os.setgid(65534)
    os.setuid(65534)


def profdb(args, cwd, preexec):
    return subprocess.run([PROFDB] + args, cwd=cwd, preexec_fn=preexec, capture_output=True,
                          text=True, timeout=120)


def one_line(c, what, p, says):
    c.eq(f"{what}: exit", p.returncode, 2)
    c.true(f"{what}: one line that says why ({p.stderr.strip()!r})",
           p.stderr.count("\n") == 1 and all(s in p.stderr for s in says) and
           "no transaction is active" not in p.stderr, p.stderr)


def main():
    c = Checker()
    with tempdir() as tmp:
        full = os.path.join(tmp, "full")
        os.mkdir(full)
        db = os.path.join(full, "t.db")
        run("ingest", "-q", "--run", "earlier", PSTATS, db=db)
        # below the database's size: the WAL grows to it, and the checkpoint
        # writes pages past it, so every write path meets the limit
        limit = 65536
        before = table_counts(db)
        write_failed = ("a write failed", "disk is full")
        cases = [("ingest into an existing database", ["--db", "t.db", "ingest", TRACES[0]]),
                 ("a first ingest", ["--db", "new.db", "ingest", TRACES[0]]),
                 ("ingest --jobs 2", ["--db", "t.db", "ingest", "--jobs", "2", "--run", "j",
                                      *TRACES])]
        for what, args in cases:
            p = profdb(args, full, limited(limit))
            one_line(c, f"disk full, {what}", p, write_failed)
            c.eq(f"disk full, {what}: the database as it was", table_counts(db), before)
            c.true(f"disk full, {what}: no new database",
                   not os.path.exists(os.path.join(full, "new.db")))

        if os.geteuid() != 0:
            missing_part("running as root (to run profdb as nobody in a read-only folder)")
            c.close()
        ro = os.path.join(tmp, "ro")
        os.mkdir(ro)
        # a second ingest turns the new database's journal to WAL
        run("ingest", "-q", "--run", "earlier", PSTATS, db=os.path.join(ro, "t.db"))
        run("ingest", "-q", "--run", "wal", PSTATS, db=os.path.join(ro, "t.db"))
        # compared as bytes: a reading connection (Python's) would leave
        # t.db-shm behind, and nobody could then read it anyway
        with open(os.path.join(ro, "t.db"), "rb") as f:
            before_bytes = f.read()
        os.chmod(tmp, 0o755)
        os.chmod(ro, 0o555)
        try:
            for cmd in (["runs"], ["report"], ["sql", "SELECT count(*) FROM runs"]):
                p = profdb(["--db", "t.db", *cmd], ro, as_nobody)
                one_line(c, f"read-only folder, {cmd[0]}", p,
                         ("t.db", "folder is not writable", "t.db-shm", "copy"))
            p = profdb(["--db", "t.db", "ingest", PSTATS], ro, as_nobody)
            one_line(c, "read-only folder, ingest", p, ("t.db", "cannot write",
                                                        "folder is not writable"))
            p = profdb(["--db", "new.db", "ingest", PSTATS], ro, as_nobody)
            one_line(c, "read-only folder, a new database", p,
                     ("new.db", "cannot create", "folder is not writable"))
        finally:
            os.chmod(ro, 0o755)
        with open(os.path.join(ro, "t.db"), "rb") as f:
            c.true("read-only folder: the database as it was", f.read() == before_bytes)
        c.eq("read-only folder: no file added", sorted(os.listdir(ro)), ["t.db"])
    c.close()


if __name__ == "__main__":
    main()
