"""Queue length, memory bandwidth and launch statistics against HTA's own
answers (traces/oracles_more/) on every corpus trace, and exact mode
against an independent recomputation from the raw trace.

--compat hta:
  queue-length  get_queue_length_summary (count, mean, std, quartiles,
                min, max per stream) as HTA computes it with a stable sort
                (the oracle's *_stable_sort entries); where HTA's default
                (unstable) sort gives other numbers, the stream must have
                points sharing a timestamp (the only place the sort order
                matters), and count, min and max must still agree.
                get_time_spent_blocked_on_full_queue for max_queue_length
                1024, 16 and 1 (--by rank --queue-limit M).
  memory-bw     get_memory_bw_summary per kind, and the series itself (--by
                point, every point in HTA's order), as HTA computes them with
                pandas' default (unstable) sort; on the corpus traces no two
                points of a kind share a timestamp, so the traces of
                tests/traces/memory_bw/ (overlapping copies on three streams,
                derive.py; HTA's answers from make_oracles.py) check the order
                at ties, where a stable sort gives other counts (issue 34).
  launch        get_cuda_kernel_launch_stats: the summary and every row in
                HTA's order; --by op: get_aten_op_kernels_and_delay (every
                row, as a set: HTA's order among equal counts is
                unspecified); where HTA raises (no launch inside an aten op,
                a launch without exactly one GPU event), no rows and a
                message saying so.
  kernel-sequences  get_frequent_cuda_kernel_sequences for every operator
                and min_pattern_len the oracle asked (rows in HTA's order:
                pattern, count, GPU kernel and CPU op time); HTA's call-stack
                ValueError (traces with events rounded to -1 us) -> no rows and
                the reason.
exact mode (the definitions in schemas/50_analysis.sql): the queue-length
histogram, the bandwidth series and the per-launch rows recomputed in Python
from the trace file."""

import glob
import gzip
import json
import math
import os
from decimal import Decimal

from common import (SOURCE, Checker, checked_subset, have_corpus, need_corpus, run,
                    run_json, tempdir)
from trace_oracle import events_of, is_gpu

LIMITS = (1024, 16, 1)


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(1.0, abs(b))


def check_queue(c, db, name, rank, pr):
    stable = pr["queue_length_summary_stable_sort"].get("rows") or []
    default = pr["queue_length_summary"].get("rows") or []
    code, out, _ = run("report", "--run", name, "queue-length", "--compat", "hta",
                       "--format", "json", db=db, check=False)
    got = [r for r in (json.loads(out) if out.strip() else []) if r["rank"] == rank]
    c.eq(f"{name} r{rank} queue streams", sorted(r["stream"] for r in got),
         sorted(r["stream"] for r in stable))
    by_stream = {r["stream"]: r for r in got}
    sharing = {s["stream"]: s["n_rows_sharing_ts"]
               for s in pr["queue_length_time_series"].get("per_stream", [])}
    for w in stable:
        g = by_stream.get(w["stream"])
        if not g:
            continue
        for ours, theirs in [("count", "count"), ("mean", "mean"), ("std", "std"),
                             ("min", "min"), ("p25", "25%"), ("p50", "50%"), ("p75", "75%"),
                             ("max", "max")]:
            c.true(f"{name} r{rank} stream {w['stream']} {theirs}", close(g[ours], w[theirs]),
                   f"got {g[ours]} want {w[theirs]}")
    for d in default:
        s = next((x for x in stable if x["stream"] == d["stream"]), None)
        if s is None or all(close(d[k], s[k]) for k in d if k not in ("rank", "stream")):
            continue
        # HTA's unstable sort: only ties can move, so only streams with
        # points sharing a timestamp may differ, and never in count/min/max.
        c.true(f"{name} r{rank} stream {d['stream']} differs only at ties",
               sharing.get(d["stream"], 0) > 0)
        for k in ("count", "min", "max"):
            c.eq(f"{name} r{rank} stream {d['stream']} default {k}", d[k], s[k])
    for entry in pr["time_spent_blocked_on_full_queue"]:
        m = entry["max_queue_length"]
        want = entry["rows_stable_sort"]
        if not stable:
            continue
        rows = [r for r in run_json("report", "--run", name, "queue-length", "--compat", "hta",
                                    "--by", "rank", "--queue-limit", m, db=db)
                if r["rank"] == rank]
        c.eq(f"{name} r{rank} blocked M={m} rows", len(rows), len(want))
        for g, w in zip(rows, want):
            c.eq(f"{name} r{rank} blocked M={m} stream", g["stream"], w["stream"])
            c.true(f"{name} r{rank} blocked M={m} duration",
                   close(g["duration_at_max_queue_length_us"], w["duration_at_max_queue_length"]),
                   f"got {g} want {w}")
            c.true(f"{name} r{rank} blocked M={m} relative",
                   close(g["relative_duration_at_max_queue_length"],
                         w["relative_duration_at_max_queue_length"]), f"got {g} want {w}")


def check_bw_summary(c, db, name, rank, rows):
    """profdb's memory-bw --compat hta against HTA's summary rows of a rank."""
    want = {r["name"]: r for r in rows}
    code, out, _ = run("report", "--run", name, "memory-bw", "--compat", "hta", "--format", "json",
                       db=db, check=False)
    got = {r["name"]: r for r in (json.loads(out) if out.strip() else []) if r["rank"] == rank}
    c.eq(f"{name} r{rank} bw kinds", sorted(got), sorted(want))
    for k, w in want.items():
        g = got.get(k)
        if not g:
            continue
        for ours, theirs in [("count", "count"), ("mean_gbps", "mean"), ("std_gbps", "std"),
                             ("min_gbps", "min"), ("p25_gbps", "25%"), ("p50_gbps", "50%"),
                             ("p75_gbps", "75%"), ("max_gbps", "max")]:
            c.true(f"{name} r{rank} {k} {theirs}", close(g[ours], w[theirs]),
                   f"got {g[ours]} want {w[theirs]}")


def bw_points(db, name, rank):
    code, out, _ = run("report", "--run", name, "memory-bw", "--compat", "hta", "--by", "point",
                       "--format", "json", db=db, check=False)
    return [r for r in (json.loads(out) if out.strip() else []) if r["rank"] == rank]


def check_bw(c, db, name, rank, pr, min_ts):
    check_bw_summary(c, db, name, rank, pr["memory_bw_summary"].get("rows") or [])
    series = pr["memory_bw_time_series"]
    if not series.get("rows"):
        return
    points, theirs = bw_points(db, name, rank), series["rows"]
    c.eq(f"{name} r{rank} bw series points", len(points), len(theirs))
    ok = all(p["name"] == t["name"] and p["ts_us"] - min_ts == t["ts"] and
             close(p["bw_gbps"], t["memory_bw_gbps"]) for p, t in zip(points, theirs))
    c.true(f"{name} r{rank} bw series equal", ok)


def check_bw_derived(c, tmp):
    """tests/traces/memory_bw/: copies of a kind starting and ending at shared
    timestamps; HTA's summary and every point of its series, in its order."""
    db = os.path.join(tmp, "bw.db")
    for folder in sorted(glob.glob(os.path.join(SOURCE, "tests", "traces", "memory_bw", "*/"))):
        name = "bw_" + os.path.basename(folder.rstrip("/"))
        with gzip.open(os.path.join(folder, "oracle.json.gz")) as f:
            oracle = json.load(f)
        run("ingest", "--quiet", "--run", name, os.path.join(folder, "trace.json.gz"), db=db)
        check_bw_summary(c, db, name, 0, oracle["summary"])
        points, theirs = bw_points(db, name, 0), oracle["series"]
        c.eq(f"{name} bw series points", len(points), len(theirs))
        bad = [(p, t) for p, t in zip(points, theirs)
               if [p["ts_us"] - oracle["min_ts_abs"], p["name"]] != t[:2]
               or not close(p["bw_gbps"], t[2])]
        c.true(f"{name} bw series equal, point by point", not bad, bad[:3])
        ties = len(theirs) - len({(t[0], t[1]) for t in theirs})
        c.true(f"{name}: points of a kind share timestamps (what the trace is for)",
               ties > 50, ties)


def check_launch(c, db, name, rank, pr):
    stats = pr["cuda_kernel_launch_stats"]
    if "error" in stats:
        return
    rows = [r for r in run_json("report", "--run", name, "launch", "--compat", "hta", "--by",
                                "launch", db=db) if r["rank"] == rank] if stats["n_rows"] else []
    got = [[r["correlation"], r["cpu_duration_us"], r["gpu_duration_us"], r["launch_delay_us"]]
           for r in rows]
    want = [[r["correlation"], r["cpu_duration"], r["gpu_duration"], r["launch_delay"]]
            for r in stats["rows"]]
    c.eq(f"{name} r{rank} launch rows", got, want)
    if not stats["n_rows"]:
        return
    summary = {r["measure"]: r for r in run_json("report", "--run", name, "launch", "--compat",
                                                 "hta", db=db) if r["rank"] == rank}
    for measure, w in stats["summary"].items():
        g = summary[measure]
        for ours, theirs in [("count", "count"), ("sum_us", "sum"), ("mean_us", "mean"),
                             ("min_us", "min"), ("max_us", "max"), ("std_us", "std")]:
            c.true(f"{name} r{rank} launch {measure} {theirs}", close(g[ours], w[theirs]),
                   f"got {g[ours]} want {w[theirs]}")
    vis = stats["visualize_counts"]
    c.eq(f"{name} r{rank} short kernels", summary["gpu_duration"]["beyond"],
         vis["short_gpu_kernels(cpu_duration<=50 & gpu_duration<cpu_duration)"])
    c.eq(f"{name} r{rank} runtime outliers", summary["cpu_duration"]["beyond"],
         vis["runtime_outliers(cpu_duration>50)"])
    c.eq(f"{name} r{rank} delay outliers", summary["launch_delay"]["beyond"],
         vis["launch_delay_outliers(launch_delay>100)"])


def check_op_delays(c, db, name, rank, pr):
    a = pr["aten_op_kernels_and_delay"]
    code, out, err = run("report", "--run", name, "launch", "--by", "op", "--compat", "hta",
                         "--names", "full", "--format", "json", db=db, check=False)
    if code == 2 and "does not apply" in err:  # no GPU events: HTA raises too
        c.true(f"{name} r{rank} launch --by op: does not apply, HTA finds nothing",
               "error" in a or not a.get("rows"), err)
        return
    c.eq(f"{name} r{rank} launch --by op exit", code, 0)
    rows = [r for r in (json.loads(out) if out.strip() else []) if r["rank"] == rank]
    if "error" in a:
        c.eq(f"{name} r{rank} op delays: HTA raises, no rows", rows, [])
        c.true(f"{name} r{rank} op delays: says why", err.strip() != "", err)
        return
    got = sorted((r["op"], r["kernel_sequence"], r["count"], round(r["op_launch_delay_us"], 3),
                  round(r["runtime_delay_us"], 3)) for r in rows)
    want = sorted((r["aten_op_name"], r["kernel_sequence"], r["occurrence_count"],
                   r["avg_aten_op_launch_delay"], r["avg_runtime_delay"]) for r in a["rows"])
    c.eq(f"{name} r{rank} op delays ({len(want)} rows)", got, want)


def check_sequences(c, db, name, rank, pr):
    for f in pr["frequent_cuda_kernel_sequences"]:
        op, n = f["params"]["operator_name"], f["params"]["min_pattern_len"]
        code, out, err = run("report", "--run", name, "kernel-sequences", "--compat", "hta",
                             "--op", op, "--min-len", n, "--names", "full", "--unit", "us",
                             "--format", "json", db=db, check=False)
        tag = f"{name} r{rank} {op} L={n}"
        if code == 2 and "does not apply" in err:  # no GPU events: HTA raises too
            c.true(f"{tag}: does not apply, HTA finds nothing", "error" in f or not f.get("rows"),
                   err)
            continue
        c.eq(f"{tag} exit", code, 0)
        rows = [r for r in (json.loads(out) if out.strip() else []) if r["rank"] == rank]
        if "error" in f:
            c.eq(f"{tag}: HTA raises, no rows", rows, [])
            c.true(f"{tag}: says why", "ValueError" in err, err)
            continue
        got = [(r["pattern"], r["count"], r["gpu_kernel_us"], r["cpu_op_us"]) for r in rows]
        want = [(r["pattern"], r["count"], r["GPU kernel duration (us)"],
                 r["CPU op duration (us)"]) for r in f["rows"]]
        c.eq(f"{tag} ({len(want)} patterns)", got, want)


# Exact mode, recomputed ------------------------------------------------------

QUEUED = {"kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events", None}


def launches_of(evs):
    """GPU event -> its launch: the earliest CPU-side event (by start, then
    file order) of its correlation."""
    first = {}
    for i, e in enumerate(evs):
        corr = e.get("args", {}).get("correlation")
        if corr is None or is_gpu(e):
            continue
        if corr not in first or (e["s"], first[corr][0]) < (first[corr][1]["s"], i):
            first[corr] = (i, e)
    return {id(g): first[g["args"]["correlation"]][1] for g in evs
            if is_gpu(g) and g.get("args", {}).get("correlation") in first}


def exact_queue(evs, launch):
    series = {}
    for g in evs:
        if not is_gpu(g) or id(g) not in launch or g.get("cat") not in QUEUED:
            continue
        key = (g.get("pid"), g["args"]["stream"])
        series.setdefault(key, []).extend([(launch[id(g)]["s"], 0, 1), (g["s"], 1, -1)])
    hist = {}
    for key, pts in series.items():
        pts.sort()
        v, h = 0, {}
        for i, (t, _, d) in enumerate(pts):
            v += d
            n = h.setdefault(v, [0, 0])
            n[0] += 1
            if i + 1 < len(pts):
                n[1] += pts[i + 1][0] - t
        hist[key] = h
    return hist


def check_exact(c, db, name, path):
    evs = events_of(path)
    launch = launches_of(evs)
    want = exact_queue(evs, launch)
    got = {}
    for r in run_json("sql", "SELECT device, stream, queue_length, points, duration_ns FROM "
                      "analysis_queue JOIN runs USING (run_id) WHERE mode = 'exact' AND name = "
                      f"'{name}'", db=db):
        got.setdefault((r["device"], r["stream"]), {})[r["queue_length"]] = [r["points"],
                                                                             r["duration_ns"]]
    c.eq(f"{name} exact queue histogram", got, {k: {v: list(x) for v, x in h.items()}
                                                 for k, h in want.items()})
    # Bandwidth: bytes / ns, per kind, starts before ends, file order.
    pts = {}
    for i, g in enumerate(evs):
        n = g.get("name", "")
        bare = n[3:] if n.startswith("hip") else n
        if not is_gpu(g) or not bare.startswith(("Memcpy", "Memset", "dma")) or g["e"] == g["s"]:
            continue
        args = g.get("args", {})
        if "bytes" in args:
            bw = float(Decimal(args["bytes"]) / (g["e"] - g["s"]))
        elif "memory bandwidth (GB/s)" in args:
            bw = float(args["memory bandwidth (GB/s)"])
        else:
            continue
        kind = "Memset" if n.startswith("Memset") else n[:11] if n.startswith("Memcpy") \
            else "Memcpy Unknown"
        pts.setdefault(kind, []).extend([(g["s"], 0, i, bw), (g["e"], 1, i, -bw)])
    want_bw = {}
    for kind, p in pts.items():
        p.sort()
        v = 0.0
        for t, _, _, d in p:
            v += d
            want_bw.setdefault(kind, []).append((t, v))
    got_bw = {}
    code, out, _ = run("report", "--run", name, "memory-bw", "--by", "point", "--unit", "ns",
                       "--format", "json", db=db, check=False)
    for r in (json.loads(out) if out.strip() else []):
        got_bw.setdefault(r["name"], []).append((r["ts_ns"], r["bw_gbps"]))
    c.eq(f"{name} exact bw kinds", sorted(got_bw), sorted(want_bw))
    c.true(f"{name} exact bw series ({sum(map(len, want_bw.values()))} points)",
           all(len(got_bw[k]) == len(want_bw[k]) and
               all(a[0] == b[0] and close(a[1], b[1]) for a, b in zip(got_bw[k], want_bw[k]))
               for k in want_bw if k in got_bw))
    # Per-launch rows (launch --by launch, ns).
    want_rows = sorted(
        (launch[id(g)]["s"], launch[id(g)]["args"]["correlation"], g["s"],
         launch[id(g)]["e"] - launch[id(g)]["s"], g["e"] - g["s"], g["s"] - launch[id(g)]["e"])
        for g in evs if is_gpu(g) and id(g) in launch and g.get("cat") in QUEUED)
    code, out, _ = run("report", "--run", name, "launch", "--by", "launch", "--unit", "ns",
                       "--format", "json", db=db, check=False)
    rows = json.loads(out) if out.strip() else []
    c.eq(f"{name} exact launch rows", len(rows), len(want_rows))
    c.eq(f"{name} exact launch values",
         sorted((r["correlation"], r["cpu_ns"], r["gpu_ns"], r["launch_delay_ns"]) for r in rows),
         sorted((w[1], w[3], w[4], w[5]) for w in want_rows))


def main():
    c = Checker()
    with tempdir() as tmp:
        check_bw_derived(c, tmp)
        if c.failed and not have_corpus("traces"):
            c.close()  # a failure here must not end as the corpus part's skip
        oracles = need_corpus("traces", "oracles_more")
        traces = need_corpus("traces")
        db = os.path.join(tmp, "t.db")
        for path in checked_subset(sorted(glob.glob(os.path.join(oracles, "*.json"))), 6,
                                   "traces with oracle windows"):
            oracle = json.load(open(path))
            name = os.path.basename(path)[:-5]
            files = [os.path.join(traces, f) for f in oracle["trace_files"]]
            run("ingest", "--quiet", "--run", name, *files, db=db)
            min_ts = oracle["hta_min_ts_abs"]
            for rank, pr in oracle["per_rank"].items():
                check_queue(c, db, name, int(rank), pr)
                check_bw(c, db, name, int(rank), pr, min_ts)
                check_launch(c, db, name, int(rank), pr)
                check_op_delays(c, db, name, int(rank), pr)
                check_sequences(c, db, name, int(rank), pr)
            if len(files) == 1:
                check_exact(c, db, name, files[0])
    c.close()


if __name__ == "__main__":
    main()
