"""Every corpus trace ingests with exactly the counts in COUNTS.json.

Per file: events per phase, X events per category, X events carrying a
stream arg (GPU events), ProfilerStep annotations, the rank from
distributedInfo, and timestamps converted exactly (the sum of all X start
times, computed here with Python's Decimal from the raw JSON text)."""

import gzip
import json
import os
from decimal import Decimal

from common import Checker, checked_subset, need_corpus, q, run, run_json, sql, tempdir

PHASES = ["X", "B", "E", "i", "I", "C", "s", "t", "f", "M"]


def load_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def check_file(c, db, path, want, run_name):
    runs = {r["run"]: r for r in run_json("runs", db=db)}
    got = runs.get(run_name)
    c.true(f"{run_name} listed", got is not None)
    if not got:
        return
    for ph in PHASES:
        c.eq(f"{run_name} ph {ph}", got[ph], want["ph"].get(ph, 0))
    c.eq(f"{run_name} gpu events", got["gpu_events"], want["gpu_events_with_stream"])
    c.eq(f"{run_name} total", sum(got[ph] for ph in PHASES), want["events"])
    c.eq(f"{run_name} skipped", got["skipped"], 0)
    where = f"JOIN runs USING (run_id) WHERE runs.name = {q(run_name)}"
    rows = sql(db, f"SELECT coalesce(cat, 'null') AS cat, count(*) AS n FROM slice_view {where}"
               " AND ph = 'X' GROUP BY 1")
    c.eq(f"{run_name} X by category", {r["cat"]: r["n"] for r in rows}, want["cat_of_X"])
    steps = sql(db, f"SELECT count(*) AS n FROM slice_view {where}"
                " AND slice_view.name LIKE 'ProfilerStep#%'")
    c.eq(f"{run_name} profiler steps", steps[0]["n"], want["profiler_steps"])
    ranks = sql(db, f"SELECT rank, rank_from FROM traces {where}")
    if want["rank"] is not None:
        c.eq(f"{run_name} rank", (ranks[0]["rank"], ranks[0]["rank_from"]),
             (want["rank"], "distributedInfo"))
    # Exact microsecond -> nanosecond conversion, checked on every X event
    # (a checksum modulo a prime: the plain sum overflows 64 bits).
    expect_ts = sum(int(Decimal(e["ts"]) * 1000) % 1000000007 for e in load_events(path)
                    if e.get("ph") == "X")
    got_ts = sql(db, f"SELECT sum(ts % 1000000007) AS s FROM slice_view {where}"
                 " AND ph = 'X'")[0]["s"]
    c.eq(f"{run_name} sum of X timestamps (ns)", got_ts, expect_ts)


def main():
    c = Checker()
    groups = [("traces", need_corpus("traces", "COUNTS.json")),
              ("torch_legacy", need_corpus("torch_legacy", "COUNTS.json"))]
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for folder, counts_path in groups:
            counts = json.load(open(counts_path))
            for name, want in checked_subset(sorted(counts.items()), 3, folder + " traces"):
                path = os.path.join(os.path.dirname(counts_path), name)
                run_name = f"{folder}/{name}"
                run("ingest", "--quiet", "--run", run_name, path, db=db)
                check_file(c, db, path, want, run_name)
    c.close()


if __name__ == "__main__":
    main()
