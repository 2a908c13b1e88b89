#!/usr/bin/env python3
"""`profdb diff ... --save` (schema version 16): each comparison printed is
stored in diffs and diff_rows, keyed by (BASE run, TEST run, kind), and
read back with `profdb sql` through diff_view.

On corpus traces (trace_filter_sampled's two ranks, the AlexNet benchmark, and
the trace_compare pair): the stored rows equal what `diff --format json --unit
ns` prints, row for row and in order; saving again replaces the rows (no row
of the older save is left); a diff without --save writes nothing; every kind
that applies is stored when none is named, and --out DIR --save stores every
row (not the index's top rows); --save with --db-test is refused and stores
nothing; replacing, deleting (via --replace) or analysing a run again forgets
its diffs, on either side; `profdb merge` carries a saved diff to another
database with the run ids re-keyed."""

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checker, need_corpus, q, run, sql, tempdir  # noqa: E402

RUNS = {
    "sampled": ["trace_filter_sampled_rank-0.json.gz", "trace_filter_sampled_rank-1.json.gz"],
    "alex": ["critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"],
    "base": ["trace_compare_base_base.json.gz"],
    "test": ["trace_compare_test_test.json.gz"],
}


def same(a, b):
    """Two rows equal, numbers to 1e-9 relative (the JSON printer and the
    stored JSON may spell a real with different digits)."""
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, float) or isinstance(y, float):
            if x is None or y is None or not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9):
                return False
        elif x != y:
            return False
    return True


def stored(db, base, test, kind):
    return [json.loads(r["data"]) for r in sql(
        db, f"SELECT data FROM diff_view WHERE base = {q(base)} AND test = {q(test)}"
            f" AND kind = {q(kind)} ORDER BY row")]


def diffs(db):
    return {(r["b"], r["t"], r["kind"]): (r["rows"], r["options"]) for r in sql(
        db, "SELECT b.name AS b, t.name AS t, kind, d.rows, options FROM diffs d"
            " JOIN runs b ON b.run_id = d.run_id JOIN runs t ON t.run_id = d.test_run_id")}


def main():
    c = Checker()
    traces = need_corpus("traces")
    with tempdir() as tmp:
        db = os.path.join(tmp, "d.db")
        for name, files in RUNS.items():
            run("ingest", "--run", name, *[os.path.join(traces, f) for f in files], db=db)

        _, out, _ = run("diff", "sampled", "alex", "kernels", db=db)
        c.eq("diff without --save stores nothing", diffs(db), {})

        for kind in ("kernels", "ops", "gpu", "kernel-types", "steps"):
            _, out, _ = run("diff", "sampled", "alex", kind, "--save", "--format", "json",
                            "--unit", "ns", db=db)
            printed, got = json.loads(out), stored(db, "sampled", "alex", kind)
            c.true(f"{kind}: the stored rows are the printed rows, in order",
                   len(got) == len(printed) > 0 and all(same(a, b) for a, b in zip(got, printed)),
                   (len(got), len(printed), got[:1], printed[:1]))
        names = sql(db, "SELECT name, json_extract(data, '$.kernel') AS k FROM diff_view"
                        " WHERE kind = 'kernels' ORDER BY row")
        c.true("diff_rows.name is the first column", names and all(r["name"] == r["k"]
                                                                   for r in names))
        c.eq("every stored row is valid JSON",
             sql(db, "SELECT count(*) AS n FROM diff_rows WHERE NOT json_valid(data)"),
             [{"n": 0}])

        # saved again: replaced
        before = diffs(db)[("sampled", "alex", "kernels")][0]
        run("diff", "sampled", "alex", "kernels", "--save", "--top", "2", "--normalize-names",
            db=db)
        c.eq("saved again: replaced, with its options",
             diffs(db)[("sampled", "alex", "kernels")], (2, "--top 2 --normalize-names"))
        c.eq("saved again: no row of the older save is left",
             sql(db, "SELECT count(*) AS n, max(row) AS m FROM diff_rows r JOIN runs b"
                     " ON b.run_id = r.run_id WHERE b.name = 'sampled' AND kind = 'kernels'"),
             [{"n": 2, "m": 2}])
        c.true("the first save had more rows", before > 2, before)

        # every kind that applies, with the reverse direction its own key
        run("diff", "base", "test", "--save", db=db)
        kinds = {k for (b, t, k) in diffs(db) if (b, t) == ("base", "test")}
        c.eq("no kind named: every kind that applies is stored", kinds,
             {"steps", "gpu", "kernel-types", "kernels", "ops"})
        run("diff", "test", "base", "kernels", "--save", db=db)
        d = diffs(db)
        c.true("(test, base) is a diff of its own", ("test", "base", "kernels") in d and
               ("base", "test", "kernels") in d, d)
        tb = stored(db, "test", "base", "kernels")
        bt = {r["kernel"]: r["change_ns"] for r in stored(db, "base", "test", "kernels")}
        c.true("the reverse diff's changes are the opposite",
               tb and all(bt[r["kernel"]] == -r["change_ns"] for r in tb), tb[:2])

        # --out DIR --save stores every row, not the index's top rows
        out_dir = os.path.join(tmp, "out")
        run("diff", "sampled", "alex", "ops", "--save", "--out", out_dir, db=db)
        with open(os.path.join(out_dir, "ops.csv")) as f:
            csv_rows = sum(1 for _ in f) - 1
        c.eq("--out --save: every row of ops.csv stored", diffs(db)[("sampled", "alex", "ops")],
             (csv_rows, ""))

        # --db-test: refused, nothing stored
        other = os.path.join(tmp, "other.db")
        run("ingest", "--run", "other", os.path.join(traces, RUNS["test"][0]), db=other)
        before = diffs(db)
        code, _, err = run("diff", "base", "other", "kernels", "--save", "--db-test", other,
                           db=db, check=False)
        c.true("--save --db-test: refused with a reason", code == 2 and "--db-test" in err,
               (code, err))
        c.eq("--save --db-test: nothing stored", diffs(db), before)

        # merge carries a saved diff of two runs it brings whole
        merged = os.path.join(tmp, "merged.db")
        run("ingest", "--run", "first", os.path.join(traces, RUNS["alex"][0]), db=merged)
        run("merge", merged, db, check=True)
        c.eq("merge: the saved diffs come along, keyed by the new run ids", diffs(merged),
             diffs(db))
        c.eq("merge: their rows too",
             stored(merged, "sampled", "alex", "gpu"), stored(db, "sampled", "alex", "gpu"))

        # a run replaced or analysed again: its diffs are forgotten, on either side
        run("ingest", "--replace", "--run", "alex", os.path.join(traces, RUNS["alex"][0]),
            db=db)
        left = diffs(db)
        c.true("--replace: the run's diffs are gone, others stay",
               not any("alex" in (b, t) for b, t, _ in left) and
               ("base", "test", "kernels") in left, left)
        c.eq("--replace: no orphan rows",
             sql(db, "SELECT count(*) AS n FROM diff_rows r WHERE NOT EXISTS (SELECT 1"
                     " FROM diffs d WHERE d.run_id = r.run_id AND d.test_run_id ="
                     " r.test_run_id AND d.kind = r.kind)"), [{"n": 0}])
        run("analyze", "base", db=db)
        left = diffs(db)
        c.true("analyze: the run's diffs are gone (BASE and TEST side)",
               not any("base" in (b, t) for b, t, _ in left), left)
    c.close()


if __name__ == "__main__":
    main()
