"""Real step logs of trainer families first met in issue 32 (tests/steplogs, provenance
in its README): each is checked against an independent parse of that one file (its
step count, one step-time figure, two values read by hand), and no log prefix field
(glog header, thread id, file:line, logger:line, host:rank, level, logger name) is
stored as a metric, on these files, the other tests/steplogs logs and the shared
corpus step logs."""

import glob
import math
import os
import re
import sqlite3
import sys
from datetime import datetime

sys.path.insert(0, os.path.dirname(__file__))
from common import CORPUS, SOURCE, Checker, run, tempdir  # noqa: E402

DIR = os.path.join(SOURCE, "tests", "steplogs")
chk = Checker()


def path(name):
    return os.path.join(DIR, name)


def lines(name):
    with open(path(name), encoding="utf-8", newline="") as f:
        return f.read().split("\n")


def sql(db, query):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute(query)]
    finally:
        con.close()


def where_run(r):
    return f"run_id = (SELECT run_id FROM runs WHERE name = '{r}')"


def ingest(db, name):
    r = re.sub(r"\W", "_", name.split(".")[0])
    code, _, err = run("ingest", "--db", db, "--run", r, path(name), check=False)
    chk.eq(f"{name}: exit code", code, 0)
    chk.true(f"{name}: read as a step log", ": steplog:" in err, err)
    return r


def steps(db, r):
    return sql(db, "SELECT count(DISTINCT record) AS n FROM steplog_values WHERE "
                   f"{where_run(r)} AND coalesce(split, 'train') = 'train'"
                   " AND kind NOT IN ('val', 'summary', 'epoch', 'eval')")[0]["n"]


def spot(db, r, where, want, rel=1e-9):
    rows = sql(db, f"SELECT value FROM steplog_values WHERE {where_run(r)} AND ({where})")
    got = rows[0]["value"] if len(rows) == 1 else None
    chk.true(f"{r}: {where} = {want}", got is not None and math.isclose(got, want, rel_tol=rel),
             f"got {[x['value'] for x in rows]}")


# Names a log prefix leaves when it is read as data.
PREFIX = re.compile(r"^([IWEF]\d{4}|\S+\.(cpp|cc|py|c|h):?\d*|INFO|WARNING|ERROR|DEBUG"
                    r"|[\w.-]+[.-][\w.-]*:\d+|olmo\.train|intern-studio-\d+|root|tensorflow"
                    r"|sgd_solver\.cpp|solver\.cpp)$", re.I)


def no_prefix_metrics(db, what):
    rows = sql(db, "SELECT DISTINCT raw_name FROM steplog_values")
    bad = [x["raw_name"] for x in rows if PREFIX.match(x["raw_name"] or "")]
    chk.eq(f"{what}: no log prefix field stored as a metric", bad, [])


# ---- the families -------------------------------------------------------------


def glog_time(ln):
    m = re.match(r"I(\d\d)(\d\d) (\d\d):(\d\d):(\d\d\.\d+)", ln)
    mo, d, h, mi, s = m.groups()
    return ((int(d) * 24 + int(h)) * 60 + int(mi)) * 60 + float(s)


def caffe(db):
    f = "caffe_issue4371_excerpt.log"
    r = ingest(db, f)
    its = [(int(m.group(1)), ln) for ln in lines(f)
           for m in [re.search(r"solver\.cpp:\d+\] Iteration (\d+), loss", ln)] if m]
    chk.eq("caffe: steps (one per 'Iteration N, loss' line)", steps(db, r), len(its))
    spot(db, r, "step = 300 AND raw_name = 'loss'", 33.7158)
    spot(db, r, "step = 320 AND raw_name = 'lr'", 0.001)
    # no step time printed: the glog timestamps (microseconds) give it
    t = {s: glog_time(ln) for s, ln in its}
    spot(db, r, "step = 260 AND raw_name = 'timestamp delta'", (t[260] - t[240]) / 20, 1e-6)


def caffe_iters(db):
    f = "caffe_iters_issue50_excerpt.log"
    r = ingest(db, f)
    chk.eq("caffe (iter/s): steps", steps(db, r),
           sum(1 for ln in lines(f) if re.search(r"\] Iteration \d+ \(", ln)))
    # 2 step records: ingested, but the weak reading is said (issue 32)
    code, _, err = run("ingest", "--db", db, "--run", "weak", path(f), check=False)
    chk.true("caffe (2 iterations): a visible weak-reading warning, exit 0",
             code == 0 and "profdb: warning: " in err and "weak reading: 2 step records" in err,
             err)
    spot(db, r, "step = 370 AND raw_name = 'loss'", 0.0196515)
    spot(db, r, "step = 360 AND raw_name = 'lr'", 7.8125e-07)
    # "(0.170412 iter/s, ...)": the rate, as steps/s
    spot(db, r, "step = 370 AND metric = 'steps_per_s'", 0.170412)
    t = [glog_time(ln) for ln in lines(f) if re.search(r"\] Iteration \d+ \(", ln)]
    spot(db, r, "step = 370 AND metric = 'step_time'", (t[1] - t[0]) / 10, 1e-6)


def marian(db):
    f = "marian_issue376_excerpt.log"
    r = ingest(db, f)
    rows = [(int(m.group(1)), float(m.group(2))) for ln in lines(f)
            for m in [re.match(r"\[[^]]+\] Ep\. \d+ : Up\. (\d+) .* Time ([\d.]+)s", ln)] if m]
    chk.eq("marian (Ep. E : Up. N): steps", steps(db, r), len(rows))
    # "Time" is the time since the last display: over its 2000 updates
    spot(db, r, "step = 16000 AND metric = 'step_time'", rows[1][1] / (rows[1][0] - rows[0][0]))
    chk.eq("marian: the first display's window is unknown: no step time there",
           sql(db, f"SELECT count(*) AS n FROM steplog_values WHERE {where_run(r)} AND "
                   "metric = 'step_time' AND step = 14000")[0]["n"], 0)
    spot(db, r, "step = 22000 AND raw_name = 'Cost'", 5.25472784)
    spot(db, r, "step = 24000 AND metric = 'tokens_per_s'", 2713.49)
    spot(db, r, "split = 'val' AND raw_name = 'perplexity'", 187.458)


def paddlegan(db):
    f = "paddlegan_pr47_excerpt.log"
    r = ingest(db, f)
    n = sum(1 for ln in lines(f) if re.search(r"Epoch: \d+, iters: \d+", ln))
    chk.eq("paddlegan (Epoch: E, iters: N): steps", steps(db, r), n)
    spot(db, r, "step = 100 AND metric = 'step_time'", 0.28896)
    spot(db, r, "step = 200 AND raw_name = 'G_A_cycle_loss'", 1.351)
    spot(db, r, "step = 300 AND metric = 'samples_per_s'", 3.87263)


def olmo(db):
    f = "olmo_issue692_excerpt.log"
    r = ingest(db, f)
    heads = [ln for ln in lines(f) if "[step=" in ln]
    chk.eq("olmo (host:rank, logger:line prefix): steps", steps(db, r), len(heads))
    spot(db, r, "step = 1 AND raw_name = 'train/CrossEntropyLoss'", 12.18)
    spot(db, r, "step = 3 AND raw_name = 'throughput/device/tokens_per_second'", 26676)
    t = [datetime.strptime(ln[:23], "%Y-%m-%d %H:%M:%S.%f").timestamp() for ln in heads]
    spot(db, r, "step = 3 AND raw_name = 'timestamp delta'", t[2] - t[1], 1e-6)


def paddle(db, f, n_re, spots, cost):
    r = ingest(db, f)
    n = sum(1 for ln in lines(f) if re.search(n_re, ln))
    chk.eq(f"{f}: steps", steps(db, r), n)
    for where, want in spots:
        spot(db, r, where, want)
    where, want = cost
    spot(db, r, where, want)


def fairseq(db):
    f = "fairseq_issue2338_excerpt.log"
    r = ingest(db, f)
    ups = [float(m.group(1)) for ln in lines(f) for m in [re.search(r"ups=([\d.]+)", ln)] if m]
    chk.eq("fairseq train_inner: steps", steps(db, r), len(ups))
    spot(db, r, "step = 3000 AND raw_name = 'loss'", 9.376)
    spot(db, r, "step = 3100 AND raw_name = 'wps'", 60.4)
    # train_wall is the interval's: kept as 'train_wall (window)', and over the 100
    # updates since the last line it is the step time (issue 32)
    spot(db, r, "step = 2900 AND raw_name = 'train_wall (window)'", 13)
    spot(db, r, "step = 3000 AND metric = 'step_time'", 14 / 100)
    chk.eq("fairseq: no timestamp deltas beside the printed time",
           sql(db, f"SELECT count(*) AS n FROM steplog_values WHERE {where_run(r)} AND "
                   "raw_name = 'timestamp delta'")[0]["n"], 0)


def pithtrain(db):
    f = "pithtrain_pr7_excerpt.log"
    r = ingest(db, f)
    st = [float(m.group(1)) for ln in lines(f)
          for m in [re.search(r"step-time ([\d.]+) sec", ln)] if m]
    chk.eq("pith-train: steps", steps(db, r), len(st))
    spot(db, r, "step = 2 AND metric = 'step_time'", st[1])
    spot(db, r, "step = 4 AND metric = 'tokens_per_s'", 73748)
    spot(db, r, "step = 5 AND raw_name = 'cross-entropy-loss'", 2.6154)


def tf_slim(db):
    f = "tf_slim_issue2980_excerpt.log"
    r = ingest(db, f)
    # every line is printed twice (two handlers): 8 steps, 16 lines
    got = sql(db, f"SELECT DISTINCT step FROM steplog_values WHERE {where_run(r)} AND"
                  " raw_name = 'loss' ORDER BY step")
    chk.eq("tf-slim (INFO:tensorflow:global step N:): steps", [x["step"] for x in got],
           list(range(1, 9)))
    spot(db, r, "record = (SELECT min(record) FROM steplog_values WHERE step = 3 AND "
                f"{where_run(r)}) AND raw_name = 'loss'", 67.3308)
    # "(17.053 sec/step)" is the step's time, not a mean of the loss
    spot(db, r, "record = (SELECT min(record) FROM steplog_values WHERE step = 2 AND "
                f"{where_run(r)}) AND metric = 'step_time'", 17.053)


def tf_cifar(db):
    f = "tf_cifar10_issue40042_excerpt.log"
    r = ingest(db, f)
    n = sum(1 for ln in lines(f) if re.search(r"\d: step \d+, loss", ln))
    chk.eq("tf cifar10: steps", steps(db, r), n)
    spot(db, r, "step = 3950 AND raw_name = 'loss'", 1.11)
    spot(db, r, "step = 4000 AND raw_name = 'loss'", 0.89)
    spot(db, r, "step = 3950 AND metric = 'step_time'", 0.014)
    spot(db, r, "step = 3950 AND metric = 'samples_per_s'", 9319.0)


def mxnet(db):
    f = "mxnet_speedometer_mlp_excerpt.log"
    r = ingest(db, f)
    n = sum(1 for ln in lines(f) if "Batch [" in ln)
    chk.eq("mxnet (INFO:root:Epoch[E] Batch [N]): steps", steps(db, r), n)
    got = sql(db, f"SELECT step FROM steplog_values WHERE {where_run(r)} AND raw_name = "
                  "'accuracy' ORDER BY record")
    s = [x["step"] for x in got]
    chk.true("mxnet: per-epoch batch counters become one increasing order",
             all(a < b for a, b in zip(s, s[1:])), str(s))
    spot(db, r, "epoch = 2 AND raw_name = 'Speed' AND step = (SELECT min(step) FROM "
                f"steplog_values WHERE epoch = 2 AND {where_run(r)})", 41060.53)
    spot(db, r, "epoch = 4 AND raw_name = 'Time cost'", 1.558)


def every_log(tmp):
    """No prefix field stored as a metric, on every step log here and in the corpus."""
    files = sorted(glob.glob(os.path.join(DIR, "*")))
    if CORPUS:
        files += sorted(glob.glob(os.path.join(CORPUS, "steplogs", "*")))
    for k, f in enumerate(files):
        if f.endswith(".md"):
            continue
        db = os.path.join(tmp, f"all{k}.db")
        code, _, err = run("ingest", "--db", db, "--run", "x", f, check=False)
        if code == 0:
            no_prefix_metrics(db, os.path.basename(f))


def main():
    with tempdir() as tmp:
        db = os.path.join(tmp, "families.db")
        tests = [caffe, caffe_iters, olmo, fairseq, pithtrain, tf_cifar, tf_slim, marian,
                 paddlegan,
                 lambda d: paddle(d, "paddleseg_pr928_excerpt.log", r"\[TRAIN\] epoch",
                                  [("step = 60 AND raw_name = 'loss'", 1.7455),
                                   ("step = 140 AND metric = 'samples_per_s'", 5.3722)],
                                  ("step = 100 AND metric = 'step_time'", 0.3523)),
                 lambda d: paddle(d, "paddledetection_pr1512_excerpt.log", r"INFO: iter:",
                                  [("step = 8 AND raw_name = 'lr'", 0.000039),
                                   ("step = 10 AND metric = 'samples_per_s'", 0.32214)],
                                  ("step = 4 AND metric = 'step_time'", 22.41813)),
                 lambda d: paddle(d, "paddleocr_pr1181_excerpt.log", r"INFO: epoch:",
                                  [("step = 30 AND raw_name = 'acc'", 0.5),
                                   ("step = 50 AND raw_name = 'samples'", 5120)],
                                  ("step = 20 AND metric = 'step_time'", 2.57432))]
        for test in tests:
            try:
                test(db)
            except AssertionError as e:
                chk.true(getattr(test, "__name__", "test"), False, str(e))
        no_prefix_metrics(db, "the families")
        every_log(tmp)
        chk.close()


main()
