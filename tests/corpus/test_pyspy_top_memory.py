"""`report pyspy` (top functions, report/pyspy.c and pyspy.sql top_*) in
bounded memory: its peak RSS must not grow with the number of distinct
frames or the depth of the stacks. Two shapes, each at n and 4n: many
distinct frames (n records of four distinct frames under one `<module>`)
and one deep recursive stack (n frames cycling through 50 functions, and
its first half as a second stack). The output is checked against what was
generated (every row of the first shape; totals counted once per stack
however often a function recurs, self of the leaves), so a report that
lost rows or counted recursion twice would fail too. Generated inputs
only: no corpus needed. No timing assertion (bench/pyspy.sh)."""

import csv
import io
import os

from common import CHECKED, Checker, run, scaled, tempdir
from test_pyspy_tree_memory import measure

# Peak RSS may grow by this much when the input grows 4 times (SQLite's
# page caches and sorters fill up to their limits). Measured (2 cores
# shared): 10^5 and 10^6 distinct frames 11.7 and 11.0 MiB; the query with
# window functions it replaced took 24.5 and 29.9 MiB.
SLACK_KIB = 3 * 1024
CYCLE = 50


def write_many(path, n):
    """n records of four distinct frames under one <module>, 3 samples each."""
    with open(path, "w") as f:
        for i in range(n):
            f.write(f"<module> (/a/main.py:1);g{i} (/a/b{i % 97}.py:{i});h{i} (/a/c.py:{i});"
                    f"k{i} (x.so) 3\n")


def check_many(c, label, rows, n):
    c.eq(f"{label}: rows (every distinct frame)", len(rows), 3 * n + 1)
    c.eq(f"{label}: first row", (rows[0]["name"], rows[0]["total_samples"]),
         ("<module>", str(3 * n)))
    selfs = sum(int(r["self_samples"]) for r in rows)
    c.eq(f"{label}: self samples add up to every sample", selfs, 3 * n)
    bad = [r for r in rows[1:] if r["total_samples"] != "3"
           or r["self_samples"] != ("3" if r["name"].startswith("k") else "0")]
    c.eq(f"{label}: each other frame has total 3 (self 3 for the leaves)", bad[:3], [])


def write_deep(path, n):
    """A stack of n frames r(i % CYCLE) with 7 samples, its first half with 3."""
    with open(path, "w") as f:
        for stop, count in ((n, 7), (n // 2, 3)):
            f.write(";".join(f"r{i % CYCLE} (/a/r.py:{i % CYCLE})" for i in range(stop)))
            f.write(f" {count}\n")


def check_deep(c, label, rows, n):
    c.eq(f"{label}: rows (one per recurring function)", len(rows), CYCLE)
    c.eq(f"{label}: every total is 10 (recursion counted once per stack)",
         sorted({r["total_samples"] for r in rows}), ["10"])
    want = {f"r{(n - 1) % CYCLE}": 7}
    want[f"r{(n // 2 - 1) % CYCLE}"] = want.get(f"r{(n // 2 - 1) % CYCLE}", 0) + 3
    got = {r["name"]: int(r["self_samples"]) for r in rows if r["self_samples"] != "0"}
    c.eq(f"{label}: self of the two leaves", got, want)


def shape(c, tmp, name, write, check, n):
    got = {}
    for k in (n, 4 * n):
        path = os.path.join(tmp, f"{name}{k}.pyspy")
        write(path, k)
        db = os.path.join(tmp, f"{name}{k}.db")
        run("ingest", "-q", "--no-analyze", path, db=db)
        os.remove(path)
        out = os.path.join(tmp, "out.csv")
        code, got[k] = measure(["report", "--db", db, "pyspy", "--format", "csv"], out)
        c.eq(f"{name} {k}: exit", code, 0)
        with open(out) as f:
            rows = list(csv.DictReader(io.StringIO(f.read())))
        check(c, f"{name} {k}", rows, k)
        print(f"{name} {k}: report pyspy peak RSS {got[k] >> 10} MiB")
        os.remove(db)
    if not CHECKED:  # sanitizers' own bookkeeping grows with allocations
        c.true(f"{name}: peak RSS does not grow with 4 times the input "
               f"(within {SLACK_KIB >> 10} MiB)", got[4 * n] < got[n] + SLACK_KIB,
               (got[n], got[4 * n]))


def main():
    c = Checker()
    with tempdir() as tmp:
        shape(c, tmp, "many", write_many, check_many, scaled(25000, 3000))
        shape(c, tmp, "deep", write_deep, check_deep, scaled(10000, 2000))
    c.close()


if __name__ == "__main__":
    main()
