"""A run's pstats totals never wrap (issue 30 item 7).

A run's call totals are the sums of its dumps' (pstats' Stats.add). Each
dump's own total is checked at ingest, but two dumps of about 2^63 calls
each (1000 functions of 2^53 calls: the most cProfile counts profdb
accepts) made `report pstats` print "-432345564227567616 function calls",
`diff pstats` fail with a bare "database error: integer overflow", and a
merge of two such shards succeed. Now:

  - ingest of the two dumps into one run: exit 2, one line naming the
    dump and the run, nothing stored; also with --jobs 2;
  - merge of two shards holding one dump each: exit 2 naming the shard and
    the run, the target not created (or unchanged);
  - totals that reach exactly 2^63 - 1 are exact in report and diff;
  - a database that already holds such a run (written before the check;
    made here with `sql --write`): report and diff exit 2 naming the run,
    never a negative count nor a bare "integer overflow".

Needs no corpus: the dumps are written here with Python's marshal, the
format cProfile writes."""

import marshal
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import Checker, run, sql, tempdir  # noqa: E402

BIG = 2 ** 53


def dump(path, first, n, calls=BIG, extra=None):
    """n functions m.py:first.. of `calls` calls each, plus extra entries."""
    stats = {("m.py", i, f"f{i}"): (calls, calls, 0.001, 0.001, {})
             for i in range(first, first + n)}
    stats.update(extra or {})
    with open(path, "wb") as f:
        marshal.dump(stats, f)


def main():
    c = Checker()
    with tempdir() as tmp:
        p = lambda name: os.path.join(tmp, name)  # noqa: E731
        dump(p("d1.prof"), 1, 1000)
        dump(p("d2.prof"), 1, 1000)
        dump(p("small.prof"), 1, 3, calls=5)

        # ---- ingest: two dumps of one run ----
        db = p("t.db")
        run("ingest", "-q", "--run", "keep", p("small.prof"), db=db)
        for jobs in ("1", "2"):
            rc, out, err = run("ingest", "--jobs", jobs, "--run", "r", p("d1.prof"),
                               p("d2.prof"), db=db, check=False)
            c.eq(f"--jobs {jobs}: two dumps adding up beyond 2^63: exit 2", rc, 2)
            c.true("... one line naming the dump, the run and the limit",
                   "d2.prof" in err and "run 'r'" in err and "64-bit" in err
                   and err.count("\n") == 1, err)
            runs = [r["run"] for r in sql(db, "SELECT name AS run FROM runs")]
            c.eq("... nothing stored", runs, ["keep"])
        rc, out, err = run("ingest", "--run", "one", p("d1.prof"), db=db, check=False)
        c.eq("one such dump alone is fine", rc, 0)

        # ---- merge: one dump per shard ----
        a, b, m = p("a.db"), p("b.db"), p("m.db")
        run("ingest", "-q", "--run", "r", p("d1.prof"), db=a)
        run("ingest", "-q", "--run", "r", p("d2.prof"), db=b)
        rc, out, err = run("merge", m, a, b, check=False)
        c.eq("merge of two shards adding up beyond 2^63: exit 2", rc, 2)
        c.true("... naming the shard and the run",
               "b.db" in err and "run 'r'" in err and "64-bit" in err, err)
        c.true("... no target left behind", not os.path.exists(m), str(os.listdir(tmp)))
        run("merge", m, a)
        rc, out, err = run("merge", m, b, check=False)
        c.eq("merge into an existing database: exit 2", rc, 2)
        rows = sql(m, "SELECT total_calls AS calls FROM pstats_dumps")
        c.eq("... which is unchanged", rows, [{"calls": 1000 * BIG}])

        # ---- exactly 2^63 - 1 ----
        e = p("e.db")
        dump(p("h1.prof"), 1, 512)                      # 2^62
        dump(p("h2.prof"), 1001, 511, extra={("m.py", 2000, "g"): (BIG - 1, BIG - 1, 0.001,
                                                                   0.001, {})})  # 2^62 - 1
        rc, out, err = run("ingest", "--run", "max", p("h1.prof"), p("h2.prof"), db=e,
                           check=False)
        c.eq(f"totals of exactly 2^63 - 1: ingest succeeds ({err.strip()[-200:]})", rc, 0)
        _, out, _ = run("report", "--run", "max", "pstats", "--limit", "1", db=e)
        c.true("... report prints them exactly", f"{2 ** 63 - 1} function calls" in out, out)
        run("ingest", "-q", "--run", "other", p("small.prof"), db=e)
        rc, out, err = run("diff", "max", "other", "pstats", "--top", "1", db=e, check=False)
        c.eq("... diff works", rc, 0)
        c.true("... and prints them exactly", f"({2 ** 63 - 1} calls)" in out, out + err)

        # ---- a database that already holds such a run ----
        w = p("w.db")
        run("ingest", "-q", "--run", "wrapped", p("h1.prof"), p("small.prof"), db=w)
        run("ingest", "-q", "--run", "fine", p("small.prof"), db=w)
        run("sql", "--write", "UPDATE pstats_dumps SET total_calls = 6000000000000000000,"
            " prim_calls = 6000000000000000000 WHERE run_id = (SELECT run_id FROM runs"
            " WHERE name = 'wrapped')", db=w)
        for args in (["report", "--run", "wrapped", "pstats"],
                     ["report", "--run", "wrapped", "callers"],
                     ["diff", "fine", "wrapped", "pstats"],
                     ["diff", "wrapped", "fine", "pstats"]):
            rc, out, err = run(*args, db=w, check=False)
            what = " ".join(args[:1] + args[3:])
            c.eq(f"{what} of a run whose totals wrap: exit 2", rc, 2)
            c.true("... naming the run, no bare 'integer overflow'",
                   "run 'wrapped'" in err and "64-bit" in err
                   and "integer overflow" not in err, err)
            c.true("... no negative count printed", " -" not in out, out[:300])
        rc, out, err = run("report", "--run", "fine", "pstats", db=w, check=False)
        c.eq("the database's other runs report as before", rc, 0)
    return c.close()


if __name__ == "__main__":
    sys.exit(main())
