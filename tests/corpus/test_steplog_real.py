"""Real step logs of trainers the shared corpus lacks (tests/steplogs, provenance in
its README): each ingests, with its step count, two values read by hand from the
file, and its mean step time equal to what a few lines of Python that parse that one
file compute independently. The mean is what `profdb report throughput` reports
(steps_per_s = window-weighted steps over their time), so the check is on the number a
user and a CI gate see. Plus the derived refusals: a configuration dump and a log
without a step counter exit 2 with a message naming what was tried."""

import csv
import json
import os
import re
import sys
from datetime import datetime

sys.path.insert(0, os.path.dirname(__file__))
from common import run, tempdir  # noqa: E402
from steplog_checks import (check_mean, chk, close, ingest, lines, path, spot,  # noqa: E402
                            sql, step_time_mean, steps, where_run)

# ---- the logs ---------------------------------------------------------------------


def ultralytics(db):
    f = "ultralytics_yolo26_results.csv"
    r, _ = ingest(db, f, "steplog:csv")
    rows = list(csv.DictReader(open(path(f), newline="")))
    chk.eq("ultralytics: steps (one per epoch)", steps(db, r), len(rows))
    chk.eq("ultralytics: 50 epochs in the file", len(rows), 50)
    spot(db, r, "epoch = 10 AND raw_name = 'train/box_loss'", 1.04447)
    spot(db, r, "epoch = 50 AND raw_name = 'metrics/mAP50(B)'", 0.97783)
    # `time` is seconds since the start: each epoch's time is its difference
    t = [float(x["time"]) for x in rows]
    durations = [t[0]] + [b - a for a, b in zip(t, t[1:])]
    check_mean(db, r, sum(durations) / len(durations), "step_time (derived)")
    chk.eq("ultralytics: time is a cumulative clock",
           sql(db, "SELECT DISTINCT agg, metric FROM steplog_values WHERE raw_name = 'time' AND "
                   + where_run(r)), [{"agg": "cumulative", "metric": "elapsed_time"}])


def detectron2(db):
    f = "detectron2_mask2former_log.txt"
    r, _ = ingest(db, f, "steplog:text")
    its = [int(m.group(1)) for m in (re.search(r"iter: (\d+)", ln) for ln in lines(f)) if m]
    chk.eq("detectron2: steps", steps(db, r), len(its))
    spot(db, r, "step = 1199 AND raw_name = 'total_loss'", 30.45)
    spot(db, r, "step = 1259 AND raw_name = 'last_time'", 0.4991)
    last = [float(m.group(1)) for m in (re.search(r"last_time: ([\d.]+)", ln)
                                        for ln in lines(f)) if m]
    check_mean(db, r, sum(last) / len(last), "step_time (point)")
    chk.eq("detectron2: time is its running mean, data_time a median of 20",
           sql(db, "SELECT raw_name, agg FROM steplog_values WHERE raw_name IN ('time',"
                   f" 'data_time') AND step = 1179 AND {where_run(r)} ORDER BY raw_name"),
           [{"raw_name": "data_time", "agg": "window_median"},
            {"raw_name": "time", "agg": "running_mean"}])


def olmo(db):
    f = "olmo_ai_on_aks_readme_excerpt.log"
    r, _ = ingest(db, f, "steplog:text")
    heads = [(int(m.group(2)), m.group(1)) for m in
             (re.match(r"\[([\d: -]+)\].*\[step=(\d+)/", ln) for ln in lines(f)) if m]
    chk.eq("olmo: steps", steps(db, r), len(heads))
    spot(db, r, "step = 7 AND raw_name = 'train/CrossEntropyLoss'", 9.703)
    spot(db, r, "step = 10 AND raw_name = 'throughput/total_tokens'", 41943040)
    t = [datetime.strptime(ts, "%Y-%m-%d %H:%M:%S").timestamp() for _, ts in heads]
    want = (t[-1] - t[0]) / (heads[-1][0] - heads[0][0])
    check_mean(db, r, want, "step_time (derived)")


def dgl(db):
    f = "dgl_graphsage_multigpu_excerpt.log"
    r, _ = ingest(db, f, "steplog:text")
    step_lines = [ln for ln in lines(f) if ln.startswith("Epoch 0")]
    chk.eq("dgl: steps", steps(db, r), len(step_lines))
    # the step counter restarts every epoch: global steps are ordered and distinct
    got = sql(db, "SELECT step FROM steplog_values WHERE raw_name = 'Loss' AND "
                  f"{where_run(r)} ORDER BY record")
    s = [x["step"] for x in got]
    chk.true("dgl: global steps increase across epochs", all(a < b for a, b in zip(s, s[1:])),
             str(s[:6]))
    spot(db, r, "epoch = 3 AND raw_name = 'Loss' AND record = (SELECT max(record) FROM "
                f"steplog_values WHERE epoch = 3 AND raw_name = 'Loss' AND {where_run(r)})",
         0.7616)
    spot(db, r, "epoch = 29 AND raw_name = 'Epoch Time(s)'", 7.2570)  # as printed
    chk.eq("dgl: no per-step time in the log", step_time_mean(db, r), (None, None))
    ep = [float(m.group(1)) for m in (re.match(r"Epoch Time\(s\): ([\d.]+)", ln)
                                      for ln in lines(f)) if m]
    _, out, _ = run("report", "--db", db, "--run", r, "--format", "json", "throughput")
    et = [x["value"] for x in json.loads(out) if x["scope"] == "overall"
          and x["metric"] == "epoch_time_s"]
    close("dgl: mean epoch time (s), the summary line left out", et[0] if et else None,
          sum(ep) / len(ep))
    chk.eq("dgl: 'Avg epoch time' is a summary",
           sql(db, "SELECT kind, split FROM steplog_values WHERE raw_name = 'Avg epoch time'"
                   f" AND {where_run(r)}"), [{"kind": "summary", "split": "summary"}])
    chk.eq("dgl: eval lines are split val",
           sql(db, "SELECT DISTINCT split FROM steplog_values WHERE raw_name IN ('Eval Acc',"
                   f" 'Test Acc') AND {where_run(r)}"), [{"split": "val"}])


def modded(db):
    f = "modded_nanogpt_sub3min_excerpt.txt"
    r, _ = ingest(db, f, "steplog:nanogpt")
    train, val = [], []
    for ln in lines(f):
        m = re.match(r"step:(\d+)/\d+ (val_loss:\S+ )?train_time:(\d+)ms", ln)
        if m:
            (val if m.group(2) else train).append((int(m.group(1)), int(m.group(3)) / 1000))
    chk.eq("modded: steps", steps(db, r), len(train))
    chk.eq("modded: validation records", sql(db, "SELECT count(DISTINCT record) AS n FROM"
           f" steplog_values WHERE kind = 'val' AND split = 'val' AND {where_run(r)}"),
           [{"n": len(val)}])
    spot(db, r, "step = 125 AND raw_name = 'val_loss'", 4.3930)
    spot(db, r, "step = 100 AND raw_name = 'train_time'", 11.076)
    # differences between training lines only; the clock restarts after step 10
    per = {}
    prev_s, prev_t = 0, 0.0
    for s, t in train:
        per[s] = (t - prev_t if t >= prev_t else t) / (s - prev_s)
        prev_s, prev_t = s, t
    check_mean(db, r, sum(per.values()) / len(per), "step_time (derived)")
    spot(db, r, "step = 126 AND raw_name = 'delta train_time'", per[126])
    close("modded: step 126 is 144 ms, not 21 ms across the validation line", per[126], 0.144)


def mmengine(db):
    f = "mmengine_openmmlab_camp_scalars.json"
    r, _ = ingest(db, f, "steplog:jsonl")
    objs = [json.loads(ln) for ln in lines(f) if ln.strip()]
    tr = [o for o in objs if "loss" in o]
    chk.eq("mmengine: steps", steps(db, r), len(tr))
    spot(db, r, "step = 690 AND raw_name = 'loss'", 0.40156067460775374)
    spot(db, r, "step = 5 AND raw_name = 'accuracy/top1' AND split = 'val'", 83.67346954345703)
    check_mean(db, r, sum(o["time"] for o in tr) / len(tr), "step_time (point)")


def timm(db):
    f = "timm_vitae_monarch_excerpt.txt"
    r, _ = ingest(db, f, "steplog:text")
    t = [(int(m.group(1)), float(m.group(2))) for m in
         (re.match(r"Train: 0 \[\s*(\d+)/10009.*?Time: ([\d.]+)s", ln) for ln in lines(f)) if m]
    chk.eq("timm: steps", steps(db, r), len(t))
    spot(db, r, "step = 600 AND raw_name = 'Loss'", 6.945319)
    spot(db, r, "step = 1450 AND raw_name = 'Time (avg)'", 1.344)
    check_mean(db, r, sum(v for _, v in t) / len(t), "step_time (point)")


def mmdet(db):
    f = "mmdet2_sockets_mm_md_excerpt.log"
    r, _ = ingest(db, f, "steplog:text")
    t = [float(m.group(1)) for m in (re.search(r"Epoch \[1\]\[\d+/930\].*? time: ([\d.]+),", ln)
                                     for ln in lines(f)) if m]
    chk.eq("mmdet: steps", steps(db, r), len(t))
    spot(db, r, "step = 300 AND raw_name = 'loss'", 0.4687)
    spot(db, r, "step = 900 AND raw_name = 'lr'", 0.02)
    # interval means over 50 iterations each: the weighted mean is the plain mean
    check_mean(db, r, sum(t) / len(t), "step_time (interval_mean)")
    chk.eq("mmdet: bbox_mAP_s is 'small objects', not seconds; the val record is split val",
           sql(db, "SELECT unit, split, kind FROM steplog_values WHERE raw_name = 'bbox_mAP_s'"
                   f" AND {where_run(r)}"), [{"unit": "", "split": "val", "kind": "val"}])


def keras(db):
    f = "keras_io_vq_vae_pixelcnn_excerpt.log"
    r, _ = ingest(db, f, "steplog:text")
    ms = [float(m.group(1)) / 1000 for m in (re.search(r" (\d+)ms/step", ln) for ln in lines(f))
          if m]
    chk.eq("keras: steps (one bar per epoch)", steps(db, r), len(ms))
    spot(db, r, "epoch = 5 AND raw_name = 'val_loss' AND split = 'val'", 1.1020)
    spot(db, r, "epoch = 14 AND raw_name = 'accuracy'", 0.6820)
    check_mean(db, r, sum(ms) / len(ms), "step_time (interval_mean)")


def fairseq(db):
    f = "fairseq_issue514_excerpt.log"
    r, _ = ingest(db, f, "steplog:text")
    inner = [(int(m.group(1)), int(m.group(2))) for m in
             (re.search(r"num_updates=(\d+),.*train_wall=(\d+)", ln) for ln in lines(f)) if m]
    chk.eq("fairseq: steps (train_inner lines)", steps(db, r), len(inner))
    chk.eq("fairseq: epoch summaries and validations are not steps",
           sql(db, "SELECT kind, count(DISTINCT record) AS n FROM steplog_values WHERE "
                   f"{where_run(r)} AND kind != 'step' GROUP BY kind ORDER BY kind"),
           [{"kind": "summary", "n": 2}, {"kind": "val", "n": 2}])
    spot(db, r, "step = 23897 AND raw_name = 'ppl'", 33.96)
    spot(db, r, "step = 24633 AND raw_name = 'valid_loss'", 6.37204)
    want = (inner[-1][1] - inner[0][1]) / (inner[-1][0] - inner[0][0])
    check_mean(db, r, want, "step_time (derived)")


def nanotron(db):
    f = "nanotron_pr23_excerpt.log"
    r, _ = ingest(db, f, "steplog:text")
    ms = [float(m.group(1)) / 1000 for m in
          (re.search(r"elapsed_time_per_iteration_ms: ([\d.]+)", ln) for ln in lines(f)) if m]
    chk.eq("nanotron: steps", steps(db, r), len(ms))
    spot(db, r, "step = 992 AND raw_name = 'tokens_per_sec'", 15500)
    spot(db, r, "step = 993 AND raw_name = 'lm_loss'", 10.6)
    check_mean(db, r, sum(ms) / len(ms), "step_time (point)")


def litgpt(db, f, nsteps, spots):
    """LitGPT prints "iter N step S": with gradient accumulation several iters
    (micro-batches) make one optimizer step, and "iter time" is one micro-batch's
    (issue 32): kept apart, not stored as the step's time."""
    r, err = ingest(db, f, "steplog:text")
    ms = [float(x) / 1000 for ln in lines(f) for x in re.findall(r"iter time: ([\d.]+) ms", ln)]
    its = [(int(a), int(b)) for ln in lines(f)
           for a, b in re.findall(r"iter (\d+)(?: \|)? step (\d+)", ln)]
    chk.eq(f"{f}: steps", steps(db, r), nsteps)
    chk.eq(f"{f}: step lines in the file", len(ms), nsteps)
    per = (its[-1][0] - its[0][0]) // (its[-1][1] - its[0][1])
    chk.true(f"{f}: several micro-batches per optimizer step ({per})", per >= 2)
    for where, want in spots:
        spot(db, r, where, want)
    got = sql(db, f"SELECT value FROM steplog_values WHERE {where_run(r)} AND"
                  " raw_name = 'iter time (micro-batch)' ORDER BY record")
    close(f"{f}: mean micro-batch time", sum(x["value"] for x in got) / max(len(got), 1),
          sum(ms) / len(ms))
    chk.eq(f"{f}: no step time (one micro-batch's time is not the step's)",
           step_time_mean(db, r), (None, None))
    chk.true(f"{f}: the reading says so", f"({per} per optimizer step)" in err, err)


# ---- refusals -------------------------------------------------------------------------


def refusals(_):
    with tempdir() as tmp:
        db = os.path.join(tmp, "refusals.db")
        # a printed configuration: Python dicts and a Namespace, no step
        cfg = os.path.join(tmp, "config_dump.log")
        with open(cfg, "w") as out:
            out.write("{'lr': 0.001, 'epochs': 90, 'loss': 'cross_entropy', 'batch_size': 256}\n"
                      "{'optimizer': 'adamw', 'weight_decay': 0.05, 'epoch': 0}\n"
                      "Namespace(lr=0.001, epochs=90, batch_size=256)\n")
        # the MMDetection log without its counters: values, but no step
        nocount = os.path.join(tmp, "no_counter.log")
        with open(nocount, "w") as out:
            for ln in lines("mmdet2_sockets_mm_md_excerpt.log"):
                out.write(re.sub(r"Epoch(\(val\))? \[\d+\]\[[\d/]+\]", "", ln) + "\n")
        for what, p, extra in [("config dump", cfg, []), ("no step counter", nocount, []),
                               ("forced flavor that matches nothing",
                                path("detectron2_mask2former_log.txt"),
                                ["--format", "steplog:nanogpt"])]:
            code, _, err = run("ingest", "--db", db, *extra, p, check=False)
            chk.eq(f"{what}: exit 2", code, 2)
            e = err.strip().split("\n")[-1]
            chk.true(f"{what}: one line naming the file", e.startswith(f"profdb: {p}: "), err)
            chk.true(f"{what}: says no step records and names the flavors",
                     "no step records found" in e and "nanogpt, torchtitan" in e, e)
            chk.true(f"{what}: no byte offset", "byte" not in e, e)
            if not extra:
                chk.true(f"{what}: suggests --format", "--format steplog:FLAVOR" in e, e)
                chk.true(f"{what}: says what was tried", "general text reader" in e or
                         "sniffed as" in e, e)
        # a detectron2 text log starts with "[MM/DD ...": a text log, not a JSON array
        code2, _, err2 = run("ingest", "--db", db, "--dry-run",
                             path("detectron2_mask2former_log.txt"), check=False)
        chk.eq("detectron2 text: sniffed as a text step log", (code2, "steplog:text" in err2),
               (0, True))


def main():
    with tempdir() as tmp:
        db = os.path.join(tmp, "real.db")
        tests = [ultralytics, detectron2, olmo, dgl, modded, mmengine, timm, mmdet, keras,
                 fairseq, nanotron,
                 lambda d: litgpt(d, "litgpt_issue1607_excerpt.log", 7,
                                  [("step = 610160 AND raw_name = 'loss train'", 2.815),
                                   ("step = 610200 AND raw_name = 'iter time (micro-batch)'",
                                    0.11149)]),
                 lambda d: litgpt(d, "litgpt_issue1042_excerpt.log", 5,
                                  [("raw_name = 'val loss' AND split = 'val'", 1.7258),
                                   ("step = 605 AND raw_name = 'loss'", 0.2609)]),
                 refusals]
        for test in tests:
            try:
                test(db)
            except AssertionError as e:
                chk.true(getattr(test, "__name__", "test"), False, str(e))
        chk.close()


main()
