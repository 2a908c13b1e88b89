"""The exact (default) GPU reports equal a brute-force computation.

For small real traces, every GPU event (an event with a stream arg) is read
from the raw JSON with exact decimal timestamps; the time axis is cut at every
event boundary and each elementary segment is checked against every event
(O(segments x events), no sweep, no merging). That gives the busy time, the
time of every kernel-type combination and the overlap, to the nanosecond."""

import gzip
import json
import os
from decimal import Decimal

from common import Checker, need_corpus, run, run_json, tempdir

TRACES = ["amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz",
          "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
          "trace_filter_sampled_rank-0.json.gz"]
CPU_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op", "user_annotation",
            "python_function"}


def is_gpu(e):
    return "stream" in e.get("args", {}) and e.get("cat") not in CPU_CATS


BITS = {"COMPUTATION": 1, "COMMUNICATION": 2, "MEMORY": 4, "OTHER": 8}


def kernel_type(name):
    # The documented classification (schemas/50_analysis.sql), written again.
    bare = name[3:] if name.startswith("hip") else name
    if bare.startswith(("Memcpy", "Memset", "dma")):
        return "MEMORY"
    if name.startswith(("nccl", "hccl", "hip")) or "ncclKernel" in name:
        return "COMMUNICATION"
    if "Sync" in name or name.startswith("Stream Wait"):
        return "OTHER"
    return "COMPUTATION"


def gpu_intervals(path):
    with gzip.open(path, "rt") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    out = []
    for e in events:
        if e.get("ph") == "X" and is_gpu(e) and "dur" in e:
            start = int(Decimal(e["ts"]) * 1000)
            out.append((start, start + int(Decimal(e["dur"]) * 1000), kernel_type(e["name"])))
    return out


def brute_force(intervals):
    cuts = sorted({t for s, e, _ in intervals for t in (s, e)})
    mask_time = {}
    for a, b in zip(cuts, cuts[1:]):
        mask = 0
        for s, e, kind in intervals:
            if s <= a and b <= e and s < e:
                mask |= BITS[kind]
        mask_time[mask] = mask_time.get(mask, 0) + (b - a)
    return cuts[0], cuts[-1], mask_time


def union(mask_time, bits):
    return sum(t for m, t in mask_time.items() if m & bits)


def main():
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for name in TRACES:
            path = need_corpus("traces", name)
            run("ingest", "--quiet", "--run", name, path, db=db)
            first, last, mt = brute_force(gpu_intervals(path))
            gpu = run_json("report", "--run", name, "gpu", "--unit", "ns", db=db)[0]
            busy = union(mt, 15)
            c.eq(f"{name} span_ns", gpu["span_ns"], last - first)
            c.eq(f"{name} busy_ns", gpu["busy_ns"], busy)
            c.eq(f"{name} idle_ns", gpu["idle_ns"], last - first - busy)
            c.eq(f"{name} compute_ns", gpu["compute_ns"], union(mt, 1))
            c.eq(f"{name} non_compute_ns", gpu["non_compute_ns"], busy - union(mt, 1))
            comm = union(mt, 2)
            both = sum(t for m, t in mt.items() if m & 3 == 3)
            want_overlap = round(100.0 * both / comm, 2) if comm else None
            c.eq(f"{name} overlap pct", gpu["comm_comp_overlap_pct"], want_overlap)
            types = run_json("report", "--run", name, "kernel-types", "--unit", "ns", db=db)
            got = {r["kernel_type"]: r["time_ns"] for r in types}
            want = {}
            for m, t in mt.items():
                m &= 7
                if m:
                    label = " overlapping ".join(k for k, v in BITS.items() if m & v)
                    want[label] = want.get(label, 0) + t
            c.eq(f"{name} kernel types", got, {k: v for k, v in want.items() if v})
    c.close()


if __name__ == "__main__":
    main()
