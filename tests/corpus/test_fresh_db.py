"""A first ingest builds its database aside and puts it in place whole
(ingest/shards/fresh_db.c).

  - into a path that names nothing: the database appears in WAL mode,
    passes integrity_check, leaves no private folder, and holds the same rows
    as the same ingest into an existing (empty) file, with one input and with
    two inputs and --jobs 2 (whose workers' folder sits inside the new one);
  - a malformed input, or SIGINT while reading: exit 2 / 130, and no
    database file and no folder are left (the path names nothing, as before);
  - another process creates the database while the first ingest is still
    reading (its input is a FIFO held open): the first one's run is merged
    into it, both runs complete; with the same run name the first one fails
    with "already exists" and the other's database is unchanged.
Generated inputs only: runs without ../shared/corpus."""

import os
import signal
import sqlite3
import subprocess
import threading
import time

from common import GENTRACE, PROFDB, TIMEOUT, Checker, run, tempdir

VOLATILE = {"ingested_at", "created_at", "ingest_ms", "path"}


def gentrace(path, steps, rank):
    subprocess.run([GENTRACE, "--steps", str(steps), "--rank", str(rank), "--world", "2",
                    "--gzip", path], check=True, capture_output=True)
    return path


def dump(db):
    """Every table's rows, volatile columns left out; None without a file."""
    if not os.path.exists(db):
        return None
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = {}
    for name, ddl in con.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table'"
                                 " ORDER BY name").fetchall():
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{name}")')]
        sel = ", ".join(f'"{c}"' for c in cols if c not in VOLATILE)
        order = "1" if "WITHOUT ROWID" in (ddl or "").upper() else "rowid"
        out[name] = con.execute(f'SELECT {sel} FROM "{name}" ORDER BY {order}').fetchall()
    con.close()
    return out


def leftovers(folder):
    return sorted(f for f in os.listdir(folder) if f.startswith(".profdb-shards-"))


def fresh_folder(tmp, name):
    folder = os.path.join(tmp, name)
    os.mkdir(folder)
    return folder, os.path.join(folder, "t.db")


def check_built_aside(c, tmp, inputs, jobs, what):
    folder, db = fresh_folder(tmp, f"new-{what}")
    rc, _, err = run("ingest", "-q", "--jobs", jobs, "--run", "r", *inputs, db=db, check=False)
    c.eq(f"{what}: first ingest exits 0 ({err.strip()[:200]})", rc, 0)
    with open(db, "rb") as f:
        header = f.read(20)
    c.eq(f"{what}: the new database is in WAL mode (header bytes 18-19)",
         (header[18], header[19]), (2, 2))
    con = sqlite3.connect(db)
    c.eq(f"{what}: integrity_check", con.execute("PRAGMA integrity_check").fetchone()[0], "ok")
    con.close()
    c.eq(f"{what}: no private folder is left", leftovers(folder), [])
    _, other = fresh_folder(tmp, f"old-{what}")
    open(other, "wb").close()  # an existing, empty file: built in place as before
    run("ingest", "-q", "--jobs", jobs, "--run", "r", *inputs, db=other)
    new, old = dump(db), dump(other)
    c.true(f"{what}: same rows as an ingest into an existing file", new == old,
           str([t for t in new if new[t] != old.get(t)]))


def check_failures(c, tmp, trace):
    folder, db = fresh_folder(tmp, "bad")
    bad = os.path.join(folder, "bad.json")
    with open(bad, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, ')
    rc, _, err = run("ingest", bad, db=db, check=False)
    c.eq("malformed input: exit 2", rc, 2)
    c.true("malformed input: one line naming the file", err.count("\n") == 1 and bad in err, err)
    c.true("malformed input: no database is left", not os.path.exists(db))
    c.eq("malformed input: no private folder is left", leftovers(folder), [])

    folder, db = fresh_folder(tmp, "sigint")
    fifo = os.path.join(folder, "in.json")
    os.mkfifo(fifo)
    p = subprocess.Popen([PROFDB, "--db", db, "ingest", fifo], stderr=subprocess.PIPE,
                         text=True)
    with open(fifo, "wb") as w:
        with open(trace, "rb") as f:
            w.write(f.read()[:100000])
        w.flush()
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=TIMEOUT)
    c.eq(f"SIGINT while reading: exit 130 ({err.strip()[:200]})", p.returncode, 130)
    c.true("SIGINT while reading: no database is left", not os.path.exists(db))
    c.eq("SIGINT while reading: no private folder is left", leftovers(folder), [])


def check_race(c, tmp, trace, same_name):
    """The first ingest reads a FIFO; meanwhile another ingest creates the
    database; then the FIFO gets its data."""
    what = "race, same run name" if same_name else "race"
    folder, db = fresh_folder(tmp, "same" if same_name else "race")
    fifo = os.path.join(folder, "in.json.gz")
    os.mkfifo(fifo)
    first = subprocess.Popen([PROFDB, "--db", db, "ingest", "-q", "--run", "a", fifo],
                             stderr=subprocess.PIPE, text=True)
    opened, published = threading.Event(), threading.Event()

    def feed():
        with open(fifo, "wb") as w:  # blocks until the first ingest opens it
            opened.set()
            published.wait(TIMEOUT)
            with open(trace, "rb") as f:
                w.write(f.read())

    feeder = threading.Thread(target=feed)
    feeder.start()
    opened.wait(TIMEOUT)
    c.true(f"{what}: the first ingest keeps a private folder while it reads",
           len(leftovers(folder)) == 1 and not os.path.exists(db), str(leftovers(folder)))
    rc, _, err = run("ingest", "-q", "--run", "a" if same_name else "b", trace, db=db,
                     check=False)
    c.eq(f"{what}: the other ingest exits 0 ({err.strip()[:200]})", rc, 0)
    before = dump(db)
    published.set()
    feeder.join(TIMEOUT)
    _, err = first.communicate(timeout=TIMEOUT)
    if same_name:
        c.eq(f"{what}: the first ingest exits 2", first.returncode, 2)
        c.true(f"{what}: says the run already exists", "already exists" in err, err)
        c.true(f"{what}: the database is unchanged", dump(db) == before)
    else:
        c.eq(f"{what}: the first ingest exits 0 ({err.strip()[:200]})", first.returncode, 0)
        got = sqlite3.connect(db).execute(
            "SELECT r.name, count(*) FROM slices s JOIN traces t USING (trace_id)"
            " JOIN runs r USING (run_id) GROUP BY r.name ORDER BY r.name").fetchall()
        c.true(f"{what}: both runs are whole", len(got) == 2 and got[0][1] == got[1][1]
               and got[0][1] > 0, str(got))
    c.eq(f"{what}: no private folder is left", leftovers(folder), [])


def check_merge(c, tmp, r0, r1):
    """profdb merge into an OUT that does not exist builds it aside too."""
    folder, _ = fresh_folder(tmp, "merge")
    shards = []
    for k, trace in enumerate((r0, r1)):
        shard = os.path.join(folder, f"s{k}.db")
        run("ingest", "-q", "--run", "r", trace, db=shard)
        shards.append(shard)
    out = os.path.join(folder, "out.db")
    rc, _, err = run("merge", out, *shards, check=False)
    c.eq(f"merge into a new OUT exits 0 ({err.strip()[:200]})", rc, 0)
    c.true("merge: says what OUT holds", "it holds 1 runs, 2 traces" in err, err)
    with open(out, "rb") as f:
        header = f.read(20)
    c.eq("merge: the new OUT is in WAL mode", (header[18], header[19]), (2, 2))
    old = os.path.join(folder, "old.db")
    open(old, "wb").close()
    run("merge", "-q", old, *shards)
    a, b = dump(out), dump(old)
    c.true("merge: same rows as a merge into an existing file", a == b,
           str([t for t in a if a[t] != b.get(t)]))
    bad = os.path.join(folder, "bad.db")
    rc, _, err = run("merge", bad, shards[0], shards[0], check=False)
    c.eq(f"merge refused (the same rank twice): exit 2 ({err.strip()[:200]})", rc, 2)
    c.true("merge refused: no OUT is left", not os.path.exists(bad))
    c.eq("merge: no private folder is left", leftovers(folder), [])


def main():
    c = Checker()
    with tempdir() as tmp:
        r0 = gentrace(os.path.join(tmp, "r0.json.gz"), 20, 0)
        r1 = gentrace(os.path.join(tmp, "r1.json.gz"), 20, 1)
        check_built_aside(c, tmp, [r0], "1", "one input")
        check_built_aside(c, tmp, [r0, r1], "2", "two inputs, --jobs 2")
        check_failures(c, tmp, r0)
        check_race(c, tmp, r0, same_name=False)
        check_race(c, tmp, r0, same_name=True)
        check_merge(c, tmp, r0, r1)
    c.close()


if __name__ == "__main__":
    main()
