"""Backward kernels carried to their forward op (report attribution).

1. A trace written here so that the answer is known: a forward op on the
   main thread inside a record_function range and two nn.Modules, its
   backward op on an autograd thread linked by a fwdbwd flow, one linked
   only by its sequence number, a user_annotation on the autograd thread
   (kept: direct), AccumulateGrad (no forward op), a sequence number whose
   forward ops are on two threads (not linked), a kernel launched outside
   everything. attribution --by annotation, module, op, top-op and kernel
   must give the exact microseconds written below, and kernels --by
   annotation (the direct attribution) must be unchanged.
2. Every corpus trace with linked backward ops (fwdbwd flows or ops with
   "Sequence number" and "Fwd thread id"): an independent recomputation
   from the raw JSON (links by flow, else by sequence number, PyTorch's
   rule; a stack per thread for the forward op's context and the
   innermost linked backward op around each launch) must equal
   attribution --by annotation, --by module and --by op row by row, and
   the GPU time attributed to an annotation, and to a forward op, must
   rise where backward kernels were linked. The shares are printed."""

import glob
import gzip
import json
import os
from decimal import Decimal

from common import Checker, need_corpus, run, run_json, tempdir
from test_trace_attribution import is_gpu, launcher_side, ns

# --- 1. the derived trace ---------------------------------------------------

MAIN, AUTOGRAD, OTHER, GPU = 1, 2, 3, 7


def op(name, tid, ts, dur, cat="cpu_op", **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = {k.replace("_", " "): v for k, v in args.items()}
    return e


def seq(n, fwd_thread):
    return {"Sequence number": n, "Fwd thread id": fwd_thread}


def launch(tid, ts, corr, kernel, kts, kdur):
    return [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": tid,
             "ts": ts, "dur": 2, "args": {"correlation": corr}},
            {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": GPU, "ts": kts,
             "dur": kdur, "args": {"correlation": corr, "stream": GPU, "device": 0}}]


def derived_trace():
    ev = [op("ProfilerStep#1", MAIN, 0, 1000, cat="user_annotation"),
          op("## fwd ##", MAIN, 10, 300, cat="user_annotation"),
          op("nn.Module: Net_0", MAIN, 20, 280, cat="python_function"),
          op("nn.Module: Linear_0", MAIN, 30, 170, cat="python_function"),
          dict(op("aten::linear", MAIN, 40, 150), args=seq(7, 0)),
          dict(op("aten::addmm", MAIN, 50, 100), args=seq(7, 0)),
          dict(op("aten::relu", MAIN, 210, 50), args=seq(8, 0)),
          # sequence number 9 on two forward threads: ambiguous, not linked
          dict(op("aten::mul", MAIN, 830, 10), args=seq(9, 0)),
          dict(op("aten::mul", OTHER, 830, 10), args=seq(9, 0)),
          op("aten::zeros", MAIN, 800, 20),
          # autograd thread
          dict(op("autograd::engine::evaluate_function: AddmmBackward0", AUTOGRAD, 400, 200),
               args=seq(7, 1)),
          dict(op("AddmmBackward0", AUTOGRAD, 410, 140), args=seq(7, 1)),
          op("aten::mm", AUTOGRAD, 420, 80),
          dict(op("autograd::engine::evaluate_function: ReluBackward0", AUTOGRAD, 610, 90),
               args=seq(8, 1)),
          dict(op("ReluBackward0", AUTOGRAD, 612, 78), args=seq(8, 1)),
          op("nccl:all_reduce", AUTOGRAD, 620, 30, cat="user_annotation"),
          op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
             AUTOGRAD, 710, 40),
          dict(op("MulBackward0", AUTOGRAD, 900, 50), args=seq(9, 1)),
          {"ph": "s", "id": 1, "pid": 1, "tid": MAIN, "ts": 50, "cat": "fwdbwd",
           "name": "fwdbwd"},
          {"ph": "f", "id": 1, "pid": 1, "tid": AUTOGRAD, "ts": 410, "cat": "fwdbwd",
           "name": "fwdbwd", "bp": "e"}]
    ev += launch(MAIN, 60, 1, "fwd_gemm", 70, 100)       # addmm: ## fwd ##, Net_0/Linear_0
    ev += launch(MAIN, 220, 2, "relu_fwd", 230, 20)      # relu: ## fwd ##, Net_0
    ev += launch(AUTOGRAD, 430, 3, "bwd_gemm", 440, 150)  # in AddmmBackward0 (flow)
    ev += launch(AUTOGRAD, 560, 4, "bwd_acc", 600, 5)    # evaluate_function only (seq)
    ev += launch(AUTOGRAD, 640, 5, "allreduce", 650, 40)  # nccl:all_reduce in ReluBackward0
    ev += launch(AUTOGRAD, 670, 6, "relu_bwd", 700, 30)  # ReluBackward0 (seq)
    ev += launch(AUTOGRAD, 720, 7, "acc_grad", 740, 8)   # AccumulateGrad: no forward op
    ev += launch(MAIN, 805, 8, "fill", 810, 2)           # aten::zeros, outside ## fwd ##
    ev += launch(AUTOGRAD, 910, 9, "mul_bwd", 920, 4)    # MulBackward0: not linked
    return {"traceEvents": ev}


US = 1000  # ns per us

WANT = {
    "annotation": {("## fwd ##", "direct"): 120, ("## fwd ##", "backward"): 185,
                   ("nccl:all_reduce", "direct"): 40, ("(none)", "direct"): 14},
    "module": {("Net_0/Linear_0", "direct"): 100, ("Net_0", "direct"): 20,
               ("Net_0/Linear_0", "backward"): 155, ("Net_0", "backward"): 70,
               ("(none)", "direct"): 14},
    "op": {("aten::addmm", "direct"): 100, ("aten::relu", "direct"): 20,
           ("aten::addmm", "backward"): 155, ("aten::relu", "backward"): 70,
           ("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "direct"): 8,
           ("aten::zeros", "direct"): 2, ("MulBackward0", "direct"): 4},
    "top-op": {("aten::linear", "direct"): 100, ("aten::relu", "direct"): 20,
               ("aten::linear", "backward"): 155, ("aten::relu", "backward"): 70,
               ("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                "direct"): 8, ("aten::zeros", "direct"): 2, ("MulBackward0", "direct"): 4},
}
KERNELS = {  # kernel: (via, op, annotation, module, us)
    "fwd_gemm": ("direct", "aten::addmm", "## fwd ##", "Net_0/Linear_0", 100),
    "relu_fwd": ("direct", "aten::relu", "## fwd ##", "Net_0", 20),
    "bwd_gemm": ("backward", "aten::addmm", "## fwd ##", "Net_0/Linear_0", 150),
    "bwd_acc": ("backward", "aten::addmm", "## fwd ##", "Net_0/Linear_0", 5),
    "allreduce": ("backward", "aten::relu", "nccl:all_reduce", "Net_0", 40),
    "relu_bwd": ("backward", "aten::relu", "## fwd ##", "Net_0", 30),
    "acc_grad": ("direct", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                 "(none)", "(none)", 8),
    "fill": ("direct", "aten::zeros", "(none)", "(none)", 2),
    "mul_bwd": ("direct", "MulBackward0", "(none)", "(none)", 4),
}


def rows_by(db, run_name, key):
    rows = run_json("report", "--run", run_name, "attribution", "--by", key, "--names", "full",
                    "--unit", "ns", db=db)
    col = key.replace("-", "_")
    out = {}
    for r in rows:
        k = (r[col], r["via"])
        out[k] = out.get(k, 0) + r["total_ns"]
    return out, rows


def check_derived(c, tmp):
    path = os.path.join(tmp, "derived.json")
    with open(path, "w") as f:
        json.dump(derived_trace(), f)
    db = os.path.join(tmp, "d.db")
    run("ingest", "--quiet", "--run", "d", path, db=db)
    for key, want in WANT.items():
        got, rows = rows_by(db, "d", key)
        c.eq(f"derived: attribution --by {key} (ns)", got,
             {k: v * US for k, v in want.items()})
        total = sum(want.values()) * US
        bad = [r for r in rows
               if abs(r["share_pct"] - 100 * r["total_ns"] / total) > 0.005 + 1e-9]
        c.true(f"derived: --by {key} share of each row = 100 x its time / all GPU time",
               not bad, f"{bad}")
    rows = run_json("report", "--run", "d", "attribution", "--by", "kernel", "--names", "full",
                    "--unit", "ns", db=db)
    c.eq("derived: attribution --by kernel",
         {r["kernel"]: (r["via"], r["op"], r["annotation"], r["module"], r["total_ns"])
          for r in rows},
         {k: v[:4] + (v[4] * US,) for k, v in KERNELS.items()})
    # The direct attribution is unchanged: backward kernels stay (none) there.
    direct = run_json("report", "--run", "d", "kernels", "--by", "annotation", "--unit", "ns",
                      db=db)
    c.eq("derived: kernels --by annotation (direct only) unchanged",
         {r["annotation"]: r["total_ns"] for r in direct},
         {"## fwd ##": 120 * US, "nccl:all_reduce": 40 * US, "(none)": 199 * US})
    _, out, _ = run("report", "--run", "d", "attribution", db=db)
    c.true("derived: the table says how the links were found",
           "backward ops linked to their forward op: 1 by fwdbwd flow, 3 by sequence number; "
           "4 launches inside them" in out, out[-300:])
    code, _, err = run("report", "--run", "d", "attribution", "--by", "step", check=False,
                       db=db)
    c.true("derived: an unknown --by is refused with the keys", code == 2 and "top-op" in err
           and err.count("\n") == 1, err)


# --- 2. corpus traces: an independent recomputation ------------------------

def load_all(path):
    doc = json.load(gzip.open(path, "rt"), parse_float=Decimal)
    evs, flows = [], []
    for i, e in enumerate(doc["traceEvents"]):
        if e.get("ph") == "X" and "dur" in e and "ts" in e:
            s = ns(e["ts"])
            evs.append(dict(e, i=i, s=s, e=s + ns(e["dur"])))
        elif e.get("ph") in ("s", "f") and e.get("cat") == "fwdbwd":
            flows.append(dict(e, s=ns(e["ts"])))
    return evs, flows


def thread(e):
    return (str(e.get("pid")), str(e.get("tid")))


def is_op(e):
    return (e.get("cat") in (None, "cpu_op")) and not e["name"].startswith("ProfilerStep#")


def is_ann(e):
    return e.get("cat") == "user_annotation" and not e["name"].startswith("ProfilerStep#")


def is_module(e):
    return e.get("cat") == "python_function" and e["name"].startswith("nn.Module: ")


def links_of(evs, flows):
    """backward op index -> forward op index: by flow, else by sequence number."""
    cpu = [e for e in evs if "stream" not in e.get("args", {})]
    at = {}
    for e in cpu:
        at.setdefault((thread(e), e["s"]), []).append(e)

    def bound(f):
        c = at.get((thread(f), f["s"]), [])
        return min(c, key=lambda e: (e["e"] - e["s"], e["i"]))["i"] if c else None

    starts, links = {}, {}
    for f in flows:
        if f["ph"] == "s" and bound(f) is not None:
            starts.setdefault(f["id"], []).append(bound(f))
    for f in flows:
        b = bound(f) if f["ph"] == "f" else None
        if b is not None and f["id"] in starts and b not in links:
            links[b] = min(starts[f["id"]])
    flowed = dict(links)
    for b, f in by_sequence(cpu).items():
        links.setdefault(b, f)
    return links, flowed


def by_sequence(cpu):
    """backward op index -> forward op index by sequence number alone."""
    links = {}
    fwd, bwd = {}, []
    for e in cpu:
        a = e.get("args", {})
        n = a.get("Sequence number")
        if not isinstance(n, int) or n < 0:
            continue
        if (a.get("Fwd thread id") or 0) > 0:
            bwd.append(e)
        else:
            fwd.setdefault(n, []).append(e)
    for b in bwd:
        cands = fwd.get(b["args"]["Sequence number"], [])
        if not cands or len({thread(e) for e in cands}) != 1:
            continue
        links[b["i"]] = min(cands, key=lambda e: (-e["s"], e["e"] - e["s"], e["i"]))["i"]
    return links


def recompute(evs, flows):
    """Per GPU event: (dur, direct ctx, forward ctx or None); ctx = (op, top, ann, module)."""
    links, _ = links_of(evs, flows)
    fwd_ops = set(links.values())
    launch = {}
    for e in sorted(evs, key=lambda x: (x["s"], x["i"])):
        c = e.get("args", {}).get("correlation")
        if c is not None and launcher_side(e) and c not in launch:
            launch[c] = e["i"]
    wanted = set(launch.values())
    threads = {}
    for e in evs:
        if not is_gpu(e) and e.get("cat") != "Trace" and \
                not (e.get("cat") or "").startswith("gpu_"):
            threads.setdefault(thread(e), []).append(e)
    direct, fctx, inside = {}, {}, {}

    def context(stack, e=None):
        frames = stack + ([e] if e is not None else [])
        ops = [f["name"] for f in frames if is_op(f)]
        anns = [f["name"] for f in frames if is_ann(f)]
        mods = [f["name"][len("nn.Module: "):] for f in frames if is_module(f)]
        return (ops[-1] if ops else None, ops[0] if ops else None,
                anns[-1] if anns else None, "/".join(mods) if mods else None)

    for t in threads.values():
        t.sort(key=lambda x: (x["s"], -(x["e"] - x["s"]), x["i"]))
        stack = []
        for e in t:
            while stack and stack[-1]["e"] < e["e"]:
                stack.pop()
            if e["i"] in wanted:
                direct[e["i"]] = context(stack)
                b = next((f["i"] for f in reversed(stack) if f["i"] in links), None)
                if b is not None:
                    inside[e["i"]] = links[b]
            if e["i"] in fwd_ops:
                fctx[e["i"]] = context(stack, e if is_op(e) else None)
            stack.append(e)
    out = []
    for g in evs:
        if not is_gpu(g):
            continue
        li = launch.get(g.get("args", {}).get("correlation"))
        d = direct.get(li, (None,) * 4)
        f = fctx.get(inside[li], (None,) * 4) if li in inside else None
        out.append((g["e"] - g["s"], d, f))
    return out


def want_by(events, key):
    k = {"op": 0, "top-op": 1, "annotation": 2, "module": 3}[key]
    out = {}
    for dur, d, f in events:
        if f is not None and (key in ("op", "top-op") or d[k] is None):
            v, via = f[k], "backward"
        else:
            v, via = d[k], "direct"
        kk = ("(none)" if v is None else v, via)
        out[kk] = out.get(kk, 0) + dur
    return out


def attributed(rows):
    return sum(v for (k, _), v in rows.items() if k != "(none)")


def direct(rows):
    return sum(v for (k, via), v in rows.items() if k != "(none)" and via == "direct")


def pct(part, total):
    return f"{100 * part / total:.1f}%"


def main():
    c = Checker()
    with tempdir() as tmp:
        check_derived(c, tmp)
        traces = need_corpus("traces")
        db = os.path.join(tmp, "c.db")
        linked = 0
        for path in sorted(glob.glob(os.path.join(traces, "*.json.gz"))):
            with gzip.open(path, "rb") as f:
                raw = f.read()
            if b"fwdbwd" not in raw and b"Sequence number" not in raw:
                continue
            evs, flows = load_all(path)
            links, flowed = links_of(evs, flows)
            nflow = len(flowed)
            events = recompute(evs, flows)
            if not links or not events:
                continue
            linked += 1
            name = os.path.basename(path)[:-len(".json.gz")]
            if nflow:  # PyTorch's own rule: a flow and the sequence number agree
                seq = by_sequence([e for e in evs if "stream" not in e.get("args", {})])
                c.eq(f"{name}: each of the {nflow} flows goes to the forward op of its "
                     "backward op's sequence number", {b: seq.get(b) for b in flowed}, flowed)
            run("ingest", "--quiet", "--run", name, path, db=db)
            total = sum(e[0] for e in events)
            for key in ("annotation", "module", "op"):
                got, _ = rows_by(db, name, key)
                want = want_by(events, key)
                c.eq(f"{name}: attribution --by {key} = recomputation", got, want)
            _, out, _ = run("report", "--run", name, "attribution", db=db)
            c.true(f"{name}: links counted as recomputed",
                   f"{nflow} by fwdbwd flow, {len(links) - nflow} by sequence number" in out,
                   out[-300:])
            ann, mod = want_by(events, "annotation"), want_by(events, "module")
            back = sum(e[0] for e in events if e[2] is not None)
            fwd_before = sum(e[0] for e in events if e[2] is None and e[1][0] is not None)
            fwd_after = fwd_before + sum(e[0] for e in events if e[2] is not None
                                         and e[2][0] is not None)
            print(f"{name}: {len(links)} backward ops linked ({nflow} by fwdbwd flow), "
                  f"{100 * back / total:.1f}% of the GPU time launched in them; GPU time in a "
                  f"forward op {pct(fwd_before, total)} -> {pct(fwd_after, total)}, with an "
                  f"annotation {pct(direct(ann), total)} -> {pct(attributed(ann), total)}, "
                  f"with a module {pct(direct(mod), total)} -> {pct(attributed(mod), total)}")
            c.true(f"{name}: backward kernels linked", back > 0)
            c.true(f"{name}: the GPU time in a forward op rises", fwd_after > fwd_before,
                   f"{fwd_before} -> {fwd_after}")
            carried = any(f[2] is not None or f[3] is not None for _, _, f in events
                          if f is not None)
            c.true(f"{name}: the GPU time with an annotation or module rises where a linked "
                   "forward op has one",
                   not carried or attributed(ann) > direct(ann) or attributed(mod) > direct(mod))
        c.true("corpus: traces with linked backward ops were checked", linked >= 3,
               f"{linked}")
    c.close()


if __name__ == "__main__":
    main()
