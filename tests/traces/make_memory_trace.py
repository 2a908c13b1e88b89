#!/usr/bin/python3
"""Makes tests/traces/train_memory.trace.json.gz and its oracle,
tests/traces/train_memory.oracle.json, from a real profile of a small
training loop (profile_memory=True), with the answers of torch's own
key_averages() beside it.

How, and why this way. The profile is taken by PyTorch itself: Debian 12's
python3-torch (1.13.1, CPU) running torch.autograd.profiler.profile(
use_kineto=True, profile_memory=True, record_shapes=True) - torch's own event
collection, whose results key_averages() reads. That build has no libkineto,
so export_chrome_trace() falls back to the legacy writer, which drops the
memory events; the Chrome-trace JSON is therefore written here, from the
same result object, in Kineto's format: one 'X' event per profiler event
(cpu_op, or user_annotation for record_function ranges), one 'i' event named
"[memory]" (cat cpu_instant_event, s "t") per allocation or free, with torch's
own Bytes, Addr (the pointer), Total Allocated, Total Reserved, Device Type
and Device Id. Times are the integer microseconds torch's KinetoEvent
reports (start_us, duration_us), which are what key_averages() compares:
the trace holds exactly the numbers the oracle was computed from.

The oracle (all torch's own numbers unless said otherwise):
  key_averages: per name (key_averages() default grouping): count,
    cpu_memory_usage, self_cpu_memory_usage, cpu_time_total_us,
    self_cpu_time_total_us;
  table: key_averages().table(sort_by="self_cpu_memory_usage");
  peak: the largest Total Allocated of the allocation records, its time,
    and per ProfilerStep#N the largest within the step's window;
  alive_at_peak: the allocations live at the first moment of the peak,
    recomputed here by replaying the records' pointers (an allocation lives
    from its record to the free record of the same pointer); memory
    allocated before the profile began (the model, the batch) counts in
    Total Allocated but has no record: allocated_before_profile.

Run: /usr/bin/python3 tests/traces/make_memory_trace.py (from the source
root). Torch's timings vary from run to run, so the committed pair is one
run's; the script asserts the trace and oracle agree before writing."""

import gzip
import json
import os
import sys

import torch
from torch.autograd import profiler

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 4
USER_SCOPE = 7  # at::RecordScope::USER_SCOPE: record_function ranges


def train():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(32, 64)
    y = torch.randint(0, 10, (32,))
    with profiler.profile(use_kineto=True, profile_memory=True, record_shapes=True) as prof:
        for step in range(STEPS):
            with profiler.record_function(f"ProfilerStep#{step}"):
                opt.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
    return prof


def allocations(result):
    """torch's allocation records, in time order: (start_ns, tid, bytes, ptr,
    total_allocated, total_reserved, device type, device index)."""
    out = []

    def walk(node):
        if node.tag == torch._C._profiler._EventType.Allocation:
            f = node.extra_fields
            out.append((node.start_time_ns, node.start_tid, f.alloc_size, f.ptr,
                        f.total_allocated, f.total_reserved, f.device.type, f.device.index))
        for c in node.children:
            walk(c)

    for root in result.experimental_event_tree():
        walk(root)
    out.sort(key=lambda a: a[0])
    return out


def device_type_code(t):
    return 0 if t == "cpu" else 1 if t == "cuda" else -1


def trace_of(prof):
    result = prof.kineto_results
    pid = os.getpid()
    allocs = allocations(result)
    mem_events = [e for e in result.events() if e.name() == "[memory]"]
    assert len(mem_events) == len(allocs), (len(mem_events), len(allocs))
    mem_events.sort(key=lambda e: e.start_us())
    events = []
    for i, e in enumerate(result.events()):
        if e.name() == "[memory]":
            continue
        cat = "user_annotation" if e.scope() == USER_SCOPE else "cpu_op"
        args = {"External id": e.correlation_id(), "Ev Idx": i}
        if e.shapes():
            args["Input Dims"] = e.shapes()
        if e.dtypes():
            args["Input type"] = e.dtypes()
        if e.sequence_nr() >= 0:
            args["Fwd thread id"] = e.fwd_thread_id()
            args["Sequence number"] = e.sequence_nr()
        events.append({"ph": "X", "cat": cat, "name": e.name(), "pid": pid,
                       "tid": e.start_thread_id(), "ts": e.start_us(), "dur": e.duration_us(),
                       "args": args})
    for e, a in zip(mem_events, allocs):
        assert e.nbytes() == a[2] and e.start_us() == a[0] // 1000, (e.nbytes(), a)
        events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                       "pid": pid, "tid": e.start_thread_id(), "ts": e.start_us(),
                       "args": {"Total Reserved": a[5], "Total Allocated": a[4],
                                "Bytes": a[2], "Device Id": a[7] if a[7] is not None else -1,
                                "Device Type": device_type_code(str(a[6])), "Addr": a[3]}})
    events.sort(key=lambda e: (e["ts"], e["ph"] != "X"))
    return {"schemaVersion": 1, "deviceProperties": [], "traceName": "train_memory",
            "displayTimeUnit": "ms", "baseTimeNanoseconds": 0,
            "trace_writer": "tests/traces/make_memory_trace.py from torch "
                            + torch.__version__ + " profiler results (see its docstring)",
            "traceEvents": events}, allocs


def oracle_of(prof, trace, allocs):
    avg = prof.key_averages()
    rows = [{"name": a.key, "count": a.count, "cpu_memory_usage": a.cpu_memory_usage,
             "self_cpu_memory_usage": a.self_cpu_memory_usage,
             "cuda_memory_usage": a.cuda_memory_usage,
             "self_cuda_memory_usage": a.self_cuda_memory_usage,
             "cpu_time_total_us": a.cpu_time_total, "self_cpu_time_total_us": a.self_cpu_time_total}
            for a in avg]
    mem = [e for e in trace["traceEvents"] if e["name"] == "[memory]"]
    peak = max(e["args"]["Total Allocated"] for e in mem)
    first = next(e for e in mem if e["args"]["Total Allocated"] == peak)
    steps = [e for e in trace["traceEvents"] if e["name"].startswith("ProfilerStep#")]
    per_step = []
    for s in steps:
        inside = [e["args"]["Total Allocated"] for e in mem
                  if s["ts"] <= e["ts"] <= s["ts"] + s["dur"]]
        per_step.append({"step": s["name"], "peak_allocated": max(inside) if inside else None})
    live = {}
    for e in mem:
        a = e["args"]
        if a["Bytes"] > 0:
            live[a["Addr"]] = (a["Bytes"], e["ts"])
        else:
            live.pop(a["Addr"], None)
        if e is first:
            break
    alive = sorted(({"addr": k, "bytes": v[0], "ts": v[1]} for k, v in live.items()),
                   key=lambda r: (r["ts"], r["addr"]))
    # Memory allocated before the profile started (the model, the batch) is in
    # Total Allocated but has no record: the rest of the peak.
    before = peak - sum(r["bytes"] for r in alive)
    return {"tool": {"torch": torch.__version__, "python": sys.version.split()[0]},
            "key_averages": rows,
            "table": avg.table(sort_by="self_cpu_memory_usage", row_limit=-1),
            "peak": {"allocated": peak, "ts_us": first["ts"], "device_type": 0},
            "per_step": per_step, "alive_at_peak": alive, "allocated_before_profile": before,
            "memory_events": len(mem)}


def main():
    prof = train()
    trace, allocs = trace_of(prof)
    oracle = oracle_of(prof, trace, allocs)
    with gzip.open(os.path.join(HERE, "train_memory.trace.json.gz"), "wt") as f:
        json.dump(trace, f)
    with open(os.path.join(HERE, "train_memory.oracle.json"), "w") as f:
        json.dump(oracle, f, indent=1)
        f.write("\n")
    print(f"{len(trace['traceEvents'])} events, {oracle['memory_events']} memory events, "
          f"peak {oracle['peak']['allocated']} bytes")


if __name__ == "__main__":
    main()
