"""nn.Module attribution (traces recorded with with_modules / with_stack).

No corpus trace was recorded with modules, so this test adds what such a
recording adds to a real one: PyTorch writes each module call as a
python_function event named "nn.Module: NAME_ID" (with a "Python module id"
arg) on the thread of the ops it runs, around them. Here every outermost
event of the alexnet benchmark's main thread becomes the call of a module
"Block_K_0" (K counts the event's name), all inside one "Model_0", a
nanosecond wider on each side. GPU time by module must then equal a
recomputation from the modified file: the path "Model_0/Block_K_0" of the
event around each launch, and '(none)' for launches outside every module;
and the modules' rows in analysis_ops must hold that time (gpu_self =
innermost module, gpu_total = anywhere on the path)."""

import gzip
import json
import os
import re
from decimal import Decimal

from common import Checker, need_corpus, run, run_json, sql, tempdir

TRACE = "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"
CPU_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op", "user_annotation",
            "python_function"}
NS = Decimal("0.001")


def with_modules(doc):
    """Adds module events around the outermost CPU events of the thread with
    the most ops (a module call holds whole calls, as in a recording);
    returns {event index: module path} and that thread."""
    evs = doc["traceEvents"]
    ops = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    main = max({(e["pid"], e["tid"]) for e in ops},
               key=lambda t: sum(1 for e in ops if (e["pid"], e["tid"]) == t))
    cpu = [(e["ts"], -e["dur"], i, e) for i, e in enumerate(evs)
           if e.get("ph") == "X" and (e.get("pid"), e.get("tid")) == main
           and e.get("cat") not in (None, "Trace") and not e["cat"].startswith("gpu_")]
    top, end = [], None
    for ts, _, i, e in sorted(cpu, key=lambda x: x[:3]):
        if end is None or ts >= end:
            top.append((i, e))
            end = ts + e["dur"]
    paths, seen = {}, {}
    mod_id = 0

    def module(name, ts, dur):
        nonlocal mod_id
        mod_id += 1
        return {"ph": "X", "cat": "python_function", "name": "nn.Module: " + name,
                "pid": main[0], "tid": main[1], "ts": ts, "dur": dur,
                "args": {"Python id": mod_id, "Python module id": mod_id}}

    added = []
    for i, e in top:
        k = seen.setdefault(e["name"], len(seen))
        added.append(module(f"Block_{k}_0", e["ts"] - NS, e["dur"] + 2 * NS))
        paths[i] = f"Model_0/Block_{k}_0"
    first = min(e["ts"] for _, e in top)
    last = max(e["ts"] + e["dur"] for _, e in top)
    added.append(module("Model_0", first - 2 * NS, last - first + 4 * NS))
    evs.extend(added)
    return paths, main


def expected(doc, paths, main):
    """GPU time per module path, recomputed: the launch (earliest CPU-side
    event of the correlation) lies inside one of the outermost events."""
    evs = doc["traceEvents"]
    launch = {}
    for i, e in sorted(enumerate(evs), key=lambda p: (p[1].get("ts", 0), p[0])):
        c = e.get("args", {}).get("correlation")
        st = e.get("args", {}).get("stream")
        cpu = not isinstance(st, int) and (st is None or e.get("cat") in CPU_CATS)
        if e.get("ph") == "X" and c is not None and cpu and c not in launch:
            launch[c] = e
    spans = [(evs[i]["ts"], evs[i]["ts"] + evs[i]["dur"], p) for i, p in paths.items()]
    out = {}
    for g in evs:
        if g.get("ph") != "X" or "stream" not in g.get("args", {}) or g.get("cat") in CPU_CATS:
            continue
        l = launch.get(g["args"].get("correlation"))
        key = "(none)"
        if l is not None and (l["pid"], l["tid"]) == main:
            for s, e, p in spans:
                if s <= l["ts"] and l["ts"] + l["dur"] <= e:
                    key = p
        out[key] = out.get(key, 0) + int(Decimal(g["dur"]) * 1000)
    return out


def main():
    c = Checker()
    src = need_corpus("traces", TRACE)
    doc = json.load(gzip.open(src, "rt"), parse_float=Decimal)
    paths, thread = with_modules(doc)
    want = expected(doc, paths, thread)
    c.true("the modules hold GPU time", sum(v for k, v in want.items() if k != "(none)") > 0)
    with tempdir() as tmp:
        path = os.path.join(tmp, "modules.json")
        text = json.dumps(doc, default=lambda d: "@@%s@@" % d)
        with open(path, "w") as f:
            f.write(re.sub(r'"@@([-0-9.E+]+)@@"', r"\1", text))  # decimals as numbers
        db = os.path.join(tmp, "t.db")
        run("ingest", "--quiet", "--run", "m", path, db=db)
        rows = run_json("report", "kernels", "--by", "module", "--unit", "ns", db=db)
        c.eq("GPU time by module path", {r["module"]: r["total_ns"] for r in rows}, want)
        ops = sql(db, "SELECT name, gpu_self_ns, gpu_total_ns FROM analysis_ops"
                      " WHERE cat = 'python_function'")
        got = {r["name"]: (r["gpu_self_ns"], r["gpu_total_ns"]) for r in ops}
        inside = sum(v for k, v in want.items() if k != "(none)")
        c.eq("Model_0: no self time, all of it in total", got.get("nn.Module: Model_0"),
             (0, inside))
        blocks = {"nn.Module: " + k.split("/")[1]: (v, v) for k, v in want.items() if k != "(none)"}
        c.eq("each block: self = total = its kernels",
             {k: v for k, v in got.items() if k != "nn.Module: Model_0" and v != (0, 0)}, blocks)
    c.close()


if __name__ == "__main__":
    main()
