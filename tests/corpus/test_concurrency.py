"""Concurrent ingests and readers on one database (issue 8, hardening).

  - two `profdb ingest` processes started at once, into a new database (both
    race to create the schema) and into an existing one: both exit 0 and both
    runs are present with the record, phase and GPU-event counts of the
    generated traces (counted here with the json module); a few rounds;
  - `profdb runs` and `profdb report` in a loop while a long ingest writes:
    every one succeeds, and the run being written is either absent or
    complete, never partial;
  - a writer that finds the database locked (a write transaction held open
    here with the sqlite3 module) waits, says so, and lands once the lock
    goes; Ctrl-C while it waits exits 130 with 'nothing was stored'.
Generated inputs only: runs without ../shared/corpus."""

# ctest-labels: slow (rounds of concurrent ingests and readers, lock waits)

import collections
import gzip
import json
import os
import select
import signal
import sqlite3
import subprocess
import time

from common import GENTRACE, PROFDB, TIMEOUT, Checker, run, run_json, scaled, tempdir

COUNTED = ("records", "X", "s", "f", "M", "i", "gpu_events")


def gentrace(path, steps, rank, gz=False):
    args = [GENTRACE, "--steps", str(steps), "--rank", str(rank), "--world", "2"]
    subprocess.run(args + (["--gzip"] if gz else []) + [path], check=True,
                   capture_output=True)
    return path


def expected_counts(path):
    """The counts `profdb runs` must show, from the trace itself."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    ph = collections.Counter(e.get("ph") for e in events)
    gpu = sum(1 for e in events if e.get("ph") == "X" and "stream" in e.get("args", {}))
    want = {"records": len(events), "gpu_events": gpu}
    want.update({k: ph.get(k, 0) for k in ("X", "s", "f", "M", "i")})
    return want


def counts(row):
    return {k: row[k] for k in COUNTED}


def ingest(db, path, name):
    return subprocess.Popen([PROFDB, "--db", db, "ingest", "--run", name, path],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def two_at_once(c, db, inputs, names, what):
    procs = [ingest(db, p, n) for p, n in zip(inputs, names)]
    for n, p in zip(names, procs):
        _, err = p.communicate(timeout=TIMEOUT)
        c.eq(f"{what}: ingest {n} exit ({err.strip()[:200]})", p.returncode, 0)
    rows = {r["run"]: r for r in run_json("runs", db=db)}
    for n, p in zip(names, inputs):
        c.true(f"{what}: run {n} present", n in rows, sorted(rows))
        if n in rows:
            c.eq(f"{what}: run {n} counts", counts(rows[n]), WANT[p])


def readers_during_ingest(c, tmp, db, big):
    writer = ingest(db, big, "long")
    reads = 0
    while writer.poll() is None:
        for args in (("runs", "--format", "json"), ("report", "--run", "r0-a")):
            rc, out, err = run(*args, db=db, check=False)
            c.eq(f"reader {args[0]} during ingest ({err.strip()[:200]})", rc, 0)
            reads += 1
            if rc == 0 and args[0] == "runs":
                rows = {r["run"]: r for r in json.loads(out)}
                if "long" in rows:
                    c.eq("run seen during ingest is complete", counts(rows["long"]),
                         WANT[big])
    _, err = writer.communicate()
    c.eq(f"long ingest exit ({err.strip()[:200]})", writer.returncode, 0)
    c.true("readers ran during the ingest", reads >= 4, f"only {reads}")


def wait_for_stderr(p, text):
    """Reads p's stderr until text appears (or p ends, or TIMEOUT passes);
    returns what was read. Reads the raw pipe, so communicate() later gets
    the rest."""
    got = b""
    fd = p.stderr.fileno()
    deadline = time.monotonic() + TIMEOUT
    while text.encode() not in got and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            got += chunk
    return got.decode(errors="replace")


WAITING = "another process is writing; waiting"


def locked_writer(c, db, path):
    """A write lock held here: profdb waits and says so, then lands."""
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("BEGIN IMMEDIATE")
    p = ingest(db, path, "waited")
    said = wait_for_stderr(p, WAITING)
    c.true("waiting writer says so", WAITING in said, said)
    c.true("writer waits while the database is locked", p.poll() is None)
    con.execute("COMMIT")
    _, err = p.communicate(timeout=TIMEOUT)
    c.eq(f"waiting writer exit ({(said + err).strip()[:200]})", p.returncode, 0)
    c.true("waited run present", "waited" in {r["run"] for r in run_json("runs", db=db)})
    # Ctrl-C while waiting for the lock: rolled back (nothing began), says so.
    con.execute("BEGIN IMMEDIATE")
    p = ingest(db, path, "never")
    said = wait_for_stderr(p, WAITING)
    c.true("Ctrl-C while waiting: was waiting when signalled", WAITING in said and
           p.poll() is None, said)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=TIMEOUT)
    con.execute("COMMIT")
    con.close()
    c.eq("Ctrl-C while waiting: exit", p.returncode, 130)
    c.true("Ctrl-C while waiting: message", "nothing was stored" in err, err)
    c.true("Ctrl-C while waiting: no run",
           "never" not in {r["run"] for r in run_json("runs", db=db)})


WANT = {}


def main():
    c = Checker()
    with tempdir() as tmp:
        a = gentrace(os.path.join(tmp, "a.json"), scaled(150, 15), 0)
        b = gentrace(os.path.join(tmp, "b.json.gz"), scaled(150, 15), 1, gz=True)
        big = gentrace(os.path.join(tmp, "big.json"), scaled(1000, 200), 0)
        ta = gentrace(os.path.join(tmp, "ta.json"), 5, 0)
        tb = gentrace(os.path.join(tmp, "tb.json.gz"), 5, 1, gz=True)
        for p in (a, b, big, ta, tb):
            WANT[p] = expected_counts(p)
        for i in range(scaled(8, 3)):
            db = os.path.join(tmp, f"new{i}.db")
            two_at_once(c, db, (ta, tb), ("ta", "tb"), f"new database, round {i}")
        db = os.path.join(tmp, "t.db")
        two_at_once(c, db, (a, b), ("r0-a", "r0-b"), "new database, larger traces")
        two_at_once(c, db, (big, a), ("both-big", "both-a"), "existing database")
        readers_during_ingest(c, tmp, db, big)
        locked_writer(c, db, a)
        rc, out, _ = run("sql", "PRAGMA integrity_check", db=db)
        c.true("integrity_check ok", out.split()[-1] == "ok", out)
    c.close()


if __name__ == "__main__":
    main()
