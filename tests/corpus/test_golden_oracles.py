"""Golden files against independent oracles (no corpus needed).

A golden case (tests/golden/) compares profdb's output with a file that was,
in most cases, written from profdb's own output (PROFDB_GOLDEN_UPDATE=1), so
it proves only that nothing changed. Where a golden case shows numbers that
can be computed without profdb, this test computes them and compares them
with the *expected file itself*, so a golden file regenerated from a wrong
output fails here even though its golden case passes:

  - pstats_sample: expected is byte for byte what CPython's pstats prints
    (make_expected.py run afresh);
  - trace_reports: from the generated traces (same generator, same seeds):
    every step's duration and categories (a sweep over elementary segments),
    each stream's GPU events and exact idle time, launches and the longest
    launch delay, collective counts and bytes, the mean step per rank and
    the straggler;
  - ingest_directory: events per phase, GPU events, kernels and the
    shortest kernel, counted from the generated files;
  - steplog_scaling: samples/s, steps/s, speedup and efficiency from the
    two JSONL files;
  - schema_version, sql_readonly: the schema version they print is 1 + the
    number of migrations in schemas/migrations/ (each NNN_what.sql takes a
    database from version NNN - 1 to NNN)."""

import filecmp
import gzip
import itertools
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

from common import GENTRACE, SOURCE, Checker, tempdir
from trace_oracle import (ORDER, collectives, cpu_steps, events_of, gpu_events_per_stream,
                          idle_per_stream, is_gpu, launch_pairs, sweep_steps)

GOLDEN = os.path.join(SOURCE, "tests", "golden")


def expected(case):
    with open(os.path.join(GOLDEN, case, "expected"), encoding="utf-8") as f:
        return f.read()


def gentrace(tmp, name, *args):
    path = os.path.join(tmp, name)
    subprocess.run([GENTRACE, *args, path], check=True, capture_output=True)
    return path


def table(lines):
    """Rows (dicts) of a text table: header, a line of dashes giving each
    column's span, then rows until a blank line, the next table's header
    (a line followed by dashes) or the end."""
    spans = [m.span() for m in re.finditer(r"-+", lines[1])]
    cut = lambda line: [line[a:b if i + 1 < len(spans) else None].strip()  # noqa: E731
                        for i, (a, b) in enumerate(spans)]
    header = cut(lines[0])
    rows = []
    for i, line in enumerate(lines[2:], 2):
        if not line.strip() or re.fullmatch(r"[- ]+", lines[i + 1] if i + 1 < len(lines) else ""):
            break
        rows.append(dict(zip(header, cut(line))))
    return rows


def section(text, title):
    """The table under '== title ==' in a report's text output."""
    return table(text.split(f"== {title} ==\n", 1)[1].splitlines())


def ns(text, per_unit):
    """A number as printed (ms or us) back to integer nanoseconds; printed
    values carry every digit down to the nanosecond."""
    return int(Decimal(text) * per_unit)


def check_pstats_sample(c, tmp):
    out = os.path.join(tmp, "pstats_expected")
    subprocess.run([sys.executable, os.path.join(GOLDEN, "pstats_sample", "make_expected.py"),
                    out], check=True)
    c.true("pstats_sample: expected is CPython pstats' output",
           filecmp.cmp(out, os.path.join(GOLDEN, "pstats_sample", "expected"), shallow=False))


def check_trace_reports(c, tmp):
    text = expected("trace_reports")
    evs = {r: events_of(gentrace(tmp, f"tr{r}.json", "--steps", "3", "--rank", str(r),
                                 "--world", "2", "--seed", "3")) for r in (0, 1)}
    # steps --unit ms --format md
    md = [line.strip("|").split("|") for line in text.splitlines()
          if line.startswith("|") and "ProfilerStep#" in line]
    header = [h.strip() for h in next(line for line in text.splitlines()
                                      if line.startswith("| rank")).strip("|").split("|")]
    got, want = {}, {}
    for cells in md:
        row = dict(zip(header, (x.strip() for x in cells)))
        got[(int(row["rank"]), row["step"])] = {
            k: ns(row[f"{k}_ms"], 10**6) for k in ["dur"] + ORDER + ["other"]}
    for r, e in evs.items():
        durs = {st["name"]: st["e"] - st["s"] for st in cpu_steps(e)}
        for step, cats in sweep_steps(e).items():
            want[(r, step)] = dict(cats, dur=durs[step])
    c.eq("trace_reports: steps table (duration and every category)", got, want)
    # idle: events and exact idle time per stream
    got = {(int(x["rank"]), x["stream"]): (int(x["events"]), ns(x["idle_us"], 1000))
           for x in section(text, "idle")}
    want = {(r, s): (gpu_events_per_stream(e)[s], idle)
            for r, e in evs.items() for s, idle in idle_per_stream(e).items()}
    c.eq("trace_reports: idle per stream", got, want)
    # launch: count and longest delay
    got = {int(x["rank"]): (int(x["launches"]), ns(x["max_delay_us"], 1000))
           for x in section(text, "launch")}
    want = {}
    for r, e in evs.items():
        pairs = launch_pairs(e)
        want[r] = (len(pairs), max(g["s"] - rt["s"] for g, rt in pairs))
    c.eq("trace_reports: launches and longest delay", got, want)
    # comm: count and bytes per collective
    got = {(int(x["rank"]), x["kind"]): [int(x["count"]), int(x["bytes"])]
           for x in section(text, "comm")}
    want = {(r, k.lower()): v for r, e in evs.items() for k, v in collectives(e).items()}
    c.eq("trace_reports: collectives", got, want)
    # ranks: mean step (us, 3 decimals) and the straggler
    rows = section(text, "ranks")
    means = {r: sum(st["e"] - st["s"] for st in cpu_steps(e)) / len(cpu_steps(e))
             for r, e in evs.items()}
    c.eq("trace_reports: mean step per rank",
         {int(x["rank"]): Decimal(x["mean_step_us"]) for x in rows},
         {r: round(Decimal(m) / 1000, 3) for r, m in means.items()})
    # The straggler rule (report/queries/trace_steps.sql): a rank whose steps
    # are longer than the other ranks' by a one-sided Mann-Whitney test
    # (p x ranks < 0.01, p counted here over every split of the pooled steps)
    # and whose mean step is at least 5% above the others' mean.
    durs = {r: [st["e"] - st["s"] for st in cpu_steps(e)] for r, e in evs.items()}
    want = []
    for r, mine in durs.items():
        others = [d for q, ds in durs.items() if q != r for d in ds]
        pooled = mine + others

        def u_of(a, b):
            return sum(1 if x > y else 0.5 if x == y else 0 for x in a for y in b)
        u = u_of(mine, others)
        splits = list(itertools.combinations(range(len(pooled)), len(mine)))
        hits = sum(1 for idx in splits if u_of([pooled[i] for i in idx],
                                               [pooled[i] for i in range(len(pooled))
                                                if i not in idx]) >= u)
        pct = 100 * (sum(mine) / len(mine) - sum(others) / len(others)) / (sum(others) / len(others))
        if hits / len(splits) * len(durs) < 0.01 and pct >= 5:
            want.append(r)
    c.eq("trace_reports: straggler (recomputed rule)",
         [int(x["rank"]) for x in rows if x.get("note") == "straggler"], want)


def check_ingest_directory(c, tmp):
    lines = expected("ingest_directory").splitlines()
    start = lines.index("ph,n")
    got = {}
    for line in lines[start + 1:]:
        if "," not in line:
            break
        k, v = line.split(",")
        got[k] = int(v)
    events = []
    for r, extra in ((0, ["--gzip"]), (1, [])):
        p = gentrace(tmp, f"dir{r}.json" + (".gz" if extra else ""), "--steps", "2", "--rank",
                     str(r), "--world", "2", *extra)
        opener = gzip.open if extra else open
        with opener(p, "rt") as f:
            events += json.load(f)["traceEvents"]
    want = {}
    for e in events:
        want[e["ph"]] = want.get(e["ph"], 0) + 1
    want["gpu"] = sum(1 for e in events if e["ph"] == "X" and is_gpu(e))
    want["other"] = sum(v for k, v in want.items() if k not in ("X", "B", "E", "i", "I", "C",
                                                                 "s", "t", "f", "M", "gpu"))
    c.eq("ingest_directory: events per phase", got, want)
    kernels = [int(Decimal(str(e["dur"])) * 1000) for e in events
               if e["ph"] == "X" and e.get("cat") == "kernel"]
    row = lines[lines.index(next(x for x in lines if x.startswith("kernels"))) + 2].split()
    c.eq("ingest_directory: kernels and the shortest (ns)", [int(x) for x in row],
         [len(kernels), min(kernels)])


def check_steplog_scaling(c):
    runs = {}
    for gpus in (1, 2):
        with open(os.path.join(GOLDEN, "steplog_scaling", f"gpus{gpus}.jsonl")) as f:
            recs = [json.loads(line) for line in f]
        sps = sum(r["samples_per_second"] for r in recs) / len(recs)
        steps = 1000 / (sum(r["step_time_ms"] for r in recs) / len(recs))
        runs[gpus] = (sps, steps)
    rows = table(expected("steplog_scaling").splitlines())
    got = {int(x["gpus"]): [float(x["steps_per_s"]), float(x["samples_per_s"]),
                            float(x["speedup"]), float(x["efficiency_pct"])]
           for x in rows if x["run"].startswith("gpus")}
    want = {g: [steps, sps, round(sps / runs[1][0], 6), round(100 * sps / runs[1][0] / g, 2)]
            for g, (sps, steps) in runs.items()}
    c.eq("steplog_scaling: throughput, speedup and efficiency", got, want)


def check_schema_version(c):
    migrations = [n for n in os.listdir(os.path.join(SOURCE, "schemas", "migrations"))
                  if re.fullmatch(r"\d{3}_\w+\.sql", n)]
    version = 1 + len(migrations)
    text = expected("schema_version")
    c.eq("schema_version: the version printed",
         re.findall(r"-- profdb schema version (\d+)", text), [str(version)])
    c.eq("schema_version: the version in each message",
         re.findall(r"supports \((\d+)\)|profdb's \((\d+)\)|versions 1 to (\d+)", text),
         [(str(version), "", ""), ("", str(version), ""), ("", "", str(version))])
    lines = expected("sql_readonly").splitlines()
    c.eq("sql_readonly: PRAGMA user_version", lines[lines.index("user_version") + 1],
         str(version))


def main():
    c = Checker()
    with tempdir() as tmp:
        check_pstats_sample(c, tmp)
        check_trace_reports(c, tmp)
        check_ingest_directory(c, tmp)
        check_steplog_scaling(c)
        check_schema_version(c)
    c.close()


if __name__ == "__main__":
    main()
