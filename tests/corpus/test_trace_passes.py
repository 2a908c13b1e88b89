"""Step, idle, launch, collective and rank reports against independent
computations from the raw trace JSON (and HTA's idle oracle).

- idle --compat hta equals HTA's per-stream idle breakdown;
- idle (exact) per stream: host + kernel + other wait = span - union, by
  brute force over elementary segments;
- steps: the categories add up to each step's duration, and on small traces
  every category equals a brute-force priority assignment;
- launch: count, max delay and kernels shorter than their launch equal a
  join on correlation done here;
- comm: count and bytes per collective kind from the NCCL args;
- ranks: the mean ProfilerStep per rank; two steps per rank are too few to
  call a straggler."""

import glob
import gzip
import json
import os
from decimal import Decimal

from common import Checker, need_corpus, run, run_json, tempdir

ORDER = ["kernel", "memcpy", "memset", "runtime", "dataloader", "cpu_exec"]
CPU_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op", "user_annotation",
            "python_function"}


def is_gpu(e):
    return "stream" in e.get("args", {}) and e.get("cat") not in CPU_CATS


def events_of(path):
    with gzip.open(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    out = []
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and "dur" in e:
            s = int(Decimal(e["ts"]) * 1000)
            out.append(dict(e, s=s, e=s + int(Decimal(e["dur"]) * 1000)))
    return out


def category(e):
    name, cat = e.get("name", ""), e.get("cat")
    if is_gpu(e):
        bare = name[3:] if name.startswith("hip") else name
        if bare.startswith(("Memcpy", "Memset", "dma")):
            return "memset" if "Memset" in name else "memcpy"
        if name.startswith(("nccl", "hccl", "hip")) or "ncclKernel" in name:
            return "kernel"
        if "Sync" in name or name.startswith("Stream Wait"):
            return None
        return "kernel"
    if cat in ("cuda_runtime", "cuda_driver", "hip_runtime"):
        return "runtime"
    if name.startswith("ProfilerStep#") or cat == "Trace" or (cat or "").startswith("gpu_"):
        return None
    if "DataLoader" in name:
        return "dataloader"
    return "cpu_exec"


def brute_steps(evs):
    result = {}
    # CPU-side steps only: Kineto also writes GPU-side copies (gpu_user_annotation).
    for st in [e for e in evs if e["name"].startswith("ProfilerStep#") and not is_gpu(e)
               and not (e.get("cat") or "").startswith("gpu_")]:
        inside = [(max(e["s"], st["s"]), min(e["e"], st["e"]), category(e)) for e in evs
                  if category(e) and e["s"] < st["e"] and e["e"] > st["s"]]
        inside = [i for i in inside if i[0] < i[1]]
        cuts = sorted({st["s"], st["e"]} | {t for a, b, _ in inside for t in (a, b)})
        got = dict.fromkeys(ORDER + ["other"], 0)
        for a, b in zip(cuts, cuts[1:]):
            active = {c for s, e, c in inside if s <= a and b <= e}
            best = next((c for c in ORDER if c in active), "other")
            got[best] += b - a
        result[st["name"]] = got
    return result


def check_steps(c, db, name, evs, brute):
    rows = run_json("report", "--run", name, "steps", "--unit", "ns", db=db)
    for r in rows:
        parts = sum(r[f"{k}_ns"] for k in ORDER + ["other"])
        c.eq(f"{name} {r['step']} categories add up", parts, r["dur_ns"])
    if brute:
        want = brute_steps(evs)
        got = {r["step"]: {k: r[f"{k}_ns"] for k in ORDER + ["other"]} for r in rows}
        c.eq(f"{name} steps by brute force", got, want)


def check_idle_exact(c, db, name, evs):
    streams = {}
    for e in evs:
        if is_gpu(e):
            streams.setdefault(str(e["args"]["stream"]), []).append((e["s"], e["e"]))
    rows = run_json("report", "--run", name, "idle", "--unit", "ns", db=db)
    got = {str(r["stream"]): r["idle_ns"] for r in rows}
    want = {}
    for s, iv in streams.items():
        cuts = sorted({t for a, b in iv for t in (a, b)})
        covered = sum(b - a for a, b in zip(cuts, cuts[1:])
                      if any(x <= a and b <= y for x, y in iv))
        want[s] = cuts[-1] - cuts[0] - covered
    c.eq(f"{name} idle per stream (exact)", got, want)


def check_idle_hta(c, db, name, oracle):
    ib = oracle.get("idle_time_breakdown")
    if not isinstance(ib, dict) or "per_stream" not in ib:
        return
    rows = run_json("report", "--run", name, "idle", "--compat", "hta", db=db)
    got = {str(r["stream"]): {"host_wait": r["host_wait_us"], "kernel_wait": r["kernel_wait_us"],
                              "other": r["other_us"]} for r in rows}
    c.eq(f"{name} idle per stream (hta)", got, ib["per_stream"])


def check_launch(c, db, name, evs):
    runtime = {}
    for e in evs:
        corr = e.get("args", {}).get("correlation")
        if corr and not is_gpu(e):
            runtime.setdefault(corr, e)
    pairs = [(e, runtime[e["args"]["correlation"]]) for e in evs
             if is_gpu(e) and e["args"].get("correlation") in runtime]
    rows = run_json("report", "--run", name, "launch", "--unit", "ns", db=db)
    if not pairs:
        c.eq(f"{name} no launches", rows, [])
        return
    r = rows[0]
    c.eq(f"{name} launches", r["launches"], len(pairs))
    c.eq(f"{name} max launch delay", r["max_delay_ns"], max(g["s"] - rt["s"] for g, rt in pairs))
    c.eq(f"{name} kernels shorter than launch", r["shorter_than_launch"],
         sum(1 for g, rt in pairs if g["e"] - g["s"] < rt["e"] - rt["s"]))


def check_comm(c, db, name, evs):
    size = {"Float": 4, "Half": 2, "BFloat16": 2, "Double": 8, "Long": 8, "Int": 4, "Byte": 1}
    want = {}
    for e in evs:
        a = e.get("args", {})
        if is_gpu(e) and (e["name"].startswith("nccl") or "ncclKernel" in e["name"]) \
                and "Collective name" in a:
            w = want.setdefault(a["Collective name"], [0, 0])
            w[0] += 1
            w[1] += a["In msg nelems"] * size[a["dtype"]]
    if not want:
        return
    rows = run_json("report", "--run", name, "comm", db=db)
    c.eq(f"{name} collectives", {r["kind"]: [r["count"], r["bytes"]] for r in rows}, want)


def oracle_files(oracles):
    """HTA's answers: traces/oracles/ and traces/oracles_new/ (the seven traces
    added last; the corpus is read-only here, so they are read where they are)."""
    return sorted(glob.glob(os.path.join(oracles, "*.json")) +
                  glob.glob(os.path.join(oracles + "_new", "*.json")))


def main():
    c = Checker()
    oracles = need_corpus("traces", "oracles")
    small = {"amd_trace_mi250_minitoy_train_ROCm6_2_kineto",
             "critical_path_alexnet_benchmark_result_2869224_1695835535_trace"}
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for path in oracle_files(oracles):
            oracle = json.load(open(path))
            name = os.path.basename(path)[:-5]
            trace = need_corpus("traces", oracle["trace_file"])
            run("ingest", "--quiet", "--run", name, trace, db=db)
            evs = events_of(trace)
            check_steps(c, db, name, evs, name in small)
            check_idle_hta(c, db, name, list(oracle["per_rank"].values())[0])
            if name in small or "sampled" in name:
                check_idle_exact(c, db, name, evs)
            check_launch(c, db, name, evs)
            check_comm(c, db, name, evs)
        # Two ranks of one job, two steps each: mean steps as written, and no
        # straggler, since two steps against two cannot pass the test
        # (test_trace_findings checks the rule where it can decide).
        r0 = need_corpus("traces", "trace_filter_sampled_rank-0.json.gz")
        r1 = need_corpus("traces", "trace_filter_sampled_rank-1.json.gz")
        run("ingest", "--quiet", "--run", "two", r0, r1, db=db)
        means = {}
        for rank, p in ((0, r0), (1, r1)):
            durs = [e["e"] - e["s"] for e in events_of(p) if e["name"].startswith("ProfilerStep#")]
            means[rank] = sum(durs) / len(durs)
        rows = run_json("report", "--run", "two", "ranks", "--unit", "ns", db=db)
        c.eq("mean step per rank", {r["rank"]: r["mean_step_ns"] for r in rows}, means)
        c.eq("notes", [r["note"] for r in rows], ["too few steps to test"] * 2)
    c.close()


if __name__ == "__main__":
    main()
