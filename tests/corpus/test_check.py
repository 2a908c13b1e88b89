"""profdb check and the distribution diffs (issue 7's acceptance cases).

Step logs are JSON Lines derived from the corpus nanoGPT log's per-step
times (91 steps of ~1.44 s; every 20th, with evaluation, ~10.5 s), with a forward
phase split off and seeded noise where a case needs it. Traces are the two
sampled ranks of one job, plus a copy of rank 0 whose aten::mm calls were
made 20% slower. Cases:
  (a) identical runs -> pass, nothing significant
  (b) forward 10% slower -> regression, exit 1
  (c) 1% shift buried in 10% noise -> pass, reported within the limit
  (d) same distribution plus three steps seconds longer -> pass, outliers
  (e) a missing run / database / baseline -> exit 2
Also: traces have two ProfilerSteps each, too few for a rank test: identical
steps pass by the few-sample rule, a change that makes every step slower than
every base step by more than the limit fails, and fewer steps than
--min-samples are inconclusive (exit 1 with --fail-inconclusive); the JUnit XML is checked structurally and the
Markdown table for consistent columns and escaping."""

import gzip
import json
import math
import os
import random
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from common import Checker, need_corpus, run, tempdir  # noqa: E402


def nanogpt_times():
    text = open(need_corpus("steplogs", "nanogpt_train.log")).read()
    return [float(m) / 1000 for m in re.findall(r"^iter \d+: .*time ([0-9.]+)ms", text, re.M)]


def gauss(rng):
    """Box-Muller on random(), whose stream is stable across Python versions."""
    u1, u2 = rng.random() or 1e-12, rng.random()
    return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)


def write_log(path, steps, extra=None):
    """steps: list of (step_time, forward) seconds; extra: more keys per step."""
    with open(path, "w") as f:
        for i, (t, fw) in enumerate(steps):
            rec = {"step": i + 1, "step_time": round(t, 6), "forward": round(fw, 6)}
            rec.update(extra(i) if extra else {})
            f.write(json.dumps(rec) + "\n")


def base_steps(times, noise, seed):
    rng = random.Random(seed)
    out = []
    for t in times:
        t2 = t * (1 + noise * gauss(rng))
        out.append((t2, 0.4 * t2 * (1 + 0.02 * gauss(rng))))
    return out


def op_step_totals(path, op):
    """Total duration of op's calls starting in each ProfilerStep, from the JSON."""
    with gzip.open(path, "rt") as f:
        ev = json.load(f)["traceEvents"]
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
                   if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#"))
    return [sum(e["dur"] for e in ev if e.get("name") == op and e.get("ph") == "X"
                and "stream" not in e.get("args", {}) and a <= e["ts"] < b) for a, b in steps]


def check(db, *args):
    return run("check", "--db", db, *args, check=False)


def parse_junit(c, path, want_tests, want_failures, want_skipped):
    root = ET.parse(path).getroot()
    c.eq("junit root", root.tag, "testsuites")
    suites = root.findall("testsuite")
    c.eq("junit one testsuite", len(suites), 1)
    for el in [root] + suites:
        for attr in ("name", "tests", "failures", "errors", "skipped", "time"):
            c.true(f"junit {el.tag} has {attr}", attr in el.attrib)
    cases = suites[0].findall("testcase")
    for tc in cases:
        for attr in ("classname", "name", "time"):
            c.true(f"junit testcase has {attr}", attr in tc.attrib)
        for f in tc.findall("failure"):
            c.true("failure has message and type", "message" in f.attrib and "type" in f.attrib)
    nfail = sum(1 for tc in cases if tc.find("failure") is not None)
    nskip = sum(1 for tc in cases if tc.find("skipped") is not None)
    for el in (root, suites[0]):
        c.eq(f"junit {el.tag} tests", int(el.get("tests")), len(cases))
        c.eq(f"junit {el.tag} failures", int(el.get("failures")), nfail)
        c.eq(f"junit {el.tag} skipped", int(el.get("skipped")), nskip)
    c.eq("junit testcases", len(cases), want_tests)
    c.eq("junit failures", nfail, want_failures)
    c.eq("junit skipped", nskip, want_skipped)
    return cases


def md_cells(line):
    """Cells of a Markdown table row, honouring \\| escapes."""
    cells = re.split(r"(?<!\\)\|", line.strip())
    return cells[1:-1]


def check_markdown(c, path, want_rows):
    lines = open(path).read().splitlines()
    table = [l for l in lines if l.startswith("|")]
    c.true("markdown has a table", len(table) >= 2)
    width = len(md_cells(table[0]))
    for l in table:
        c.eq(f"markdown columns of {l[:40]!r}", len(md_cells(l)), width)
        c.true("markdown row ends with |", l.rstrip().endswith("|"))
    c.true("markdown separator", all(re.fullmatch(r"\s*-+:?\s*", x) for x in md_cells(table[1])))
    c.eq("markdown rows", len(table) - 2, want_rows)
    return table


def steplog_cases(c, tmp):
    times = nanogpt_times()
    c.true("nanoGPT log has step times", len(times) > 80, str(len(times)))
    db = os.path.join(tmp, "s.db")
    logs = {}
    # (a) one log ingested twice.
    logs["base"] = base_steps(times, 0.0, 1)
    logs["same"] = logs["base"]
    # (b) forward 10% slower, the step slower by that much.
    logs["slowfw"] = [(t + 0.1 * fw, 1.1 * fw) for t, fw in logs["base"]]
    # (c) 10% noise, and 1% slower with another draw of the noise.
    logs["noisy"] = base_steps(times, 0.10, 2)
    logs["noisy1pct"] = [(1.01 * t, fw) for t, fw in base_steps(times, 0.10, 3)]
    # (d) the same distribution, another draw, plus three steps 5 s slower.
    logs["jitter"] = base_steps(times, 0.02, 4)
    logs["spiky"] = base_steps(times, 0.02, 5)
    for i in (30, 50, 70):
        t, fw = logs["spiky"][i]
        logs["spiky"][i] = (t + 5.0, fw)
    for name, steps in logs.items():
        path = os.path.join(tmp, name + ".jsonl")
        extra = (lambda i: {"my|phase": 0.1 + 0.001 * (i % 7), "optimizer": 0.2}) \
            if name == "base" else None
        write_log(path, steps, extra)
        run("ingest", "--db", db, "--run", name, path)

    # (a)
    junit, md = os.path.join(tmp, "a.xml"), os.path.join(tmp, "a.md")
    rc, out, err = check(db, "base", "same", "-m", "step_time=5", "-m", "phase:forward=5",
                         "-m", "throughput=5", "--junit", junit, "--markdown", md)
    c.eq("(a) identical: exit", rc, 0)
    c.true("(a) one-line verdict PASS", out.startswith("PASS:") and out.count("\n") == 1, out)
    c.true("(a) within the limit, p = 1", "within the limit" in err and "p = 1 " in err, err)
    parse_junit(c, junit, 3, 0, 0)
    check_markdown(c, md, 3)

    # (b)
    junit, md = os.path.join(tmp, "b.xml"), os.path.join(tmp, "b.md")
    rc, out, err = check(db, "base", "slowfw", "-m", "phase:forward=5", "-m", "step_time=5",
                         "--junit", junit, "--markdown", md)
    c.eq("(b) forward 10% slower: exit", rc, 1)
    c.true("(b) verdict REGRESSION", out.startswith("REGRESSION:"), out)
    c.true("(b) forward regressed", "phase:forward REGRESSION +10.00%" in out, out)
    c.true("(b) step_time within its limit", "step_time pass" in out, out)
    cases = parse_junit(c, junit, 2, 1, 0)
    failed = [tc.get("name") for tc in cases if tc.find("failure") is not None]
    c.eq("(b) the failing testcase", failed, ["phase:forward"])
    c.eq("(b) failure type", cases[0].find("failure").get("type"), "regression")
    table = check_markdown(c, md, 2)
    c.true("(b) markdown marks the regression", "REGRESSION" in table[2], table[2])
    c.true("(b) markdown gives the reason", "- `phase:forward`: regression: median +10.00%"
           in open(md).read())
    rc, out, _ = run("diff", "--db", db, "base", "slowfw", "steps", "--format", "json",
                     check=False)
    rows = {r["metric"]: r for r in json.loads(out)}
    c.eq("(b) diff steps: forward significant", rows["forward"]["significant"], "yes")
    c.true("(b) diff steps: ratio CI around 1.1",
           rows["forward"]["ratio_ci_low"] <= 1.1 + 1e-9 <= rows["forward"]["ratio_ci_high"] + 1e-6,
           str(rows["forward"]))
    c.eq("(b) diff steps: one-side metric marked", rows["optimizer"]["only_in"], "base")

    # (c)
    rc, out, err = check(db, "noisy", "noisy1pct", "-m", "step_time=5")
    c.eq("(c) 1% in noise: exit", rc, 0)
    c.true("(c) reported within the limit", "within the limit" in err, err)
    rc, out, _ = run("diff", "--db", db, "noisy", "noisy1pct", "steps", "--format", "json")
    st = {r["metric"]: r for r in json.loads(out)}["step_time"]
    c.eq("(c) diff: not significant", st["significant"], "no")
    c.true("(c) diff: CI covers 1", st["ratio_ci_low"] < 1 < st["ratio_ci_high"], str(st))

    # (d)
    md = os.path.join(tmp, "d.md")
    rc, out, err = check(db, "jitter", "spiky", "-m", "step_time=5", "-m", "throughput=5",
                         "--markdown", md)
    c.eq("(d) three slow steps: exit", rc, 0)
    # The log's own eval steps (5 of ~10.5 s) are outliers on both sides.
    c.true("(d) outliers reported", "outliers: 8 in test" in out and "5 in base" in out, out)
    c.true("(d) outliers in markdown", "| 8 test, 5 base |" in open(md).read())

    # (e)
    rc, out, err = check(db, "base", "nosuch")
    c.eq("(e) missing run: exit", rc, 2)
    c.true("(e) says which run", "no run named 'nosuch'" in err, err)
    rc, _, err = check(os.path.join(tmp, "missing.db"), "base", "same")
    c.eq("(e) missing database: exit", rc, 2)
    rc, _, err = run("check", "--db", db, "--baseline-from", os.path.join(tmp, "nodir"),
                     "same", check=False)
    c.eq("(e) missing baseline: exit", rc, 2)
    rc, _, err = check(db, "base", "same", "-m", "latency=5")
    c.eq("usage: unknown metric exit", rc, 2)
    rc, _, err = check(db, "base", "same", "-m", "phase:nosuch=5")
    c.eq("input: metric without samples exit", rc, 2)

    # Stored baseline: a database file, and a directory ingested into memory.
    rc, out, _ = run("check", "--baseline-from", db, "--db", db, "base", "slowfw",
                     "-m", "phase:forward=5", check=False)
    c.eq("--baseline-from DB: exit", rc, 1)
    bdir = os.path.join(tmp, "baseline")
    os.mkdir(bdir)
    os.link(os.path.join(tmp, "base.jsonl"), os.path.join(bdir, "base.jsonl"))
    rc, out, _ = run("check", "--baseline-from", bdir, "--db", db, "same", check=False)
    c.eq("--baseline-from DIR: exit", rc, 0)
    c.true("--baseline-from DIR: names the baseline", "baseline -> same" in out, out)

    # Markdown and JUnit escape names.
    junit, md = os.path.join(tmp, "esc.xml"), os.path.join(tmp, "esc.md")
    rc, _, err = run("check", "--db", db, "--baseline-from", db, "base", "base",
                     "-m", "phase:my|phase=5", "--junit", junit, "--markdown", md,
                     "--min-samples", "1000", check=False)
    c.eq("inconclusive: exit 0", rc, 0)
    parse_junit(c, junit, 1, 0, 1)
    table = check_markdown(c, md, 1)
    c.true("markdown escapes |", "my\\|phase" in table[2], table[2])
    rc, _, _ = run("check", "--db", db, "base", "base", "-m", "phase:my|phase=5",
                   "--min-samples", "1000", "--fail-inconclusive", "--junit", junit,
                   check=False)
    c.eq("--fail-inconclusive: exit 1", rc, 1)
    parse_junit(c, junit, 1, 1, 0)


def slowed_trace(src, dst, name, factor):
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    for ev in doc["traceEvents"]:
        if ev.get("name") == name and "dur" in ev:
            ev["dur"] = ev["dur"] * factor
    with gzip.open(dst, "wt") as f:
        json.dump(doc, f)


def trace_cases(c, tmp):
    r0 = need_corpus("traces", "trace_filter_sampled_rank-0.json.gz")
    r1 = need_corpus("traces", "trace_filter_sampled_rank-1.json.gz")
    db, db2 = os.path.join(tmp, "t.db"), os.path.join(tmp, "t2.db")
    slow = os.path.join(tmp, "rank0_slow_mm.json.gz")
    slowed_trace(r0, slow, "aten::mm", 1.2)
    run("ingest", "--db", db, "--run", "r0", r0)
    run("ingest", "--db", db, "--run", "r0again", r0)
    run("ingest", "--db", db, "--run", "r1", r1)
    run("ingest", "--db", db2, "--run", "r0slow", slow)

    # (a) on traces: two ProfilerSteps against two, identical. Samples are
    # per-step totals (op:NAME also gates op-calls:NAME); two steps cannot
    # reach p < 0.01 (smallest two-sided p = 1/3), so the few-sample rules
    # decide: identical steps are within the limit and none is worse than
    # the base's worst step by more than it: pass, with that reason.
    junit = os.path.join(tmp, "t.xml")
    rc, out, err = check(db, "r0", "r0again", "-m", "op:aten::mm=5", "-m", "step_time=5",
                         "--junit", junit)
    c.eq("trace (a) identical: exit", rc, 0)
    c.true("trace (a): op, its calls and step_time pass",
           "op:aten::mm pass +0.00%" in out and "op-calls:aten::mm pass" in out
           and "step_time pass" in out, out)
    c.true("trace (a): says why", "too few samples for a test (2 vs 2 samples), but the median "
           "is within the limit" in err, err)
    parse_junit(c, junit, 3, 0, 0)
    rc, out, _ = check(db, "r0", "r0again", "-m", "step_time=5", "--min-samples", "3",
                       "--fail-inconclusive")
    c.eq("trace step_time below --min-samples with --fail-inconclusive: exit", rc, 1)
    c.true("... inconclusive", "step_time INCONCLUSIVE" in out, out)
    rc, out, _ = check(db, "r0", "r1", "-m", "step_time=0", "--min-samples", "1")
    c.true("trace step_time between ranks: not decided with 2 overlapping steps",
           rc == 0 and "step_time REGRESSION" not in out, out)

    # (b) on traces: aten::mm 20% slower, TEST in a second database. Both
    # slowed steps spend more time in aten::mm than either base step by more
    # than 10% (recomputed below), so the consistency rule fails it; the
    # calls per step are unchanged and pass... or are inconclusive.
    base_mm, slow_mm = op_step_totals(r0, "aten::mm"), op_step_totals(slow, "aten::mm")
    c.true("trace (b): every slowed step > every base step x 1.1 (recomputed)",
           min(slow_mm) > 1.1 * max(base_mm), f"{base_mm} {slow_mm}")
    rc, out, err = run("check", "--db", db, "--db-test", db2, "r0", "r0slow",
                       "-m", "op:aten::mm=10", check=False)
    c.eq("trace (b) aten::mm 20% slower: exit", rc, 1)
    c.true("trace (b) regression named", "op:aten::mm REGRESSION" in out, out)
    c.true("trace (b) calls per step did not regress", "op-calls:aten::mm REGRESSION" not in out,
           out)

    # diff kinds between the two ranks, and across databases.
    for kind in ("ops", "kernels", "kernel-types", "gpu", "steps"):
        rc, out, err = run("diff", "--db", db, "r0", "r1", kind, "--format", "json", check=False)
        c.eq(f"diff {kind}: exit", rc, 0)
        rows = json.loads(out) if rc == 0 else []
        c.true(f"diff {kind}: rows", len(rows) > 0)
        if kind in ("ops", "kernels") and rows:
            key = "op" if kind == "ops" else "kernel"
            ch = [abs(r["change_us"]) for r in rows]
            c.eq(f"diff {kind}: sorted by impact", ch, sorted(ch, reverse=True))
            c.true(f"diff {kind}: change = test - base", all(
                abs((r["test_total_us"] or 0) - (r["base_total_us"] or 0) - r["change_us"]) < 1e-6
                for r in rows))
            c.true(f"diff {kind}: only_in values", all(r["only_in"] in ("", "base", "test")
                                                        for r in rows))
            c.true(f"diff {kind}: names", all(r[key] for r in rows))
    rc, out, _ = run("diff", "--db", db, "r0", "r0again", "kernels", "--format", "json")
    c.true("diff identical kernels: no change", all(r["change_us"] == 0 for r in json.loads(out)))
    rc, out, _ = run("diff", "--db", db, "r0", "r1", "kernels", "--normalize-names",
                     "--format", "json")
    names = [r["kernel"] for r in json.loads(out)]
    c.true("--normalize-names strips template args",
           any("<...>" in n for n in names) and not any("<4," in n for n in names))
    rc, out, _ = run("diff", "--db", db, "--db-test", db2, "r0", "r0slow", "ops",
                     "--format", "json")
    mm = [r for r in json.loads(out) if r["op"] == "aten::mm"][0]
    c.true("diff --db-test: aten::mm about 20% slower", 15 < mm["change_pct"] < 25, str(mm))
    rc, _, err = run("diff", "--db", db, "--db-test", db2, "r0", "r0slow", "pstats",
                     check=False)
    c.eq("pstats across databases: exit 2", rc, 2)


def main():
    c = Checker()
    with tempdir() as tmp:
        steplog_cases(c, tmp)
        trace_cases(c, tmp)
    c.close()


if __name__ == "__main__":
    main()
