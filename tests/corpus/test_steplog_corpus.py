"""Every step log of ../shared/corpus/steplogs ingests with the record counts its
README gives, and spot values (first, middle, last record) equal what an
independent Python parse of the file reads."""

import csv
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import Checker, need_corpus, run, tempdir  # noqa: E402

DIR = need_corpus("steplogs")
README = open(os.path.join(DIR, "README.md"), encoding="utf-8").read()
chk = Checker()


def section(fname):
    """The README section about one file."""
    for part in README.split("\n## "):
        if part.split("\n", 1)[0].find(fname) >= 0:
            return part
    raise AssertionError(f"README has no section for {fname}")


def readme_int(fname, pattern):
    m = re.search(pattern, section(fname))
    if not m:
        raise AssertionError(f"README section of {fname} lacks {pattern!r}")
    return int(m.group(1).replace(",", ""))


def sql(db, query):
    _, out, _ = run("sql", "--db", db, "--format", "json", query)
    return json.loads(out)


def count_records(db, run_name, where):
    rows = sql(db, "SELECT count(DISTINCT record) AS n FROM steplog_values v JOIN runs r"
                   f" USING (run_id) WHERE r.name = '{run_name}' AND ({where})")
    return rows[0]["n"]


def values(db, run_name, where):
    """(step, value) of the rows matching where, in file order."""
    rows = sql(db, "SELECT step, value FROM steplog_values v JOIN runs r USING (run_id)"
                   f" WHERE r.name = '{run_name}' AND ({where}) ORDER BY record, v.rowid")
    return [(r["step"], r["value"]) for r in rows]


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def spot(what, got, want, rel=1e-9):
    """Compares the first, middle and last (step, value) pairs."""
    chk.eq(f"{what}: number of values", len(got), len(want))
    if not got or len(got) != len(want):
        return
    for i in (0, len(want) // 2, len(want) - 1):
        ok = got[i][0] == want[i][0] and close(got[i][1], want[i][1], rel)
        chk.true(f"{what}[{i}]", ok, f"got {got[i]}, want {want[i]}")


def ingest(db, fname, fmt):
    code, _, err = run("ingest", "--db", db, "--run", fname.split(".")[0],
                       os.path.join(DIR, fname), check=False)
    chk.eq(f"{fname}: exit code", code, 0)
    chk.true(f"{fname}: format", f": {fmt} into run" in err, err)
    return fname.split(".")[0]


def lines(fname):
    with open(os.path.join(DIR, fname), encoding="utf-8", errors="replace", newline="") as f:
        return f.read().replace("\r\n", "\n").split("\n")


def megatron(db):
    f = "megatron_deepspeed_gpt125m_8gpu.log"
    r = ingest(db, f, "steplog:megatron")
    chk.eq("megatron iteration lines", count_records(db, r, "kind = 'iteration'"),
           readme_int(f, r"(\d+) Megatron iteration lines"))
    chk.eq("megatron timer lines", count_records(db, r, "kind = 'timer'"),
           readme_int(f, r"(\d+) Megatron timer lines"))
    chk.eq("deepspeed step lines", count_records(db, r, "kind = 'ds_step'"),
           readme_int(f, r"(\d+) DeepSpeed lines"))
    chk.eq("deepspeed throughput lines", count_records(db, r, "kind = 'ds_throughput'"),
           readme_int(f, r"(\d+) DeepSpeed lines"))
    chk.eq("validation blocks", count_records(db, r, "kind = 'validation'"),
           readme_int(f, r"(\d+) `validation loss at iteration"))
    it = [(int(m.group(1)), float(m.group(2)) / 1000, float(m.group(3)))
          for m in (re.search(r"iteration\s+(\d+)/.*elapsed time per iteration \(ms\): ([\d.]+)"
                              r".*lm loss: ([\d.E+-]+)", ln) for ln in lines(f)) if m]
    spot("megatron step_time (s)", values(db, r, "kind = 'iteration' AND metric = 'step_time'"),
         [(s, t) for s, t, _ in it])
    spot("megatron lm loss", values(db, r, "kind = 'iteration' AND raw_name = 'lm loss'"),
         [(s, l) for s, _, l in it])
    fwd = [float(m.group(1)) / 1000 for m in
           (re.search(r"^time \(ms\) \| forward-compute: ([\d.]+)", ln) for ln in lines(f)) if m]
    spot("megatron forward-compute (s)", values(db, r, "raw_name = 'forward-compute'"),
         list(zip([s for s, _, _ in it], fwd)))
    agg = sql(db, "SELECT DISTINCT agg, window FROM steplog_values WHERE metric = 'step_time'"
                  f" AND run_id = (SELECT run_id FROM runs WHERE name = '{r}')")
    chk.eq("megatron step_time is an interval mean over 10 steps", agg,
           [{"agg": "interval_mean", "window": 10}])


def late_start(db):
    """A log whose first 64 KiB hold no step line (launcher output, argument
    dump) is still read, and named after what it holds."""
    f = "megatron_deepspeed_gpt125m_8gpu.log"
    with tempdir() as tmp:
        p = os.path.join(tmp, "late.log")
        with open(p, "w") as out:
            for i in range(3000):
                out.write(f"  argument_{i} ........................ {i}\n")
            out.write(open(os.path.join(DIR, f), encoding="utf-8", errors="replace").read())
        code, _, err = run("ingest", "--db", db, p, check=False)
        chk.eq("late start: exit", code, 0)
        chk.true("late start: named megatron", ": steplog:megatron into run" in err, err)
        chk.eq("late start: iteration lines", count_records(db, "late", "kind = 'iteration'"),
               readme_int(f, r"(\d+) Megatron iteration lines"))


def directory(db):
    """The whole folder is one run: every log is taken, the README is not."""
    code, _, err = run("ingest", "--db", db, "--run", "folder", DIR, check=False)
    chk.eq("folder ingest: exit", code, 0)
    chk.true("folder ingest: README skipped", "README.md: skipped" in err, err[-300:])
    logs = [f for f in os.listdir(DIR) if f != "README.md"]
    got = sql(db, "SELECT count(*) AS n FROM sources JOIN runs USING (run_id)"
                  " WHERE name = 'folder' AND format LIKE 'steplog:%'")
    chk.eq("folder ingest: every log read as a step log", got[0]["n"], len(logs))


def golden(db):
    f = "megatron_ci_golden_values_h100.json"
    r = ingest(db, f, "steplog:megatron-golden")
    doc = json.load(open(os.path.join(DIR, f)))
    nsteps = readme_int(f, r"Records: (\d+) steps")
    chk.eq("golden steps", count_records(db, r, "1") // len(doc), nsteps)
    want = [(int(k), v) for k, v in doc["iteration-time"]["values"].items()]
    spot("golden iteration-time (s)", values(db, r, "raw_name = 'iteration-time'"), want)
    chk.eq("golden iteration-time is step_time in s",
           sql(db, "SELECT DISTINCT metric, unit FROM steplog_values WHERE raw_name ="
                   f" 'iteration-time' AND run_id = (SELECT run_id FROM runs WHERE name = '{r}')"),
           [{"metric": "step_time", "unit": "s"}])


def nanogpt(db):
    f = "nanogpt_train.log"
    r = ingest(db, f, "steplog:nanogpt")
    chk.eq("nanogpt iter lines", count_records(db, r, "kind = 'iter'"),
           readme_int(f, r"(\d+) lines `iter N"))
    chk.eq("nanogpt eval lines", count_records(db, r, "kind = 'eval'"),
           readme_int(f, r"(\d+) eval lines"))
    want = [(int(m.group(1)), float(m.group(2)) / 1000) for m in
            (re.match(r"iter (\d+): loss \S+, time ([\d.]+)ms", ln) for ln in lines(f)) if m]
    spot("nanogpt time (s)", values(db, r, "kind = 'iter' AND metric = 'step_time'"), want)
    nan_loss = sql(db, "SELECT count(*) AS n FROM steplog_values WHERE raw_name = 'loss'"
                       " AND value IS NULL AND step >= 425"
                       f" AND run_id = (SELECT run_id FROM runs WHERE name = '{r}')")
    chk.true("nanogpt 'loss nan' stored as NULL", nan_loss[0]["n"] > 0)
    sentinel = sql(db, "SELECT value FROM steplog_values WHERE raw_name = 'mfu' AND step = 0"
                       f" AND run_id = (SELECT run_id FROM runs WHERE name = '{r}')")
    chk.eq("nanogpt mfu -100% sentinel is NULL", sentinel, [{"value": None}])


def torchtitan(db):
    f = "torchtitan_qwen3vl_excerpt_A.log"
    r = ingest(db, f, "steplog:torchtitan")
    chk.eq("torchtitan steps", count_records(db, r, "kind = 'titan'"),
           readme_int(f, r"A = lines [^:]*:[^\n]*?(\d+) steps"))
    want = [(int(m.group(1)), float(m.group(2).replace(",", ""))) for m in
            (re.search(r"step:\s+(\d+).*tps: ([\d,]+)", ln) for ln in lines(f)) if m]
    spot("torchtitan tps", values(db, r, "metric = 'tokens_per_s'"), want)
    mem = [(int(m.group(1)), float(m.group(2)) * 2**30) for m in
           (re.search(r"step:\s+(\d+).*memory: ([\d.]+)GiB", ln) for ln in lines(f)) if m]
    spot("torchtitan memory (bytes)", values(db, r, "raw_name = 'memory'"), mem)


def hf_state(db):
    f = "hf_trainer_state_whisper.json"
    r = ingest(db, f, "steplog:hf-trainer-state")
    chk.eq("hf train entries", count_records(db, r, "kind = 'train'"),
           readme_int(f, r"(\d+) training entries"))
    chk.eq("hf eval entries", count_records(db, r, "kind = 'eval'"),
           readme_int(f, r"(\d+) eval entries"))
    chk.eq("hf summary entries", count_records(db, r, "kind = 'summary'"),
           readme_int(f, r"(\d+) summary entry"))
    hist = json.load(open(os.path.join(DIR, f)))["log_history"]
    spot("hf loss", values(db, r, "raw_name = 'loss'"),
         [(e["step"], e["loss"]) for e in hist if "loss" in e])
    spot("hf train_runtime (s)", values(db, r, "raw_name = 'train_runtime'"),
         [(e["step"], e["train_runtime"]) for e in hist if "train_runtime" in e])


def hf_stdout(db):
    f = "hf_trainer_stdout_gemma2_lora.log"
    r = ingest(db, f, "steplog:hf-trainer")
    chk.eq("hf printed dicts", count_records(db, r, "kind = 'hf-log'"),
           readme_int(f, r"(\d+) Trainer log dicts"))
    total = readme_int(f, r"training-bar updates `N/(\d+)")
    chk.eq("hf training-bar updates",
           count_records(db, r, f"kind = 'tqdm' AND raw_name = 'progress_total' AND value = {total}"),
           readme_int(f, r"(\d+) training-bar updates"))
    text = open(os.path.join(DIR, f), encoding="utf-8", errors="replace").read()
    # the dicts carry no step: it is the ordinal times logging_steps, when printed
    ls = re.search(r"logging_steps=(\d+)", text)
    want = [((i + 1) * int(ls.group(1)) if ls else None, float(m.group(1)))
            for i, m in enumerate(re.finditer(r"\{'loss': ([\d.]+),", text))]
    spot("hf printed loss", values(db, r, "kind = 'hf-log' AND raw_name = 'loss'"), want)
    rates = []
    for m in re.finditer(r"(\d+)/" + str(total) + r" \[[^,\]]*,\s*([\d.]+)(s/it|it/s)\]", text):
        v = float(m.group(2))
        rates.append((int(m.group(1)), v if m.group(3) == "s/it" else 1 / v))
    spot("hf tqdm step time (s)", values(db, r, "kind = 'tqdm' AND metric = 'step_time'"
                                          f" AND record IN (SELECT record FROM steplog_values"
                                          f" WHERE raw_name = 'progress_total' AND value = {total})"),
         rates)


def lightning(db):
    f = "lightning_csvlogger_metrics.csv"
    r = ingest(db, f, "steplog:csv")
    chk.eq("lightning rows", count_records(db, r, "kind = 'csv'"),
           readme_int(f, r"Records: (\d+) rows"))
    chk.eq("lightning step rows", count_records(db, r, "raw_name = 'train_loss_step'"),
           readme_int(f, r"(\d+) step rows"))
    chk.eq("lightning validation rows", count_records(db, r, "raw_name = 'val_loss'"),
           readme_int(f, r"(\d+) validation rows"))
    chk.eq("lightning epoch rows", count_records(db, r, "raw_name = 'epoch_time'"),
           readme_int(f, r"(\d+) epoch-end rows"))
    rows = list(csv.DictReader(open(os.path.join(DIR, f), newline="")))
    spot("lightning train_loss_step", values(db, r, "raw_name = 'train_loss_step'"),
         [(int(x["step"]), float(x["train_loss_step"])) for x in rows if x["train_loss_step"]])
    spot("lightning epoch_time (s)", values(db, r, "raw_name = 'epoch_time'"),
         [(int(x["step"]), float(x["epoch_time"])) for x in rows if x["epoch_time"]])


def deepspeed_chat(db):
    f = "deepspeed_chat_rlhf_step3.log"
    r = ingest(db, f, "steplog:deepspeed")
    chk.eq("ds-chat steps (E2E lines)", count_records(db, r, "kind = 'e2e'"),
           readme_int(f, r"Records: (\d+) steps"))
    chk.eq("ds-chat timer.py lines", count_records(db, r, "kind = 'ds_throughput'"),
           readme_int(f, r"(\d+) DeepSpeed `timer.py` lines"))
    want, step = [], None
    for ln in lines(f):
        m = re.match(r"epoch: \d+\|step: (\d+)\|", ln)
        if m:
            step = int(m.group(1))
        m = re.match(r"\|E2E latency=([\d.]+)s", ln)
        if m:
            want.append((step, float(m.group(1))))
    spot("ds-chat E2E latency (s)", values(db, r, "raw_name = 'E2E latency'"), want)
    # both engines (actor, critic) print "[Rank 0] step=N": a repeated N is the second
    ds, prev = {0: [], 1: []}, None
    for ln in lines(f):
        m = re.search(r"\[Rank 0\] step=(\d+), skipped=(\d+)", ln)
        if m:
            step = int(m.group(1))
            engine = 1 if prev == step else 0
            ds[engine].append((step, float(m.group(2))))
            prev = step
    chk.true("ds-chat has two engines", len(ds[0]) > 0 and len(ds[0]) == len(ds[1]), str(len(ds[0])))
    for e in (0, 1):
        spot(f"ds-chat engine{e} skipped", values(db, r, f"kind = 'ds_step' AND raw_name = 'skipped'"
                                                    f" AND loader = 'engine{e}'"), ds[e])
    others = sql(db, "SELECT DISTINCT unit FROM steplog_values WHERE raw_name = 'Others'"
                     f" AND run_id = (SELECT run_id FROM runs WHERE name = '{r}')")
    chk.eq("ds-chat 'Others=0.21' is seconds", others, [{"unit": "s"}])


def deepspeed_wallclock(db):
    f = "deepspeed_wallclock_breakdown_gptneox965_excerpt.log"
    code, _, err = run("ingest", "--db", db, os.path.join(DIR, f), check=False)
    chk.eq(f"{f}: exit code", code, 0)
    chk.true("cut-off timer line reported with its line number", f"{f}:6:" in err, err)
    r = f.split(".")[0]
    chk.eq("ds wall-clock timer lines", count_records(db, r, "kind = 'ds_timer'"),
           readme_int(f, r"Records: (\d+) complete lines"))
    want = [(i + 1, float(m.group(1)) / 1000) for i, m in enumerate(
        m for m in (re.search(r"forward_microstep: ([\d.]+)", ln) for ln in lines(f)) if m)]
    spot("ds forward_microstep (s)", values(db, r, "raw_name = 'forward_microstep'"), want)


def detectron2(db):
    f = "detectron2_metrics.json"
    r = ingest(db, f, "steplog:detectron2")
    chk.eq("detectron2 objects", count_records(db, r, "1"),
           readme_int(f, r"Records: (\d+) JSON objects"))
    objs = [json.loads(ln) for ln in lines(f) if ln.strip()]  # Python reads bare NaN
    spot("detectron2 time (s)", values(db, r, "raw_name = 'time'"),
         [(o["iteration"], o["time"]) for o in objs if "time" in o])
    chk.eq("detectron2 time is a window median of 20",
           sql(db, "SELECT DISTINCT agg, window FROM steplog_values WHERE raw_name = 'time'"
                   f" AND run_id = (SELECT run_id FROM runs WHERE name = '{r}')"),
           [{"agg": "window_median", "window": 20}])
    nans = sum(1 for o in objs for v in o.values() if isinstance(v, float) and math.isnan(v))
    got = sql(db, "SELECT count(*) AS n FROM steplog_values v JOIN runs USING (run_id)"
                  f" WHERE name = '{r}' AND value IS NULL")
    chk.eq("detectron2 NaN values stored as NULL", got[0]["n"], nans)


def nvsmi(db):
    f = "nvidia_smi_query_gpu.csv"
    r = ingest(db, f, "steplog:nvidia-smi")
    chk.eq("nvidia-smi samples", count_records(db, r, "1"), readme_int(f, r"Records: (\d+) samples"))
    rows = [ln.split(", ") for ln in lines(f)[1:] if ln.strip() and not ln.startswith("timestamp")]
    spot("nvidia-smi memory.used (B)", values(db, r, "raw_name = 'memory.used'"),
         [(None, float(x[3].split()[0]) * 2**20) for x in rows])
    _, out, _ = run("report", "--db", db, "--run", r, "--format", "json", "--unit", "s", "gpu-util")
    g = json.loads(out)
    util = [float(x[1].split()[0]) for x in rows]
    chk.eq("gpu-util samples", g[0]["samples"], len(rows))
    chk.true("gpu-util mean utilisation (printed with 2 decimals)",
             abs(g[0]["util_mean_pct"] - sum(util) / len(util)) <= 0.005, str(g[0]))


def main():
    with tempdir() as tmp:
        db = os.path.join(tmp, "s.db")
        for test in (megatron, late_start, directory, golden, nanogpt, torchtitan, hf_state, hf_stdout, lightning,
                     deepspeed_chat, deepspeed_wallclock, detectron2, nvsmi):
            try:
                test(db)
            except AssertionError as e:
                chk.true(test.__name__, False, str(e))
        chk.close()


main()
