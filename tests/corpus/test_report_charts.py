"""Report folders, gnuplot charts and the escaping of labels from data.

  - `profdb report --out DIR` for each sample run (and each corpus trace when
    ../shared/corpus is present): index.md exists, every file it links to
    exists, every file is a plain child of DIR with a safe name, each CSV
    equals `profdb report NAME --format csv`, every chart has .gp and .dat;
  - gnuplot (when installed; required with PROFDB_REQUIRE_PREREQS=1) is run
    again on every .gp of the sample and adversarial folders; each PNG (those
    profdb drew for the corpus folders) must be a valid, non-trivial image
    (signature, IHDR size, file size) and each SVG an <svg> document;
  - an adversarial trace whose kernel and op names hold quotes, backslashes,
    backquotes, @macros, system("touch PWNED") and newlines, under a run
    name just as hostile: the charts render, no PWNED file appears, the CSV
    keeps every name exactly;
  - without gnuplot (PROFDB_GNUPLOT=''), the folder is written and the
    message says how to render; with a gnuplot that fails on two charts
    (they render side by side), the folder is written, exit 2, and the
    message names the first failing one in chart order;
  - one-shot: `profdb report PATH [REPORT]` ingests into memory;
  - the timelines (launch queue, memory bandwidth, memory) and the critical
    path chart show the reports' numbers (check_timelines), on the samples,
    the profile_memory trace of tests/traces and every corpus trace."""

# ctest-labels: slow (~100 gnuplot runs over every corpus trace's charts)

import csv
import io
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys

from common import (PROFDB, SOURCE, Checker, checked_subset, have_corpus, missing_part, run,
                    tempdir)

GNUPLOT = shutil.which("gnuplot")
SAFE = re.compile(r"^[A-Za-z0-9_-]+\.(md|html|csv|gp|dat|png|svg)$")
MIN_PNG_BYTES = 3000


def png_ok(path):
    """(ok, detail): PNG signature, IHDR width/height, size above a floor."""
    with open(path, "rb") as f:
        head = f.read(24)
    size = os.path.getsize(path)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return False, "not a PNG"
    w, h = struct.unpack(">II", head[16:24])
    if w < 300 or h < 150 or size < MIN_PNG_BYTES:
        return False, f"{w}x{h}, {size} bytes"
    return True, ""


def check_folder(c, d, what, db=None, run_name=None, rendered=True):
    files = os.listdir(d)
    c.true(f"{what}: index.md", "index.md" in files)
    for f in files:
        c.true(f"{what}: safe file name {f!r}", SAFE.match(f) and os.path.isfile(os.path.join(d, f)))
    index = open(os.path.join(d, "index.md"), encoding="utf-8").read()
    for link in re.findall(r"\]\(([^)]+)\)", index):
        c.true(f"{what}: link {link} exists", os.path.isfile(os.path.join(d, link)))
    charts = [f[:-3] for f in files if f.endswith(".gp")]
    for ch in charts:
        c.true(f"{what}: {ch}.dat", os.path.isfile(os.path.join(d, ch + ".dat")))
        if rendered:
            c.true(f"{what}: {ch}.png embedded", f"]({ch}.png)" in index)
    if db:
        for f in files:
            if f.endswith(".csv"):
                _, want, _ = run("report", "--run", run_name, f[:-4], "--format", "csv", db=db)
                got = open(os.path.join(d, f)).read()  # universal newlines, as run() reads
                c.true(f"{what}: {f} equals the csv report", got == want)
    return charts


def check_gnuplot(c, d, charts, what, again=True):
    """Checks each chart's images. With again (the default), first deletes
    them and runs gnuplot on every script afresh, as the folder's index tells
    a reader to; without, checks the images `profdb report --out` drew (it
    ran the same `gnuplot NAME.gp` in the folder)."""
    for ch in charts:
        if again:
            for ext in ("png", "svg"):
                p = os.path.join(d, f"{ch}.{ext}")
                if os.path.exists(p):
                    os.remove(p)
            p = subprocess.run([GNUPLOT, ch + ".gp"], cwd=d, capture_output=True, text=True)
            c.true(f"{what}: gnuplot {ch}.gp", p.returncode == 0, p.stderr.strip()[:300])
        png = os.path.join(d, ch + ".png")
        ok, detail = png_ok(png) if os.path.exists(png) else (False, "missing")
        c.true(f"{what}: {ch}.png valid", ok, detail)
        svg = os.path.join(d, ch + ".svg")
        c.true(f"{what}: {ch}.svg", os.path.exists(svg) and "<svg" in open(svg).read(4096))


def dat_rows(path):
    """The rows of a chart data file after its header, split as gnuplot does."""
    lines = [l for l in open(path, encoding="utf-8").read().splitlines() if not l.startswith("#")]
    return [shlex.split(l) for l in lines[1:]]


def check_labels(c, d, charts, what):
    """Bars are named by short names (at most a line of the chart, ~140
    characters), distinct for distinct kernels and ops
    (the kernels report's full names are in the CSV), and the form follows
    the ranks: one bar per rank with percentages up to 16 ranks."""
    for ch in ("top-kernels", "top-ops"):
        if ch in charts:
            labels = [r[0] for r in dat_rows(os.path.join(d, ch + ".dat"))]
            c.eq(f"{what}: {ch} labels distinct", len(set(labels)), len(labels))
            c.true(f"{what}: {ch} labels short", all(len(l) <= 140 for l in labels), str(labels))
            c.true(f"{what}: {ch} no C++ argument lists", not any(
                l.startswith("void ") for l in labels), str(labels))
    if "gpu" in charts:
        ranks = len(dat_rows(os.path.join(d, "gpu.dat")))
        gp = open(os.path.join(d, "gpu.gp")).read()
        named = '"inside 1"' in open(os.path.join(d, "gpu.dat")).read()
        c.true(f"{what}: gpu of {ranks} ranks as horizontal bars with the parts named",
               ("boxxyerror" in gp and "with labels" in gp and named) == (ranks <= 16), gp[-600:])


def dat_table(path):
    """A chart data file as (series names, {label: {series: value or None}})."""
    lines = [l for l in open(path, encoding="utf-8").read().splitlines() if not l.startswith("#")]
    head = shlex.split(lines[0])[1:]
    table = {}
    for r in (shlex.split(l) for l in lines[1:]):
        table[r[0]] = {k: (None if v == "?" else float(v)) for k, v in zip(head, r[1:])
                       if k not in ("text", "share_pct", "class", "color")}
    return head, table


def series_max(table):
    most = {}
    for row in table.values():
        for k, v in row.items():
            if v is not None:
                most[k] = max(most.get(k, v), v)
    return most


def near(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def reports_of(trace, db):
    """report_csv for check_timelines: the trace is ingested into db once, at
    the first report asked, not once per report (a one-shot `report TRACE
    NAME` ingests it again each time)."""
    def report_csv(*args):
        if not os.path.exists(db):
            run("ingest", "-q", "--run", "trace", trace, db=db)
        _, out, _ = run("report", "--run", "trace", *args, "--format", "csv", db=db)
        return list(csv.DictReader(io.StringIO(out)))
    return report_csv


def check_timelines(c, d, charts, what, report_csv):
    """The charts of the launch queue, memory bandwidth, memory and critical
    path show the reports' numbers: each stream's largest queue length, each
    kind's largest bandwidth and each device's peak are the report's max
    (the timelines keep the largest value of each interval), the peak mark
    sits on the allocated line's top, and each iteration's stack adds up to
    the critical-path report's path length. report_csv(NAME, *ARGS) is that
    report as CSV rows."""
    def names(rows, key, prefix):
        ranks = {r["rank"] for r in rows}
        return [("rank " + r["rank"] + " " if len(ranks) > 1 else "") + prefix(r) + r[key]
                for r in rows]
    if "queue-length" in charts:
        rows = report_csv("queue-length")
        devices = {}
        for r in rows:
            devices.setdefault(r["rank"], set()).add(r["device"])
        want = dict(zip(names(rows, "stream", lambda r: "device " + r["device"] + " stream "
                                  if len(devices[r["rank"]]) > 1 else "stream "),
                        (float(r["max"]) for r in rows)))
        head, table = dat_table(os.path.join(d, "queue-length.dat"))
        c.eq(f"{what}: queue-length chart: a line per stream of the report", sorted(head),
             sorted(want))
        c.eq(f"{what}: queue-length chart: each stream's largest length is the report's max",
             series_max(table), want)
        first = table[min(table, key=float)]
        c.true(f"{what}: queue-length chart: step lines, every stream from the start",
               all(v is not None for v in first.values()) and
               "with steps" in open(os.path.join(d, "queue-length.gp")).read(), first)
    if "memory-bw" in charts:
        rows = report_csv("memory-bw")
        want = dict(zip(names(rows, "name", lambda r: ""), (float(r["max_gbps"]) for r in rows)))
        head, table = dat_table(os.path.join(d, "memory-bw.dat"))
        got = series_max(table)
        c.eq(f"{what}: memory-bw chart: a line per kind of the report", sorted(head), sorted(want))
        c.true(f"{what}: memory-bw chart: each kind's largest bandwidth is the report's max",
               all(k in got and near(got[k], v) for k, v in want.items()), (got, want))
    if "memory" in charts:
        peaks = [r for r in report_csv("memory", "--by", "step") if r["step"] == ""]
        head, table = dat_table(os.path.join(d, "memory.dat"))
        got = series_max(table)
        for r in peaks:
            dev = "CPU" if r["device"] == "cpu" else "GPU " + r["device"].split(":")[-1]
            if len({p["rank"] for p in peaks}) > 1:
                dev = "rank " + r["rank"] + " " + dev
            mib = int(r["peak_allocated_bytes"]) / 1048576
            c.true(f"{what}: memory chart: {dev}'s peak marked at the report's peak",
                   near(got.get("peak allocated " + dev, -1), mib), (got, mib))
            c.true(f"{what}: memory chart: {dev}'s allocated line reaches the peak, not beyond",
                   near(got.get("allocated " + dev, -1), mib), (got, mib))
    if "critical-path" in charts:
        rows = report_csv("critical-path")
        head, table = dat_table(os.path.join(d, "critical-path.dat"))
        ranks = {r["rank"] for r in rows}
        want = {}
        for r in rows:
            if int(r["instance"]) < 50 and r["path_us"] and float(r["path_us"]) > 0:
                label = ("r" + r["rank"] + " " if len(ranks) > 1 else "") + \
                    r["window"][r["window"].index("#"):]
                want[label] = float(r["path_us"]) / 1000
        got = {k: sum(v for v in row.values() if v is not None) for k, row in table.items()}
        c.eq(f"{what}: critical-path chart: a column per iteration", sorted(got), sorted(want))
        c.true(f"{what}: critical-path chart: each column adds up to the path's length",
               all(k in got and near(got[k], v) for k, v in want.items()), (got, want))


EVIL = [
    'k"quote\\back`touch PWNED`@macro_x&y{z}^2',
    'system("touch PWNED")',
    "line1\nline2 'single' \\\" end",
    "@PWN `touch PWNED` ${HOME} $(touch PWNED)",
    "trail\\",
    "'; system('touch PWNED'); '",
]


def evil_trace(path):
    """A small Kineto trace: 3 steps, each launching every evil kernel."""
    ev, corr, t = [], 1, 0
    for step in range(3):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}",
                   "pid": 1, "tid": 1, "ts": t, "dur": 1000})
        for i, name in enumerate(EVIL):
            ev.append({"ph": "X", "cat": "cpu_op", "name": "op " + name, "pid": 1, "tid": 1,
                       "ts": t + 10 + 100 * i, "dur": 50})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": 1, "ts": t + 20 + 100 * i, "dur": 5, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                       "ts": t + 30 + 100 * i, "dur": 40 + 10 * i,
                       "args": {"stream": 7, "correlation": corr, "device": 0}})
            corr += 1
        t += 1000
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


def pwned(root):
    return [os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs if "PWNED" in f]


def test_adversarial(c, tmp):
    work = os.path.join(tmp, "evil")
    os.makedirs(work)
    trace = os.path.join(work, "evil.json")
    evil_trace(trace)
    out = os.path.join(work, "out")
    run_name = "r'`touch PWNED`\n@x system(\"touch PWNED\")"
    p = subprocess.run([PROFDB, "report", "--run", run_name, "--out", out, trace],
                       cwd=work, capture_output=True, text=True)
    c.eq("adversarial: report --out exit", p.returncode, 0)
    if p.returncode:
        print(p.stderr)
        return
    charts = check_folder(c, out, "adversarial", rendered=bool(GNUPLOT))
    c.true("adversarial: kernel charts written", "top-kernels" in charts and "top-ops" in charts,
           str(charts))
    if GNUPLOT:
        check_gnuplot(c, out, charts, "adversarial")
        svg = open(os.path.join(out, "top-kernels.svg")).read()
        # The labels print as written (quotes, backquotes, @, braces kept).
        c.true("adversarial: label text in the SVG", "`touch PWNED`@macro_x&amp;y{z}^2" in svg)
    # Before and after: two hostile runs diffed into a folder of paired bars.
    slow = os.path.join(work, "evil-slow.json")
    with open(trace) as f:
        t = json.load(f)
    for e in t["traceEvents"]:
        if e["cat"] == "kernel":
            e["dur"] *= 2
    with open(slow, "w") as f:
        json.dump(t, f)
    db = os.path.join(work, "d.db")
    run("ingest", "--run", run_name, trace, db=db)
    run("ingest", "--run", run_name + " slow", slow, db=db)
    diff = os.path.join(work, "diff")
    p = subprocess.run([PROFDB, "--db", db, "diff", run_name, run_name + " slow", "--out", diff],
                       cwd=work, capture_output=True, text=True)
    c.true("adversarial diff --out: exit 0", p.returncode == 0, p.stderr)
    if p.returncode == 0:
        charts = [f[:-3] for f in os.listdir(diff) if f.endswith(".gp")]
        c.true("adversarial diff --out: paired kernel chart", "kernels" in charts, str(charts))
        for ch in charts:
            gp = open(os.path.join(diff, ch + ".gp")).read()
            # Only the title, a single-quoted literal, holds the run name;
            # kernel and op names stay in the data file.
            bad = [l for l in gp.splitlines() if "PWNED" in l and not l.startswith("set label 1 '")]
            c.eq(f"adversarial diff {ch}.gp: names from data only in the title", bad, [])
        if GNUPLOT:
            check_gnuplot(c, diff, charts, "adversarial diff")
    c.eq("adversarial: no PWNED file", pwned(tmp) + pwned(os.getcwd()), [])
    if GNUPLOT:
        # Control: the hazard is real. A backquote outside single quotes runs.
        ctl = os.path.join(tmp, "control")
        os.makedirs(ctl)
        with open(os.path.join(ctl, "c.gp"), "w") as f:
            f.write('x = "`touch PWNED_control`"\n')
        subprocess.run([GNUPLOT, "c.gp"], cwd=ctl, capture_output=True)
        c.true("control: unescaped backquotes do run", os.path.exists(
            os.path.join(ctl, "PWNED_control")))
        shutil.rmtree(ctl)
    rows = list(csv.DictReader(io.StringIO(open(os.path.join(out, "kernels.csv"),
                                                newline="").read())))
    # Text cells that a spreadsheet would run as a formula (= + - @ tab CR)
    # or that start with ' get one leading ' (docs/reports.md): drop it.
    def unguard(v):
        return v[1:] if v[:1] == "'" and v[1:2] in ("=", "+", "-", "@", "\t", "\r", "'") else v
    c.eq("adversarial: CSV keeps every kernel name (formula guard undone)",
         sorted(unguard(r["name"]) for r in rows), sorted(EVIL))
    c.true("adversarial: a formula-like name is guarded in the CSV",
           any(r["name"].startswith("'@") for r in rows), str([r["name"] for r in rows]))


def test_adversarial_pstats(c, tmp):
    """pstats function names through the folder chart and `pstats-chart`."""
    import marshal
    work = os.path.join(tmp, "evil-pstats")
    os.makedirs(work)
    stats = {}
    for i, name in enumerate(EVIL):
        stats[("evil.py", i + 1, name)] = (1, 1, 0.001 * (i + 1), 0.002 * (i + 1), {})
    # gnuplot reads tic labels as formats: a path with % failed the plot
    stats[("dir%s/w%d.py", 7, "f")] = (1, 1, 0.5, 0.5, {})
    prof = os.path.join(work, "evil.prof")
    with open(prof, "wb") as f:
        f.write(marshal.dumps(stats))
    out = os.path.join(work, "out")
    p = subprocess.run([PROFDB, "report", "--out", out, prof], cwd=work,
                       capture_output=True, text=True)
    c.eq("adversarial pstats: report --out exit", p.returncode, 0)
    if p.returncode:
        print(p.stderr)
        return
    c.true("adversarial pstats: top-functions chart", os.path.exists(
        os.path.join(out, "top-functions.gp")))
    p = subprocess.run([PROFDB, "report", prof, "pstats-chart"], cwd=work, capture_output=True,
                       text=True)
    c.eq("adversarial pstats: pstats-chart exit", p.returncode, 0)
    if GNUPLOT:
        check_gnuplot(c, out, ["top-functions"], "adversarial pstats")
        g = subprocess.run([GNUPLOT], input=p.stdout, cwd=work, capture_output=True, text=True)
        c.true("adversarial pstats: gnuplot runs pstats-chart", g.returncode == 0 and
               "<svg" in g.stdout, g.stderr[:300])
        c.true("adversarial pstats: a path with % is labelled as it is",
               "dir%s/w%d.py:7(f)" in g.stdout, g.stderr[:300])
    c.eq("adversarial pstats: no PWNED file", pwned(work), [])


def test_no_gnuplot(c, tmp, db):
    out = os.path.join(tmp, "nognuplot")
    env = dict(os.environ, PROFDB_GNUPLOT="")
    p = subprocess.run([PROFDB, "--db", db, "report", "--run", "s-traces", "--out", out],
                       capture_output=True, text=True, env=env)
    c.eq("no gnuplot: exit", p.returncode, 0)
    c.true("no gnuplot: says how to render", "gnuplot" in p.stderr and ".gp" in p.stderr, p.stderr)
    files = os.listdir(out)
    c.true("no gnuplot: scripts written, no PNG",
           any(f.endswith(".gp") for f in files) and not any(f.endswith(".png") for f in files))
    check_folder(c, out, "no gnuplot", rendered=False)


def test_failing_gnuplot(c, tmp, db):
    """gnuplot renders a folder's charts side by side while the tables are
    written (render/chart.c): with a gnuplot that fails on two charts the
    folder is still written, the exit is 2 and the message names the first
    of them in the folder's chart order, as when the charts were drawn one
    after the other; every chart before it was drawn, none twice."""
    fake = os.path.join(tmp, "fake-gnuplot")
    log = os.path.join(tmp, "fake-gnuplot.log")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho \"$1\" >> %s\ncase $1 in\n"
                "  kernel-types.gp|top-ops.gp) echo \"line 3: boom in $1\" >&2; exit 1 ;;\n"
                "esac\nsleep 0.2\n" % shlex.quote(log))
    os.chmod(fake, 0o755)
    out = os.path.join(tmp, "failing-gnuplot")
    p = subprocess.run([PROFDB, "--db", db, "report", "--run", "s-traces", "--out", out],
                       capture_output=True, text=True, env=dict(os.environ, PROFDB_GNUPLOT=fake))
    c.eq("failing gnuplot: exit", p.returncode, 2)
    md = open(os.path.join(out, "index.md")).read()
    order = re.findall(r"\[gnuplot script\]\(([a-z-]+\.gp)\)", md)
    failing = [g for g in order if g in ("kernel-types.gp", "top-ops.gp")]
    c.true("failing gnuplot: both failing charts in the folder", len(failing) == 2, order)
    if len(failing) == 2:
        first, second = failing
        c.true("failing gnuplot: the first failing chart in chart order named, its message",
               f"gnuplot {first} failed: line 3: boom in {first}" in p.stderr
               and second not in p.stderr, p.stderr)
        ran = open(log).read().split()
        before = order[:order.index(first) + 1]
        c.true("failing gnuplot: every chart up to the first failing one drawn, none twice",
               set(before) <= set(ran) and len(ran) == len(set(ran)), (ran, before))
    c.true("failing gnuplot: the tables are written",
           os.path.exists(os.path.join(out, "kernels.csv")))


def test_oneshot(c, tmp):
    traces = os.path.join(SOURCE, "samples", "traces")
    rc, out, _ = run("report", traces, check=False)
    c.eq("one-shot overview exit", rc, 0)
    c.true("one-shot overview: traces and findings", "traces: 2 (ranks: 2)" in out and
           "key findings" in out, out[:400])
    rc, out, _ = run("report", traces, "kernels", "--format", "json", check=False)
    c.true("one-shot kernels json", rc == 0 and len(json.loads(out)) > 0)
    rc, _, err = run("report", os.path.join(tmp, "no-such-file"), check=False)
    c.true("unknown argument: exit 2 and message", rc == 2 and "unknown report" in err, err)
    rc, _, err = run("report", traces, "kernels", "--out", os.path.join(tmp, "x"), check=False)
    c.true("--out with report names: exit 2", rc == 2, err)


def main():
    c = Checker()
    if not GNUPLOT:
        missing_part("gnuplot is not installed (scripts/deps.sh installs it): "
                     "charts are not rendered")
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        s = os.path.join(SOURCE, "samples")
        samples = [("s-traces", os.path.join(s, "traces")),
                   ("s-pstats", os.path.join(s, "pstats", "sample.prof")),
                   ("s-steplog", os.path.join(s, "steplogs", "generic_trainer.log"))]
        # Two ranks in a JSONL step log: rank 1 is the straggler.
        ranks = os.path.join(tmp, "ranks.jsonl")
        with open(ranks, "w") as f:
            for step in range(1, 6):
                for rank in (0, 1):
                    f.write(json.dumps({"step": step, "rank": rank, "time_forward_ms": 30 + rank * 9,
                                        "time_backward_ms": 60 + step, "loss": 2.0}) + "\n")
        samples.append(("s-ranks", ranks))
        # Every step equally long: 4 steps are dots on a strip, 60 a
        # histogram; either way around the one value.
        for name, steps in (("s-same", 4), ("s-same-many", 60)):
            same = os.path.join(tmp, name + ".jsonl")
            with open(same, "w") as f:
                for step in range(1, steps + 1):
                    f.write(json.dumps({"step": step, "time_forward_ms": 30}) + "\n")
            samples.append((name, same))
        # nvidia-smi samples of two GPUs.
        smi = os.path.join(tmp, "smi.csv")
        with open(smi, "w") as f:
            f.write("timestamp, index, utilization.gpu [%], memory.used [MiB]\n")
            for t in range(6):
                for gpu in (0, 1):
                    f.write(f"2025/03/30 19:25:0{t}.000, {gpu}, {10 * t + 5 * gpu} %, 100 MiB\n")
        samples.append(("s-smi", smi))
        # A profile_memory trace (tests/traces): the memory timeline.
        samples.append(("s-memory", os.path.join(SOURCE, "tests", "traces",
                                                 "train_memory.trace.json.gz")))
        for name, path in samples:
            run("ingest", "--run", name, path, db=db)
        seen = set()
        for name, _ in samples:
            out = os.path.join(tmp, "out-" + name)
            run("report", "--run", name, "--out", out, db=db)
            charts = check_folder(c, out, name, db=db, run_name=name, rendered=bool(GNUPLOT))
            seen.update(charts)
            check_timelines(c, out, charts, name, lambda *a, name=name: list(csv.DictReader(
                io.StringIO(run("report", "--run", name, *a, "--format", "csv", db=db)[1]))))
            if GNUPLOT:
                check_gnuplot(c, out, charts, name)
        want = {"steps", "gpu", "kernel-types", "top-kernels", "top-ops", "rank-steps",
                "step-hist", "top-functions", "phase-steps", "phase-hist", "phase-ranks", "gpu-util",
                "critical-path", "queue-length", "memory-bw", "memory"}
        c.eq("every chart kind drawn from the samples", sorted(want - seen), [])
        dat = open(os.path.join(tmp, "out-s-ranks", "phase-ranks.dat")).read().splitlines()
        util = open(os.path.join(tmp, "out-s-smi", "gpu-util.dat")).read().splitlines()
        c.eq("gpu-util: numeric time column, a column per GPU", util[1:4],
             ['"label" "GPU 0" "GPU 1"', "0 0 5", "1 10 15"])
        gp = open(os.path.join(tmp, "out-s-same", "phase-hist.gp")).read()
        m = re.search(r"set xrange \[([-\d.e]+):([-\d.e]+)\]", gp)
        c.true("phase-hist, 4 equal steps: a strip of dots around the value",
               "with points" in gp and "bins=" not in gp and m and
               float(m.group(1)) < 30 < float(m.group(2)), gp)
        gp = open(os.path.join(tmp, "out-s-same-many", "phase-hist.gp")).read()
        c.true("phase-hist, 60 equal steps: a histogram around the value",
               "binrange [28.5:31.5]" in gp and "with boxes" in gp, gp)
        c.eq("phase-ranks: rank 1 is the straggler", [shlex.split(l)[2] for l in dat[2:]],
             ["0", "1"])
        test_adversarial(c, tmp)
        test_adversarial_pstats(c, tmp)
        test_no_gnuplot(c, tmp, db)
        test_failing_gnuplot(c, tmp, db)
        test_oneshot(c, tmp)
        d = have_corpus("traces")
        if d:
            traces = checked_subset([f for f in sorted(os.listdir(d)) if f.endswith(".gz")], 8,
                                    "corpus traces")
            for f in traces:
                out = os.path.join(tmp, "corpus-" + f)
                rc, _, err = run("report", os.path.join(d, f), "--out", out, check=False)
                c.eq(f"corpus {f}: report --out exit", rc, 0)
                if rc == 0:
                    charts = check_folder(c, out, f, rendered=bool(GNUPLOT))
                    check_labels(c, out, charts, f)
                    check_timelines(c, out, charts, f,
                                    reports_of(os.path.join(d, f), os.path.join(tmp, f + ".db")))
                    if GNUPLOT:
                        check_gnuplot(c, out, charts, f, again=False)
    c.close()


if __name__ == "__main__":
    main()
