"""The step-log writer thread stores exactly what one thread does (issue 14).

While a step log is read, its rows go through a row queue (common/rowq.c):
once a batch of rows is full, a writer thread inserts them while the reader
goes on; PROFDB_PIPELINE=0 inserts each row at once, on the reading thread.
For every input below, both ways must give the same exit code, the same
stderr and, table by table and row by row in rowid order, the same
database (wall-clock columns left out). Inputs:
  - every corpus step log and every real log in tests/steplogs/ (small:
    their rows fit in one batch, so no thread starts; this checks the
    batched path that runs them at the end; every fourth in checked builds);
  - generated logs large enough for many batches (JSON Lines, the two
    text flavors of the generator), one of them read from stdin;
  - a log that mixes summary blocks (notes and block rows, which also go
    through the queue) with step lines;
  - errors found by the writer thread: a trigger that fails the insert of
    the chunk halfway through the log, alone and in a log that is also broken
    further on (the insert's error comes first, so it is the one reported),
    with the database unchanged."""

import os
import subprocess

from common import SOURCE, Checker, checked_subset, need_corpus, scaled, tempdir
from test_pipeline import compare  # both ways, the same exit code, stderr and tables

GEN = os.path.join(SOURCE, "samples", "gen", "gensteplog.py")


def small_logs():
    files = []
    d = need_corpus("steplogs")
    files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f != "README.md"]
    d = os.path.join(SOURCE, "tests", "steplogs")
    files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f != "README.md"]
    return files


def generate(tmp, name, *args):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        subprocess.run(["python3", GEN, *map(str, args)], check=True, stdout=f)
    return path


def main():
    c = Checker()
    with tempdir() as tmp:
        # the small logs start no writer thread (their rows fit in one batch):
        # checked builds read every fourth, which still runs the batched path
        for path in checked_subset(small_logs(), 4, "small step logs"):
            compare(c, tmp, os.path.basename(path).replace(".", "_"), [path])

        lines = scaled(40000, 20000)  # 20,000 lines: ~4,400 chunk rows, several batches
        big = generate(tmp, "big.jsonl", "jsonl", lines)
        with open(big, "rb") as f:
            data = f.read()
        rc, _, rows, _ = compare(c, tmp, "jsonl", [big], want_rc=0)
        chunks = len(rows["steplog_chunks"])
        c.true("jsonl: enough chunk rows for several batches", chunks > 3 * 1024, str(chunks))
        late_chunk = chunks // 2  # the trigger refuses a chunk halfway through the log
        compare(c, tmp, "jsonl-stdin", ["--format", "steplog", "-"], want_rc=0, stdin=data)
        for flavor in ("rectflow", "generic"):
            log = generate(tmp, f"{flavor}.log", flavor, scaled(20000, 2000), 50)
            compare(c, tmp, flavor, [log], want_rc=0)
        mae = generate(tmp, "mae.log", "mae", scaled(200, 40))
        compare(c, tmp, "mae", [mae], want_rc=0)

        # Errors the writer thread finds: a chunk late in the log is refused.
        trigger = ("CREATE TRIGGER fail_late BEFORE INSERT ON steplog_chunks"
                   f" WHEN (SELECT count(*) FROM steplog_chunks) >= {late_chunk}"
                   " BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END;")
        seed = os.path.join(SOURCE, "tests", "steplogs", "timm_vitae_monarch_excerpt.txt")
        init = (seed, trigger)
        rc, err, after, before = compare(c, tmp, "store-error", [big], want_rc=2, db_init=init)
        c.true("store-error: the trigger's message", "refused by a test trigger" in err, err)
        c.true("store-error: database unchanged", after == before)
        late = os.path.join(tmp, "late_bad.jsonl")
        with open(late, "wb") as f:
            f.write(data + b'{"step": "x", "loss": 1.0}\n' * 3 + b"\x00\x01binary\n")
        rc, err, after, before = compare(c, tmp, "store-error-first", [late], want_rc=2,
                                         db_init=init)
        c.true("store-error-first: database unchanged", after == before)
        c.true("store-error-first: the insert's error, not the reader's",
               "refused by a test trigger" in err, err)
    c.close()


if __name__ == "__main__":
    main()
