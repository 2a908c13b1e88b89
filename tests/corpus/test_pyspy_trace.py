"""`report pyspy-trace`: a py-spy profile joined by function name and file
with the python_function events of a with_stack PyTorch trace, the GPU
events launched inside them and their ops (report/pyspy_trace.c).

No corpus trace has python_function events: tests/pyspy/trace_join/
make_with_stack.py derives one deterministically from a real corpus trace
(AlexNet, critical_path_alexnet_...: it adds python_function events around
its top-level ops and its forward windows) and a py-spy raw profile of the
same functions. Every number of the report is recomputed here from the two
raw files: py-spy totals from the raw stacks; calls and time from the
python_function events (outermost per thread); GPU events (a stream arg,
not a CPU-side category) whose runtime call (same correlation) starts inside
an outermost call on the same thread, per innermost cpu_op around that
call. And the report does not apply to a run that lacks either input."""

import csv
import gzip
import io
import json
import os
import subprocess
import sys

from common import SOURCE, Checker, need_corpus, run, tempdir

TRACE = ("traces", "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz")
MAKE = os.path.join(SOURCE, "tests", "pyspy", "trace_join", "make_with_stack.py")
CPU_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op", "user_annotation",
            "python_function"}
OPS = 5


def ns(us):
    return round(float(us) * 1000)


def pyspy_oracle(path):
    """{(name, file): total samples (once per stack)}, every sample."""
    totals, every = {}, 0
    with open(path) as f:
        for line in f:
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            n = int(n)
            every += n
            keys = set()
            for frame in stack.split(";"):
                name, rest = frame.split(" (", 1)
                keys.add((name, rest.rsplit(":", 1)[0]))
            for k in keys:
                totals[k] = totals.get(k, 0) + n
    return totals, every


def trace_oracle(path, functions):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    lane = lambda e: (str(e.get("pid")), str(e.get("tid")))
    # python_function events of each function: the outermost per thread
    calls = {}
    for e in events:
        if e.get("cat") != "python_function" or e.get("ph") != "X" or "): " not in e["name"]:
            continue
        head, func = e["name"].split("): ", 1)
        file = head.rsplit("(", 1)[0]
        if (func, file) in functions:
            calls.setdefault(((func, file), lane(e)), []).append(
                (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    outer = {}
    for (key, ln), spans in calls.items():
        reach = None
        for s, t in sorted(spans, key=lambda x: (x[0], -x[1])):
            if reach is None or s >= reach:
                outer.setdefault(key, []).append((ln, s, t))
                reach = t
    # launches (earliest CPU-side event of a correlation) and their innermost op
    launch = {}
    for e in events:
        corr = (e.get("args") or {}).get("correlation")
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and corr is not None:
            if corr not in launch or ns(e["ts"]) < launch[corr][1]:
                launch[corr] = (lane(e), ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]))
    ops = [(lane(e), ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]) for e in events
           if e.get("cat") == "cpu_op" and e.get("ph") == "X"]

    def innermost(ln, s, t):
        best = None
        for o in ops:
            if o[0] == ln and o[1] <= s and t <= o[2]:
                if best is None or (o[1], -(o[2] - o[1])) > (best[1], -(best[2] - best[1])):
                    best = o
        return best[3] if best else "(no op)"

    gpu = []
    for e in events:
        a = e.get("args") or {}
        if e.get("ph") == "X" and a.get("stream") is not None and e.get("cat") not in CPU_CATS:
            if a.get("correlation") in launch:
                ln, s, t = launch[a["correlation"]]
                gpu.append((ln, s, ns(e["dur"]), innermost(ln, s, t)))
    out = {}
    for key in functions:
        spans = outer.get(key, [])
        per_op = {}
        for ln, s, dur, op in gpu:
            if any(ln == o[0] and o[1] <= s < o[2] for o in spans):
                n, d = per_op.get(op, (0, 0))
                per_op[op] = (n + 1, d + dur)
        out[key] = (len(spans), sum(t - s for _, s, t in spans), per_op)
    return out


def expected_rows(totals, every, trace):
    order = sorted(totals, key=lambda k: (-totals[k], f"{k[0]} ({k[1]})"))
    rows = []
    for key in order:
        calls, time_ns, per_op = trace[key]
        head = [key[0], key[1], str(totals[key]), f"{100 * totals[key] / every:.2f}", "",
                str(calls), f"{round(time_ns / 1e6, 3):g}"]
        n = sum(v[0] for v in per_op.values())
        d = sum(v[1] for v in per_op.values())
        rows.append(head + ["(all)", str(n), f"{round(d / 1e6, 3):g}"])
        for op, (n, d) in sorted(per_op.items(), key=lambda x: (-x[1][1], x[0]))[:OPS]:
            rows.append(head + [op, str(n), f"{round(d / 1e6, 3):g}"])
    return rows


def num(v):
    """The CSV's numbers as the oracle prints them (3.0 -> 3, 12.5 -> 12.5)."""
    try:
        return f"{float(v):g}" if "." in v else v
    except ValueError:
        return v


def main():
    c = Checker()
    src = need_corpus(*TRACE)
    with tempdir() as tmp:
        trace = os.path.join(tmp, "alexnet_with_stack.json")
        prof = os.path.join(tmp, "alexnet.pyspy")
        subprocess.run([sys.executable, MAKE, src, trace, prof], check=True)
        db = os.path.join(tmp, "j.db")
        run("ingest", "-q", "--run", "job", trace, prof, db=db)
        _, out, _ = run("report", "pyspy-trace", "--run", "job", "--format", "csv", db=db)
        got = [[num(v) if i >= 2 else v for i, v in enumerate(r)]
               for r in list(csv.reader(io.StringIO(out)))[1:]]
        totals, every = pyspy_oracle(prof)
        want = expected_rows(totals, every, trace_oracle(trace, set(totals)))
        want = [[num(v) if i >= 2 else v for i, v in enumerate(r)] for r in want]
        c.eq("rows: functions (py-spy order) with calls, time, ops and GPU time",
             len(got), len(want))
        for g, w in zip(got, want):
            c.eq(f"row {w[0]} / {w[7]}", g, w)
        c.true("the join found GPU time (the check is not vacuous)",
               any(r[7] == "(all)" and float(r[9]) > 0 for r in got), got)
        c.true("recursion counted once (benchmark: 2 outermost calls of 4 events)",
               any(r[0] == "benchmark" and r[5] == "2" for r in got), got)
        # either input missing: the report does not apply, and says why
        plain = need_corpus(*TRACE)
        run("ingest", "-q", "--run", "nostack", plain, prof, db=db)
        run("ingest", "-q", "--run", "onlyspy", prof, db=db)
        run("ingest", "-q", "--run", "onlytrace", trace, db=db)
        for name, why in (("nostack", "python_function events"),
                          ("onlyspy", "a PyTorch profiler trace"),
                          ("onlytrace", "a py-spy profile")):
            code, _, err = run("report", "pyspy-trace", "--run", name, db=db, check=False)
            c.true(f"{name}: does not apply, says it needs {why}",
                   code != 0 and "does not apply" in err and why in err, (code, err))
            _, ov, _ = run("report", "--run", name, db=db)
            c.true(f"{name}: the overview lists pyspy-trace as not applicable",
                   any("not applicable" in ln and "pyspy-trace" in ln for ln in ov.splitlines()),
                   ov)
    c.close()


if __name__ == "__main__":
    main()
