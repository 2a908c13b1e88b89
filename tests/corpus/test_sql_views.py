#!/usr/bin/env python3
"""SQL without traps (schema version 14): the per-mode views of the analysis
tables with a mode column, the run name on slice_view and gpu_events, and the
reports' short_name() in `profdb sql`. Schema version 17: the run name, a
last column run, on the older views too (RUN_VIEWS), checked on the corpus
runs, a step log, and a database migrated from version 9.

On two corpus runs (trace_filter_sampled, two ranks; the AlexNet benchmark
trace) every view's rows and sums must equal what the reports print in that
mode (exact by default, hta with --compat hta), while a plain SUM over the
mixed table counts both modes; slice_view.run must name each slice's run; and
short_name() must give exactly the names the kernels table prints (with the
table's tag where two full names share a short form); short_name(name, W)
fits W columns."""

import gzip
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (SOURCE, Checker, need_corpus, q, run, run_json, sql,  # noqa: E402
                    tempdir)

RUNS = {
    "sampled": ["trace_filter_sampled_rank-0.json.gz", "trace_filter_sampled_rank-1.json.gz"],
    "alex": ["critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"],
}
ALL = ("--top", "1000000")


def report(db, name, what, mode, *extra):
    compat = ("--compat", "hta") if mode == "hta" else ()
    return run_json("report", "--run", name, what, *compat, "--unit", "ns", *extra, db=db)


def view(db, name, mode, table, cols):
    return sql(db, f"SELECT {cols} FROM {table}_{mode} WHERE run = {q(name)}")


def check_run(c, db, name, mode):
    tag = f"{name} {mode}"
    # kernels: every row, and the sums per rank
    got = {(r["rank"], r["name"]): (r["kernel_type"], r["count"], r["total_ns"], r["min_ns"],
                                    r["max_ns"])
           for r in view(db, name, mode, "kernels",
                         "rank, name, kernel_type, count, total_ns, min_ns, max_ns")}
    want = {(r["rank"], r["name"]): (r["kernel_type"], r["count"], r["total_ns"], r["min_ns"],
                                     r["max_ns"])
            for r in report(db, name, "kernels", mode, "--names", "full", *ALL)}
    c.true(f"{tag}: kernels", got == want and len(got) > 3, (len(got), len(want)))
    sums = {r["rank"]: r["s"] for r in sql(db, f"SELECT rank, sum(total_ns) AS s FROM kernels_{mode}"
                                               f" WHERE run = {q(name)} GROUP BY rank")}
    rsums = {}
    for (rank, _), v in want.items():
        rsums[rank] = rsums.get(rank, 0) + v[2]
    c.eq(f"{tag}: kernels: sum(total_ns) per rank", sums, rsums)
    if mode == "exact":
        gpu = report(db, name, "gpu", mode)
        c.eq(f"{tag}: kernels: the sum is the gpu report's event_sum",
             sums, {r["rank"]: r["event_sum_ns"] for r in gpu})
        plain = sql(db, "SELECT sum(total_ns) AS s FROM analysis_kernels k JOIN runs r"
                        f" USING (run_id) WHERE r.name = {q(name)}")[0]["s"]
        hta = sql(db, f"SELECT sum(total_ns) AS s FROM kernels_hta WHERE run = {q(name)}")[0]["s"]
        c.true(f"{tag}: a plain SUM over analysis_kernels counts both modes (the trap)",
               plain == sum(sums.values()) + hta and hta > 0, (plain, sums, hta))

    # gpu: the temporal breakdown
    cols = "rank, gpu_events, kernel_time_ns, busy_ns, idle_ns, compute_ns, non_compute_ns"
    got = {r["rank"]: r for r in view(db, name, mode, "gpu", cols)}
    for r in report(db, name, "gpu", mode):
        g = got.get(r["rank"], {})
        span = r["span_ns"] if mode == "exact" else r["kernel_time_ns"]
        c.eq(f"{tag}: gpu rank {r['rank']}",
             (g.get("gpu_events"), g.get("kernel_time_ns"), g.get("idle_ns"),
              g.get("compute_ns"), g.get("non_compute_ns")),
             (r["gpu_events"], span, r["idle_ns"], r["compute_ns"], r["non_compute_ns"]))
        if mode == "exact":
            c.eq(f"{tag}: gpu rank {r['rank']} busy", g.get("busy_ns"), r["busy_ns"])
    c.eq(f"{tag}: gpu: one row per rank", len(got), len(RUNS[name]))

    # kernel types: per rank (exact), summed over ranks (hta, HTA's shape)
    if mode == "exact":
        got = {(r["rank"], r["kernel_type"]): r["time_ns"]
               for r in view(db, name, mode, "kernel_types", "rank, kernel_type, time_ns")}
        want = {(r["rank"], r["kernel_type"]): r["time_ns"]
                for r in report(db, name, "kernel-types", mode)}
    else:
        got = {r["kernel_type"]: r["t"] for r in
               sql(db, "SELECT kernel_type, sum(time_ns) AS t FROM kernel_types_hta"
                       f" WHERE run = {q(name)} GROUP BY kernel_type")}
        want = {r["kernel_type"]: r["time_ns"] for r in report(db, name, "kernel-types", mode)}
    c.true(f"{tag}: kernel types", got == want and got, (got, want))

    # idle time per stream
    got = {(r["rank"], str(r["stream"])): (r["events"], r["host_wait_ns"], r["kernel_wait_ns"],
                                           r["other_ns"])
           for r in view(db, name, mode, "idle",
                         "rank, stream, events, host_wait_ns, kernel_wait_ns, other_ns")}
    want = {(r["rank"], str(r["stream"])): (r["events"], r["host_wait_ns"], r["kernel_wait_ns"],
                                            r["other_ns"])
            for r in report(db, name, "idle", mode)}
    c.true(f"{tag}: idle", got == want and got, (got, want))

    # launch queue: points per stream
    points = "points" if mode == "exact" else "count"
    got = {(r["rank"], str(r["stream"])): r["n"] for r in
           sql(db, f"SELECT rank, stream, sum(points) AS n FROM queue_{mode}"
                   f" WHERE run = {q(name)} GROUP BY rank, device, stream")}
    want = {(r["rank"], str(r["stream"])): r[points] for r in report(db, name, "queue-length",
                                                                     mode)}
    c.true(f"{tag}: queue length points", got == want and got, (got, want))
    ranks = view(db, name, mode, "queue_ranks", "rank")
    c.eq(f"{tag}: queue_ranks: one row per rank", len(ranks), len(RUNS[name]))

    # annotations, HTA's shape (kind, name: count and total)
    if mode == "hta":
        got = {(r["rank"], r["kind"], r["name"]): (r["count"], r["total_ns"]) for r in
               view(db, name, mode, "annotations", "rank, kind, name, count, total_ns")}
        want = {(r["rank"], r["kind"], r["name"]): (r["count"], r["sum_ns"])
                for r in report(db, name, "annotations", mode, "--names", "full", *ALL)}
        c.true(f"{tag}: annotations", got == want and got, (len(got), len(want)))


def check_short_names(c, db, name):
    """short_name() in profdb sql: the names the kernels table prints (the
    table's query adds name_tag() where two full names of a rank share one)."""
    rows = sql(db, "SELECT rank, short_name(name) AS s, name_tag(name) AS tag, total_ns"
                   f" FROM kernels_exact WHERE run = {q(name)}")
    shared = {}
    for r in rows:
        shared[(r["rank"], r["s"])] = shared.get((r["rank"], r["s"]), 0) + 1
    got = sorted((r["rank"], r["s"] + (f" [{r['tag']}]" if shared[(r["rank"], r["s"])] > 1
                                       else ""), r["total_ns"]) for r in rows)
    want = sorted((r["rank"], r["name"], r["total_ns"])
                  for r in report(db, name, "kernels", "exact", "--names", "short", *ALL))
    c.eq(f"{name}: short_name() gives the kernels table's names", got, want)
    c.true(f"{name}: short names differ from the full names",
           any(r["s"] != f for r, f in zip(rows, [x["name"] for x in sql(
               db, f"SELECT name FROM kernels_exact WHERE run = {q(name)}")])))
    if name == "sampled":
        c.true(f"{name}: two kernels share a short form (the tag is tested)",
               any(n > 1 for n in shared.values()), shared)
    # the table format (piped: not fitted) prints the same names
    _, table, _ = run("report", "--run", name, "kernels", *ALL, "--width", "0", db=db)
    c.true(f"{name}: every short name is in the table",
           all(n in table for _, n, _ in got), table[:300])
    # short_name(name, W): W columns at most, the short form's first word kept
    for w in (12, 30):
        cut = sql(db, f"SELECT short_name(name) AS s, short_name(name, {w}) AS c"
                      f" FROM kernels_exact WHERE run = {q(name)}")
        c.true(f"{name}: short_name(name, {w}) fits {w} columns",
               all(len(r["c"]) <= w for r in cut), [r["c"] for r in cut][:5])
        c.true(f"{name}: short_name(name, {w}) cuts only what is longer, with '…'",
               all((r["c"] == r["s"]) == (len(r["s"]) <= w) and
                   (r["c"] == r["s"] or "…" in r["c"]) for r in cut), cut[:5])
    c.eq("short_name(NULL), short_name(name, NULL)",
         sql(db, "SELECT short_name(NULL) AS a, short_name('x', NULL) AS b"),
         [{"a": None, "b": None}])
    code, _, err = run("sql", "SELECT short_name('x', -1)", db=db, check=False)
    c.true("short_name(name, -1) is an error", code != 0 and "width" in err, err)


RUN_VIEWS = ("analysis_kernels", "analysis_ops", "analysis_op_steps", "gpu_attribution",
             "analysis_annotations", "process_names", "thread_names", "steplog_points",
             "steplog_values")


def check_run_names(c, db, what, runs):
    """Each of RUN_VIEWS names each row's run (runs.name of its run_id), and
    the runs that have rows there are among runs."""
    seen = set()
    for v in RUN_VIEWS:
        bad = sql(db, f"SELECT count(*) AS n FROM {v} v WHERE run IS NOT"
                      " (SELECT name FROM runs r WHERE r.run_id = v.run_id)")[0]["n"]
        names = {r["run"] for r in sql(db, f"SELECT DISTINCT run FROM {v}")}
        c.true(f"{what}: {v}.run names each row's run", bad == 0 and names <= set(runs),
               (bad, names))
        seen |= names
    c.eq(f"{what}: every run has rows in the views", seen, set(runs))


def check_migrated(c, tmp):
    """Migration 014 on a database of schema version 9 (tests/migrate/v9.db.gz,
    a trace run analysed in both modes): the views hold each mode's rows."""
    db = os.path.join(tmp, "v9.db")
    with gzip.open(os.path.join(SOURCE, "tests", "migrate", "v9.db.gz")) as src, \
            open(db, "wb") as dst:
        shutil.copyfileobj(src, dst)
    run("migrate", "--db", db)
    for mode in ("exact", "hta"):
        got = sql(db, f"SELECT run, count(*) AS n, sum(total_ns) AS t FROM kernels_{mode}"
                      " GROUP BY run")
        want = sql(db, "SELECT r.name AS run, count(*) AS n, sum(total_ns) AS t FROM"
                       f" analysis_kernels k JOIN runs r USING (run_id) WHERE mode = '{mode}'"
                       " GROUP BY r.name")
        c.true(f"migrated v9: kernels_{mode}", got == want and got[0]["n"] > 0, (got, want))
    got = sql(db, "SELECT run, count(*) AS n FROM slice_view GROUP BY run")
    c.true("migrated v9: slice_view names the run", len(got) == 1 and got[0]["run"] == "trace"
           and got[0]["n"] > 0, got)
    runs = [r["name"] for r in sql(db, "SELECT name FROM runs")]
    c.true("migrated v9: a trace run and step-log runs", "trace" in runs and len(runs) > 1, runs)
    check_run_names(c, db, "migrated v9", runs)


def main():
    c = Checker()
    with tempdir() as tmp:
        check_migrated(c, tmp)
    traces = need_corpus("traces")
    with tempdir() as tmp:
        db = os.path.join(tmp, "v.db")
        for name, files in RUNS.items():
            run("ingest", "--run", name, *[os.path.join(traces, f) for f in files], db=db)
        # the run's name on slice_view and gpu_events
        for v in ("slice_view", "gpu_events"):
            got = {r["run"]: r["n"] for r in sql(db, f"SELECT run, count(*) AS n FROM {v}"
                                                     " GROUP BY run")}
            want = {r["name"]: r["n"] for r in sql(
                db, "SELECT r.name, count(*) AS n FROM slices s JOIN traces t USING (trace_id)"
                    " JOIN runs r USING (run_id)"
                    + (" WHERE s.stream IS NOT NULL AND coalesce((SELECT value FROM strings"
                       " WHERE id = s.cat), '') NOT IN ('cuda_runtime', 'cuda_driver',"
                       " 'hip_runtime', 'cpu_op', 'user_annotation', 'python_function')"
                       if v == "gpu_events" else "") + " GROUP BY r.name")}
            c.true(f"{v}: run names each slice's run", got == want and set(got) == set(RUNS),
                   (got, want))
        run("ingest", "--run", "log", os.path.join(SOURCE, "tests", "steplogs",
                                                    "dllogger_dlperf_rn50_excerpt.log"), db=db)
        check_run_names(c, db, "corpus", list(RUNS) + ["log"])
        for name in RUNS:
            for mode in ("exact", "hta"):
                check_run(c, db, name, mode)
            check_short_names(c, db, name)
        # the views are documented
        _, schema, _ = run("schema")
        for t in ("gpu", "kernel_types", "kernels", "annotations", "idle", "queue",
                  "queue_ranks"):
            for mode in ("exact", "hta"):
                c.true(f"profdb schema: {t}_{mode}", f"CREATE VIEW {t}_{mode} AS" in schema)
    c.close()


if __name__ == "__main__":
    main()
