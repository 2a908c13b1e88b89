"""Findings that add up, and stragglers only when they are.

- Copies and device-to-host syncs nest (aten::to -> aten::_to_copy ->
  aten::copy_; aten::item -> aten::_local_scalar_dense -> cudaStreamSynchronize):
  on the corpus traces where they do, the insights' copy and sync times
  equal the outermost calls starting in ProfilerSteps, recomputed here from
  the raw JSON with a stack per thread, and are below the naive sum of the
  family's totals (which counts a parent and its child).
- ops --top N: the 'others' row sums self times (they add up: with the top
  rows they give every row's self time) and leaves total times empty.
- ranks: a straggler needs a one-sided Mann-Whitney p below 0.01 (times the
  ranks) and a mean step 5% above the others'. Two generated ranks of 12
  steps: as generated, nobody; one rank's clock stretched by 25%, that
  rank, with the p-value the exact U distribution gives (computed here from
  the q-binomial generating function, not profdb's recurrence); stretched
  by 2%, nobody, whatever the p-value.
- critical path: the finding names what bounds the critical path of the
  first 50 iterations most (CPU-bound, GPU compute, GPU communication or
  waiting: launch + kernel gap), with its time and share as the
  critical-path report's --by bound rows add up, on every corpus trace;
  none where the run has no GPU events.
- peak memory (tests/traces' profile_memory trace): the op, device, step
  and bytes of the memory report's peak.
- critical-path advice on three traces written here, where the right one
  is known (issue 34): GPU-bound (one 2 ms kernel per step, the CPU
  waiting in a sync): GPU compute, faster kernels; CPU-bound (2 ms of CPU
  op per step before a 20 us kernel, the GPU idle): CPU work that is not
  launch overhead, no CUDA graphs; launch-bound (100 kernels of 2 us per
  step, each launched 12 us after the last): the GPU waiting between
  short kernels, fewer larger kernels (CUDA graphs, torch.compile), or
  what is left of those cures where the trace already launches graphs."""

import gzip
import json
import os
import re
import sqlite3
import subprocess
from decimal import Decimal
from fractions import Fraction

from common import (CHECKED, GENTRACE, SOURCE, Checker, checked_subset, need_corpus, run,
                    run_json, tempdir)

CPU_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op", "user_annotation",
            "python_function"}
FAMILIES = {
    "copy": {"aten::to", "aten::_to_copy", "aten::copy_"},
    "sync": {"aten::item", "aten::_local_scalar_dense", "cudaStreamSynchronize",
             "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
             "hipStreamSynchronize", "hipDeviceSynchronize", "hipEventSynchronize", "hipMemcpy"},
}
NESTED = ["rank_non_gpu_rank_non_gpu.json.gz", "negative_queue_length_values_check_rank0.json.gz"]


def ns(v):
    return int(Decimal(str(v)) * 1000)


def cpu_events(path):
    doc = json.load(gzip.open(path, "rt"), parse_float=Decimal)
    out = []
    for i, e in enumerate(doc["traceEvents"]):
        if e.get("ph") != "X" or "dur" not in e:
            continue
        cat = e.get("cat")
        if "stream" in e.get("args", {}) and cat not in CPU_CATS:
            continue  # a GPU event
        if cat == "Trace" or (cat or "").startswith("gpu_"):
            continue
        s = ns(e["ts"])
        out.append((s, s + ns(e["dur"]), i, e))
    return out


def outermost(events, steps):
    """Per family: durations of calls with no same-family call around them
    on their thread, starting in a step; and the naive sum of totals."""
    got = {f: 0 for f in FAMILIES}
    naive = {f: 0 for f in FAMILIES}
    in_step = lambda t: any(a <= t < b for a, b in steps)
    threads = {}
    for ev in events:
        threads.setdefault((str(ev[3].get("pid")), str(ev[3].get("tid"))), []).append(ev)
    for evs in threads.values():
        evs.sort(key=lambda x: (x[0], -(x[1] - x[0]), x[2]))
        stack = []
        for s, e, _, ev in evs:
            while stack and stack[-1][0] < e:
                stack.pop()
            fam = next((f for f, names in FAMILIES.items() if ev["name"] in names), None)
            if fam and in_step(s):
                naive[fam] += e - s
                if not any(f == fam for _, f in stack):
                    got[fam] += e - s
            stack.append((e, fam))
    return got, naive


def check_nested(c, db, path):
    name = os.path.basename(path)[:-8]
    run("ingest", "--quiet", "--run", name, path, db=db)
    evs = cpu_events(path)
    steps = [(s, e) for s, e, _, ev in evs if ev["name"].startswith("ProfilerStep#")]
    want, naive = outermost(evs, steps)
    rows = run_json("sql", "SELECT sum(copy_ns) AS copy, sum(sync_ns) AS sync FROM "
                    "analysis_steps JOIN runs USING (run_id) WHERE runs.name = '%s'" % name, db=db)
    c.eq(f"{name}: outermost copy and sync time in steps", rows[0], want)
    c.true(f"{name}: copies nest here (naive sum {naive['copy']} > {want['copy']})",
           naive["copy"] > want["copy"])
    found = {r["finding"]: r for r in run_json("report", "--run", name, "insights", "--unit",
                                                "ns", db=db)}
    step_ns = sum(e - s for s, e in steps)
    for finding, fam, limit in (("copy-heavy steps", "copy", 5.0),
                                ("device-to-host sync", "sync", 0.0)):
        share = 100.0 * want[fam] / step_ns
        if share > limit and want[fam] > 0:
            r = found.get(finding)
            c.true(f"{name}: {finding} reported", r is not None)
            if r:
                c.eq(f"{name}: {finding} time", r["time_ns"], want[fam])
                c.true(f"{name}: {finding} share", abs(r["share_pct"] - share) <= 0.005)
        else:
            c.true(f"{name}: no {finding}", finding not in found)


def check_others(c, db, name):
    full = run_json("report", "--run", name, "ops", "--unit", "ns", db=db)
    top = run_json("report", "--run", name, "ops", "--unit", "ns", "--top", "3", db=db)
    others = [r for r in top if r["name"] == "others"]
    c.eq(f"{name}: one others row", len(others), 1)
    if others:
        o = others[0]
        c.eq(f"{name}: others leaves totals empty", (o["cpu_total_ns"], o["gpu_total_ns"]),
             (None, None))
        c.eq(f"{name}: self times add up",
             sum(r["cpu_self_ns"] for r in top), sum(r["cpu_self_ns"] for r in full))
        c.eq(f"{name}: calls add up", sum(r["count"] for r in top),
             sum(r["count"] for r in full))


GROUPS = {"cpu_bound": "CPU-bound", "gpu_compute_bound": "GPU compute",
          "gpu_communication_bound": "GPU communication",
          "gpu_kernel_launch_overhead": "waiting", "gpu_kernel_kernel_overhead": "waiting"}


def check_critical(c, db, name):
    found = [r for r in run_json("report", "--run", name, "insights", "--unit", "ns", db=db)
             if r["finding"] == "critical path"]
    code, out, _ = run("report", "--run", name, "critical-path", "--by", "bound", "--unit", "ns",
                       "--format", "json", db=db, check=False)
    rows = json.loads(out) if code == 0 and out.strip().startswith("[") else []
    sums = {}
    for r in rows:
        if r["instance"] < 50 and r["bound"]:
            k = (r["rank"], GROUPS[r["bound"]])
            sums[k] = sums.get(k, 0) + r["duration_ns"]
    want = {}
    for (rank, group), v in sums.items():
        total = sum(x for (rk, _), x in sums.items() if rk == rank)
        if total > 0 and (rank not in want or v > want[rank][1]):
            want[rank] = (group, v, 100.0 * v / total)
    got = {r["rank"]: (r["item"], r["time_ns"], r["share_pct"]) for r in found}
    c.eq(f"{name}: critical path findings per rank", sorted(got), sorted(want))
    for rank, (group, v, share) in want.items():
        g = got.get(rank)
        c.true(f"{name} rank {rank}: critical path bound {group}, {v} ns, {share:.2f}%",
               g is not None and g[0] == group and g[1] == v and abs(g[2] - share) <= 0.005, g)
    check_advice(c, db, name, found)
    return len(want)


ADVICE_SEEN = {"busy": 0, "already": 0, "span": 0}


def check_advice(c, db, name, found):
    """The advice of a CPU-bound path follows the measured facts (issue 34): a
    GPU busy most of its span (idle below 20%) gets no "the GPU waits for the
    CPU"; a trace that already launches CUDA graphs or runs compiled regions
    is not told to use them."""
    code, out, _ = run("report", "--run", name, "gpu", "--format", "json", db=db, check=False)
    idle = {r["rank"]: r["idle_pct"] for r in json.loads(out)} if code == 0 else {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = {rank: {n for (n,) in con.execute(
            "SELECT DISTINCT name FROM analysis_ops WHERE run_id = (SELECT run_id FROM runs "
            "WHERE name = ?) AND rank = ?", (name, rank))} for rank in idle}
    finally:
        con.close()
    for r in found:
        m = re.search(r"spanning ([0-9.]+) ms of their ([0-9.]+) ms, from ([0-9.]+) ms",
                      r["evidence"])
        if m:  # said only when the path covers less than 90% of its iterations
            a, b, lead = (float(x) for x in m.groups())
            c.true(f"{name} rank {r['rank']}: the path's span {a} ms is said as short of its "
                   f"iterations' {b} ms, from {lead} ms in",
                   a < 0.9 * b + 0.05 and lead <= b, m.group(0))
            ADVICE_SEEN["span"] += 1
        if r["item"] != "CPU-bound":
            continue
        ev, rank = r["evidence"], r["rank"]
        if idle.get(rank) is not None and idle[rank] < 20:
            c.true(f"{name} rank {rank}: GPU idle {idle[rank]:.1f}%: the advice says the GPU "
                   "is busy, not that it waits", "but the GPU is busy" in ev and
                   "the GPU waits for the CPU" not in ev, ev)
            ADVICE_SEEN["busy"] += 1
            continue
        graphs = bool(names.get(rank, set()) & {"cudaGraphLaunch", "hipGraphLaunch"})
        compiled = any("CompiledFunction" in n or n.startswith("Torch-Compiled Region")
                       for n in names.get(rank, set()))
        ADVICE_SEEN["already"] += graphs or compiled
        c.true(f"{name} rank {rank}: the advice names only cures the trace does not use "
               f"(graphs {graphs}, compiled {compiled})",
               ("already uses CUDA graphs" in ev) == graphs and
               ("torch.compile" not in ev or not compiled or "already uses" in ev), ev)


def derived_trace(kind, steps=6, graphs=False):
    """A trace whose critical path is known: see the module's doc."""
    ev, corr, t, gpu_free = [], [0], 1000, 0

    def op(name, ts, dur, cat="cpu_op"):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts,
                   "dur": dur})

    def launch(ts, kname, kstart, kdur):
        corr[0] += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1,
                   "ts": ts, "dur": 10 if kind == "launch" else 5,
                   "args": {"correlation": corr[0]}})
        ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": kstart,
                   "dur": kdur, "args": {"correlation": corr[0], "stream": 7, "device": 0}})
        return kstart + kdur

    for s in range(steps):
        start = t
        if kind == "gpu":
            op("aten::mm", t, 10)
            gpu_free = launch(t + 2, "gemm_kernel", max(t + 6, gpu_free), 2000)
            op("cudaDeviceSynchronize", t + 10, gpu_free - t - 7, cat="cuda_runtime")
            t = gpu_free + 3
        elif kind == "cpu":
            op("aten::cpu_heavy", t, 2000)
            op("aten::cpu_inner", t + 1, 1990)
            op("aten::add", t + 2000, 10)
            gpu_free = launch(t + 2002, "add_kernel", max(t + 2007, gpu_free), 20)
            t += 2010
        else:
            for _ in range(100):
                op("aten::add", t, 12)
                gpu_free = launch(t + 1, "tiny_kernel", max(t + 12, gpu_free), 2)
                t += 12
        if graphs:  # the trace also replays a CUDA graph (inside the first op)
            op("cudaGraphLaunch", start + 1, 1, cat="cuda_runtime")
        op("ProfilerStep#%d" % s, start, t - start, cat="user_annotation")
        t += 1
    return {"traceEvents": ev}


def check_derived_advice(c, tmp):
    db = os.path.join(tmp, "advice.db")
    cases = {  # name: (kind, graphs, item, in the advice, not in it)
        "gpu-bound": ("gpu", False, "GPU compute", ["faster kernels shorten the step"],
                      ["CPU", "launch-bound"]),
        "cpu-bound": ("cpu", False, "CPU-bound",
                      ["2.0 ms of it per launch in its iterations", "not launch overhead",
                       "the CPU ops on the path first"], ["CUDA graphs", "torch.compile"]),
        "launch-bound": ("launch", False, "waiting",
                         ["600 on the path, 2.0 us on average, gaps of 10.0 us",
                          "(launch-bound): fewer, larger kernels: CUDA graphs, torch.compile"],
                         ["already uses"]),
        "launch-bound-graphed": ("launch", True, "waiting",
                                 ["(launch-bound): the trace already uses CUDA graphs: "
                                  "torch.compile, fewer and larger kernels"], []),
    }
    for name, (kind, graphs, item, says, not_says) in cases.items():
        path = os.path.join(tmp, name + ".json")
        with open(path, "w") as f:
            json.dump(derived_trace(kind, graphs=graphs), f)
        run("ingest", "--quiet", "--run", name, path, db=db)
        found = [r for r in run_json("report", "--run", name, "insights", db=db)
                 if r["finding"] == "critical path"]
        c.eq(f"{name}: the critical path finding's bound", [r["item"] for r in found], [item])
        ev = found[0]["evidence"] if found else ""
        c.true(f"{name}: the advice says {says}", all(x in ev for x in says), ev)
        c.true(f"{name}: the advice does not say {not_says}",
               not any(x in ev.split("; ", 1)[-1] for x in not_says), ev)


def check_peak_memory(c, tmp):
    db = os.path.join(tmp, "m.db")
    path = os.path.join(SOURCE, "tests", "traces", "train_memory.trace.json.gz")
    run("ingest", "--quiet", "--run", "mem", path, db=db)
    peaks = [r for r in run_json("report", "--run", "mem", "memory", "--by", "step", db=db)
             if r["step"] is None]
    found = [r for r in run_json("report", "--run", "mem", "insights", db=db)
             if r["finding"] == "peak memory"]
    c.eq("peak memory: one finding per device", len(found), len(peaks))
    for p, f in zip(peaks, found):
        steps = [r["step"] for r in run_json("report", "--run", "mem", "memory", "--by", "step",
                                             db=db)
                 if r["step"] is not None and r["device"] == p["device"]
                 and r["peak_allocated_bytes"] == p["peak_allocated_bytes"]
                 and r["at_us"] == p["at_us"]]
        c.eq("peak memory: the op at the peak", f["item"], p["op"])
        c.true("peak memory: bytes and step in the evidence",
               f"{p['peak_allocated_bytes'] / 1048576:.4g} MiB" in f["evidence"] and
               steps and f"at step {steps[0]}" in f["evidence"], (f["evidence"], p, steps))
    c.eq("critical path: none without GPU events", [
        r for r in run_json("report", "--run", "mem", "insights", db=db)
        if r["finding"] == "critical path"], [])


def exact_p(u, n1, n2):
    """P(U >= u): coefficients of the q-binomial [n1 + n2 choose n1]."""
    poly = [1]
    for i in range(1, n1 + 1):  # times (1 - q^(n2 + i)) / (1 - q^i)
        num = poly + [0] * (n2 + i)
        for k in range(len(poly)):
            num[k + n2 + i] -= poly[k]
        quo = [0] * (len(num) - i)
        rem = list(num)
        for k in range(len(quo)):
            quo[k] = rem[k]
            rem[k + i] += rem[k]
        poly = quo
    total = sum(poly)
    return float(Fraction(sum(poly[int(u):]), total))


def stretched(src, dst, factor):
    doc = json.load(open(src), parse_float=Decimal)
    for e in doc["traceEvents"]:
        for k in ("ts", "dur"):
            if k in e:
                e[k] = Decimal(e[k]) * Decimal(factor)
    with open(dst, "w") as f:
        json.dump(doc, f, default=lambda d: float(d) if d % 1 else int(d))


def step_times(db, run_name):
    rows = run_json("sql", "SELECT rank, dur_ns FROM analysis_steps JOIN runs USING (run_id) "
                    "WHERE runs.name = '%s'" % run_name, db=db)
    out = {}
    for r in rows:
        out.setdefault(r["rank"], []).append(r["dur_ns"])
    return out


def check_stragglers(c, tmp, db):
    r0, r1 = os.path.join(tmp, "r0.json"), os.path.join(tmp, "r1.json")
    for rank, path in ((0, r0), (1, r1)):
        subprocess.run([GENTRACE, "--steps", "12", "--rank", str(rank), "--world", "2",
                        "--seed", "7", path], check=True, capture_output=True)
    for label, factor, want in (("as generated", "1", []), ("stretched 25%", "1.25", [1]),
                                ("stretched 2%", "1.02", [])):
        s1 = os.path.join(tmp, f"r1_{factor}.json")
        stretched(r1, s1, factor)
        name = f"straggle_{factor}"
        run("ingest", "--quiet", "--run", name, r0, s1, db=db)
        rows = run_json("report", "--run", name, "ranks", "--unit", "ns", db=db)
        c.eq(f"ranks {label}: stragglers", [r["rank"] for r in rows if r["note"] == "straggler"],
             want)
        times = step_times(db, name)
        pooled = sorted(t for ts in times.values() for t in ts)
        assert len(set(pooled)) == len(pooled)  # no ties: the exact test applies
        for r in rows:
            mine = times[r["rank"]]
            u = sum(1 for x in mine for ys in (v for k, v in times.items() if k != r["rank"])
                    for y in ys if x > y)
            p = exact_p(u, len(mine), len(pooled) - len(mine))
            c.true(f"ranks {label}: rank {r['rank']} p {r['p_value']} vs {p}",
                   abs(r["p_value"] - p) < 1e-12)


def main():
    c = Checker()
    paths = [need_corpus("traces", n) for n in NESTED]
    with tempdir() as tmp:
        check_derived_advice(c, tmp)
        db = os.path.join(tmp, "t.db")
        for p in paths:
            check_nested(c, db, p)
            check_others(c, db, os.path.basename(p)[:-8])
        with_path = 0
        corpus = sorted(f for f in os.listdir(os.path.dirname(paths[0])) if f.endswith(".gz"))
        for f in checked_subset(corpus, 3, "corpus traces"):
            name = f[:-3]
            if f not in NESTED:
                run("ingest", "--quiet", "--run", name, os.path.join(os.path.dirname(
                    paths[0]), f), db=db)
            with_path += check_critical(c, db, name if f not in NESTED else f[:-8]) > 0
        # 5 of the corpus traces have a critical path; a checked build reads a third of them.
        c.true(f"critical path findings on {with_path} corpus traces",
               with_path >= (2 if CHECKED else 5), with_path)
        print(f"critical path findings checked on {with_path} corpus traces")
        if not CHECKED:  # both corrected advices occur on the corpus
            c.true("a CPU-bound path on a busy GPU, one on a graphed/compiled trace, and a path "
                   "shorter than its iterations", min(ADVICE_SEEN.values()) > 0, ADVICE_SEEN)
        check_peak_memory(c, tmp)
        check_stragglers(c, tmp, db)
    c.close()


if __name__ == "__main__":
    main()
