"""The trace pipeline stores exactly what one thread does (issue 16).

profdb parses a trace on one thread and stores it on another
(ingest/trace/trace_json.c, ingest/trace/trace_queue.c); PROFDB_PIPELINE=0 does both on
one thread. For every input below, both ways must give the same exit code,
the same stderr (skip counts, error messages with their byte offsets) and,
table by table and row by row in rowid order, the same database (only the
wall-clock columns left out): the same string ids, slice ids, skips and
analysis rows. Inputs:
  - every corpus trace (traces/, torch_legacy/) and the samples;
  - generated traces large enough for many batches of the queue, one of
    them read from a FIFO and one from stdin;
  - malformed traces whose error the parser finds at several depths into
    the file (bad JSON, truncation, a wrong type), an unclosed legacy array,
    invalid UTF-8 and skipped events, and metadata keys after the events;
  - errors found by the store thread: a trigger in the target database that
    fails the insert of one slice deep in the trace, alone and in a file
    that is also broken further on (the store's error comes first, so it is
    the one reported), with the database unchanged.
The seedless inputs make every run the same."""

import gzip
import os
import sqlite3
import subprocess
import threading

from common import GENTRACE, PROFDB, SOURCE, Checker, need_corpus, scaled, tempdir

VOLATILE = {"ingested_at", "created_at", "ingest_ms"}


def dump(db):
    """Every table's rows in rowid order (key order without rowid); None
    when there is no database (a failed first ingest leaves none)."""
    if not os.path.exists(db):
        return None
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = {}
    tables = con.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table'"
                         " ORDER BY name").fetchall()
    for name, ddl in tables:
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{name}")')]
        keep = [c for c in cols if c not in VOLATILE]
        order = "1" if "WITHOUT ROWID" in (ddl or "").upper() else "rowid"
        sel = ", ".join(f'"{c}"' for c in keep)
        out[name] = con.execute(f'SELECT {sel} FROM "{name}" ORDER BY {order}').fetchall()
    con.close()
    return out


def ingest(tmp, tag, mode, args, stdin=None, fifo_data=None, db_init=None):
    """Runs profdb ingest with PROFDB_PIPELINE=mode into a fresh database
    (db_init: a trace to ingest first and SQL to run then); returns (exit
    code, stderr, dump, the dump before the ingest when db_init)."""
    db = os.path.join(tmp, f"{tag}-{mode}.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    before = None
    if db_init:
        seed, script = db_init
        subprocess.run([PROFDB, "--db", db, "ingest", "--quiet", "--run", "seed", seed],
                       check=True, capture_output=True)
        con = sqlite3.connect(db)
        con.executescript(script)
        con.close()
        before = dump(db)
    env = dict(os.environ, PROFDB_PIPELINE=mode)
    writer = None
    if fifo_data is not None:
        fifo = os.path.join(tmp, f"{tag}.fifo")
        if os.path.exists(fifo):
            os.remove(fifo)
        os.mkfifo(fifo)
        args = [a if a != "FIFO" else fifo for a in args]

        def feed():
            with open(fifo, "wb") as f:
                for k in range(0, len(fifo_data), 65536):
                    f.write(fifo_data[k:k + 65536])

        writer = threading.Thread(target=feed)
        writer.start()
    p = subprocess.run([PROFDB, "--db", db, "ingest", "--run", tag] + args, env=env,
                       input=stdin, capture_output=True)
    if writer:
        writer.join()
    err = p.stderr.decode("utf-8", "replace").replace(f"{tag}-{mode}.db", "DB")
    return p.returncode, err, dump(db), before


def compare(c, tmp, tag, args, want_rc=None, **kw):
    one = ingest(tmp, tag, "0", args, **kw)
    two = ingest(tmp, tag, "1", args, **kw)
    c.eq(f"{tag}: exit code, pipelined vs one thread", two[0], one[0])
    c.eq(f"{tag}: stderr, pipelined vs one thread", two[1], one[1])
    same = two[2] == one[2]
    diff = [t for t in one[2] or {} if one[2][t] != (two[2] or {}).get(t)]
    c.true(f"{tag}: every table identical", same, f"tables that differ: {diff}")
    if want_rc is not None:
        c.eq(f"{tag}: exit code", one[0], want_rc)
    if want_rc and not kw.get("db_init"):
        c.true(f"{tag}: a failed first ingest leaves no database", one[2] is None)
    return one


def corpus_inputs():
    files = []
    for group in ("traces", "torch_legacy"):
        d = need_corpus(group)
        files += [os.path.join(d, f) for f in sorted(os.listdir(d))
                  if (f.endswith(".json") or f.endswith(".json.gz"))
                  and f != "COUNTS.json" and not f.endswith(".oracle.json")]
    d = os.path.join(SOURCE, "samples", "traces")
    files += [os.path.join(d, f) for f in sorted(os.listdir(d))]
    return files


def gentrace(tmp, name, steps, *extra):
    path = os.path.join(tmp, name)
    subprocess.run([GENTRACE, "--steps", str(steps), *extra, path], check=True,
                   capture_output=True)
    return path


def main():
    c = Checker()
    with tempdir() as tmp:
        for path in corpus_inputs():
            compare(c, tmp, os.path.basename(path).split(".")[0], [path], want_rc=0)

        big = gentrace(tmp, "gen.json", scaled(300, 40))
        with open(big, "rb") as f:
            data = f.read()
        print(f"generated trace: {len(data)} bytes")
        compare(c, tmp, "gen", [big], want_rc=0)
        compare(c, tmp, "gen-fifo", ["FIFO"], want_rc=0, fifo_data=data)
        compare(c, tmp, "gen-stdin", ["-"], want_rc=0, stdin=gzip.compress(data, 1))

        # Errors the parser finds, early, in the middle and near the end.
        for frac in (0.001, 0.5, 0.97):
            cut = int(len(data) * frac)
            at = data.index(b'"ts"', cut)
            bad = os.path.join(tmp, f"bad{frac}.json")
            with open(bad, "wb") as f:
                f.write(data[:at] + b'"ts": [1,' + data[at + 5:])
            rc, err, _, _ = compare(c, tmp, f"badtype{frac}", [bad], want_rc=2)
            c.true(f"badtype{frac}: message with a byte offset", "byte " in err, err)
            trunc = os.path.join(tmp, f"trunc{frac}.json")
            with open(trunc, "wb") as f:
                f.write(data[:cut])
            compare(c, tmp, f"trunc{frac}", [trunc], want_rc=2)
            garbage = os.path.join(tmp, f"garbage{frac}.json")
            with open(garbage, "wb") as f:
                f.write(data[:at] + b"}}]]" + data[at:])
            compare(c, tmp, f"garbage{frac}", [garbage], want_rc=2)

        # Skips, an unclosed legacy array, invalid UTF-8, metadata last.
        legacy = os.path.join(tmp, "legacy.json")
        with open(legacy, "wb") as f:
            f.write(b'[{"ph":"X","name":"a\xff\xfe","ts":1,"dur":2,"pid":1,"tid":1},'
                    b'{"ph":"E","ts":5,"pid":1,"tid":1},{"ph":"X","ts":1},'
                    b'{"ph":"Q","ts":3},{"name":"\\ud800x","ph":"B","ts":2,"pid":1,"tid":2},')
        compare(c, tmp, "legacy", [legacy], want_rc=0)
        meta_last = os.path.join(tmp, "meta_last.json")
        with open(meta_last, "wb") as f:
            f.write(b'{"schemaVersion":1,"traceEvents":[{"ph":"X","name":"k","cat":"kernel",'
                    b'"ts":1,"dur":1,"pid":0,"tid":7,"args":{"stream":7,"device":0}}],'
                    b'"distributedInfo":{"rank":3},"deviceProperties":[{"name":"GPU"}]}')
        compare(c, tmp, "meta_last", [meta_last], want_rc=0)

        # Errors the store thread finds: the 1000th slice cannot be inserted.
        trigger = ("CREATE TRIGGER fail_late BEFORE INSERT ON slices"
                   " WHEN (SELECT count(*) FROM slices) >= 1000"
                   " BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END;")
        init = (meta_last, trigger)
        rc, err, after, before = compare(c, tmp, "store-error", [big], want_rc=2, db_init=init)
        c.true("store-error: the trigger's message", "refused by a test trigger" in err, err)
        c.true("store-error: database unchanged", after == before)
        late = os.path.join(tmp, "late_bad.json")
        with open(late, "wb") as f:
            f.write(data[:int(len(data) * 0.9)] + b"]]]")
        rc, err, after, before = compare(c, tmp, "store-error-first", [late], want_rc=2,
                                         db_init=init)
        c.true("store-error-first: database unchanged", after == before)
        c.true("store-error-first: the store's error, not the parser's",
               "refused by a test trigger" in err, err)
    c.close()


if __name__ == "__main__":
    main()
