"""The gate never passes what it cannot see (issue 32, the gate's part).

Short logs derived from the repository's sample step logs
(samples/steplogs/*.log, *.jsonl):

  - train.jsonl cut to 5..12 steps at four offsets, and a copy with every
    time 10% longer (step_time_ms and the time_*_ms phases x 1.10,
    samples_per_second / 1.10): `check` with 5% limits on step_time,
    throughput and the phases gives REGRESSION or INCONCLUSIVE for every
    metric, never a pass; an inconclusive metric beyond its limit says how
    many steps per side would decide, in the verdict line, the Markdown (a
    warning) and the JUnit XML (a system-err warning). An identical copy
    passes (exit 0).
  - generic_trainer.log (4 steps of phase times) repeated to 5..12 steps,
    the same way: never a pass.
  - mae.log and rectflow.log hold no per-step time: checking step_time on
    them is an input error (exit 2), not a pass.
  - One p-value convention: check names it (two-sided Mann-Whitney) and
    prints the same p against base as `diff steps` for the same two runs.
  - trend on 10 identical runs reports no change point and `--check`
    passes; a shift after a constant history is found and its p is not
    printed as 0.
  - trend --check on a history too short for change points (1 to 3 runs)
    judges the newest run against the one before as check does: a 10%
    slower newest run is a REGRESSION (it passed before as 'too few runs'),
    a single run INCONCLUSIVE.

Needs no corpus. Fails on profdb before this change: 10%-slower copies of 5
steps passed ('beyond the limit but not significantly'), check printed a
one-sided p and diff a two-sided one, and a trend p below 0.0005 was printed
as 0."""

import json
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE, Checker, checked_subset, run, tempdir  # noqa: E402

SLOWER = 1.10
LIMIT = "5%"
TRAIN_METRICS = ["step_time", "throughput", "phase:forward", "phase:backward", "phase:data"]
GENERIC_METRICS = ["phase:forward", "phase:backward", "phase:data", "phase:optimizer"]
VERDICT = re.compile(r"; (\S+) (pass|REGRESSION|INCONCLUSIVE) ([-+][0-9.]+|[-+]?inf)% \(([^)]*)\)")


def sample(name):
    return os.path.join(SOURCE, "samples", "steplogs", name)


def slower_record(rec):
    out = dict(rec)
    for k, v in rec.items():
        if k.endswith("_ms"):
            out[k] = round(v * SLOWER, 6)
        elif k == "samples_per_second":
            out[k] = round(v / SLOWER, 6)
    return out


def write_jsonl(path, recs):
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")


def generic_blocks():
    """generic_trainer.log's blocks: each 'step: N' line and what follows."""
    blocks, cur = [], None
    for line in open(sample("generic_trainer.log")).read().splitlines():
        if line.startswith("step: "):
            cur = []
            blocks.append(cur)
        if cur is not None:
            cur.append(line)
    return blocks


def generic_log(path, n, factor):
    """n steps: the sample's blocks in turn, numbered 50, 100, ...; every
    time_*_ms value times factor."""
    blocks, lines = generic_blocks(), []
    for i in range(n):
        for line in blocks[i % len(blocks)]:
            if line.startswith("step: "):
                line = f"step: {50 * (i + 1)}"
            elif "INFO" in line:
                line = f"INFO some unrelated log line at step {50 * (i + 1)}"
            else:
                m = re.match(r"^(\S*time_\w+_ms): ([0-9.]+)$", line)
                if m:
                    line = f"{m.group(1)}: {float(m.group(2)) * factor:.4f}"
            lines.append(line)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def check(db, base, test, metrics, *extra):
    args = ["check", "--db", db, base, test]
    for m in metrics:
        args += ["-m", f"{m}={LIMIT}"]
    return run(*args, *extra, check=False)


def verdicts(out):
    return {m.group(1): (m.group(2), m.group(4)) for m in VERDICT.finditer(out)}


def gate_slower(c, tmp, label, db, metrics):
    """check base -> slow: every metric REGRESSION or INCONCLUSIVE; the
    inconclusive ones say how many steps would decide, everywhere."""
    junit, md = os.path.join(tmp, "g.xml"), os.path.join(tmp, "g.md")
    rc, out, err = check(db, "base", "slow", metrics, "--junit", junit, "--markdown", md)
    v = verdicts(out)
    c.eq(f"{label}: a verdict per metric", sorted(v), sorted(metrics))
    c.true(f"{label}: the run is not a PASS ({out.strip()[:160]})", not out.startswith("PASS"),
           out)
    c.eq(f"{label}: exit 1 exactly when a metric regressed",
         rc, 1 if any(s == "REGRESSION" for s, _ in v.values()) else 0)
    for m, (status, detail) in v.items():
        c.true(f"{label}: {m} is {status}, never pass", status in ("REGRESSION", "INCONCLUSIVE"),
               out)
        if status == "INCONCLUSIVE":
            c.true(f"{label}: {m} line says how many steps would decide",
                   re.search(r"about \d+ steps per side would decide", detail) is not None,
                   detail)
    undecided = [m for m, (s, _) in v.items() if s == "INCONCLUSIVE"]
    text = open(md).read()
    c.eq(f"{label}: a Markdown warning per inconclusive metric", text.count("> [!WARNING]"),
         len(undecided))
    warned = {}
    for tc in ET.parse(junit).getroot().iter("testcase"):
        e = tc.find("system-err")
        warned[tc.get("name")] = e.text if e is not None else ""
    for m in undecided:
        c.true(f"{label}: JUnit warns for {m}", warned.get(m, "").startswith("warning: ") and
               "steps per side would decide" in warned[m], warned.get(m, ""))
    return v


def same_p(c, label, db):
    """check's p against base equals diff's for step_time, one convention named."""
    rc, out, _ = check(db, "base", "slow", ["step_time"])
    m = re.search(r"step_time \S+ [-+][0-9.]+% \(limit [^,]+, p=([^,)]+)", out)
    c.true(f"{label}: check names its p convention", "two-sided Mann-Whitney" in out, out)
    _, dout, _ = run("diff", "--db", db, "base", "slow", "steps")
    c.true(f"{label}: diff names its p convention", "two-sided Mann-Whitney" in dout, dout)
    header = next((ln for ln in dout.splitlines() if ln.startswith("metric ")), "")
    row = next((ln for ln in dout.splitlines() if ln.startswith("step_time ")), "")
    cols = header.split()
    cells = re.split(r"\s{2,}", row.strip())
    dp = None
    if "p_value" in cols and len(cells) == len(cols):
        dp = cells[cols.index("p_value")]
    elif "p_value" in cols:
        # empty cells (only_in) collapse: read the column from its offset
        start = header.index("p_value")
        dp = row[start:start + 12].split()[0] if len(row) > start else None
    c.eq(f"{label}: check and diff print the same p", m.group(1) if m else None, dp)


def main():
    c = Checker()
    train = [json.loads(ln) for ln in open(sample("train.jsonl")) if ln.strip()]
    with tempdir() as tmp:
        seen = {"REGRESSION": 0, "INCONCLUSIVE": 0}
        # ---- train.jsonl: 5..12 steps at four offsets ----
        for n in checked_subset(range(5, 13), 3, "lengths of train.jsonl"):
            for off in (0, 40, 90, 150):
                label = f"train.jsonl steps {off + 1}-{off + n}"
                db = os.path.join(tmp, f"t{n}_{off}.db")
                recs = train[off:off + n]
                bp, sp, cp = (os.path.join(tmp, f"{k}.jsonl") for k in ("base", "slow", "copy"))
                write_jsonl(bp, recs)
                write_jsonl(sp, [slower_record(r) for r in recs])
                write_jsonl(cp, recs)
                for name, path in (("base", bp), ("slow", sp), ("copy", cp)):
                    run("ingest", "-q", "--db", db, "--run", name, path)
                for s, _ in gate_slower(c, tmp, label, db, TRAIN_METRICS).values():
                    seen[s] = seen.get(s, 0) + 1
                rc, out, _ = check(db, "base", "copy", TRAIN_METRICS)
                c.eq(f"{label}: identical copy exit 0", rc, 0)
                c.true(f"{label}: identical copy PASS", out.startswith("PASS:"), out)
                if off == 0:
                    same_p(c, label, db)
        c.true(f"both verdicts occur on 10% slower short logs ({seen})",
               seen["REGRESSION"] > 0 and seen["INCONCLUSIVE"] > 0, str(seen))

        # ---- generic_trainer.log: phase times, repeated to 5..12 steps ----
        for n in checked_subset(range(5, 13), 3, "lengths of generic_trainer.log"):
            label = f"generic_trainer.log x{n} steps"
            db = os.path.join(tmp, f"g{n}.db")
            for name, factor in (("base", 1.0), ("slow", SLOWER), ("copy", 1.0)):
                p = os.path.join(tmp, f"{name}.log")
                generic_log(p, n, factor)
                run("ingest", "-q", "--db", db, "--run", name, p)
            gate_slower(c, tmp, label, db, GENERIC_METRICS)
            rc, out, _ = check(db, "base", "copy", GENERIC_METRICS)
            c.eq(f"{label}: identical copy exit 0", rc, 0)

        # ---- logs without a per-step time: an error, never a pass ----
        for name in ("mae.log", "rectflow.log"):
            db = os.path.join(tmp, name + ".db")
            run("ingest", "-q", "--db", db, "--run", "base", sample(name))
            run("ingest", "-q", "--db", db, "--run", "slow", sample(name))
            rc, out, err = check(db, "base", "slow", ["step_time"])
            c.eq(f"{name}: no per-step time: exit 2", rc, 2)
            c.true(f"{name}: ... and no PASS line", "PASS" not in out, out)

        # ---- trend: 10 identical runs, then a shift after them ----
        db = os.path.join(tmp, "trend.db")
        for r in range(1, 11):
            run("ingest", "-q", "--db", db, "--run", f"r{r}", sample("train.jsonl"))
        for metric in ("step_time", "throughput", "loss"):
            rc, out, err = run("trend", "--db", db, "--changes", metric, "--format", "json",
                               check=False)
            c.eq(f"trend of 10 identical runs, {metric}: exit 0", rc, 0)
            c.eq(f"trend of 10 identical runs, {metric}: no change point",
                 json.loads(out) if rc == 0 else None, [])
        rc, out, err = run("trend", "--db", db, "--check", LIMIT, "step_time", check=False)
        c.eq(f"trend --check on 10 identical runs passes ({out.strip()})", rc, 0)
        rc, out, _ = run("trend", "--db", db, "step_time", check=False)
        c.true("trend table of identical runs: no change point",
               "0 change points" in out, out)
        sp = os.path.join(tmp, "slow_train.jsonl")
        write_jsonl(sp, [slower_record(r) for r in train])
        run("ingest", "-q", "--db", db, "--run", "r11", sp)
        rc, out, err = run("trend", "--db", db, "--check", LIMIT, "step_time", check=False)
        c.eq("a 10% shift after 10 identical runs: trend --check exit 1", rc, 1)
        c.true(f"... its p is not printed as 0 ({out.strip()})",
               re.search(r"p=0[);,]", out) is None and "p=" in out, out)
        rc, out, _ = run("trend", "--db", db, "--changes", "step_time")
        rows = [ln for ln in out.splitlines() if ln.startswith("r11 ")]
        c.true("... the change point's table row", len(rows) == 1, out)
        if rows:
            c.true(f"... with a p that is not 0 ({rows[0]})",
                   re.search(r"\s0\s+newest runs$", rows[0]) is None, rows[0])
        short_history(c, tmp, train)
    return c.close()


def short_history(c, tmp, train):
    """trend --check on 1..3 runs (too few for change points): a 10% slower
    newest run is a REGRESSION (judged against the run before, as check
    does), an identical one a PASS, a single run INCONCLUSIVE (exit 1 with
    --fail-inconclusive); never the old 'PASS: too few runs'."""
    sp = os.path.join(tmp, "slow_train.jsonl")
    write_jsonl(sp, [slower_record(r) for r in train])
    for n in (1, 2, 3):
        for newest, want in (("slow", "REGRESSION"), ("same", "PASS")):
            if n == 1 and newest == "same":
                continue
            db = os.path.join(tmp, f"short{n}{newest}.db")
            for r in range(n - 1):
                run("ingest", "-q", "--db", db, "--run", f"r{r}", sample("train.jsonl"))
            run("ingest", "-q", "--db", db, "--run", "newest",
                sp if newest == "slow" else sample("train.jsonl"))
            rc, out, err = run("trend", "--db", db, "--check", LIMIT, "step_time", check=False)
            label = f"trend --check, {n} run{'s' if n > 1 else ''}, newest {newest}"
            if n == 1:
                c.true(f"{label}: INCONCLUSIVE ({out.strip()})", out.startswith("INCONCLUSIVE:"),
                       out + err)
                c.eq(f"{label}: exit 0", rc, 0)
                rc, _, _ = run("trend", "--db", db, "--check", LIMIT, "--fail-inconclusive",
                               "step_time", check=False)
                c.eq(f"{label}: --fail-inconclusive exit 1", rc, 1)
                continue
            c.true(f"{label}: {want} ({out.strip()[:160]})", out.startswith(want + ":"), out + err)
            c.eq(f"{label}: exit", rc, 1 if want == "REGRESSION" else 0)
            c.true(f"{label}: names the run it was judged against", "'r%d'" % (n - 2) in out, out)


if __name__ == "__main__":
    sys.exit(main())
