#!/usr/bin/env python3
"""Traces with overlapping memory copies, for memory-bw --compat hta
(tests/corpus/test_trace_series.py, issue 34). Written by this script, not
taken from anywhere: python3 derive.py writes each folder's trace.json.gz.

Copies (device-to-device mostly, some host-to-device and memsets) on three
streams; each starts where its stream's last one ended or a few us later,
lasts 0 to 8 us, so many start or end at a timestamp another copy of its kind
starts or ends at. There HTA's order (pandas' unstable default sort) decides
the running sums and which points are above 0; a stable sort does not give
it. Each copy has a "memory bandwidth (GB/s)" arg and a cudaMemcpyAsync
launch with its correlation.
  small/: 300 copies, integer timestamps;
  large/: 4000 copies with fractional timestamps (HTA rounds them inward),
          so the sort's partitions go deep."""

import gzip
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ["Memcpy DtoD (Device -> Device)"] * 4 + ["Memcpy HtoD (Pinned -> Device)",
                                                   "Memset (Device)"]


def trace(n, seed, frac):
    rnd = random.Random(seed)
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
          {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 100, "tid": 1, "ts": 990,
           "dur": 10 * n + 5000, "args": {}}]
    end = {7: 1000, 20: 1000, 24: 1000}
    for corr in range(1, n + 1):
        s = rnd.choice(sorted(end))
        start = end[s] + rnd.choice([0, 0, 0, 1, 2, 5])
        dur = rnd.choice([0, 1, 2, 3, 4, 5, 8])
        ts, d = start, dur
        if frac and rnd.random() < 0.3:
            ts, d = start + rnd.choice([0.25, 0.5, 0.75]), dur + rnd.choice([0.125, 0.5])
        bw = rnd.choice([0.5, 1.25, 3.1, 7.7, 12.0, 0.1])
        name = rnd.choice(KINDS)
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100,
                   "tid": 1, "ts": start - 1, "dur": 1, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "gpu_memset" if name.startswith("Memset") else "gpu_memcpy",
                   "name": name, "pid": 0, "tid": s, "ts": ts, "dur": d,
                   "args": {"device": 0, "context": 1, "stream": s, "correlation": corr,
                            "bytes": int(bw * 1000 * max(dur, 1)),
                            "memory bandwidth (GB/s)": bw}})
        end[s] = start + dur
    return {"schemaVersion": 1, "deviceProperties": [], "traceEvents": ev}


def main():
    for folder, n, seed, frac in [("small", 300, 7, False), ("large", 4000, 11, True)]:
        os.makedirs(os.path.join(HERE, folder), exist_ok=True)
        data = json.dumps(trace(n, seed, frac)).encode()
        with open(os.path.join(HERE, folder, "trace.json.gz"), "wb") as f:
            with gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as g:
                g.write(data)


if __name__ == "__main__":
    main()
