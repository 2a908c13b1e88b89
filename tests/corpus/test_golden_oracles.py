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
    database from version NNN - 1 to NNN);
  - trace_launch_ties, trace_stream_values, trace_long_keys,
    trace_time_range, trace_phases: from the trace written in cmd (launchers,
    ops, steps, launch delays, queue lengths, self times, skips, phases);
  - steplog_*: values, phases (docs/steplogs.md), GPU utilisation and energy
    parsed from the inputs beside cmd; trend_basic: its awk generator in
    Python; pstats_limit_values: pstats' listing; ingest_stdin: records.
steplog_titan's phases std_ms is checked too since profdb takes it, as
docs/steplogs.md says, around the mean of the values as logged (352.5 ms; it
took deviations from the window-weighted mean, 371.568 ms, before)."""

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

# PROFDB_GOLDEN_ORACLE_DIR: a copy of tests/golden to check instead (used to
# show that each check fails when a number in an expected file is altered).
GOLDEN = os.environ.get("PROFDB_GOLDEN_ORACLE_DIR") or os.path.join(SOURCE, "tests", "golden")


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
        if not line.strip() or line.startswith("exit: ") or re.fullmatch(r"[- ]+", lines[i + 1] if i + 1 < len(lines) else ""):
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


# ---- helpers for the cases below -------------------------------------------

def cmd_text(case):
    with open(os.path.join(GOLDEN, case, "cmd"), encoding="utf-8") as f:
        return f.read()


def heredoc(case, name, subst=None):
    """The text a case's cmd writes to NAME with 'cat > NAME <<MARK' (or >>),
    with $VARS of subst replaced as the shell would."""
    m = re.search(r"cat >>? %s <<'?(\w+)'?\n(.*?)\n\1\n" % re.escape(name), cmd_text(case), re.S)
    text = m.group(2) + "\n"
    for k, v in (subst or {}).items():
        text = text.replace("$" + k, v)
    return text


def close(text, want, places=3):
    """A printed number equals want rounded to `places` decimals (profdb
    prints at most that many; trailing zeros dropped)."""
    if want is None:
        return text in ("", "null", None)
    try:
        got = float(text)
    except (TypeError, ValueError):
        return False
    return abs(got - want) <= 0.5 * 10 ** -places + 1e-9 * abs(want)


def close_row(c, what, row, want, places=3):
    """want: {column: number}; each printed column must be close()."""
    bad = {k: (row.get(k), v) for k, v in want.items() if not close(row.get(k), v, places)}
    c.true(what, not bad, f"(printed, oracle): {bad}")


def csv_blocks(text):
    """CSV tables in a case's output: each a list of dicts, split at lines
    that are not CSV rows of the current header's width."""
    import csv as csvmod
    blocks, cur, width = [], None, 0
    for line in text.splitlines():
        cells = next(csvmod.reader([line])) if line else []
        if cur is not None and len(cells) == width and cells != header \
                and not line.startswith(("==", "exit:")):
            cur.append(dict(zip(header, cells)))
            continue
        if len(cells) > 1 and not line.startswith(("stderr:", "exit:")):
            header, width, cur = cells, len(cells), []
            blocks.append((header, cur))
        else:
            cur = None
    return blocks


def csv_block(text, first_column_names):
    """The CSV block whose header starts with the given columns."""
    for header, rows in csv_blocks(text):
        if header[:len(first_column_names)] == first_column_names:
            return rows
    raise AssertionError(f"no CSV block {first_column_names}")


def nearest_rank(values, p):
    """The p-th percentile by nearest rank: the ceil(p n / 100)-th value."""
    v = sorted(values)
    return v[max(1, -(-p * len(v) // 100)) - 1]


def linear_quantile(values, q):
    """Quantile by linear interpolation (numpy's default, R's type 7)."""
    v = sorted(values)
    pos = q * (len(v) - 1)
    i = int(pos)
    return v[i] if i + 1 >= len(v) else v[i] + (pos - i) * (v[i + 1] - v[i])


def phase_stats(values, windows=None):
    """A phases row as docs/steplogs.md defines it, from the values as logged:
    count = steps they stand for, total = sum of value x window, mean =
    total / count, std = population std of the values as logged, percentiles
    by nearest rank of the values as logged."""
    windows = windows or [1] * len(values)
    total = sum(v * w for v, w in zip(values, windows))
    count = sum(windows)
    m = sum(values) / len(values)
    return {"count": count, "total": total, "mean": total / count,
            "std": (sum((v - m) ** 2 for v in values) / len(values)) ** 0.5,
            "min": min(values), "p50": nearest_rank(values, 50), "p90": nearest_rank(values, 90),
            "p99": nearest_rank(values, 99), "max": max(values)}


def check_phases(c, case, rows, phases, scale, unit, step_time=None):
    """rows: the phases table; phases: {phase: [values in s]} (window 1);
    share_pct of step_time's total when given, else of the sum of phases."""
    by = {r["phase"]: r for r in rows}
    denom = sum(step_time) if step_time else sum(sum(v) for v in phases.values())
    for name, vals in phases.items():
        st = phase_stats(vals)
        want = {f"{k}_{unit}": st[k] * scale for k in ("total", "mean", "std", "min", "p50",
                                                        "p90", "p99", "max")}
        want["count"] = st["count"]
        close_row(c, f"{case}: phases row {name}", by.get(name, {}), want)
        c.true(f"{case}: share of {name}",
               close(by.get(name, {}).get("share_pct"), 100 * sum(vals) / denom, 2))
    c.eq(f"{case}: phases rows", sorted(r["phase"] for r in rows
                                        if r["phase"] not in ("step_time", "other/overhead")),
         sorted(phases))


def text_tables(text):
    """Every text table of an output (header line, dashes line, rows)."""
    lines = text.splitlines()
    return [table(lines[i - 1:]) for i in range(1, len(lines))
            if lines[i] and re.fullmatch(r"-+( +-+)*", lines[i])]


def text_table(text, first_column):
    for t in text_tables(text):
        if t and next(iter(t[0])) == first_column:
            return t
    raise AssertionError(f"no table starting with column {first_column}")


def text_table_after(text, title):
    return section(text, title)


# ---- traces written in a case's cmd -----------------------------------------

def trace_events(text):
    """The events of a trace in a heredoc (all phases), with i = file
    position, and s, e in integer ns for X events."""
    doc = json.loads(text.lstrip("\ufeff"), parse_float=Decimal)
    evs = []
    for i, e in enumerate(doc["traceEvents"]):
        e = dict(e, i=i)
        if e.get("ph") == "X" and "dur" in e:
            e["s"] = int(Decimal(e["ts"]) * 1000)
            e["e"] = e["s"] + int(Decimal(e["dur"]) * 1000)
            e["_x"] = True
        evs.append(e)
    return evs


def attribution(evs):
    """Per GPU event: its launcher (the CPU-side event of its correlation with
    the earliest start, then the first in the file), the innermost and
    outermost cpu_op around the launcher on its thread, and the ProfilerStep
    holding the launcher's start (docs/reports.md, 'kernels --by')."""
    xs = [e for e in evs if e.get("_x")]
    launcher = {}
    for e in sorted(xs, key=lambda x: (x["s"], x["i"])):
        corr = e.get("args", {}).get("correlation")
        if corr is not None and not is_gpu(e):
            launcher.setdefault(corr, e)
    out = []
    for g in xs:
        if not is_gpu(g):
            continue
        la = launcher.get(g.get("args", {}).get("correlation"))
        ops, step = [], None
        if la:
            ops = sorted((o for o in xs if o.get("cat") == "cpu_op" and o["pid"] == la["pid"]
                          and o["tid"] == la["tid"] and o["s"] <= la["s"] and la["e"] <= o["e"]),
                         key=lambda o: (o["s"], -(o["e"] - o["s"])))
            step = next((int(st["name"].split("#")[1]) for st in xs
                         if st["name"].startswith("ProfilerStep#") and not is_gpu(st)
                         and st["s"] <= la["s"] < st["e"]), None)
        out.append({"gpu": g, "launch": la, "ops": ops, "step": step})
    return out


def queue_series(pairs):
    """{stream: [(ts, value)]}: +1 at each launch's start, -1 at its GPU
    event's start, launches first at equal times (docs/reports.md)."""
    pts = {}
    for g, la in pairs:
        st = str(g["args"]["stream"])
        pts.setdefault(st, []).extend([(la["s"], 0, 1), (g["s"], 1, -1)])
    out = {}
    for st, p in pts.items():
        level, series = 0, []
        for t, _, d in sorted(p, key=lambda x: (x[0], x[1])):
            level += d
            series.append((t, level))
        out[st] = series
    return out


def queue_row(series):
    vals = [v for _, v in series]
    n = len(vals)
    mean = sum(vals) / n
    held = sum(v * (t2 - t1) for (t1, v), (t2, _) in zip(series, series[1:]))
    span = series[-1][0] - series[0][0]
    return {"points": n, "mean": mean,
            "std": (sum((v - mean) ** 2 for v in vals) / (n - 1)) ** 0.5 if n > 1 else None,
            "min": min(vals), "p25": linear_quantile(vals, .25), "p50": linear_quantile(vals, .5),
            "p75": linear_quantile(vals, .75), "max": max(vals),
            "mean_time": held / span if span else None, "full_ns": 0}


def check_trace_launch_ties(c):
    case = "trace_launch_ties"
    evs = trace_events(heredoc(case, "ties.json"))
    text = expected(case)
    att = attribution(evs)
    # gpu_attribution: slice ids are the events' positions (all X) + 1.
    got = [(r["slice_id"], r["kernel"], r["step"], r["launch_id"], r["op"], r["top_op"])
           for r in csv_block(text, ["slice_id", "kernel"])]
    want = [(str(a["gpu"]["i"] + 1), a["gpu"]["name"], str(a["step"] or ""),
             str(a["launch"]["i"] + 1) if a["launch"] else "",
             a["ops"][-1]["name"] if a["ops"] else "", a["ops"][0]["name"] if a["ops"] else "")
            for a in att]
    c.eq(f"{case}: launcher, step, op and top op of every GPU event", got, want)
    # analysis_ops: count per name; GPU self (innermost op) and total (any op around).
    want = {}
    for e in evs:
        if e.get("_x") and not is_gpu(e):
            w = want.setdefault(e["name"], [0, 0, 0])
            w[0] += 1
    for a in att:
        d = a["gpu"]["e"] - a["gpu"]["s"]
        if a["ops"]:
            want[a["ops"][-1]["name"]][1] += d
            for name in {o["name"] for o in a["ops"]}:
                want[name][2] += d
    got = {r["name"]: [int(r["count"]), int(r["gpu_self_ns"]), int(r["gpu_total_ns"])]
           for r in csv_block(text, ["name", "count", "gpu_self_ns"])}
    c.eq(f"{case}: ops' counts and GPU self/total time", got, want)
    # launch: delay = GPU start - launch start; nearest-rank percentiles.
    pairs = [(a["gpu"], a["launch"]) for a in att if a["launch"]]
    delays = [g["s"] - la["s"] for g, la in pairs]
    short = sum(1 for g, la in pairs if g["e"] - g["s"] < la["e"] - la["s"])
    row = csv_block(text, ["rank", "launches"])[0]
    close_row(c, f"{case}: launch delays", row, {
        "launches": len(pairs), "mean_delay_ns": sum(delays) / len(delays),
        "min_delay_ns": min(delays), "p50_delay_ns": nearest_rank(delays, 50),
        "p90_delay_ns": nearest_rank(delays, 90), "p99_delay_ns": nearest_rank(delays, 99),
        "max_delay_ns": max(delays), "shorter_than_launch": short})
    c.true(f"{case}: share shorter than their launch",
           close(row["shorter_than_launch_pct"], 100 * short / len(pairs), 2))
    # queue-length per stream.
    rows = {r["stream"]: r for r in csv_block(text, ["rank", "device", "stream", "points"])}
    series = queue_series(pairs)
    c.eq(f"{case}: queue-length streams", sorted(rows), sorted(series))
    for st, s in series.items():
        close_row(c, f"{case}: queue-length of stream {st}", rows.get(st, {}), queue_row(s), 9)
    # kernels --by op.
    want = {}
    for a in att:
        k = a["ops"][-1]["name"] if a["ops"] else "(none)"
        w = want.setdefault(k, [0, set(), 0])
        w[0] += 1
        w[1].add(a["gpu"]["name"])
        w[2] += a["gpu"]["e"] - a["gpu"]["s"]
    total = sum(w[2] for w in want.values())
    rows = csv_block(text, ["rank", "op", "events"])
    c.eq(f"{case}: kernels --by op", {r["op"]: [int(r["events"]), int(r["distinct_kernels"]),
                                                int(r["total_ns"])] for r in rows},
         {k: [w[0], len(w[1]), w[2]] for k, w in want.items()})
    for r in rows:
        close_row(c, f"{case}: kernels --by op {r['op']} mean and share", r,
                  {"mean_ns": want[r["op"]][2] / want[r["op"]][0]}, 9)
        c.true(f"{case}: share of {r['op']}",
               close(r["share_pct"], 100 * want[r["op"]][2] / total, 2))


def check_trace_stream_values(c):
    case = "trace_stream_values"
    evs = trace_events(heredoc(case, "s.json"))
    text = expected(case)
    # A stream is an integer when it is a whole number; 7.5 names none.
    whole = [e for e in evs if Decimal(e["args"]["stream"]) == int(Decimal(e["args"]["stream"]))]
    c.eq(f"{case}: skipped events", csv_block(text, ["reason", "count"])[0]["count"],
         str(len(evs) - len(whole)))
    c.eq(f"{case}: stored events", [(r["ts"], r["stream"]) for r in
                                    csv_block(text, ["ts", "stream"])],
         [(str(e["s"]), str(int(Decimal(e["args"]["stream"])))) for e in whole])
    d = [e["e"] - e["s"] for e in whole]
    m = sum(d) / len(d)
    close_row(c, f"{case}: kernels row", csv_block(text, ["rank", "name"])[0],
              {"count": len(d), "total_ns": sum(d), "mean_ns": m, "min_ns": min(d),
               "max_ns": max(d), "std_ns": (sum((x - m) ** 2 for x in d) / len(d)) ** 0.5,
               "share_pct": 100})


def check_trace_long_keys(c):
    case = "trace_long_keys"
    p = "worker-" + "0" * 80
    text = expected(case).replace("P-", p + "-")
    # ops: self time = own time minus children's on the same thread (whole tids).
    evs = [e for e in trace_events(heredoc(case, "keys.json", {"P": p})) if e.get("_x")]
    cpu = [e for e in evs if not is_gpu(e)]
    want = {}
    for e in cpu:
        kids = sum(k["e"] - k["s"] for k in cpu if k is not e and k["tid"] == e["tid"]
                   and e["s"] <= k["s"] and k["e"] <= e["e"])
        want[e["name"]] = (e["e"] - e["s"] - kids, e["e"] - e["s"])
    selfsum = sum(v[0] for v in want.values())
    rows = csv_block(text, ["rank", "name", "cat"])
    c.eq(f"{case}: ops self and total", {r["name"]: (int(r["cpu_self_ns"]), int(r["cpu_total_ns"]))
                                         for r in rows}, want)
    for r in rows:
        c.true(f"{case}: self share of {r['name']}",
               close(r["cpu_self_pct"], 100 * want[r["name"]][0] / selfsum, 2))
    # idle per (whole) stream; every gap is under 30 us after a kernel: kernel wait.
    idle = idle_per_stream(evs)
    n = gpu_events_per_stream(evs)
    c.eq(f"{case}: idle per stream", {r["stream"]: (int(r["events"]), int(r["idle_ns"]),
                                                    int(r["kernel_wait_ns"]))
                                      for r in csv_block(text, ["rank", "stream", "events"])},
         {s: (n[s], idle[s], idle[s]) for s in idle})
    # keys2: queue length per (device, stream), launch --by op, kernel-sequences, memory.
    evs = trace_events(heredoc(case, "keys2.json", {"P": p}))
    att = attribution(evs)
    pairs = [(a["gpu"], a["launch"]) for a in att if a["launch"]]
    rows = csv_block(text, ["rank", "device", "stream", "points"])
    got = {(r["device"], r["stream"]): r for r in rows}
    c.eq(f"{case}: queue-length keys", sorted(got),
         sorted((str(g["pid"]), str(g["args"]["stream"])) for g, _ in pairs))
    for g, la in pairs:
        close_row(c, f"{case}: queue-length of device {g['pid'][-1]}",
                  got.get((str(g["pid"]), str(g["args"]["stream"])), {}),
                  queue_row(queue_series([(g, la)])[str(g["args"]["stream"])]), 9)
    row = csv_block(text, ["rank", "op", "kernel_sequence"])[0]
    c.eq(f"{case}: launch --by op", (row["op"], row["kernel_sequence"], int(row["count"]),
                                     float(row["op_launch_delay_ns"]),
                                     float(row["runtime_delay_ns"])),
         ("aten::mm", "k", len(att),
          sum(a["launch"]["s"] - a["ops"][-1]["s"] for a in att) / len(att),
          sum(a["gpu"]["s"] - a["launch"]["s"] for a in att) / len(att)))
    for header, rows in csv_blocks(text):
        if header[:3] == ["rank", "op", "count"]:
            c.eq(f"{case}: kernel-sequences", (int(rows[0]["count"]),
                                               int(rows[0]["gpu_kernel_ns"]),
                                               int(rows[0]["cpu_op_ns"])),
                 (len(att), sum(a["gpu"]["e"] - a["gpu"]["s"] for a in att),
                  sum(a["ops"][-1]["e"] - a["ops"][-1]["s"] for a in att)))
    # memory as key_averages() counts it: an op holds every [memory] event in
    # its time range (PyTorch's _parse_kineto_results), self = minus children's.
    mem = [e for e in evs if e.get("name") == "[memory]"]
    ops = [e for e in evs if e.get("_x") and e.get("cat") == "cpu_op"]
    dev = sum(m["args"]["Bytes"] for o in ops for m in mem
              if o["s"] <= int(Decimal(m["ts"]) * 1000) < o["e"] and m["args"]["Device Type"] == 1)
    row = csv_block(text, ["rank", "op", "calls"])[0]
    c.eq(f"{case}: memory per op (key_averages' rule)",
         (int(row["calls"]), int(row["device_bytes"]), int(row["self_device_bytes"])),
         (len(ops), dev, dev))


LIMIT_NS = 2 ** 62


def check_trace_time_range(c):
    case = "trace_time_range"
    doc = json.loads(heredoc(case, "range.json"), parse_float=Decimal, parse_constant=Decimal)
    text = expected(case)
    skips, kept, open_b = {}, [], None
    for e in doc["traceEvents"]:
        ts = int(Decimal(e["ts"]) * 1000) if Decimal(e["ts"]).is_finite() and \
            abs(Decimal(e["ts"])) < 10 ** 20 else None
        if ts is None or abs(ts) >= LIMIT_NS:
            skips["ts"] = skips.get("ts", 0) + 1
            continue
        if e["ph"] == "X":
            dur = int(Decimal(e["dur"]) * 1000)
            if abs(dur) >= LIMIT_NS:
                skips["dur"] = skips.get("dur", 0) + 1
            elif ts + dur >= LIMIT_NS:
                skips["end"] = skips.get("end", 0) + 1
            else:
                kept.append((e["name"], ts, ts + dur))
        elif e["ph"] == "B":
            open_b = (e["name"], ts)
        elif e["ph"] == "E":
            kept.append((open_b[0], open_b[1], ts))
    rows = csv_block(text, ["reason", "count"])
    got = {("ts" if "with ts" in r["reason"] else "dur" if "with dur" in r["reason"] else
            "end" if "ending" in r["reason"] else r["reason"]): int(r["count"]) for r in rows}
    c.eq(f"{case}: skips per reason", got, skips)
    want = {}
    for name, s, e in kept:
        kids = sum(b - a for n2, a, b in kept if (n2, a, b) != (name, s, e) and s <= a and b <= e)
        want[name] = (e - s - kids, e - s)
    # Beyond 2^53 the ops table prints a double, shortest form (a REAL's text).
    fmt = lambda v: int(Decimal(repr(float(v))))  # noqa: E731
    c.eq(f"{case}: ops self and total (ns)",
         {r["name"]: (int(r["cpu_self_ns"]), int(r["cpu_total_ns"]))
          for r in csv_block(text, ["rank", "name", "cat"])},
         {k: (fmt(a), fmt(b)) for k, (a, b) in want.items()})


def check_trace_phases(c):
    case = "trace_phases"
    evs = trace_events(heredoc(case, "phases.json"))
    text = expected(case)
    counts = {}
    for e in evs:
        counts[e["ph"]] = counts.get(e["ph"], 0) + 1
    got = dict(re.findall(r'^"(\w+)":(\d+)$', text, re.M))
    c.eq(f"{case}: events per phase", {k: int(v) for k, v in got.items()
                                       if k in ("X", "B", "E", "i", "C", "s", "f", "M")},
         {k: v for k, v in counts.items() if k != "b"})
    c.eq(f"{case}: other phases", int(got["other_phases"]), counts["b"])
    # B/E pairs by a stack per thread; X with dur >= 0.
    stacks, spans = {}, []
    unmatched_e = 0
    for e in evs:
        key = (e["pid"], e.get("tid"))
        if e["ph"] == "B":
            stacks.setdefault(key, []).append(e)
        elif e["ph"] == "E":
            if stacks.get(key):
                b = stacks[key].pop()
                spans.append(("B", b["name"], int(Decimal(b["ts"]) * 1000),
                              int(Decimal(e["ts"]) * 1000) - int(Decimal(b["ts"]) * 1000)))
            else:
                unmatched_e += 1
        elif e["ph"] == "X" and "dur" in e and e["dur"] >= 0:
            spans.append(("X", e["name"], e["s"], e["e"] - e["s"]))
    unmatched_b = sum(len(s) for s in stacks.values())
    lines = text.split("\n")
    rows = [ln.split("\t") for ln in lines[1:lines.index("name,series,value")]]
    c.eq(f"{case}: stored slices (ph, name, ts, dur)",
         [(r[0], r[1], int(r[4]), int(r[5])) for r in rows], sorted(spans, key=lambda x: x[2]))
    neg = sum(1 for e in evs if e["ph"] == "X" and "dur" in e and e["dur"] < 0)
    nodur = sum(1 for e in evs if e["ph"] == "X" and "dur" not in e)
    c.eq(f"{case}: skipped", int(got["skipped"]),
         unmatched_b + unmatched_e + neg + nodur + counts["b"])
    c.eq(f"{case}: GPU events", int(got["gpu_events"]), sum(1 for e in evs if e.get("_x")
                                                            and is_gpu(e)))
    cn = next(e for e in evs if e["ph"] == "C")
    c.eq(f"{case}: counter series", [(r["series"], Decimal(r["value"]))
                                     for r in csv_block(text, ["name", "series", "value"])],
         sorted(cn["args"].items()))


# ---- step logs -------------------------------------------------------------

def printf_file(case, name):
    """The text a case's cmd writes with printf '...' > NAME."""
    m = re.search(r"printf '([^']*)' > %s\n" % re.escape(name), cmd_text(case))
    return m.group(1).encode().decode("unicode_escape")


def jsonl(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def case_file(case, name):
    with open(os.path.join(GOLDEN, case, name), encoding="utf-8") as f:
        return f.read()


def check_steplog_unit_stems(c):
    case = "steplog_unit_stems"
    recs = jsonl(printf_file(case, "train.jsonl"))
    text = expected(case)
    phases = {"data": [r["data_time_ms"] / 1e3 for r in recs],
              "forward": [r["fwd_ms"] / 1e3 for r in recs],
              "transfer": [r["h2d_copy_us"] / 1e6 for r in recs]}
    check_phases(c, case, text_table(text, "split"), phases, 1e3, "ms")
    c.eq(f"{case}: values per raw name", {r["raw_name"]: int(r["n_values"])
                                          for r in text_table(text, "raw_name")},
         {k: len(recs) for k in recs[0] if k != "step"})


def check_steplog_rules(c):
    case = "steplog_rules"
    vals = {}
    for k, v in re.findall(r"^(my/\w+): (\S+)$", printf_file(case, "train.log"), re.M):
        vals.setdefault(k, []).append(float(v) / 1e3)
    check_phases(c, case, text_table(expected(case), "split"),
                 {"data": vals["my/fetch_ms"], "forward": vals["my/time_forward_ms"]}, 1e3, "ms")


def check_steplog_transfer_names(c):
    case = "steplog_transfer_names"
    recs = jsonl(printf_file(case, "a.jsonl"))
    phases = {"data": [r["data_time_ms"] / 1e3 for r in recs],
              "forward": [r["forward_time_ms"] / 1e3 for r in recs],
              "transfer": [r["host_to_device_time_ms"] / 1e3 for r in recs]}
    check_phases(c, case, text_table(expected(case), "split"), phases, 1e3, "ms")


def check_steplog_megatron_new(c):
    case = "steplog_megatron_new"
    log = case_file(case, "train.log")
    text = expected(case)
    step = [float(x) / 1e3 for x in re.findall(r"elapsed time per iteration \(ms\): ([\d.]+)", log)]
    timers = {}
    for name, lo, hi in re.findall(r"^\s+([\w-]+) \.+: \(([\d.]+), ([\d.]+)\)$", log, re.M):
        timers.setdefault(name, []).append((float(lo) / 1e3, float(hi) / 1e3))
    phases = {"forward_backward": [hi for _, hi in timers["forward-backward"]],
              "optimizer": [hi for _, hi in timers["optimizer"]]}
    rows = text_table(text, "split")
    check_phases(c, case, rows, phases, 1e3, "ms", step_time=step)
    st = phase_stats(step)
    close_row(c, f"{case}: step_time row", next(r for r in rows if r["phase"] == "step_time"),
              {f"{k}_ms": st[k] * 1e3 for k in ("total", "mean", "std", "min", "p50", "max")})
    other = sum(step) - sum(sum(v) for v in phases.values())
    close_row(c, f"{case}: other/overhead row",
              next(r for r in rows if r["phase"] == "other/overhead"),
              {"total_ms": other * 1e3, "mean_ms": other * 1e3 / len(step)})
    m = csv_block(text, ["step", "epoch"])
    got = {r["metric"]: float(r["value"]) for r in m if r["rank"] == "0"}
    mem = dict(re.findall(r"\| ([a-z ]+): ([\d.]+)", log.split("memory (MB)")[1].split("\n")[0]))
    c.eq(f"{case}: memory (MB) in bytes", got,
         {"mem_" + k.replace(" ", "_"): float(v) * 2 ** 20 for k, v in mem.items()})
    got = [(r["step"], r["metric"], float(r["value"])) for r in m
           if r["metric"] in ("step_time", "forward_backward", "optimizer", "loss")]
    want = []
    for i, blk in enumerate(re.split(r"\] iteration ", log)[1:], 1):
        want.append((str(i), "step_time", step[i - 1]))
        want.append((str(i), "loss", float(re.search(r"lm loss: (\S+)", blk).group(1))))
    for i in range(len(step)):
        want += [(str(i + 1), "forward_backward", phases["forward_backward"][i]),
                 (str(i + 1), "optimizer", phases["optimizer"][i])]
    c.eq(f"{case}: step time, loss and timers per step",
         sorted((s, k, round(v, 9)) for s, k, v in got),
         sorted((s, k, round(float(v), 9)) for s, k, v in want))


def check_steplog_titan(c):
    import datetime
    case = "steplog_titan"
    log = case_file(case, "input.log")
    text = expected(case)
    recs = {}
    for ts, step, mem, pct in re.findall(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}).*? step:\s+(\d+)"
                                         r".*?memory:\s+([\d.]+)GiB\(([\d.]+)%\)", log):
        t = datetime.datetime.strptime(ts, "%Y-%m-%d %H:%M:%S,%f")
        recs.setdefault(int(step), (t, float(mem), float(pct)))  # duplicate lines kept once
    steps = sorted(recs)
    derived = [((recs[b][0] - recs[a][0]).total_seconds() / (b - a), b - a, b)
               for a, b in zip(steps, steps[1:])]
    tables = text_tables(text)
    c.eq(f"{case}: derived step times (step, s, window)",
         [(int(r["step"]), float(r["value"]), int(r["window"])) for r in tables[0]],
         [(s, round(v, 3), w) for v, w, s in derived])
    c.eq(f"{case}: memory in bytes", [(int(r["step"]), float(r["value"])) for r in tables[1]],
         [(s, round(recs[s][1] * 2 ** 30, 2)) for s in steps])
    vals = [v for v, _, _ in derived]
    st = phase_stats(vals, [w for _, w, _ in derived])
    row = section(text, "phases")[0]
    close_row(c, f"{case}: phases step_time", row,
              {f"{k}_ms": st[k] * 1e3 for k in ("total", "mean", "std", "min", "p50", "p90",
                                                 "p99", "max")} | {"count": st["count"]})
    ins = section(text, "step-insights")[0]
    c.true(f"{case}: peak GPU memory %", close(ins["value"], max(p for _, _, p in recs.values()), 2))


def check_steplog_insights(c):
    case = "steplog_insights"
    log = open(os.path.join(SOURCE, "samples", "steplogs", "mae.log"), encoding="utf-8").read()
    text = expected(case)
    names = {"forward_pass": "forward", "backward_pass": "backward", "data_transfer": "transfer",
             "optimizer_step": "optimizer", "validation_epoch": "validation",
             "ema_update": "ema", "visualization_generation": "sampling",
             "other/overhead": "other"}
    phases = {}
    for k, v in re.findall(r"^\s+(\S+)\s+:\s+[\d.]+% \(\s*([\d.]+)s\)", log, re.M):
        phases.setdefault(names[k], []).append(float(v))
    rows = section(text, "phases")
    check_phases(c, case, rows, phases, 1, "s")
    ins = {r["rule"]: r for r in section(text, "step-insights")}
    total = sum(sum(v) for v in phases.values())
    c.true(f"{case}: transfer share", close(ins["transfer share"]["value"],
                                            100 * sum(phases["transfer"]) / total))
    c.true(f"{case}: slowest phase mean", close(ins["slowest phase"]["value"],
                                                max(sum(v) / len(v) for v in phases.values())))
    c.eq(f"{case}: data generation peak", float(ins["data generation share"]["value"]),
         max(map(float, re.findall(r"data_gen_percentage: ([\d.]+)", log))))
    c.eq(f"{case}: RAM peak", float(ins["RAM usage"]["value"]),
         max(map(float, re.findall(r"ram_usage_percent: ([\d.]+)", log))))


def check_steplog_golden_nan(c):
    case = "steplog_golden_nan"
    doc = json.loads(case_file(case, "golden_values.json"))
    want = []
    for metric, d in doc.items():
        for step, v in d["values"].items():
            f = float(v)
            want.append((int(step), None if f != f else f))
    c.eq(f"{case}: values (nan stored as NULL)",
         [(int(r["step"]), float(r["value"]) if r["value"] else None)
          for r in csv_block(expected(case), ["step", "epoch"])], want)


def check_steplog_units(c):
    case = "steplog_units"
    # The input's values by hand-written conversion to SI (s, B, /s, %).
    want = {"forward": [3.21e-3, 1234.5e-3], "data": [250e-6], "step_time": [11.5e3 / 1e3],
            "tokens_per_s": [22.8e3], "memory_used": [75.25 * 2 ** 30],
            "run_time": [86400 + 3 * 60 + 2], "gpu_util": [83.14]}
    log = case_file(case, "input.log")
    c.true(f"{case}: the input holds the values converted here",
           all(s in log for s in ("3.21", "1,234.5", "250us", "11.5K", "22.8K", "75.25GiB",
                                  "1 day, 0:03:02", "83.14%")))
    got = {}
    for r in csv_block(expected(case), ["step", "epoch"]):
        got.setdefault(r["metric"], []).append(float(r["value"]))
    c.eq(f"{case}: values in SI units", {k: [round(x, 9) for x in v] for k, v in got.items()},
         {k: [round(x, 9) for x in v] for k, v in want.items()})


def gpu_csv_rows(text):
    import csv as csvmod
    import datetime
    out = {}
    for r in csvmod.DictReader(text.splitlines()):
        t = datetime.datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")).timestamp()
        out.setdefault(r["gpu_index"], []).append((t, float(r["utilization_gpu_percent"]),
                                                   float(r["power_W"])))
    return out


def gpu_util_want(samples):
    """Per GPU: samples, duration, util mean/max, power mean, energy with
    sample-and-hold power (each sample's power until the next)."""
    want = {}
    for g, s in samples.items():
        s.sort()
        energy = sum(p * (t2 - t1) for (t1, _, p), (t2, _, _) in zip(s, s[1:]))
        want[g] = {"samples": len(s), "duration_s": s[-1][0] - s[0][0],
                   "util_mean_pct": sum(u for _, u, _ in s) / len(s),
                   "util_max_pct": max(u for _, u, _ in s),
                   "idle_samples_pct": 100 * sum(1 for _, u, _ in s if u == 0) / len(s),
                   "power_mean_w": sum(p for _, _, p in s) / len(s), "energy_ws": energy,
                   "energy_kwh": energy / 3.6e6}
    return want


def check_steplog_gpu_join(c):
    case = "steplog_gpu_join"
    samples = gpu_csv_rows(case_file(case, "gpu.csv"))
    text = expected(case)
    rows = {r["gpu"]: r for r in text_table(text, "gpu")}
    for g, w in gpu_util_want(samples).items():
        close_row(c, f"{case}: GPU {g}", rows.get(g, {}), w, 2)
    # by step: the samples in (previous step's time, this step's time].
    steps = jsonl(case_file(case, "steps.jsonl"))
    rows = {r["step"]: r for r in section(text, "gpu-util by step (samples joined by wall-clock "
                                                "time)")}
    for a, b in zip(steps, steps[1:]):
        inside = [u for s in samples.values() for t, u, _ in s
                  if a["timestamp"] < t <= b["timestamp"]]
        close_row(c, f"{case}: step {b['step']}", rows.get(str(b["step"]), {}),
                  {"duration_s": b["timestamp"] - a["timestamp"], "samples": len(inside),
                   "util_mean_pct": sum(inside) / len(inside), "util_min_pct": min(inside)}, 2)


def check_steplog_variants(c):
    case = "steplog_variants"
    text = expected(case)
    log = case_file(case, "modded.log")
    pts = [(int(s), int(t)) for s, t in re.findall(r"step:(\d+)/\d+ .*?train_time:(\d+)ms", log)]
    tables = text_tables(text)
    got = [(int(r["step"]), float(r["value"]), int(r["window"])) for r in tables[0]
           if r["agg"] == "derived"]
    want = [(b, round((tb - ta) / 1e3 / (b - a), 3), b - a) for (a, ta), (b, tb)
            in zip(pts, pts[1:])]
    c.eq(f"{case}: modded-nanogpt step times from train_time", got, want)
    avg = [(int(s), float(v)) for s, v in re.findall(r"step:(\d+)/\d+ .*?step_avg:([\d.]+)ms",
                                                        log)]
    c.eq(f"{case}: step_avg as running means", [(int(r["step"]), float(r["value"]))
                                                for r in tables[0] if r["agg"] == "running_mean"],
         [(s, round(v / 1e3, 3)) for s, v in avg])
    c.true(f"{case}: steps/s", close(tables[1][0]["value"],
                                     (pts[-1][0] - pts[0][0]) / ((pts[-1][1] - pts[0][1]) / 1e3)))
    rows = {r["gpu"]: r for r in csv_block(text, ["gpu", "samples"])}
    for g, w in gpu_util_want(gpu_csv_rows(case_file(case, "gpu_metrics.csv"))).items():
        close_row(c, f"{case}: GPU {g}", rows.get(g, {}), w, 2)
        c.true(f"{case}: GPU {g} kWh exact", close(rows[g]["energy_kwh"], w["energy_kwh"], 15))
    recs = jsonl(case_file(case, "trainer_log.jsonl"))
    secs = [(r["current_steps"], sum(int(x) * m for x, m in
                                      zip(r["elapsed_time"].split(":"), (3600, 60, 1))))
            for r in recs]
    prev = [(0, 0)] + secs
    c.eq(f"{case}: LLaMA-Factory step times from elapsed_time",
         [(int(r["step"]), float(r["value"]), int(r["window"])) for r in tables[2]],
         [(b, (tb - ta) / (b - a), b - a) for (a, ta), (b, tb) in zip(prev, secs)])
    c.eq(f"{case}: elapsed_time in s", [(int(r["step"]), float(r["value"])) for r in tables[3]],
         [(s, float(t)) for s, t in secs])


def check_steplog_mae_wandb(c):
    case = "steplog_mae_wandb"
    recs = jsonl(case_file(case, "history.jsonl"))
    text = expected(case)
    c.eq(f"{case}: values per raw name", {r["raw_name"]: int(r["n_values"])
                                          for r in section(text, "metric-rules")},
         {k: sum(1 for r in recs if k in r) for k in recs[0] if k.startswith("profiling/")})
    ins = {r["rule"]: r for r in section(text, "step-insights")}
    fwd = [r["profiling/timing_forward_pass_avg"] for r in recs]
    c.true(f"{case}: slowest phase mean", close(ins["slowest phase"]["value"], sum(fwd) / len(fwd)))
    c.eq(f"{case}: transfer peak", float(ins["transfer share"]["value"]),
         max(r["profiling/transfer_percentage"] for r in recs))
    c.true(f"{case}: GPU memory peak (fraction as %)", close(
        ins["GPU memory usage"]["value"],
        100 * max(r["profiling/gpu_0_memory_pressure"] for r in recs), 2))


# ---- trend, pstats, stdin ---------------------------------------------------

def trend_basic_values(r):
    """The awk generator of trend_basic/cmd, night r: (step times in s as
    printed with %.6f, tokens/s as printed with %.1f)."""
    lvl = 0.100 * (1.10 if r >= 8 else 1.0) * (1 + 0.004 * ((r * 7) % 5 - 2))
    return ([float("%.6f" % (lvl * (1 + 0.002 * ((i * 5) % 7 - 3)))) for i in range(1, 21)],
            [float("%.1f" % (4096 / lvl))] * 20)


def check_trend_basic(c):
    case = "trend_basic"
    text = expected(case)
    c.true(f"{case}: the generator here is the one in cmd",
           "lvl = 0.100 * (r >= 8 ? 1.10 : 1.0) * (1 + 0.004 * ((r * 7) % 5 - 2));" in
           cmd_text(case) and "lvl * (1 + 0.002 * ((i * 5) % 7 - 3)), 4096 / lvl" in cmd_text(case))
    nights = {r: trend_basic_values(r) for r in range(1, 13)}
    med = {r: linear_quantile([x * 1e3 for x in v[0]], .5) for r, v in nights.items()}
    rows = text_table(text, "index")
    c.eq(f"{case}: runs in the history", [r["run"] for r in rows],
         [f"night{r}" for r in range(1, 13)])
    # change point: the shift of the generator (night 8); levels = median of the
    # medians on each side.
    before = linear_quantile([med[r] for r in range(1, 8)], .5)
    after = linear_quantile([med[r] for r in range(8, 13)], .5)
    for row in rows:
        r = int(row["run"][5:])
        ms = [x * 1e3 for x in nights[r][0]]
        q1, q3 = linear_quantile(ms, .25), linear_quantile(ms, .75)
        close_row(c, f"{case}: night {r}", row, {
            "samples": len(ms), "median_ms": med[r], "q1_ms": q1, "q3_ms": q3,
            "level_ms": before if r < 8 else after})
        c.true(f"{case}: night {r} spread", close(row["spread_pct"], 100 * (q3 - q1) / med[r], 2))
        c.eq(f"{case}: night {r} date", row["ordered_by"], "2024-06-%02d" % r)
    c.eq(f"{case}: change point", [r["run"] for r in rows if r["change_point"]], ["night8"])
    cp = csv_block(text, ["run", "ordered_by", "previous_run"])[0]
    close_row(c, f"{case}: change point row", cp,
              {"runs_before": 7, "runs_after": 5, "before_ms": before, "after_ms": after})
    c.true(f"{case}: change_pct", close(cp["change_pct"], 100 * (after / before - 1), 2))
    js = text.split("\n[", 1)[1]
    for r in (1, 2):
        m = re.search(r'"run":"night%d".*?"median":([\d.]+),"q1":([\d.]+),"q3":([\d.]+)' % r, js)
        tok = nights[r][1]
        c.eq(f"{case}: throughput night {r} (median, q1, q3)", tuple(map(float, m.groups())),
             (linear_quantile(tok, .5), linear_quantile(tok, .25), linear_quantile(tok, .75)))
    # --check messages: the newest run (night8) against the level before it.
    m = re.search(r"REGRESSION: step_time \+([\d.]+)% \(([\d.]+) ms -> ([\d.]+) ms\).*?"
                  r"level worse by ([\d.]+)%", text)
    lvl8 = med[8]  # one run after the change: its level is its median
    c.eq(f"{case}: step_time regression message", tuple(map(float, m.groups())),
         (round(100 * (lvl8 / before - 1), 2), round(before, 1), round(lvl8, 1),
          round(100 * (lvl8 / before - 1), 1)))
    tok = {r: linear_quantile(v[1], .5) for r, v in nights.items()}
    tb = linear_quantile([tok[r] for r in range(1, 8)], .5)
    m = re.search(r"REGRESSION: throughput -([\d.]+)% \(([\d.e+]+) /s -> ([\d.e+]+) /s\)", text)
    c.eq(f"{case}: throughput regression message", tuple(map(float, m.groups())),
         (round(100 * (1 - tok[8] / tb), 2), float("%.4g" % tb), float("%.4g" % tok[8])))
    c.eq(f"{case}: --last 3", [(r["run"], float(r["median_ms"]))
                               for r in csv_block(text, ["index", "run", "ordered_by"])],
         [(f"night{r}", round(med[r], 3)) for r in (10, 11, 12)])
    c.eq(f"{case}: samples per metric", {r["metric"]: (int(r["runs"]), int(r["samples"]))
                                         for r in text_table(text, "metric")},
         {"kernel:nosuch": (12, 0), "step_time": (12, 12 * 20), "throughput": (12, 12 * 20)})


def check_pstats_limit_values(c, tmp):
    """CPython's pstats prints the lines that count '(' for --limit 2 and 0.25."""
    import io
    import pstats
    got = dict(re.findall(r"limit '([^']+)': exit 0 (\d+) lines", expected("pstats_limit_values")))
    want = {}
    for lim in got:
        out = io.StringIO()
        st = pstats.Stats(os.path.join(SOURCE, "samples", "pstats", "sample.prof"), stream=out)
        st.sort_stats("tottime", "name").print_stats(float(lim) if "." in lim else int(lim))
        want[lim] = str(sum(1 for line in out.getvalue().splitlines() if "(" in line))
    c.eq("pstats_limit_values: lines of the listing per --limit", got, want)
    c.eq("pstats_limit_values: limits refused", re.findall(r"limit '([^']+)': exit 2 0 lines",
                                                          expected("pstats_limit_values")),
         ["nan", "inf", "-inf", "x"])


def check_ingest_stdin(c, tmp):
    case = "ingest_stdin"
    text = expected(case)
    lines = text.splitlines()
    rows = [ln.split("\t") for ln in lines[lines.index("path\tformat\tcompressed\trecords") + 1:]
            if "\t" in ln]
    want = []
    for gz in (True, False):
        p = gentrace(tmp, "stdin.json" + (".gz" if gz else ""), "--steps", "1",
                     *(["--gzip"] if gz else []))
        with (gzip.open if gz else open)(p, "rb") as f:
            raw = f.read()
        with open(p, "rb") as f:
            c.eq(f"{case}: generated file is {'gzip' if gz else 'plain'}",
                 f.read(2) == b"\x1f\x8b", gz)
        want.append(["<stdin>", "kineto-json", "1" if gz else "0",
                     str(len(json.loads(raw)["traceEvents"]))])
    c.eq(f"{case}: sources (compressed, records = events in the file)", rows, want)


def pyspy_stacks(text):
    """(frames, count) of a py-spy raw text: a record ends at a line ending
    in ' COUNT'; ';' splits frames outside a process frame's quotes."""
    out = []
    for m in re.finditer(r"(.*?) (\d+)\n", text, re.S):
        stack, frames, i = m.group(1), [], 0
        while True:
            p = re.match(r'process \d+:"', stack[i:])
            if not p:
                frames.extend(f for f in stack[i:].split(";") if f)
                break
            j = stack.find('";', i + p.end())
            frames.append(stack[i:j + 1] if j >= 0 else stack[i:])
            if j < 0:
                break
            i = j + 2
        out.append((frames, int(m.group(2))))
    return out


def pyspy_split(frame):
    m = re.match(r"^(.*) \((.*?)(?::(\d+))?\)$", frame)
    return (m.group(1), m.group(2), m.group(3) or "") if m else (frame, "", "")


def check_pyspy_reports(c):
    """pyspy_reports: self and total of every frame and function, recounted
    from the stacks in cmd (recursion once, pseudo-frames never functions)."""
    case = "pyspy_reports"
    stacks = pyspy_stacks(heredoc(case, "p.pyspy"))
    total = sum(n for _, n in stacks)
    text = expected(case)
    for keying, cols, block in (("frame", 3, ["name", "file", "line", "self_samples"]),
                                ("function", 2, ["name", "file", "line", "self_samples"])):
        selfs, totals = {}, {}
        for frames, n in stacks:
            py = [pyspy_split(f)[:cols] for f in frames if not re.match(r"process \d+:\"", f)]
            if py:
                selfs[py[-1]] = selfs.get(py[-1], 0) + n
            for k in set(py):
                totals[k] = totals.get(k, 0) + n
        want = {k: (selfs.get(k, 0), t) for k, t in totals.items()}
        blocks = [rows for header, rows in csv_blocks(text) if header[:4] == block[:4]
                  and "root" not in header]
        rows = blocks[0] if keying == "frame" else blocks[1]
        got = {tuple([r["name"], r["file"], r["line"]][:cols]): (int(r["self_samples"]),
                                                                 int(r["total_samples"]))
               for r in rows}
        if keying == "frame":
            c.eq(f"{case}: every frame's self and total", got, want)
        else:
            c.true(f"{case}: the top functions by self", all(want[k] == v for k, v in got.items())
                   and sorted((v[0] for v in want.values()), reverse=True)[:len(got)]
                   == [v[0] for v in got.values()], f"{got}")
        bad = [r for r in rows if not close(r["total_pct"], 100.0 * int(r["total_samples"]) / total, 2)]
        c.true(f"{case}: shares by {keying} of {total} samples", not bad, f"{bad[:1]}")


def main():
    c = Checker()
    with tempdir() as tmp:
        check_pstats_sample(c, tmp)
        check_trace_reports(c, tmp)
        check_ingest_directory(c, tmp)
        check_steplog_scaling(c)
        check_schema_version(c)
        check_trace_launch_ties(c)
        check_trace_stream_values(c)
        check_trace_long_keys(c)
        check_trace_time_range(c)
        check_trace_phases(c)
        check_steplog_unit_stems(c)
        check_steplog_rules(c)
        check_steplog_transfer_names(c)
        check_steplog_megatron_new(c)
        check_steplog_titan(c)
        check_steplog_insights(c)
        check_steplog_golden_nan(c)
        check_steplog_units(c)
        check_steplog_gpu_join(c)
        check_steplog_variants(c)
        check_steplog_mae_wandb(c)
        check_trend_basic(c)
        check_pstats_limit_values(c, tmp)
        check_ingest_stdin(c, tmp)
        check_pyspy_reports(c)
    c.close()


if __name__ == "__main__":
    main()
