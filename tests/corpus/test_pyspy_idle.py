"""`report pyspy --idle include|exclude|only`: idle vs busy samples.

py-spy's files do not mark idle samples, so profdb calls a sample idle when
its leaf is a waiting call (report/queries/pyspy.sql, idle_leaf). Checked on
the corpus file recorded with `--native --idle` (perfanno_native_idle.txt,
whose README counts the idle leaves: clock_nanosleep 90 and poll 40 of 222
samples): the tables with --idle exclude / only equal totals computed here
from the raw lines whose leaf is / is not one of those calls, and the note
says the count. A small raw file checks py-spy's Python-level fallback
(wait in threading.py, select in selectors.py) and that a function named
like a waiting call elsewhere stays busy."""

import csv
import io
import os
from collections import Counter

from common import Checker, need_corpus, run, tempdir

# The waiting leaves of the corpus file (its README): time.sleep and socket waits.
CORPUS_IDLE = ("clock_nanosleep", "poll")


def raw_records(path):
    """(frames, count) per line: the file has no multi-line records."""
    with open(path) as f:
        for line in f:
            stack, count = line.rstrip("\n").rsplit(" ", 1)
            yield stack.split(";"), int(count)


def totals(records):
    """Total samples per printed frame (once per stack)."""
    t = Counter()
    for frames, n in records:
        for fr in set(frames):
            t[fr] += n
    return t


def printed(row):
    if row["line"]:
        return f"{row['name']} ({row['file']}:{row['line']})"
    return f"{row['name']} ({row['file']})" if row["file"] else row["name"]


def got_totals(db, *args):
    _, out, _ = run("report", "pyspy", "--format", "csv", *args, db=db)
    return {printed(r): int(r["total_samples"]) for r in csv.DictReader(io.StringIO(out))}


def check_corpus(c, tmp):
    path = need_corpus("pyspy", "perfanno_native_idle.txt")
    db = os.path.join(tmp, "idle.db")
    run("ingest", "-q", path, db=db)
    recs = list(raw_records(path))
    idle = [(f, n) for f, n in recs if f[-1].split(" (")[0] in CORPUS_IDLE]
    busy = [(f, n) for f, n in recs if f[-1].split(" (")[0] not in CORPUS_IDLE]
    n_idle, n_all = sum(n for _, n in idle), sum(n for _, n in recs)
    c.eq("corpus: idle samples by the README's leaves", (n_idle, n_all), (130, 222))
    c.eq("corpus: --idle include is every sample", got_totals(db), dict(totals(recs)))
    c.eq("corpus: --idle exclude = busy stacks only", got_totals(db, "--idle", "exclude"),
         dict(totals(busy)))
    c.eq("corpus: --idle only = idle stacks only", got_totals(db, "--idle", "only"),
         dict(totals(idle)))
    _, out, _ = run("report", "pyspy", "--top", "3", "--idle", "exclude", db=db)
    c.true("corpus: the note counts the idle samples and says they are left out",
           "idle: 130 of 222 samples (58.56%)" in out and "left out" in out, out[-400:])
    _, out, _ = run("report", "pyspy", "--format", "csv", "--idle", "exclude", db=db)
    c.true("corpus: shares with --idle exclude are of the busy samples (92)",
           "0.00,100.00" in out.splitlines()[1], out.splitlines()[1])
    code, _, err = run("report", "pyspy", "--idle", "sometimes", check=False, db=db)
    c.true("corpus: an unknown --idle is refused", code != 0 and "--idle" in err, err)


def check_python_fallback(c, tmp):
    path = os.path.join(tmp, "py.pyspy")
    with open(path, "w") as f:
        f.write("<module> (a.py:1);run (/usr/lib/python3.12/threading.py:1010);"
                "wait (/usr/lib/python3.12/threading.py:359) 5\n"
                "<module> (a.py:1);loop (a.py:9);select (/usr/lib/python3.12/selectors.py:468) 3\n"
                "<module> (a.py:1);wait (mine.py:3) 4\n"
                "<module> (a.py:1);work (a.py:20) 6\n")
    db = os.path.join(tmp, "py.db")
    run("ingest", "-q", path, db=db)
    only = got_totals(db, "--idle", "only")
    c.eq("python: idle stacks (threading wait, selectors select)", only["<module> (a.py:1)"], 8)
    c.true("python: wait in another file is busy", "wait (mine.py:3)" not in only, only)
    busy = got_totals(db, "--idle", "exclude")
    c.eq("python: busy stacks", busy["<module> (a.py:1)"], 10)
    c.eq("python: busy functions", sorted(busy), ["<module> (a.py:1)", "wait (mine.py:3)",
                                                  "work (a.py:20)"])


def main():
    c = Checker()
    with tempdir() as tmp:
        check_python_fallback(c, tmp)
        check_corpus(c, tmp)
    c.close()


if __name__ == "__main__":
    main()
