#!/usr/bin/env python3
"""Derives a with_stack PyTorch trace and a py-spy profile of the same
functions from a real trace without python_function events (for
tests/corpus/test_pyspy_trace.py; no corpus trace has them, and the real
with_stack traces found were too large to fetch).

usage: make_with_stack.py TRACE.json.gz OUT_TRACE.json OUT_PROFILE.pyspy

Deterministic. Into the trace it adds python_function events named as
PyTorch's python tracer names them, 'FILE(LINE): FUNC' (LINE the def line):
  - one per top-level cpu_op (no cpu_op around it on its thread), with the
    op's own window, its function chosen by the op's name (conv_block,
    classifier, to_device, activations, misc);
  - 'benchmark' around each user_annotation whose name ends in '|forward]'
    (the trace's two warmup windows nest: recursion, counted once).
The py-spy raw profile has one stack per derived op event, root first:
'<module>', 'benchmark' (once per forward window around it), the function, with
max(1, round(dur_us / 100)) samples (a 10 kHz sampler), py-spy's line being
the executing line (the def line + 2), so the two join by name and file,
never by line; and 5 samples of '<module>;benchmark' alone."""
import gzip
import json
import sys

RUN = "/work/bench/run.py"
NET = "/work/bench/alexnet.py"
DATA = "/work/bench/data.py"


def function_of(op):
    if op in ("aten::conv2d",):
        return NET, 21, "conv_block"
    if op in ("aten::linear", "aten::addmm"):
        return NET, 33, "classifier"
    if op in ("aten::to", "aten::copy_", "aten::_to_copy"):
        return DATA, 8, "to_device"
    if op in ("aten::relu_", "aten::relu", "aten::max_pool2d", "aten::dropout",
              "aten::adaptive_avg_pool2d", "aten::flatten"):
        return NET, 50, "activations"
    return NET, 60, "misc"


def main():
    src, out_trace, out_prof = sys.argv[1:4]
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    ops = [e for e in events if e.get("cat") == "cpu_op" and e.get("ph") == "X"]
    top = []
    for e in ops:
        s, t = e["ts"], e["ts"] + e["dur"]
        if not any(o is not e and o["tid"] == e["tid"] and o["pid"] == e["pid"]
                   and o["ts"] <= s and t <= o["ts"] + o["dur"]
                   and (o["dur"] > e["dur"] or o["ts"] < s) for o in ops):
            top.append(e)
    windows = [e for e in events if e.get("cat") == "user_annotation"
               and e["name"].endswith("|forward]")]
    added, stacks = [], {}

    def py(pid, tid, ts, dur, file, line, func):
        added.append({"ph": "X", "cat": "python_function", "name": f"{file}({line}): {func}",
                      "pid": pid, "tid": tid, "ts": ts, "dur": dur,
                      "args": {"Python id": len(added) + 1}})

    for w in windows:
        py(w["pid"], w["tid"], w["ts"], w["dur"], RUN, 12, "benchmark")
    for e in top:
        file, line, func = function_of(e["name"])
        py(e["pid"], e["tid"], e["ts"], e["dur"], file, line, func)
        stack = [f"<module> ({RUN}:1)"]
        for w in windows:
            if w["tid"] == e["tid"] and w["ts"] <= e["ts"] and e["ts"] < w["ts"] + w["dur"]:
                stack.append(f"benchmark ({RUN}:14)")
        stack.append(f"{func} ({file}:{line + 2})")
        key = ";".join(stack)
        stacks[key] = stacks.get(key, 0) + max(1, round(e["dur"] / 100))
    key = f"<module> ({RUN}:1);benchmark ({RUN}:14)"
    stacks[key] = stacks.get(key, 0) + 5
    doc["traceEvents"] = added + events
    with open(out_trace, "w") as f:
        json.dump(doc, f)
    with open(out_prof, "w") as f:
        for k in sorted(stacks):
            f.write(f"{k} {stacks[k]}\n")


if __name__ == "__main__":
    main()
