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


def trace(path, gemm="void gemm_kernel<float, 128, 64>(float*, int)", steps=1, extra=(),
          gemm_us=1000, forward_us=9000, mm_us=300):
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
                   "tid": 1, "ts": t0 + 100, "dur": forward_us})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                   "ts": t0 + 200, "dur": mm_us})
        gpu = [("kernel", gemm, 1000 + 1100 * i, gemm_us, None) for i in range(4)]
        gpu += [("kernel", name, 7000 + 300 * i, dur, None) for i, (name, dur) in enumerate(extra)]
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


def test_diff_rename(c, tmp):
    """The GEMM is renamed by a template argument (and 20% slower); two
    foo<N> kernels are replaced by two others of the same shape: ambiguous."""
    base, test = os.path.join(tmp, "base.json"), os.path.join(tmp, "test.json")
    trace(base, extra=[("void foo<1>(int)", 100), ("void foo<2>(int)", 150)])
    trace(test, gemm="void gemm_kernel<float, 128, 32>(float*, int)", gemm_us=1200,
          extra=[("void foo<3>(int)", 120), ("void foo<4>(int)", 180)], forward_us=9600,
          mm_us=350)
    db = os.path.join(tmp, "d.db")
    run("ingest", "-q", "--run", "base", base, db=db)
    run("ingest", "-q", "--run", "test", test, db=db)
    out = os.path.join(tmp, "diff")
    run("diff", "base", "test", "--out", out, db=db)
    head, rows = dat(os.path.join(out, "kernels.dat"))
    byname = {r[0]: (float(r[1]), float(r[2])) for r in rows}
    renamed = [k for k in byname if "renamed" in k]
    c.eq("diff kernels: one renamed pair", len(renamed), 1)
    if renamed:
        k = renamed[0]
        c.true("diff kernels: the pair is the GEMM, its old name said",
               k.startswith("gemm_kernel<float, 128, 32>") and
               "renamed from gemm_kernel<float, 128, 64>" in k, k)
        c.eq("diff kernels: the pair's bars are the base and test times (ms)", byname[k],
             (4.0, 4.8))
    c.true("diff kernels: the GEMM is not 'gone' and 'new'",
           not any(k.startswith("gemm_kernel") and "renamed" not in k for k in byname), byname)
    foo = {k: v for k, v in byname.items() if k.startswith("foo<")}
    c.eq("diff kernels: foo<N> (two of one shape each side) left apart", sorted(foo),
         ["foo<1>", "foo<2>", "foo<3>", "foo<4>"])
    c.true("diff kernels: each foo<N> on one side only", all(0.0 in v for v in foo.values()), foo)
    # The annotation's self time grew by 550 us (600 longer, aten::mm inside it
    # 50 longer), more than any op's: not drawn; aten::mm's 50 us are.
    _, ops, _ = run("diff", "base", "test", "ops", "--format", "json", db=db)
    ops = json.loads(ops)
    grew = max((o for o in ops if not o["op"].startswith("ProfilerStep#")),  # steps, not ops
               key=lambda o: abs(o["self_change_us"] or 0))
    labels = [r[0] for r in dat(os.path.join(out, "ops.dat"))[1]]
    c.true("diff ops: the annotation changed most (the case tests something)",
           grew["op"] == "## forward ##" and grew["self_change_us"] == 550, grew)
    c.true("diff ops chart: the annotation left out, the ops drawn",
           "## forward ##" not in labels and "aten::mm" in labels, labels)
    index = open(os.path.join(out, "index.md"), encoding="utf-8").read()
    c.true("diff index.md: the GEMM one row, renamed, +20%", re.search(
        r"gemm_kernel\\<float, 128, 32>\(float\\\*, int\) \(renamed from void gemm_kernel"
        r"\\<float, 128, 64>.*\| 4 → 4 \|.*\| \+20\.0% \|", index), index[:1500])
    render(c, out, "diff")


def test_trend(c, tmp):
    """Six runs of 20 steps: step_time constant, loss falling in each run
    (no band: a constant has none, a falling loss's spread is progress);
    then step times that scatter, 20% slower from the fourth run (a band,
    a change point, a legend)."""
    db = os.path.join(tmp, "t.db")
    db2 = os.path.join(tmp, "t2.db")
    for r in range(1, 7):
        log = os.path.join(tmp, f"r{r}.jsonl")
        with open(log, "w") as f:
            for i in range(1, 21):
                f.write(json.dumps({"step": i, "step_time": 0.05, "loss": 3.0 - 0.1 * i}) + "\n")
        run("ingest", "-q", "--run", f"r{r}", log, db=db)
        log2 = os.path.join(tmp, f"s{r}.jsonl")
        with open(log2, "w") as f:
            for i in range(1, 21):
                t = (0.050 + 0.002 * ((i * 7) % 5)) * (1.2 if r >= 4 else 1.0)
                f.write(json.dumps({"step": i, "step_time": t}) + "\n")
        run("ingest", "-q", "--run", f"s{r}", log2, db=db2)
    out = os.path.join(tmp, "trend")
    run("trend", "--out", out, "step_time", "metric:loss", db=db)
    for n, what in ((1, "constant step_time"), (2, "loss falling within each run")):
        gp = open(os.path.join(out, f"trend-{n}.gp")).read()
        ps = plots(gp)
        c.true(f"trend {what}: no interquartile band", "interquartile" not in gp, ps)
        c.true(f"trend {what}: no legend for the one series", "set key off" in gp and
               "set key below" not in gp, gp[-600:])
        c.eq(f"trend {what}: only the median drawn", len(re.findall(r"title '", ps[0])), 1)
    rows = list(csv_rows(os.path.join(out, "trend-2.csv")))
    c.true("trend loss: the CSV keeps the runs' quartiles (the spread is there)",
           all(float(r["q3"]) > float(r["q1"]) for r in rows), rows[:2])
    render(c, out, "trend")
    out2 = os.path.join(tmp, "trend2")
    run("trend", "--out", out2, "step_time", db=db2)
    gp = open(os.path.join(out2, "trend-1.gp")).read()
    c.true("trend scattered step times: the band drawn", "interquartile range" in gp, plots(gp))
    c.true("trend scattered step times: a legend below", "set key below" in gp)
    c.true("trend scattered step times: the change point marked", "change point" in gp)
    render(c, out2, "trend scattered")


def csv_rows(path):
    import csv
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    c = Checker()
    with tempdir() as tmp:
        test_report_charts(c, tmp)
        test_diff_rename(c, tmp)
        test_trend(c, tmp)
    c.close()


if __name__ == "__main__":
    main()
