"""GPU time attributed to what launched it, checked three ways.

1. It adds up: on every corpus trace with GPU events, analysis_gpu_attribution
   has one row per GPU event, and kernels --by op (with its '(none)' row)
   sums to the GPU events' total time; the ops report's GPU self times sum
   to the time attributed to ops.
2. An independent recomputation from the raw JSON: each GPU event's launch
   is the earliest CPU-side event with its correlation; a stack per thread
   (start order, longest first) gives the innermost op and user_annotation
   around that launch; the step is the ProfilerStep window holding its
   start. kernels --by op, --by annotation and --by step must equal it.
3. HTA's answers (traces/oracles_more/), on HTA's kept and rounded events:
   get_gpu_kernels_with_user_annotations summed per range and
   get_gpu_user_annotation_breakdown (both kinds) equal annotations
   --compat hta; get_aten_op_kernels_and_delay equals the op instances of
   the attribution (their kernel sequences, counts and mean delays), except
   where HTA's rule cannot tell ops apart: two nested aten ops starting in
   the same microsecond ("latest start", an unstable sort), where profdb
   takes the inner one - there the launches per tie group must still agree;
   and MTIA, where HTA takes an aten op of another thread and profdb, by
   its rule, only ops on the launch's thread.
4. The rare paths give the same rows: with PROFDB_ATTR_MAP_MAX=2 nearly
   every launch in flight goes through the temporary table (and alexnet has
   GPU events scanned before their launch), and the attribution table is
   the same as with the in-memory map."""

import glob
import gzip
import json
import math
import os
import re
from decimal import Decimal

from common import Checker, checked_subset, need_corpus, run, run_json, tempdir

CPU_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op", "user_annotation",
            "python_function"}


def ns(v):
    return int(Decimal(str(v)) * 1000)


def load(path):
    doc = json.load(gzip.open(path, "rt"), parse_float=Decimal)
    evs = []
    for i, e in enumerate(doc["traceEvents"]):
        if e.get("ph") == "X" and "dur" in e and "ts" in e:
            s = ns(e["ts"])
            evs.append(dict(e, i=i, s=s, e=s + ns(e["dur"])))
    return evs


def is_gpu(e):
    return "stream" in e.get("args", {}) and e.get("cat") not in CPU_CATS


def launcher_side(e):
    st = e.get("args", {}).get("stream")
    return not isinstance(st, int) and (st is None or e.get("cat") in CPU_CATS)


def is_op(e):
    cat = e.get("cat")
    return (cat is None or cat == "cpu_op" or cat.lower() == "operator") and \
        not e["name"].startswith("ProfilerStep#")


def recompute(evs):
    """Per GPU event: (dur, op, annotation, step) by profdb's documented rule."""
    launch = {}
    for e in sorted(evs, key=lambda x: (x["s"], x["i"])):
        c = e.get("args", {}).get("correlation")
        if c is not None and launcher_side(e) and c not in launch:
            launch[c] = e["i"]
    ctx = {}  # launcher index -> (op, annotation)
    wanted = set(launch.values())
    threads = {}
    for e in evs:
        if not is_gpu(e) and e.get("cat") != "Trace" and not (e.get("cat") or "").startswith("gpu_"):
            threads.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
    for t in threads.values():
        t.sort(key=lambda x: (x["s"], -(x["e"] - x["s"]), x["i"]))
        stack = []
        for e in t:
            while stack and stack[-1]["e"] < e["e"]:
                stack.pop()
            if e["i"] in wanted:
                op = next((f["name"] for f in reversed(stack) if is_op(f)), None)
                ann = next((f["name"] for f in reversed(stack) if f.get("cat") == "user_annotation"
                            and not f["name"].startswith("ProfilerStep#")), None)
                ctx[e["i"]] = (op, ann)
            stack.append(e)
    steps = sorted((e["s"], e["e"], int(e["name"].split("#")[1])) for e in evs
                   if e["name"].startswith("ProfilerStep#") and not is_gpu(e)
                   and not (e.get("cat") or "").startswith("gpu_"))
    by_index = {e["i"]: e for e in evs}
    out = []
    for g in evs:
        if not is_gpu(g):
            continue
        li = launch.get(g.get("args", {}).get("correlation"))
        op, ann, step = None, None, None
        if li is not None:
            op, ann = ctx.get(li, (None, None))
            ls = by_index[li]["s"]
            # the last window started at or before the launch (pdb_steps_acc_step_at)
            started = [w for w in steps if w[0] <= ls]
            if started and ls < started[-1][1]:
                step = started[-1][2]
        out.append((g["e"] - g["s"], op, ann, step))
    return out


def sums(rows, k):
    out = {}
    for r in rows:
        key = r[k] if r[k] is not None else "(none)"
        out[str(key)] = out.get(str(key), 0) + r[0]
    return out


def check_adds_up(c, db, name, want):
    total = sum(r[0] for r in want)
    a = run_json("sql", "SELECT count(*) AS n, sum(dur_ns) AS t FROM analysis_gpu_attribution "
                 "JOIN runs USING (run_id) WHERE runs.name = '%s'" % name, db=db)[0]
    c.eq(f"{name}: one row per GPU event", (a["n"], a["t"]), (len(want), total))
    for key, col in (("op", 1), ("annotation", 2), ("step", 3)):
        rows = run_json("report", "--run", name, "kernels", "--by", key, "--names", "full",
                        "--unit", "ns", db=db)
        got = {str(r[key]): r["total_ns"] for r in rows}
        want_sums = sums(want, col)
        c.eq(f"{name}: kernels --by {key}", got, want_sums)
        # Each row's share and event count from the recomputation (not the
        # sum of the shares, which is 100 by construction: 100 * total / sum).
        events = {}
        for r in want:
            k = str(r[col] if r[col] is not None else "(none)")
            events[k] = events.get(k, 0) + 1
        c.eq(f"{name}: --by {key} events of each row (recomputed)",
             {str(r[key]): r["events"] for r in rows}, events)
        bad = {str(r[key]): (r["share_pct"], 100 * want_sums.get(str(r[key]), 0) / total)
               for r in rows  # printed with 2 decimals
               if abs(r["share_pct"] - 100 * want_sums.get(str(r[key]), 0) / total) > 0.005 + 1e-9}
        c.true(f"{name}: --by {key} share of each row = 100 x its recomputed time / all GPU time",
               not bad, f"(printed, recomputed): {bad}")
    ops = run_json("report", "--run", name, "ops", "--unit", "ns", db=db)
    c.eq(f"{name}: GPU self times of ops = attributed time",
         sum(r["gpu_self_ns"] or 0 for r in ops), sum(r[0] for r in want if r[1] is not None))


def check_hta_annotations(c, db, name, oracle):
    rows = run_json("report", "--run", name, "annotations", "--compat", "hta", "--unit", "us",
                    db=db) if oracle.get("per_rank") else []
    got = {(r["rank"], r["kind"], r["name"]): r for r in rows}
    for rank, pr in oracle["per_rank"].items():
        g = pr.get("gpu_kernels_with_user_annotations")
        if not g or not isinstance(g, dict) or "per_annotation" not in g:
            continue
        for a in g["per_annotation"]:
            if a["s_user_annotation"] == "":
                continue
            r = got.get((int(rank), "gpu", a["s_user_annotation"]), {})
            c.eq(f"{name} r{rank}: kernels in {a['s_user_annotation']}",
                 (r.get("kernels"), r.get("kernel_us")), (a["n_kernels"], a["sum_dur_us"]))
    for call in oracle.get("folder", {}).get("gpu_user_annotation_breakdown", []) or []:
        if not call or call.get("result") != "DataFrame":
            continue
        kind = "gpu" if call["use_gpu_annotation"] else "cpu"
        want = {(r["rank"], r["name"]): (r["sum (us)"], r["max (us)"], r["min (us)"],
                                         round(r["mean (us)"], 6), round(r["stddev"], 6))
                for r in call["rows"]}
        mine = {(k[0], k[2]): (v["sum_us"], v["max_us"], v["min_us"], round(v["mean_us"], 6),
                               round(v["std_us"], 6))
                for k, v in got.items() if k[1] == kind}
        c.eq(f"{name}: HTA's {kind} annotation breakdown", mine, want)


LAUNCH = re.compile(r"^(cuda.*LaunchKernel|cuLaunchKernel|runFunction)")


def ceil_us(t_ns, rounded):
    return math.ceil(t_ns / 1000) if rounded else t_ns / 1000


def check_aten(c, db, name, oracle):
    pr = list(oracle["per_rank"].values())[0]
    a = pr.get("aten_op_kernels_and_delay", {})
    if "rows" not in a:
        return
    want = {(r["aten_op_name"], r["kernel_sequence"]): r for r in a["rows"]}
    info = run_json("sql", "SELECT t.float_ts AS f, (SELECT count(DISTINCT name) FROM trace_steps s "
                    "WHERE s.trace_id = t.trace_id AND s.ph = 'X' AND s.cat IS NOT NULL AND "
                    "s.cat <> 'Trace' AND s.stream IS NULL AND s.name GLOB 'ProfilerStep#*') AS n,"
                    " (SELECT max(ts) FROM trace_steps s WHERE s.trace_id = t.trace_id AND "
                    "s.ph = 'X' AND s.cat IS NOT NULL AND s.cat <> 'Trace' AND s.stream IS NULL "
                    "AND s.name GLOB 'ProfilerStep#*') AS m FROM traces t JOIN runs r USING "
                    "(run_id) WHERE r.name = '%s'" % name, db=db)[0]
    rounded = info["f"] > 0
    cut = ceil_us(info["m"], True) if info["n"] and info["n"] >= 2 else None
    rows = run_json("sql", "SELECT a.op_id, o.value AS op, k.value AS kernel, l.value AS launch,"
                    " ls.ts AS lts, os.ts AS ots, ks.ts AS kts, os.tid AS tid, os.pid AS pid"
                    " FROM analysis_gpu_attribution a JOIN runs r USING (run_id)"
                    " JOIN strings k ON k.id = a.name JOIN slices ks ON ks.id = a.slice_id"
                    " LEFT JOIN slices ls ON ls.id = a.launch_id"
                    " LEFT JOIN strings l ON l.id = ls.name LEFT JOIN slices os ON os.id = a.op_id"
                    " LEFT JOIN strings o ON o.id = a.op WHERE r.name = '%s'"
                    " ORDER BY a.launch_id" % name, db=db)
    inst = {}
    for r in rows:
        if not r["launch"] or not LAUNCH.match(r["launch"]) or not (r["op"] or "").startswith("aten::"):
            continue
        if cut is not None and ceil_us(r["lts"], True) >= cut:
            continue  # HTA dropped the last step
        i = inst.setdefault(r["op_id"], {"op": r["op"], "ks": [], "d": None})
        if i["d"] is None:  # the first launch's delays
            i["d"] = (ceil_us(r["lts"], rounded) - ceil_us(r["ots"], rounded),
                      ceil_us(r["kts"], rounded) - ceil_us(r["lts"], rounded), r["ots"], r["tid"],
                      r["pid"])
        i["ks"].append(r["kernel"])
    got = {}
    for i in inst.values():
        g = got.setdefault((i["op"], " -> ".join(i["ks"])), [0, 0, 0])
        g[0] += 1
        g[1] += i["d"][0]
        g[2] += i["d"][1]
    # HTA's ties: an aten op around ours on the same thread, starting in the same microsecond.
    ties = set()
    if name in TIES:
        for t in run_json("sql", "SELECT DISTINCT o.value AS inner_op, n.value AS outer_op"
                          " FROM analysis_gpu_attribution a JOIN runs r USING (run_id)"
                          " JOIN slices os ON os.id = a.op_id JOIN strings o ON o.id = a.op"
                          " JOIN slices s ON s.trace_id = os.trace_id"
                          " AND s.ts >= os.ts / 1000 * 1000 AND s.ts < os.ts / 1000 * 1000 + 1000"
                          " JOIN strings n ON n.id = s.name WHERE r.name = '%s' AND s.id <> os.id"
                          " AND s.tid IS os.tid AND s.pid IS os.pid AND s.ts + s.dur >= os.ts + os.dur"
                          " AND n.value GLOB 'aten::*' AND o.value GLOB 'aten::*'" % name, db=db):
            ties.update((t["inner_op"], t["outer_op"]))
    strict_want = {k: (v["occurrence_count"], v["avg_aten_op_launch_delay"], v["avg_runtime_delay"])
                   for k, v in want.items() if k[0] not in ties}
    strict_got = {k: (v[0], round(v[1] / v[0], 3), round(v[2] / v[0], 3))
                  for k, v in got.items() if k[0] not in ties}
    if name in CROSS_THREAD:
        c.eq(f"{name}: HTA's aten op is on another thread; profdb finds none on the launch's",
             (len(got), len(want)), (0, 1))
        return
    c.eq(f"{name}: aten op kernel sequences, counts, mean delays", strict_got, strict_want)
    if ties:
        launches = lambda d, f: sum(f(v) * len(k[1].split(" -> ")) for k, v in d.items()
                                    if k[0] in ties)
        c.eq(f"{name}: launches of same-microsecond nested aten ops {sorted(ties)}",
             launches(got, lambda v: v[0]), launches(want, lambda v: v["occurrence_count"]))
    c.true(f"{name}: ties only where expected", bool(ties) == (name in TIES))


def check_spill(c, tmp, name, trace, db):
    """The same attribution with the in-flight map limited to two launches."""
    other = os.path.join(tmp, "spill_%s.db" % name)
    os.environ["PROFDB_ATTR_MAP_MAX"] = "2"
    try:
        run("ingest", "--quiet", "--run", name, trace, db=other)
    finally:
        del os.environ["PROFDB_ATTR_MAP_MAX"]
    q = ("SELECT a.rank, a.ts, a.dur_ns, a.step, a.kernel, l.ts AS launch_ts, a.op,"
         " a.top_op, a.annotation, a.gpu_annotation, a.module FROM gpu_attribution a"
         " JOIN runs r USING (run_id) LEFT JOIN slices l ON l.id = a.launch_id"
         " WHERE r.name = '%s' ORDER BY a.rank, a.ts, a.dur_ns, a.kernel, launch_ts" % name)
    mine, spilled = run_json("sql", q, db=db), run_json("sql", q, db=other)
    c.true(f"{name}: {len(mine)} GPU events attributed the same through the spill table",
           mine == spilled and len(mine) > 0)


TIES = {"trace_filter_sampled_rank-0", "trace_filter_sampled_rank-1",
        "negative_queue_length_values_check_rank0"}
CROSS_THREAD = {"mtia_inference_trace_mtia_inference_rank_0"}
SPILL = {"critical_path_alexnet_benchmark_result_2869224_1695835535_trace",
         "nccl_parser_config_nccl_data", "trace_filter_sampled_rank-0"}


def main():
    c = Checker()
    more = need_corpus("traces", "oracles_more")
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for path in checked_subset(sorted(glob.glob(os.path.join(more, "*.json"))), 3,
                                   "traces with oracle windows"):
            oracle = json.load(open(path))
            name = os.path.basename(path)[:-5]
            trace = os.path.join(os.path.dirname(more), name + ".json.gz")
            if not os.path.exists(trace):
                continue  # the two-rank folder (its ranks have files of their own)
            run("ingest", "--quiet", "--run", name, trace, db=db)
            want = recompute(load(trace))
            if want:
                check_adds_up(c, db, name, want)
            check_hta_annotations(c, db, name, oracle)
            check_aten(c, db, name, oracle)
            if name in SPILL:
                check_spill(c, tmp, name, trace, db)
    c.close()


if __name__ == "__main__":
    main()
