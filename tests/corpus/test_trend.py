"""profdb trend: histories built from real corpus logs and traces (issue 17).

Each history is 30 runs derived from one corpus input, written in the
input's own format so profdb's readers parse them as they parse the real
file: the nanoGPT log (91 iterations; every 20th with evaluation, ~10 s),
the Megatron-DeepSpeed log (213 interval means of 10 iterations), and the
HTA comparison trace (two ProfilerSteps; every timestamp and duration
scaled). Run r's times are the input's, times a per-run factor
(1 + sigma * N(0, 1)) - the night-to-night noise - times a per-step jitter
of 0.5%, times 1.10 from the shifted run on. Seeds and noise levels are
fixed, so the test is deterministic.

Checked:
  - with a 10% step-time shift at a known run: trend reports exactly one
    change point, at that run, worse, of about +10% (ten histories: nanoGPT
    at 0.5%, 1%, 1.5% and 2% noise with two seeds each, Megatron, the trace;
    one may deviate, as the method's rates allow: see shift_cases);
  - the same ten histories without the shift: no change point at all;
  - each run's median equals the median of its step times recomputed here
    from the files written (an independent oracle for the summaries);
  - --by orders runs by a label: ingested in shuffled order, the change
    point is still found at the right night;
  - --check: exit 1 when the newest run is 12% slower (limit 5%), exit 0 the
    night before, and exit 0 for a 2% shift under a 5% limit; run night by
    night over 30 nights, it alarms once, the night a 10% shift comes, and
    never without one;
  - summaries are stored (run_summaries) and a second trend gives the same
    answer from them;
  - --out writes index.md naming the change point, and the CSV.
"""

import csv
import gzip
import io
import json
import math
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import Checker, checked_subset, need_corpus, run, sql, tempdir  # noqa: E402

RUNS = 30
SHIFT = 0.10
STEP_JITTER = 0.005


def gauss(rng):
    """Box-Muller on random(), whose stream is stable across Python versions."""
    u1, u2 = rng.random() or 1e-12, rng.random()
    return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)


def factors(n, sigma, shift_at, seed, shift=SHIFT):
    """Per-run factors: noise, and the shift from run shift_at on (None: none)."""
    rng = random.Random(seed)
    return [(1 + sigma * gauss(rng)) * (1 + shift if shift_at is not None and r >= shift_at
                                        else 1) for r in range(n)]


# ---- inputs derived from the corpus -------------------------------------------

NANOGPT_TIME = re.compile(r"^(iter \d+: .*time )([0-9.]+)(ms.*)$", re.M)
MEGATRON_TIME = re.compile(r"(elapsed time per iteration \(ms\): )([0-9.]+)")


def scaled_log(text, pattern, factor, rng):
    """The log with every step time times factor and a jitter; returns the
    text and the times written, in seconds."""
    times = []

    def repl(m):
        ms = float(m.group(2)) * factor * (1 + STEP_JITTER * gauss(rng))
        ms = round(ms, 2)
        times.append(ms / 1000)
        return m.group(1) + f"{ms:.2f}" + (m.group(3) if m.lastindex >= 3 else "")

    return pattern.sub(repl, text), times


def scaled_trace(doc, factor):
    """The trace with every ts and dur scaled by factor about its first ts."""
    ev = doc["traceEvents"]
    t0 = min(e["ts"] for e in ev if isinstance(e.get("ts"), (int, float)))
    out = []
    for e in ev:
        e = dict(e)
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] = t0 + round((e["ts"] - t0) * factor)
        if isinstance(e.get("dur"), (int, float)):
            e["dur"] = round(e["dur"] * factor)
        out.append(e)
    doc = dict(doc)
    doc["traceEvents"] = out
    return doc


def trace_step_times(doc):
    return [e["dur"] / 1e6 for e in doc["traceEvents"]
            if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


class History:
    """A folder of RUNS inputs night00..night29 and the step times written."""

    def __init__(self, tmp, name, kind, sigma, shift_at, seed, n=RUNS, shift=SHIFT):
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        self.db = os.path.join(tmp, name + ".db")
        self.names, self.times, self.paths = [], [], []
        rng = random.Random(seed * 7919 + 1)
        for r, f in enumerate(factors(n, sigma, shift_at, seed, shift)):
            run_name = f"night{r:02d}"
            if kind == "trace":
                doc = scaled_trace(TRACE, f)
                path = os.path.join(self.dir, run_name + ".json")
                with open(path, "w") as out:
                    json.dump(doc, out)
                times = trace_step_times(doc)
            else:
                text, pattern = (NANOGPT, NANOGPT_TIME) if kind == "nanogpt" else \
                    (MEGATRON, MEGATRON_TIME)
                text, times = scaled_log(text, pattern, f, rng)
                path = os.path.join(self.dir, run_name + ".log")
                with open(path, "w") as out:
                    out.write(text)
            self.names.append(run_name)
            self.times.append(times)
            self.paths.append(path)

    def ingest(self, upto=None):
        run("ingest", "--db", self.db, "--quiet", *self.paths[:upto])


def trend_rows(db, *args):
    _, out, _ = run("trend", "--db", db, "--format", "csv", "--unit", "ns", *args)
    return list(csv.DictReader(io.StringIO(out)))


def change_points(db, *args):
    return [r for r in trend_rows(db, *args) if r["change_point"]]


def check_history(c, h, shift_at, what):
    """The medians match the oracle and the change points are returned as
    (run index, change_point text) for the caller to judge."""
    rows = trend_rows(h.db)
    c.eq(f"{what}: runs in order", [r["run"] for r in rows], h.names)
    bad = [(r["run"], float(r["median_ns"]) / 1e9, median(t))
           for r, t in zip(rows, h.times)
           if abs(float(r["median_ns"]) / 1e9 - median(t)) > 1e-9 * median(t)]
    c.true(f"{what}: every run's median is the median of its step times", not bad, str(bad[:3]))
    cps = [(h.names.index(r["run"]), r["change_point"]) for r in rows if r["change_point"]]
    if shift_at is not None and [i for i, _ in cps] == [shift_at]:
        _, out, _ = run("trend", "--db", h.db, "--changes", "--format", "json")
        ch = json.loads(out)
        c.eq(f"{what}: worse", ch[0]["direction"], "worse")
        c.true(f"{what}: about +10%", 6 <= ch[0]["change_pct"] <= 14, str(ch[0]))
        c.true(f"{what}: marked as up, worse", cps[0][1].startswith("up ")
               and cps[0][1].endswith("(worse)"), cps[0][1])
        c.eq(f"{what}: previous run", ch[0]["previous_run"], h.names[shift_at - 1])
        c.eq(f"{what}: runs on either side", (ch[0]["runs_before"], ch[0]["runs_after"]),
             (shift_at, RUNS - shift_at))
    return cps


def shift_cases(c, tmp):
    """nanoGPT histories at four noise levels, two seeds each, with and
    without a shift; Megatron and the trace at 1%.

    Without a shift no history may show a change point. With one, each
    history should report exactly the shifted run; the method's documented
    rates (docs/compare.md, from simulation) make a deviation - the split one
    run off when neighbouring runs are drawn far out, or the newest-runs
    test's false alarm, each ~0.5-3% of histories at these noise levels -
    possible in any fixed set of seeds, so one deviating history of the ten
    is tolerated and printed; two fail the test. The seeds were fixed before
    the first run. Seed 22 deviates: its newest run is drawn 2.2 standard
    deviations high against a segment of 8 runs whose spread is drawn small
    (p = 0.004 < 0.005 in the newest-runs test)."""
    cases = []
    for i, sigma in enumerate((0.005, 0.01, 0.015, 0.02)):
        for seed in (10 * i + 1, 10 * i + 2):
            cases.append(("nanogpt", sigma, seed, 10 + seed % 10 * 5 + i))
    cases.append(("megatron", 0.01, 3, 12))
    cases.append(("trace", 0.01, 4, 17))
    deviations = []
    cases = checked_subset(cases, 5, "histories")
    for kind, sigma, seed, at in cases:
        for shift_at in (at, None):
            name = f"{kind}-{sigma}-{seed}-{'shift' if shift_at is not None else 'flat'}"
            h = History(tmp, name, kind, sigma, shift_at, seed)
            h.ingest()
            cps = check_history(c, h, shift_at, name)
            if shift_at is None:
                c.eq(f"{name}: no change point", cps, [])
            elif [i for i, _ in cps] != [shift_at]:
                deviations.append((name, shift_at, cps))
    for d in deviations:
        print("note: %s: shift at run %d, change points found %s" % d)
    c.true("shift histories reporting exactly their shift: all but at most one of %d"
           % len(cases), len(deviations) <= 1, str(deviations))


def label_case(c, tmp):
    """Ingested in shuffled order with --label night=N: --by night finds the
    shift at the right night; ingest order would not."""
    h = History(tmp, "labels", "nanogpt", 0.01, 20, 5)
    order = list(range(RUNS))
    random.Random(6).shuffle(order)
    for r in order:
        run("ingest", "--db", h.db, "--quiet", "--label", f"night={r}", h.paths[r])
    rows = trend_rows(h.db, "--by", "night")
    c.eq("--by night: numeric order", [r["ordered_by"] for r in rows],
         [str(r) for r in range(RUNS)])
    c.eq("--by night: the change point", [r["run"] for r in rows if r["change_point"]],
         ["night20"])
    rows = trend_rows(h.db, "--by", "night", "--last", "12")
    c.eq("--last 12: the newest twelve", [r["run"] for r in rows], h.names[-12:])


def check_cases(c, tmp):
    """trend --check on the newest run."""
    h = History(tmp, "newest", "nanogpt", 0.01, 19, 7, n=20, shift=0.12)
    h.ingest(upto=19)
    rc, out, _ = run("trend", "--db", h.db, "--check", "5%", check=False)
    c.eq("--check the night before: exit", rc, 0)
    c.true("--check the night before: PASS", out.startswith("PASS: step_time"), out)
    run("ingest", "--db", h.db, "--quiet", h.paths[19])
    rc, out, _ = run("trend", "--db", h.db, "--check", "5%", check=False)
    c.eq("--check, newest run 12% slower: exit", rc, 1)
    c.true("--check names the newest run", out.startswith("REGRESSION: step_time")
           and "'night19'" in out and "at the newest run" in out, out)
    rc, out, _ = run("trend", "--db", h.db, "--check", "step_time=15%", check=False)
    c.eq("--check, 12% under a 15% limit: exit", rc, 0)
    small = History(tmp, "small", "nanogpt", 0.005, 19, 8, n=20, shift=0.02)
    small.ingest()
    rc, out, _ = run("trend", "--db", small.db, "--check", "5%", check=False)
    c.eq("--check, newest run 2% slower, limit 5%: exit", rc, 0)


def nightly_case(c, tmp):
    """CI as it runs: ingest one night, trend --check 5%. A 10% shift from
    night 20 on alarms once, that night; a history without one never."""
    for shift_at in (20, None):
        h = History(tmp, f"nightly-{shift_at}", "nanogpt", 0.01, shift_at, 12)
        alarms = []
        for r, path in enumerate(h.paths):
            run("ingest", "--db", h.db, "--quiet", path)
            rc, out, _ = run("trend", "--db", h.db, "--check", "5%", check=False)
            c.true(f"nightly {shift_at}: night {r} exit 0 or 1", rc in (0, 1), out)
            if rc == 1:
                alarms.append(r)
        c.eq(f"nightly, shift at {shift_at}: the nights that alarm", alarms,
             [shift_at] if shift_at is not None else [])


def storage_case(c, tmp):
    """Summaries are kept; the second trend reads them and agrees; --out."""
    h = History(tmp, "store", "nanogpt", 0.01, 15, 9)
    h.ingest()
    first = trend_rows(h.db)
    n = sql(h.db, "SELECT count(*) AS n FROM run_summaries WHERE metric = 'step_time'")[0]["n"]
    c.eq("a summary per run stored", n, RUNS)
    c.eq("the second trend reads the same rows", trend_rows(h.db), first)
    out_dir = os.path.join(tmp, "out")
    run("trend", "--db", h.db, "--out", out_dir, "step_time", "throughput")
    index = open(os.path.join(out_dir, "index.md")).read()
    c.true("index.md names the change point", "| night15 |" in index, index[:600])
    c.true("index.md links the chart data", "(trend-1.dat)" in index and "(trend-2.dat)" in index)
    rows = list(csv.DictReader(open(os.path.join(out_dir, "trend-1.csv"))))
    c.eq("trend-1.csv has every run", len(rows), RUNS)
    c.eq("throughput: the same run, worse",
         [(r["run"], r["direction"]) for r in
          csv.DictReader(open(os.path.join(out_dir, "trend-2-changes.csv")))],
         [("night15", "worse")])


def main():
    global NANOGPT, MEGATRON, TRACE
    NANOGPT = open(need_corpus("steplogs", "nanogpt_train.log")).read()
    MEGATRON = open(need_corpus("steplogs", "megatron_deepspeed_gpt125m_8gpu.log")).read()
    with gzip.open(need_corpus("traces", "trace_compare_base_base.json.gz"), "rt") as f:
        TRACE = json.load(f)
    c = Checker()
    c.eq("nanoGPT iterations", len(NANOGPT_TIME.findall(NANOGPT)), 91)
    c.eq("Megatron intervals", len(MEGATRON_TIME.findall(MEGATRON)), 213)
    c.eq("trace ProfilerSteps", len(trace_step_times(TRACE)), 2)
    with tempdir() as tmp:
        shift_cases(c, tmp)
        label_case(c, tmp)
        check_cases(c, tmp)
        nightly_case(c, tmp)
        storage_case(c, tmp)
    c.close()


if __name__ == "__main__":
    main()
