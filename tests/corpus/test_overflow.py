"""Sums of input numbers never overflow silently (issue 13 item 7).

pstats: a call count beyond 2^53 cannot come from cProfile; such an entry
is skipped with a counted reason, the rest of the dump is stored, and the
printed totals are exact. Needs no corpus: the dumps are made here with
Python's marshal, the format cProfile writes."""

import marshal
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import Checker, run, run_json, tempdir  # noqa: E402


def main():
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        big = 2 ** 60
        stats = {
            ("a.py", 1, "ok"): (3, 3, 0.5, 0.75, {("a.py", 9, "caller"): (3, 3, 0.5, 0.75)}),
            ("a.py", 2, "absurd"): (big, big, 0.1, 0.1, {}),
            ("a.py", 3, "edge"): (1, 1, 0.2, 0.2, {("a.py", 1, "ok"): (big, 1, 0.2, 0.2)}),
            ("a.py", 9, "caller"): (1, 1, 0.05, 0.8, {}),
        }
        path = os.path.join(tmp, "p.prof")
        with open(path, "wb") as f:
            marshal.dump(stats, f)
        rc, out, err = run("ingest", "--db", db, "--run", "p", path, check=False)
        c.eq(f"absurd counts: ingest succeeds ({err.strip()})", rc, 0)
        c.true("... and says two entries were skipped", "2 skipped" in err, err)
        runs = run_json("runs", db=db)
        c.true("runs gives the reason", "call count out of range" in str(runs[0]), str(runs))
        funcs = {r["function"] if "function" in r else r.get("name"): r
                 for r in run_json("report", "pstats", "--run", "p", db=db)}
        names = " ".join(map(str, funcs))
        c.true("the absurd function is not stored", "absurd" not in names, names)
        c.true("the others are", "ok" in names and "caller" in names and "edge" in names, names)
        _, out, _ = run("report", "pstats", "--run", "p", db=db)
        c.true("printed totals stay exact (5 function calls)", "5 function calls" in out, out)
    return c.close()


if __name__ == "__main__":
    sys.exit(main())
