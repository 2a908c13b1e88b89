"""A rectified-flow profiler report round-trips: profdb's rf-report prints the
same Detailed Breakdown, Time Distribution and Performance Insights as the
profiler did. The logs are written here the way the profiler formats them
(samples/gen/gensteplog.py), with the seed document's example sections and
means; a second log puts data loading above the 15% rule. The seed's own
example block is ingested too: its printed numbers are kept exactly."""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE, Checker, run, tempdir  # noqa: E402

sys.path.insert(0, os.path.join(SOURCE, "samples", "gen"))
import gensteplog  # noqa: E402

chk = Checker()

SEED_EXAMPLE = """=== Profiling Report (Step 50) ===

Detailed Breakdown:
data_loading: count=50, total=2.341s, avg=0.0468s, min=0.0421s, max=0.0512s
forward_pass: count=50, total=15.234s, avg=0.3047s, min=0.2981s, max=0.3123s
backward_pass: count=50, total=8.956s, avg=0.1791s, min=0.1752s, max=0.1834s
metrics_computation: count=50, total=0.123s, avg=0.0025s, min=0.0021s, max=0.0029s
optimizer_step: count=50, total=0.089s, avg=0.0018s, min=0.0016s, max=0.0021s
ema_update: count=50, total=0.045s, avg=0.0009s, min=0.0008s, max=0.0011s

Time Distribution:
data_loading: 10.2%
forward_pass: 66.3%
backward_pass: 19.5%
metrics_computation: 0.5%
optimizer_step: 0.4%
ema_update: 0.2%
"""

BLOCK = re.compile(r"^=== (?:Profiling Report|Final Profiling Summary).*?"
                   r"Performance Insights:\n(?:- [^\n]*\n)+", re.S | re.M)


def write_log(path, steps, every, sections):
    gensteplog.SECTIONS = sections
    with open(path, "w") as f:
        old = sys.stdout
        sys.stdout = f
        try:
            gensteplog.rectflow(steps, every)
        finally:
            sys.stdout = old
    return open(path).read()


def roundtrip(tmp, name, sections, want_insight):
    log = os.path.join(tmp, name + ".log")
    text = write_log(log, 120, 40, sections)
    db = os.path.join(tmp, name + ".db")
    run("ingest", "--db", db, log)
    _, out, _ = run("report", "--db", db, "rf-report")
    blocks = BLOCK.findall(text)
    chk.eq(f"{name}: blocks in the log", len(blocks), 4)
    chk.eq(f"{name}: rf-report equals the profiler's blocks", out, "\n".join(blocks))
    chk.true(f"{name}: insight", want_insight in out, out[-300:])
    _, js, _ = run("report", "--db", db, "--format", "json", "rf-report")
    rows = json.loads(js)
    chk.eq(f"{name}: rows", len(rows), 4 * len(sections))
    # totals are printed to 1 ms: a recomputed share is exact to within that
    bad = []
    for blk in {r["block"] for r in rows}:
        rs = [r for r in rows if r["block"] == blk]
        total_s = sum(r["total_us"] for r in rs) / 1e6
        tol = 100 * 0.0005 * len(rs) / total_s + 0.05 + 0.005
        bad += [r for r in rs if abs(r["share_pct"] - r["printed_share_pct"]) > tol]
    chk.eq(f"{name}: recomputed shares agree with the printed ones", bad, [])


def seed_example(tmp):
    log = os.path.join(tmp, "seed.log")
    open(log, "w").write(SEED_EXAMPLE)
    db = os.path.join(tmp, "seed.db")
    run("ingest", "--db", db, log)
    _, js, _ = run("report", "--db", db, "--format", "json", "--unit", "s", "rf-report")
    rows = {r["section"]: r for r in json.loads(js)}
    chk.eq("seed: sections", list(rows), ["data_loading", "forward_pass", "backward_pass",
                                          "metrics_computation", "optimizer_step", "ema_update"])
    chk.eq("seed: forward total", rows["forward_pass"]["total_s"], 15.234)
    chk.eq("seed: forward count", rows["forward_pass"]["count"], 50)
    chk.eq("seed: printed data share kept", rows["data_loading"]["printed_share_pct"], 10.2)
    chk.eq("seed: data_loading maps to the data phase", rows["data_loading"]["metric"], "data")
    chk.eq("seed: ema_update maps to the ema phase", rows["ema_update"]["metric"], "ema")
    # The seed's numbers are illustrative: 2.341 s of 26.788 s is 8.7%, not 10.2%.
    chk.eq("seed: recomputed data share", round(rows["data_loading"]["share_pct"], 1), 8.7)
    _, text, _ = run("report", "--db", db, "rf-report")
    chk.true("seed: disagreement shown", "data_loading: 8.7% (log printed 10.2%)" in text, text)


def main():
    with tempdir() as tmp:
        roundtrip(tmp, "seed_means", gensteplog.SECTIONS,
                  "- Data loading appears efficient")
        slow_data = [("data_loading", 0.1500)] + gensteplog.SECTIONS[1:]
        roundtrip(tmp, "slow_data", slow_data, "- Data loading may be a bottleneck")
        seed_example(tmp)
        chk.close()


main()
