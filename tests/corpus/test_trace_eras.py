"""Traces of other eras, vendors and job shapes (tests/traces/eras/, see its
PROVENANCE) against HTA's own answers (oracle.json there, made by
make_oracles.py from ../shared/anchors/hta), and every spelling of Kineto's
categories and arg names (ingest/trace/kineto_spellings.def) on a corpus trace.

Per folder (one run), each of three reports on its own: `gpu --compat hta`
equals HTA's temporal breakdown per rank; `idle --compat hta` equals HTA's
idle time breakdown per rank, stream and category; `kernel-types --compat
hta` equals HTA's kernel-type breakdown, one total over the folder's ranks as
HTA gives it (and on two ranks of a corpus job: the sum of HTA's answers per
rank; --by rank each rank's). Where HTA raises instead of answering (no GPU
events; its own assertions failing on events its rounding leaves of negative
length), profdb's report does not apply either (one line, exit 2). The exact
`idle` follows its documented rule (docs/reports.md), recomputed here from
the raw trace: gaps between kernels, copies and sets (not sync records); a
kernel whose launch is not in the trace counts as queued. Where HTA's loading
conventions change nothing (whole-microsecond timestamps, no step to drop),
the exact idle total and kernel types equal HTA's too.

Per spelling: the corpus trace with today's spellings and the same trace with
one of them written as an older profiler wrote it give the same reports, and
trace_spellings says what the file wrote."""

import glob
import gzip
import json
import os
import re
import sqlite3

from common import SOURCE, Checker, have_corpus, run, run_json, tempdir
from trace_oracle import events_of, is_gpu_work

ERAS = os.path.join(SOURCE, "tests", "traces", "eras")
KERNEL_WAIT_NS = 30000  # HTA's consecutive_kernel_delay
SPELLED_REPORTS = [("gpu",), ("gpu", "--compat", "hta"), ("idle",), ("idle", "--compat", "hta"),
                   ("kernel-types",), ("kernel-types", "--compat", "hta"), ("kernels",),
                   ("ops",), ("launch",)]


def traces_in(folder):
    return sorted(p for p in glob.glob(os.path.join(folder, "*.json*"))
                  if not p.endswith("oracle.json"))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def hta_neutral(db):
    """Whether HTA's loading changes nothing: no fractional timestamps (no
    rounding) and fewer than two profiler steps (no step dropped)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        floats = con.execute("SELECT sum(float_ts) FROM traces").fetchone()[0]
        steps = con.execute("SELECT max(n) FROM (SELECT count(DISTINCT name) AS n"
                            " FROM trace_steps GROUP BY trace_id)").fetchone()[0]
    finally:
        con.close()
    return not floats and (steps or 0) < 2


def exact_idle(events):
    """{stream: [host, kernel, other]} in ns by the exact mode's rule: GPU
    events of HTA's idle categories in start order; a gap is measured from
    the latest end so far; host wait when the launching runtime call (the
    earliest CPU event of the correlation) started after that end, else
    kernel wait under 30 us, else other. No launch in the trace: queued."""
    launch = {}
    gpu = []
    for e in events:
        args = e.get("args") or {}
        s = e["s"]
        if is_gpu_work(e):
            gpu.append((s, s - e["e"], args["stream"], args.get("correlation")))
        elif "stream" not in args and args.get("correlation") is not None:
            c = args["correlation"]
            launch[c] = min(launch.get(c, s), s)
    out = {}
    prev = {}
    for s, neg_dur, stream, corr in sorted(gpu, key=lambda g: (g[0], g[1])):
        end = s - neg_dur
        acc = out.setdefault(str(stream), [0, 0, 0])
        if str(stream) in prev:
            gap = s - prev[str(stream)]
            if corr in launch and launch[corr] > prev[str(stream)]:
                acc[0] += max(gap, 0)
            elif gap < KERNEL_WAIT_NS:
                acc[1] += max(gap, 0)
            else:
                acc[2] += gap
        prev[str(stream)] = max(prev.get(str(stream), end), end)
    return out


def refused(c, db, name, what, *args):
    """HTA raised instead of answering (its error in oracle.json): profdb's
    --compat hta report does not apply either, by the rule for reports that
    do not apply (one line, exit 2)."""
    code, out, err = run("report", "--run", name, *args, db=db, check=False)
    c.true(f"{name}: {what}: no answer, as HTA has none", code == 2 and "does not apply" in err,
           (code, out, err))


def check_folder(c, db, folder):
    name = os.path.basename(folder.rstrip("/"))
    oracle = json.load(open(os.path.join(folder, "oracle.json")))
    paths = traces_in(folder)
    run("ingest", "--quiet", "--run", name, *paths, db=db)
    gpu_events = sum(oracle["gpu_events"].values())
    tb = oracle["temporal_breakdown"]
    if "error" in tb:
        refused(c, db, name, "gpu --compat hta", "gpu", "--compat", "hta")
    else:
        gpu = {r["rank"]: r for r in run_json("report", "--run", name, "gpu", "--compat", "hta",
                                              db=db)}
        for want in tb:
            got = gpu.get(want["rank"], {})
            for ours, theirs in [("kernel_time_us", "kernel_time(us)"),
                                 ("idle_us", "idle_time(us)"),
                                 ("compute_us", "compute_time(us)"),
                                 ("non_compute_us", "non_compute_time(us)"),
                                 ("idle_pct", "idle_time_pctg"),
                                 ("compute_pct", "compute_time_pctg"),
                                 ("non_compute_pct", "non_compute_time_pctg")]:
                c.eq(f"{name} rank {want['rank']} gpu {ours}", got.get(ours), want[theirs])
            c.eq(f"{name} rank {want['rank']} gpu events", got.get("gpu_events"),
                 oracle["gpu_events"][str(want["rank"])])

    ib = oracle["idle_time_breakdown"]
    if "error" in ib:
        refused(c, db, name, "idle --compat hta", "idle", "--compat", "hta")
        refused(c, db, name, "idle", "idle")
        want = None
    else:
        want = check_idle(c, db, name, ib)
    if want is not None:
        check_exact_idle(c, db, name, paths, want)

    kb = oracle["kernel_type_breakdown"]
    if "error" in kb or (not kb and gpu_events == 0):
        # HTA gives an empty table for a run without GPU events; profdb's rule
        # for a report that does not apply is one line and exit 2.
        refused(c, db, name, "kernel-types --compat hta", "kernel-types", "--compat", "hta")
        return
    want_types = {r["kernel_type"]: (r["sum"], r["percentage"]) for r in kb if r["sum"] > 0}
    modes = [("--compat", "hta")] + ([()] if hta_neutral(db) else [])
    for mode in modes:
        rows = run_json("report", "--run", name, "kernel-types", *mode, db=db)
        c.eq(f"{name} kernel-types {' '.join(mode) or 'exact'} (total over ranks)",
             type_totals(rows), want_types)
    hta_rows = run_json("report", "--run", name, "kernel-types", "--compat", "hta", db=db)
    c.true(f"{name} kernel-types --compat hta: HTA's shape, one row per type",
           all("rank" not in r for r in hta_rows)
           and len({r["kernel_type"] for r in hta_rows}) == len(hta_rows), hta_rows)


def check_idle(c, db, name, ib):
    """idle --compat hta against HTA's idle time breakdown; HTA's answer as
    {(rank, stream, column): us}."""
    cats = {"host_wait": "host_wait_us", "kernel_wait": "kernel_wait_us", "other": "other_us"}
    want = {}
    for r in ib:
        key = (r["rank"], str(r["stream"]), cats[r["idle_category"]])
        want[key] = round(r["idle_time"], 2)
    got = {}
    for r in run_json("report", "--run", name, "idle", "--compat", "hta", db=db):
        for col in cats.values():
            if round(r[col], 2) or (r["rank"], str(r["stream"]), col) in want:
                got[(r["rank"], str(r["stream"]), col)] = round(r[col], 2)
    c.eq(f"{name} idle --compat hta", got, want)
    return want


def check_exact_idle(c, db, name, paths, want):
    """The exact idle by its documented rule, recomputed from the raw trace;
    where HTA's loading changes nothing, its total equals HTA's."""
    exact = run_json("report", "--run", name, "idle", db=db)
    ranks = {r["rank"] for r in exact}
    if len(paths) == 1 and len(ranks) == 1:
        rank = ranks.pop()
        rule = {s: [v / 1000 for v in acc] for s, acc in exact_idle(events_of(paths[0])).items()}
        c.eq(f"{name} idle (exact rule)",
             {str(r["stream"]): [r["host_wait_us"], r["kernel_wait_us"], r["other_us"]]
              for r in exact if r["rank"] == rank}, rule)
    if hta_neutral(db):
        hta_total = {}
        for (rank, stream, _), v in want.items():
            hta_total[(rank, stream)] = round(hta_total.get((rank, stream), 0) + v, 2)
        c.eq(f"{name} exact idle total = HTA's",
             {(r["rank"], str(r["stream"])): round(r["idle_us"], 2) for r in exact
              if (r["rank"], str(r["stream"])) in hta_total}, hta_total)


def type_totals(rows):
    """{kernel type: (time, percentage as HTA rounds it)} over the rows' ranks."""
    sums = {}
    for r in rows:
        sums[r["kernel_type"]] = sums.get(r["kernel_type"], 0) + r["time_us"]
    total = sum(sums.values())
    return {k: (v, round(v / total * 100, 1)) for k, v in sums.items()}


def check_rank_totals(c, tmp, oracles):
    """Two ranks of one job (the corpus's sampled ranks): kernel-types
    --compat hta is HTA's one total over the folder (the sums of HTA's answers
    per rank, percentages of their total); --by rank gives each rank's."""
    db = os.path.join(tmp, "ranks.db")
    paths, want, per_rank = [], {}, {}
    for rank in (0, 1):
        oracle = json.load(open(os.path.join(oracles, f"trace_filter_sampled_rank-{rank}.json")))
        paths.append(have_corpus("traces", oracle["trace_file"]))
        rows = oracle["per_rank"][str(rank)]["kernel_type_breakdown"]
        per_rank[rank] = {r["kernel_type"]: r["sum"] for r in rows if r["sum"] > 0}
        for k, v in per_rank[rank].items():
            want[k] = want.get(k, 0) + v
    run("ingest", "--quiet", "--run", "ranks", *paths, db=db)
    total = sum(want.values())
    c.eq("two ranks: kernel-types --compat hta", type_totals(
        run_json("report", "kernel-types", "--compat", "hta", db=db)),
        {k: (v, round(v / total * 100, 1)) for k, v in want.items()})
    got = {}
    for r in run_json("report", "kernel-types", "--compat", "hta", "--by", "rank", db=db):
        got.setdefault(r["rank"], {})[r["kernel_type"]] = r["time_us"]
    c.eq("two ranks: kernel-types --compat hta --by rank", got, per_rank)


def spellings():
    """The table's rows: ('cat', written, canonical, flows_only) and
    ('arg', written, canonical, False)."""
    text = open(os.path.join(SOURCE, "ingest", "trace", "kineto_spellings.def")).read()
    rows = [("cat", w, c, f == "true") for w, c, f in
            re.findall(r'^PDB_CAT_SPELLING\("([^"]+)", "([^"]+)", (true|false)\)', text, re.M)]
    rows += [("arg", w, c, False) for w, c in
             re.findall(r'^PDB_ARG_SPELLING\("([^"]+)", \w+, "([^"]+)"\)', text, re.M)]
    return rows


def respelled(events, kind, written, canonical, flows_only):
    """The events with `canonical` written the older way; the number changed.
    A flow category the trace does not have is tried on its launch flows."""
    flow = {"s", "t", "f"}
    target = canonical
    if kind == "cat" and not any(e.get("cat") == canonical for e in events):
        target = "ac2g"
    out, n = [], 0
    for e in events:
        e = dict(e)
        if kind == "cat" and e.get("cat") == target and (e.get("ph") in flow or not flows_only):
            e["cat"] = written
            n += 1
        elif kind == "arg" and canonical in (e.get("args") or {}):
            e["args"] = {(written if k == canonical else k): v for k, v in e["args"].items()}
            n += 1
        out.append(e)
    return out, n


def check_spellings(c, tmp, base):
    doc_events = load(base)
    reports = {}
    db = os.path.join(tmp, "base.db")
    run("ingest", "--quiet", "--run", "base", base, db=db)
    for args in SPELLED_REPORTS:
        reports[args] = run("report", *args, "--format", "json", db=db)[1]
    for kind, written, canonical, flows_only in spellings():
        events, n = respelled(doc_events, kind, written, canonical, flows_only)
        what = f"{kind} {written!r} -> {canonical!r}"
        c.true(f"{what}: the derived trace has it", n > 0)
        path = os.path.join(tmp, "old.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)
        db = os.path.join(tmp, "old_" + re.sub(r"\W", "_", written) + ".db")
        run("ingest", "--quiet", "--run", "old", path, db=db)
        for args in SPELLED_REPORTS:
            c.eq(f"{what}: report {' '.join(args)} as with today's spelling",
                 run("report", *args, "--format", "json", db=db)[1], reports[args])
        stored = run_json("sql", "SELECT kind, written, canonical, events FROM trace_spellings",
                          db=db)
        c.eq(f"{what}: trace_spellings", stored,
             [{"kind": kind, "written": written, "canonical": canonical, "events": n}])
        if kind == "cat":
            where = "flows" if flows_only else "slices"
            got = run_json("sql", f"SELECT count(*) AS n FROM {where} JOIN strings ON"
                           f" strings.id = {where}.cat WHERE value = '{canonical}'", db=db)
            c.true(f"{what}: stored as {canonical!r}", got[0]["n"] >= n, got)


def check_flows_only(c, tmp, base):
    """A flow category of older profilers ("async") is not rewritten on other
    events, where the name means something else."""
    events = [dict(e, cat="async") if e.get("ph") == "X" and e.get("cat") == "user_annotation"
              else e for e in load(base)]
    path = os.path.join(tmp, "async.json")
    with open(path, "w") as f:
        json.dump({"traceEvents": events}, f)
    db = os.path.join(tmp, "async.db")
    run("ingest", "--quiet", path, db=db)
    got = run_json("sql", "SELECT count(*) AS n FROM slices JOIN strings ON strings.id ="
                   " slices.cat WHERE value = 'async'", db=db)
    c.true("'async' on a slice stays 'async'", got[0]["n"] > 0, got)


def main():
    c = Checker()
    folders = sorted(glob.glob(os.path.join(ERAS, "*/")))
    c.true("tests/traces/eras has traces", len(folders) > 0, ERAS)
    with tempdir() as tmp:
        db = os.path.join(tmp, "eras.db")
        for folder in folders:
            check_folder(c, db, folder)
        base = have_corpus("traces",
                           "critical_path_simple_add_benchmark_result_493459_1694039959"
                           "_trace.json.gz")
        if base:
            check_spellings(c, tmp, base)
            check_flows_only(c, tmp, base)
            check_rank_totals(c, tmp, have_corpus("traces", "oracles"))
    c.close()


if __name__ == "__main__":
    main()
