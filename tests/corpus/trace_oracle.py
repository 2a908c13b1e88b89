"""Independent recomputations from a raw Kineto trace (Python standard
library only), shared by the corpus tests and test_golden_oracles: events with
exact decimal timestamps, step categories by brute force and by a sweep,
exact idle time per stream, kernel launches joined on correlation, and
collective counts and bytes from the NCCL args. Nothing here reads profdb's
output or its database."""

import bisect
import gzip
import json
from decimal import Decimal

ORDER = ["kernel", "memcpy", "memset", "runtime", "dataloader", "cpu_exec"]
CPU_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op", "user_annotation",
            "python_function"}


# The GPU work whose gaps are idle time (HTA's idle categories, with the
# older spellings Kineto wrote): sync records on a stream are no work.
IDLE_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset",
             "mtia_ccp_events"}


def is_gpu(e):
    return "stream" in e.get("args", {}) and e.get("cat") not in CPU_CATS


def is_gpu_work(e):
    """A GPU event whose gaps count as idle: a kernel, copy or set (or an
    event without a category, as legacy traces write them)."""
    return is_gpu(e) and (e.get("cat") is None or e.get("cat") in IDLE_CATS)


def events_of(path):
    """The complete (X) events of a trace file (.gz or plain), with s and e
    in integer nanoseconds."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
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


def cpu_steps(evs):
    """CPU-side ProfilerStep annotations only: Kineto also writes GPU-side
    copies (gpu_user_annotation)."""
    return [e for e in evs if e["name"].startswith("ProfilerStep#") and not is_gpu(e)
            and not (e.get("cat") or "").startswith("gpu_")]


def brute_steps(evs):
    """Step categories by brute force: every elementary segment of every step
    goes to the first category in ORDER active over it (quadratic: small
    traces only)."""
    result = {}
    for st in cpu_steps(evs):
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


def sweep_steps(evs):
    """The same assignment by a sweep over the whole timeline (n log n, so
    every corpus trace): count the open events of each category between
    consecutive event boundaries, give each such segment to the first
    category in ORDER that is open, then add up each step's share."""
    bounds = []
    for e in evs:
        c = category(e)
        if c and e["s"] < e["e"]:
            bounds += [(e["s"], c, 1), (e["e"], c, -1)]
    bounds.sort(key=lambda b: b[0])
    segments = []  # (start, end, category) in time order, covering no gap
    open_ = dict.fromkeys(ORDER, 0)
    for (t, c, d), nxt in zip(bounds, bounds[1:] + [None]):
        open_[c] += d
        if nxt and nxt[0] > t:
            best = next((k for k in ORDER if open_[k] > 0), "other")
            segments.append((t, nxt[0], best))
    starts = [a for a, _, _ in segments]
    result = {}
    for st in cpu_steps(evs):
        got = dict.fromkeys(ORDER + ["other"], 0)
        covered = 0
        i = max(bisect.bisect_right(starts, st["s"]) - 1, 0)
        while i < len(segments) and segments[i][0] < st["e"]:
            a, b, c = segments[i]
            part = min(b, st["e"]) - max(a, st["s"])
            if part > 0:
                got[c] += part
                covered += part
            i += 1
        got["other"] += st["e"] - st["s"] - covered  # no event open: nothing to assign
        result[st["name"]] = got
    return result


def idle_per_stream(evs):
    """{stream: span minus busy time in ns} over the GPU work (is_gpu_work),
    busy time by brute force over elementary segments."""
    streams = {}
    for e in evs:
        if is_gpu_work(e):
            streams.setdefault(str(e["args"]["stream"]), []).append((e["s"], e["e"]))
    want = {}
    for s, iv in streams.items():
        cuts = sorted({t for a, b in iv for t in (a, b)})
        covered = sum(b - a for a, b in zip(cuts, cuts[1:])
                      if any(x <= a and b <= y for x, y in iv))
        want[s] = cuts[-1] - cuts[0] - covered
    return want


def gpu_events_per_stream(evs):
    """{stream: number of GPU events on it}."""
    n = {}
    for e in evs:
        if is_gpu(e):
            k = str(e["args"]["stream"])
            n[k] = n.get(k, 0) + 1
    return n


def launch_pairs(evs):
    """(GPU event, the CPU event of its correlation) for every launched GPU
    event; the first CPU event of a correlation wins."""
    runtime = {}
    for e in evs:
        corr = e.get("args", {}).get("correlation")
        if corr and not is_gpu(e):
            runtime.setdefault(corr, e)
    return [(e, runtime[e["args"]["correlation"]]) for e in evs
            if is_gpu(e) and e["args"].get("correlation") in runtime]


def collectives(evs):
    """{collective name: [count, bytes]} from the NCCL kernels' args."""
    size = {"Float": 4, "Half": 2, "BFloat16": 2, "Double": 8, "Long": 8, "Int": 4, "Byte": 1}
    want = {}
    for e in evs:
        a = e.get("args", {})
        if is_gpu(e) and (e["name"].startswith("nccl") or "ncclKernel" in e["name"]) \
                and "Collective name" in a:
            w = want.setdefault(a["Collective name"], [0, 0])
            w[0] += 1
            w[1] += a["In msg nelems"] * size[a["dtype"]]
    return want
