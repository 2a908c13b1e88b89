"""--compat hta on nanosecond-resolution traces at today's clock values.

PyTorch writes ts like 1712195495519689.047 (us since the epoch, three
fractional digits). HTA reads ts and dur as float64 (a quarter of a
microsecond apart at 1.7e15), rounds start = ceil(ts) and end =
floor(ts + dur) in float64: not what exact decimal rounding gives.

The corpus has ns-resolution traces only at small clock values (4.4e12 us,
where float64 is exact to the ns), so this test makes the large-clock case
from a real one: nccl_parser_config with every ts moved forward by a whole
number of microseconds, as text (the fractional digits stay as written).

Oracle: HTA's temporal breakdown recomputed here in Python floats (which are
float64, as in pandas), following HTA's loader and get_temporal_breakdown.
The recomputation is first checked against HTA's own answer on the
unshifted trace; on the shifted one profdb --compat hta must equal it, and
exact decimal rounding must not (else the test would prove nothing).

HTA itself (the anchor copy, Debian's pandas 1.5) was run once on the
shifted trace (2026-11-26): temporal breakdown idle 338199, compute 75607,
non-compute 21780, kernel time 435586 us, overlap 14.4%, COMPUTATION 72111
and COMMUNICATION 20594 us - what this recomputation and profdb give; exact
decimal rounding gives idle 338781 and compute 75169."""

import gzip
import json
import math
import os
import re
from decimal import Decimal

from common import Checker, need_corpus, run, run_json, tempdir

TRACE = "nccl_parser_config_nccl_data.json.gz"
SHIFT_US = 1707736818997000  # moves 4.46e12 us to 1.712e15 us
TS = re.compile(r'("ts"\s*:\s*)(-?[0-9.]+)')


def shifted_text(text):
    return TS.sub(lambda m: m.group(1) + str(Decimal(m.group(2)) + SHIFT_US), text)


def comm(name):
    return bool(re.match(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)", name))


def mem(name):
    return bool(re.match(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)", name))


NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)"
    r"|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)"
    r"|(^collective_subgraph_execution)")


def compute(name):
    return not comm(name) and not mem(name) and not NOT_COMPUTE.match(name)


def stream_of(e):
    s = e.get("args", {}).get("stream", -1)
    return s if isinstance(s, (int, float)) and not isinstance(s, bool) else -1


def merged(intervals):
    """HTA's merge_kernel_intervals: groups split where ts > max of earlier ends."""
    groups, cummax = [], None
    for s, e in sorted(intervals, key=lambda x: x[0]):
        if cummax is None or s > cummax:
            groups.append([s, e])
        else:
            groups[-1][1] = max(groups[-1][1], e)
        cummax = e if cummax is None else max(cummax, e)
    return groups


def hta_breakdown(text, exact=False):
    """HTA's temporal breakdown (us); exact=True rounds the decimal text instead."""
    doc = json.loads(text, parse_float=Decimal if exact else float)
    evs = [e for e in doc["traceEvents"]
           if e.get("ph") == "X" and "dur" in e and e.get("cat") not in (None, "Trace")]
    for e in evs:
        end = e["ts"] + e["dur"]
        e["s"], e["e"] = math.ceil(e["ts"]), math.floor(end)
    cpu = [e for e in evs if stream_of(e) == -1]
    steps = {e["name"] for e in cpu if e["name"].startswith("ProfilerStep#")}
    gpu = [e for e in evs if stream_of(e) != -1]
    if len(steps) >= 2:
        last = max(e["s"] for e in cpu if e["name"] in steps)
        kept = {e.get("args", {}).get("correlation") for e in cpu if e["s"] < last}
        gpu = [e for e in gpu if e.get("args", {}).get("correlation") in kept]
    groups = merged([(e["s"], e["e"]) for e in gpu])
    kernel_time = groups[-1][1] - groups[0][0]
    idle = kernel_time - sum(e - s for s, e in groups)
    comp = sum(e - s for s, e in merged([(e["s"], e["e"]) for e in gpu if compute(e["name"])]))
    return {"kernel_time_us": kernel_time, "idle_us": idle, "compute_us": comp,
            "non_compute_us": kernel_time - comp - idle}


def main():
    c = Checker()
    src = need_corpus("traces", TRACE)
    oracle = json.load(open(need_corpus("traces", "oracles", TRACE[:-8] + ".json")))
    tb = oracle["per_rank"]["0"]["temporal_breakdown"]
    text = gzip.open(src, "rt").read()
    c.eq("recomputation equals HTA on the original trace", hta_breakdown(text),
         {"kernel_time_us": tb["kernel_time_us"], "idle_us": tb["idle_time_us"],
          "compute_us": tb["compute_time_us"], "non_compute_us": tb["non_compute_time_us"]})
    moved = shifted_text(text)
    want = hta_breakdown(moved)
    c.true("float64 and exact decimal rounding differ on the shifted trace",
           want != hta_breakdown(moved, exact=True), str(want))
    with tempdir() as tmp:
        path = os.path.join(tmp, "shifted.json.gz")
        with gzip.open(path, "wt") as f:
            f.write(moved)
        db = os.path.join(tmp, "t.db")
        run("ingest", "--quiet", "--run", "shifted", path, db=db)
        gpu = run_json("report", "--run", "shifted", "gpu", "--compat", "hta", db=db)[0]
        got = {k: gpu[k] for k in want}
        c.eq("gpu --compat hta on the shifted trace", got, want)
    c.close()


if __name__ == "__main__":
    main()
