"""Every report that applies to a run, in every format, has a sound structure.

For the samples (always) and every corpus trace, pstats dump and step log
(when ../shared/corpus is present; required with PROFDB_REQUIRE_PREREQS=1),
each input must ingest (a refusal fails the test) and each applicable report
(on up to 6 runs spread over the inputs it applies to) is rendered as
table, csv, tsv, json and md, and:
  - JSON parses to an array of objects with the same keys in every row;
  - CSV parses (RFC 4180) back to the same header, rows and numbers as JSON;
  - TSV has the same rows and columns, numbers equal to JSON's;
  - Markdown tables have the same number of cells on every line (escaped
    pipes do not split cells), the first one line per JSON row (reports
    with several tables give machine formats the first);
  - the text table has one line per JSON row after its two header lines;
  - and none of it is vacuous: a report that applies to a run has at least
    one row, and every format prints something."""

# ctest-labels: slow (each report on up to 6 of ~40 runs in 5 formats)

import concurrent.futures
import csv
import io
import json
import os
import sys

from common import CHECKED, SOURCE, Checker, have_corpus, run, tempdir

FORMATS = ("table", "csv", "tsv", "json", "md")
NOT_TABLES = {"pstats-dot", "pstats-chart"}  # DOT and gnuplot text
TEXT_TABLES = {"pstats", "callers", "callees", "rf-report"}  # table format: the tool's own text


def applicable(db, run_name):
    _, out, _ = run("report", "--run", run_name, db=db)
    for line in out.splitlines():
        if line.startswith("reports that apply:"):
            return [r for r in line.split(":", 1)[1].split() if r not in NOT_TABLES]
    raise AssertionError(f"no 'reports that apply' line for {run_name}:\n{out}")


def md_cells(line):
    """Cells of a GFM table line: '|' splits unless escaped by a backslash."""
    cells, cur, i = [], "", 0
    body = line.strip()
    assert body.startswith("|") and body.endswith("|"), line
    body = body[1:]
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            cur += body[i:i + 2]
            i += 2
            continue
        if c == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    return cells


def same_number(text, value):
    try:
        return float(text) == float(value)
    except ValueError:
        return False


# Known today (issue 31): with no row, these reports print nothing at all in
# these formats (no header), where every other report prints its header. Any
# other report or format doing so fails; remove an entry when it is fixed.
PRINTS_NOTHING_WHEN_EMPTY = {("rf-report", "table")}
# Reports that may have no row on any input here: scaling needs runs labelled
# gpus=N (tests/golden/steplog_scaling checks it against an oracle);
# rank-kernels a rank far above the others of a run of several
# (test_rank_spread_cause checks its rows).
NO_ROWS_ANYWHERE = {"scaling", "rank-kernels"}
# The checked builds (ASan, valgrind) read the samples only, which have no
# GPU utilisation counters and no repeated kernel sequences: those two are
# checked with rows in the normal build, on the corpus.
NO_ROWS_IN_SAMPLES = {"gpu-util", "kernel-sequences"}


def check_empty(where, report, outs):
    """An empty report: the header of every format, the same columns, no rows."""
    fails = []
    table = list(csv.reader(io.StringIO(outs["csv"], newline="")))
    header = table[0]
    if len(table) != 1:
        fails.append(f"{where}: JSON has no rows, CSV {len(table) - 1}")
    tsv = outs["tsv"].splitlines()
    if tsv != ["\t".join(header)]:
        fails.append(f"{where}: TSV {tsv[:2]} is not CSV's header {header} alone")
    # A report that does not apply to the run (no collectives, no memory
    # profile) says why in the table and Markdown, one sentence that names
    # the report, where the machine formats keep the bare header.
    says_why = [outs[f].strip().startswith(f"{report}: ") and len(outs[f].strip().splitlines()) == 1
                for f in ("md", "table")]
    if any(says_why) and not all(says_why):
        fails.append(f"{where}: one of table and Markdown says why it is empty, the other not")
    if all(says_why):
        return fails
    md = [line for line in outs["md"].split("\n\n")[0].splitlines() if line.startswith("|")]
    if len(md) != 2 or [c.strip() for c in md_cells(md[0])] != header:
        fails.append(f"{where}: Markdown {md[:3]} is not CSV's header {header} alone")
    if report not in TEXT_TABLES:
        lines = outs["table"].split("\n\n")[0].rstrip("\n").split("\n")
        if len(lines) != 2 or lines[0].split() != header:
            fails.append(f"{where}: table {lines[:3]} is not CSV's header {header} alone")
    return fails


def check_report(db, run_name, report, rows_seen):
    """Returns a list of failure messages for one report of one run; records
    its number of JSON rows in rows_seen[(run_name, report)]."""
    fails = []
    outs = {}
    for fmt in FORMATS:
        rc, out, err = run("report", "--run", run_name, report, "--format", fmt, db=db,
                           check=False)
        if rc != 0:
            return [f"{run_name}/{report}/{fmt}: exit {rc}: {err.strip()}"]
        outs[fmt] = out
    where = f"{run_name}/{report}"
    try:
        rows = json.loads(outs["json"])
    except ValueError as e:
        return [f"{where}: JSON does not parse: {e}"]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return [f"{where}: JSON is not an array of objects"]
    rows_seen[(run_name, report)] = len(rows)
    # Nothing passes by printing nothing: every format prints at least its
    # header, an empty report has the same columns in csv, tsv, md and the
    # table and no row in any of them, and main() fails a report that has no
    # row on any input.
    for fmt in FORMATS:
        if not outs[fmt].strip() and (report, fmt) not in PRINTS_NOTHING_WHEN_EMPTY:
            fails.append(f"{where}/{fmt}: prints nothing")
    if fails or (rows == [] and any(not outs[f].strip() for f in FORMATS)):
        return fails
    if not rows:
        return check_empty(where, report, outs)
    keys = list(rows[0].keys())
    if rows and any(list(r.keys()) != keys for r in rows):
        fails.append(f"{where}: JSON rows have different keys")
    # CSV: same header, rows and values.
    table = list(csv.reader(io.StringIO(outs["csv"], newline="")))
    if rows:
        if table[0] != keys:
            fails.append(f"{where}: CSV header {table[0]} != JSON keys {keys}")
        if len(table) - 1 != len(rows):
            fails.append(f"{where}: CSV has {len(table) - 1} rows, JSON {len(rows)}")
        for i, (crow, jrow) in enumerate(zip(table[1:], rows)):
            for k, cell in zip(keys, crow):
                v = jrow[k]
                ok = (cell == "" if v is None else
                      same_number(cell, v) if isinstance(v, (int, float)) else cell == v)
                if not ok:
                    fails.append(f"{where}: row {i} {k}: CSV {cell!r} != JSON {v!r}")
                    break
    # TSV: same shape, same numbers.
    tsv = [line.split("\t") for line in outs["tsv"].splitlines()]
    if rows:
        if len(tsv) - 1 != len(rows) or any(len(r) != len(keys) for r in tsv):
            fails.append(f"{where}: TSV shape differs from JSON")
        else:
            for i, (trow, jrow) in enumerate(zip(tsv[1:], rows)):
                for k, cell in zip(keys, trow):
                    v = jrow[k]
                    if isinstance(v, (int, float)) and not same_number(cell, v):
                        fails.append(f"{where}: row {i} {k}: TSV {cell!r} != JSON {v!r}")
                        break
    # Markdown: consistent cell counts within each table, and the first table
    # (machine formats carry only the first of a report's tables) has one
    # line per row.
    blocks, cur = [], []
    for line in outs["md"].splitlines() + [""]:
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            blocks.append(cur)
            cur = []
    if rows:
        for b in blocks:
            counts = {len(md_cells(line)) for line in b}
            if len(counts) != 1:
                fails.append(f"{where}: Markdown table cell counts {sorted(counts)}")
        if not blocks or len(md_cells(blocks[0][0])) != len(keys):
            fails.append(f"{where}: Markdown columns differ from JSON keys")
        elif len(blocks[0]) - 2 != len(rows):
            fails.append(f"{where}: Markdown has {len(blocks[0]) - 2} rows, JSON {len(rows)}")
    # Text table: two header lines, then the rows (up to a blank line).
    if rows and report not in TEXT_TABLES:
        lines = outs["table"].split("\n\n")[0].rstrip("\n").split("\n")
        if len(lines) - 2 != len(rows):
            fails.append(f"{where}: table has {len(lines) - 2} rows, JSON {len(rows)}")
    return fails


# The corpus inputs, by folder: only the files that are profiler output (the
# folders also hold oracle answers, COUNTS.json and READMEs, which are not).
CORPUS_INPUTS = (("traces", (".json.gz",)), ("torch_legacy", (".trace.json",)),
                 ("pstats", (".prof",)), ("steplogs", (".log", ".json", ".csv")))


def inputs():
    """(run name, path) for the samples and, when present, the corpus."""
    s = os.path.join(SOURCE, "samples")
    items = [("s-traces", os.path.join(s, "traces")),
             ("s-pstats", os.path.join(s, "pstats", "sample.prof"))]
    for f in sorted(os.listdir(os.path.join(s, "steplogs"))):
        items.append(("s-" + f, os.path.join(s, "steplogs", f)))
    if CHECKED:
        print("checked build: samples only (every report in every format is checked on the "
              "corpus in the normal build)")
        return items
    root = have_corpus()
    for sub, endings in CORPUS_INPUTS if root else ():
        d = os.path.join(root, sub)
        for f in sorted(os.listdir(d)):
            if f.endswith(endings):
                items.append(("c-" + f, os.path.join(d, f)))
    return items


RUNS_PER_REPORT = 6


def spread_per_report(jobs):
    """At most RUNS_PER_REPORT runs per report, spread evenly over the runs it
    applies to (inputs are listed samples, traces, pstats, step logs, so the
    spread keeps every kind of input): the structure of a report's formats
    depends on the report, and all ~400 pairs in 5 formats took a minute of
    CI. Each run still has its reports checked by the other tests."""
    by_report = {}
    for r, rep in jobs:
        by_report.setdefault(rep, []).append(r)
    kept = []
    for rep, rs in by_report.items():
        n = len(rs)
        picks = sorted({round(i * (n - 1) / (RUNS_PER_REPORT - 1))
                        for i in range(RUNS_PER_REPORT)}) if n > RUNS_PER_REPORT else range(n)
        kept += [(rs[i], rep) for i in picks]
    return kept


def main():
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        runs = []
        for name, path in inputs():
            # Every input is profiler output profdb reads: a refusal is a failure.
            rc, _, err = run("ingest", "--run", name, path, db=db, check=False)
            c.eq(f"{name}: ingest exit ({err.strip()[-300:]})", rc, 0)
            if rc == 0:
                runs.append(name)
        jobs = spread_per_report([(r, rep) for r in runs for rep in applicable(db, r)])
        rows_seen = {}
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda j: (j, check_report(db, *j, rows_seen)), jobs))
        for (r, rep), fails in results:
            for f in fails:
                print("FAIL", f)
            c.true(f"{r}/{rep}", not fails)
        # A report that prints no row on any input was checked on nothing.
        with_rows = {}
        for r, rep in jobs:
            with_rows[rep] = with_rows.get(rep, 0) + (rows_seen.get((r, rep), 0) > 0)
        for rep, n in sorted(with_rows.items()):
            allowed = NO_ROWS_ANYWHERE | (NO_ROWS_IN_SAMPLES if CHECKED else set())
            c.true(f"{rep}: rows on at least one input", n > 0 or rep in allowed)
        print("reports with rows on no input:", [k for k, v in with_rows.items() if not v])
        print(f"{len(runs)} runs, {len(jobs)} reports x {len(FORMATS)} formats"
              f" (at most {RUNS_PER_REPORT} runs per report)")
    c.close()


if __name__ == "__main__":
    main()
