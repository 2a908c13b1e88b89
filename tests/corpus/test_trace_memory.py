"""The memory report against torch's own answers on a real profile_memory
trace (tests/traces/train_memory.trace.json.gz, made with its oracle by
tests/traces/make_memory_trace.py from a training loop on Debian's PyTorch):

  memory (per op)   every key_averages() row: calls, cpu_memory_usage,
                    self_cpu_memory_usage, cuda_memory_usage,
                    self_cuda_memory_usage (ProfilerStep#N folded into
                    ProfilerStep*, as key_averages groups them); an op with
                    no memory has no row;
  memory --by step  the peak of Total Allocated over the trace and per step;
  memory --by alloc the allocations alive at the peak (recomputed by the
                    trace's maker from the pointers of torch's records)."""

import json
import os

from common import SOURCE, Checker, run, run_json, tempdir

TRACE = os.path.join(SOURCE, "tests", "traces", "train_memory.trace.json.gz")
ORACLE = os.path.join(SOURCE, "tests", "traces", "train_memory.oracle.json")


def main():
    c = Checker()
    oracle = json.load(open(ORACLE))
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        run("ingest", "--quiet", "--run", "mem", TRACE, db=db)
        ops = {r["op"]: r for r in run_json("report", "memory", db=db)}
        for w in oracle["key_averages"]:
            g = ops.get(w["name"])
            got = (g["calls"], g["cpu_bytes"], g["self_cpu_bytes"], g["device_bytes"],
                   g["self_device_bytes"]) if g else None
            want = (w["count"], w["cpu_memory_usage"], w["self_cpu_memory_usage"],
                    w["cuda_memory_usage"], w["self_cuda_memory_usage"])
            if got is None:  # ops without memory have no row
                c.eq(f"{w['name']} has no memory", want[1:], (0, 0, 0, 0))
            else:
                c.eq(f"{w['name']} memory", got, want)
        names = {w["name"] for w in oracle["key_averages"]}
        c.eq("no op beyond key_averages'", sorted(set(ops) - names), [])
        c.true("the trace's ops with memory were compared",
               sum(1 for w in oracle["key_averages"] if w["self_cpu_memory_usage"]) > 20)

        peaks = run_json("report", "memory", "--by", "step", "--unit", "ns", db=db)
        whole = [p for p in peaks if p["step"] is None]
        c.eq("one device", len(whole), 1)
        c.eq("peak allocated", whole[0]["peak_allocated_bytes"], oracle["peak"]["allocated"])
        steps = {p["step"]: p["peak_allocated_bytes"] for p in peaks if p["step"] is not None}
        c.eq("peak per step", steps, {int(s["step"].split("#")[1]): s["peak_allocated"]
                                      for s in oracle["per_step"]})

        alive = run_json("report", "memory", "--by", "alloc", "--unit", "ns", db=db)
        got = sorted((int(a["addr"], 16), a["bytes"]) for a in alive)
        want = sorted((a["addr"], a["bytes"]) for a in oracle["alive_at_peak"])
        c.eq("allocations alive at the peak", got, want)
        c.eq("alive + allocated before the trace = peak",
             sum(a["bytes"] for a in alive) + oracle["allocated_before_profile"],
             oracle["peak"]["allocated"])
        code, out, _ = run("report", "memory", "--by", "alloc", db=db)
        c.true("table names the op that allocated", "aten::" in out, out)
    c.close()


if __name__ == "__main__":
    main()
