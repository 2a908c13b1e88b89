"""Real step logs of trainer families first met in issue 32 (tests/steplogs, provenance
in its README): each is checked against an independent parse of that one file (its
step count, one step-time figure, two values read by hand), and no log prefix field
(timestamp, level, logger name, file:line, logger:line, host:rank, thread id, a
bracketed tag) is stored as a metric, on these files, the other tests/steplogs logs and
the shared corpus step logs. Prints which families read right."""

import glob
import os
import re
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(__file__))
from common import CORPUS, run, tempdir  # noqa: E402
from steplog_checks import (DIR, check_mean, chk, close, ingest, lines, path,  # noqa: E402
                            spot, sql, step_time_mean, steps, where_run)


def count(db, r, where):
    return sql(db, f"SELECT count(*) AS n FROM steplog_values WHERE {where_run(r)} AND "
                   f"({where})")[0]["n"]


def metrics(db, r):
    return {x["metric"] for x in sql(db, "SELECT DISTINCT metric FROM steplog_values WHERE "
                                         + where_run(r))}


def rows(f, pattern):
    """The match groups of pattern on each line of f that matches (the independent
    parse: a regular expression written for that one file)."""
    return [m.groups() for ln in lines(f) for m in [re.search(pattern, ln)] if m]


# ---- log prefixes are not data ----------------------------------------------------

# What a log prefix leaves when it is read as data: a level, a timestamp or a
# part of one, glog's severity+date, a thread id (a name of 4 or more digits; a
# table's class columns are named by 1 to 3: R randomForest's "ntree  OOB  1  2"), where a line
# was printed from (file.ext:N, logger.name:N, Class$:N, (module:N)), a host:rank,
# a bracketed or <> tag, and the logger names of the logs here.
LEVELS = r"(INFO|WARN|WARNING|ERROR|DEBUG|CRITICAL|FATAL|TRACE|NOTICE)"
PREFIX = re.compile(
    r"^(\W*" + LEVELS + r"\W*"
    r"|[IWEF]\d{4}"
    r"|\d{4,}|\d+([-/:.,T ]\d+)+Z?"
    r"|\S+\.(cpp|cc|py|c|h|lua|scala|java)(:\d*)?\]?"
    r"|[\w$.-]*[.$-][\w$.-]*:\d+\]?"
    r"|[\[(<][^\s\])>]*[\])>]:?"
    r"|\S*<std(out|err)>\S*"
    r"|[\w.-]+:\d+(/\d+)?"
    r"|olmo\.train|intern-studio-\d+|root|tensorflow|mmengine|mmdet|sockeye(\.\w+)*"
    r"|DistriOptimizer\$?|yolox(\.\w+)*|trainer|DLL|PC|\S*solver\.cpp)$", re.I)


def no_prefix_metrics(db, what):
    got = sql(db, "SELECT DISTINCT raw_name FROM steplog_values")
    bad = [x["raw_name"] for x in got if PREFIX.match(x["raw_name"] or "")]
    chk.eq(f"{what}: no log prefix field stored as a metric", bad, [])


def prefix_shapes():
    """The prefix test can fail: it flags the prefix fields met in the logs here."""
    for name in ["INFO", "[INFO]", "I0627", "2024-08-06", "10:00:44.815", "139735407601536",
                 "solver.cpp:228", "olmo.train:908", "intern-studio-160750:0",
                 "DistriOptimizer$:392", "(trainer:486)", "[PC]", "[1,0]<stdout>:",
                 "model_lib_v2.py:652]", "gpu01:0/2"]:
        chk.true(f"prefix shape {name!r} is recognised", PREFIX.match(name) is not None)
    for name in ["loss", "train.loss", "Tokens/s/device", "lr_0", "iter_time", "Wall Clock",
                 "test-error", "reduced_train_loss", "Acc@1"]:
        chk.true(f"metric name {name!r} is not taken for a prefix", PREFIX.match(name) is None)


# ---- the families -------------------------------------------------------------


def glog_time(ln):
    m = re.match(r"I(\d\d)(\d\d) (\d\d):(\d\d):(\d\d\.\d+)", ln)
    mo, d, h, mi, s = m.groups()
    return ((int(d) * 24 + int(h)) * 60 + int(mi)) * 60 + float(s)


def caffe(db):
    f = "caffe_issue4371_excerpt.log"
    r, _ = ingest(db, f)
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
    r, _ = ingest(db, f)
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
    r, _ = ingest(db, f)
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
    r, _ = ingest(db, f)
    n = sum(1 for ln in lines(f) if re.search(r"Epoch: \d+, iters: \d+", ln))
    chk.eq("paddlegan (Epoch: E, iters: N): steps", steps(db, r), n)
    spot(db, r, "step = 100 AND metric = 'step_time'", 0.28896)
    spot(db, r, "step = 200 AND raw_name = 'G_A_cycle_loss'", 1.351)
    spot(db, r, "step = 300 AND metric = 'samples_per_s'", 3.87263)


def olmo(db):
    f = "olmo_issue692_excerpt.log"
    r, _ = ingest(db, f)
    heads = [ln for ln in lines(f) if "[step=" in ln]
    chk.eq("olmo (host:rank, logger:line prefix): steps", steps(db, r), len(heads))
    spot(db, r, "step = 1 AND raw_name = 'train/CrossEntropyLoss'", 12.18)
    # a rate per device is not the job's (issue 32)
    spot(db, r, "step = 3 AND metric = 'tokens_per_s_per_gpu'", 26676)
    t = [datetime.strptime(ln[:23], "%Y-%m-%d %H:%M:%S.%f").timestamp() for ln in heads]
    spot(db, r, "step = 3 AND raw_name = 'timestamp delta'", t[2] - t[1], 1e-6)


def paddle(db, f, n_re, spots, cost):
    r, _ = ingest(db, f)
    n = sum(1 for ln in lines(f) if re.search(n_re, ln))
    chk.eq(f"{f}: steps", steps(db, r), n)
    for where, want in spots:
        spot(db, r, where, want)
    where, want = cost
    spot(db, r, where, want)


def fairseq(db):
    f = "fairseq_issue2338_excerpt.log"
    r, _ = ingest(db, f)
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
    r, _ = ingest(db, f)
    st = [float(m.group(1)) for ln in lines(f)
          for m in [re.search(r"step-time ([\d.]+) sec", ln)] if m]
    chk.eq("pith-train: steps", steps(db, r), len(st))
    spot(db, r, "step = 2 AND metric = 'step_time'", st[1])
    spot(db, r, "step = 4 AND metric = 'tokens_per_s'", 73748)
    spot(db, r, "step = 5 AND raw_name = 'cross-entropy-loss'", 2.6154)


def tf_slim(db):
    f = "tf_slim_issue2980_excerpt.log"
    r, _ = ingest(db, f)
    # every line is printed twice (two handlers): 8 steps, 16 lines, 8 records
    got = sql(db, f"SELECT step FROM steplog_values WHERE {where_run(r)} AND"
                  " raw_name = 'loss' ORDER BY record")
    chk.eq("tf-slim (INFO:tensorflow:global step N:): steps, each once",
           [x["step"] for x in got], list(range(1, 9)))
    spot(db, r, "record = (SELECT min(record) FROM steplog_values WHERE step = 3 AND "
                f"{where_run(r)}) AND raw_name = 'loss'", 67.3308)
    # "(17.053 sec/step)" is the step's time, not a mean of the loss
    spot(db, r, "record = (SELECT min(record) FROM steplog_values WHERE step = 2 AND "
                f"{where_run(r)}) AND metric = 'step_time'", 17.053)


def tf_cifar(db):
    f = "tf_cifar10_issue40042_excerpt.log"
    r, _ = ingest(db, f)
    n = sum(1 for ln in lines(f) if re.search(r"\d: step \d+, loss", ln))
    chk.eq("tf cifar10: steps", steps(db, r), n)
    spot(db, r, "step = 3950 AND raw_name = 'loss'", 1.11)
    spot(db, r, "step = 4000 AND raw_name = 'loss'", 0.89)
    spot(db, r, "step = 3950 AND metric = 'step_time'", 0.014)
    spot(db, r, "step = 3950 AND metric = 'samples_per_s'", 9319.0)


def point_family(db, f, label, pattern, col, spots):
    """A family that prints each step's time: steps = the lines pattern matches, the
    mean step time that of group col (seconds), and two values read by hand."""
    r, _ = ingest(db, f)
    got = rows(f, pattern)
    chk.eq(f"{label}: steps", steps(db, r), len(got))
    check_mean(db, r, sum(float(x[col]) for x in got) / len(got), "step_time (point)")
    for where, want in spots:
        spot(db, r, where, want)
    return r


def yolox(db):
    point_family(db, "yolox_issue1803_excerpt.log",
                 "yolox (loguru prefix; epoch: E/M, iter: N/T)",
                 r"epoch: (\d+)/\d+, iter: (\d+)/(\d+), gpu mem: (\d+)Mb, .*iter_time: ([\d.]+)s",
                 4, [("step = 20 AND raw_name = 'gpu mem'", 9301 * 1048576),
                     ("step = 40 AND raw_name = 'total_loss'", 14.3)])


def fb_resnet(db):
    point_family(db, "fb_resnet_torch_issue17_excerpt.log",
                 "fb.resnet.torch ( | Epoch: [E][N/T]    Time ...)",
                 r"Epoch: \[(\d+)\]\[(\d+)/(\d+)\]\s+Time ([\d.]+)", 3,
                 [("step = 10 AND raw_name = 'Err'", 7.1325),
                  ("step = 6 AND raw_name = 'top5'", 99.219)])


def nemo(db):
    point_family(db, "nemo2_bionemo_pr740_excerpt.log",
                 "NeMo 2 (Training epoch E, iteration N/T | name: value |)",
                 r"iteration (\d+)/\d+ \| .*global_step: (\d+) \| .*train_step_timing in s: ([\d.]+)",
                 2, [("step = 122 AND raw_name = 'reduced_train_loss'", 1.333),
                     ("step = 125 AND raw_name = 'consumed_samples'", 126)])


def maxtext(db):
    f = "maxtext_logs_guide_excerpt.log"
    # "seconds" is the step's time (a name that is a unit); no timestamps here
    r = point_family(db, f, "maxtext ('completed step: N')",
                     r"completed step: (\d+), seconds: ([\d.]+), .*loss: ([\d.]+)", 1,
                     [("step = 3 AND raw_name = 'loss'", 11.379),
                      # Tokens/s/device: a rate per device, not the job's (issue 32)
                      ("step = 9 AND metric = 'tokens_per_s_per_gpu'", 8672.758)])
    chk.true("maxtext: no job rate from a per-device rate", "tokens_per_s" not in metrics(db, r))

def pytorch_imagenet(db):
    f = "pytorch_imagenet_rocm1147_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"Epoch: \[(\d+)\]\[\s*(\d+)/(\d+)\]\s+Time\s+([\d.]+) \(")
    chk.eq("pytorch imagenet (Epoch: [E][ N/T] Time v (avg)): steps", steps(db, r), len(got))
    # epoch 0: the global step is the batch index
    chk.eq("pytorch imagenet: steps are the batch indexes",
           [x["step"] for x in sql(db, f"SELECT step FROM steplog_values WHERE {where_run(r)}"
                                       " AND raw_name = 'Loss' ORDER BY record")],
           [int(x[1]) for x in got])
    check_mean(db, r, sum(float(x[3]) for x in got) / len(got), "step_time (point)")
    spot(db, r, "step = 61 AND raw_name = 'Loss'", 6.8423)
    spot(db, r, "step = 121 AND raw_name = 'Acc@5 (avg)'", 0.89)


def deit(db):
    f = "deit_mpirun_issue76_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"^(\S+): \[1,0\]<stdout>:Epoch: \[(\d+)\]\s+\[\s*(\d+)/(\d+)\].*"
                  r"time: ([\d.]+)")
    chk.eq("deit MetricLogger after an mpirun prefix: steps", steps(db, r), len(got))
    # MetricLogger's time is the mean of the last 20 iterations (SmoothedValue's
    # window): every record here is 150 or more into its epoch, so windows of 20
    check_mean(db, r, sum(float(x[4]) for x in got) / len(got), "step_time (moving_avg)")
    chk.eq("deit: each time is a mean over 20 iterations",
           {x["window"] for x in sql(db, "SELECT window FROM steplog_values WHERE "
                                         f"{where_run(r)} AND raw_name = 'time'")}, {20})
    e, n, t = int(got[1][1]), int(got[1][2]), int(got[1][3])
    spot(db, r, f"step = {e * t + n} AND raw_name = 'loss'", 6.8604)
    spot(db, r, f"step = {e * t + int(got[-1][2])} AND raw_name = 'max mem'", 8249)
    wall = datetime.strptime(got[0][0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=timezone.utc).timestamp()
    close("deit: the ISO timestamp of the mpirun prefix is the wall time",
          sql(db, f"SELECT min(wall_time) AS w FROM steplog_values WHERE {where_run(r)}")[0]["w"],
          wall)


def opennmt(db):
    f = "opennmt_issue1072_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"Step (\d+)/\d+; acc: +([\d.]+); .* (\d+)/(\d+) tok/s; +(\d+) sec")
    chk.eq("opennmt (Step N/M; ...; a/b tok/s; T sec): steps", steps(db, r), len(got))
    # "T sec" is the time since the start: differences over the steps between lines
    s0, t0, s1, t1 = int(got[0][0]), int(got[0][4]), int(got[-1][0]), int(got[-1][4])
    check_mean(db, r, (t1 - t0) / (s1 - s0), "step_time (derived)")
    spot(db, r, "step = 5400 AND raw_name = 'acc'", 48.90)
    # "2132/1928 tok/s": a pair of rates (source, target), neither the job's rate
    spot(db, r, "step = 5500 AND raw_name = 'tok/s (2 of 2)'", 1928)
    chk.true("opennmt: the pair is not filed as the job's tokens/s",
             "tokens_per_s" not in metrics(db, r))
    chk.eq("opennmt: 'nan' perplexities are stored as NULL",
           count(db, r, "raw_name = 'ppl' AND value IS NULL"), 3)


def mxnet(db):
    f = "mxnet_speedometer_issue4900_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"Epoch\[(\d+)\] Batch \[(\d+)\]\s+Speed: ([\d.]+) samples/sec")
    chk.eq("mxnet (INFO:root:Epoch[E] Batch [N]): steps", steps(db, r), len(got))
    s = [x["step"] for x in sql(db, f"SELECT step FROM steplog_values WHERE {where_run(r)}"
                                    " AND raw_name = 'Train-accuracy' ORDER BY record")]
    chk.true("mxnet: per-epoch batch counters become one increasing order",
             len(s) == len(got) and all(a < b for a, b in zip(s, s[1:])), str(s))
    chk.eq("mxnet: no per-step time in the log", step_time_mean(db, r), (None, None))
    spot(db, r, "epoch = 2 AND metric = 'samples_per_s' AND step = (SELECT min(step) FROM "
                f"steplog_values WHERE epoch = 2 AND {where_run(r)})", float(got[-2][2]))
    # "Epoch[1] Time cost=4.611": the epoch's time
    spot(db, r, "epoch = 1 AND metric = 'epoch_time'", 4.611)
    spot(db, r, "epoch = 0 AND split = 'val' AND raw_name = 'Validation-accuracy'", 0.958002)


def sockeye(db):
    f = "sockeye_issue664_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"Batch \[(\d+)\]\tSpeed: ([\d.]+) samples/sec ([\d.]+) tokens/sec ([\d.]+)"
                  r" updates/sec\tperplexity=([\d.]+)")
    chk.eq("sockeye ([date:time:LEVEL:logger:fn] Epoch[E] Batch [N]): steps", steps(db, r),
           len(got))
    # "1.26 updates/sec" over the last 50 batches: the step time is its inverse
    # (the first line's window is unknown)
    ups = [float(x[3]) for x in got[1:]]
    check_mean(db, r, sum(1 / u for u in ups) / len(ups), "step_time (interval_mean)")
    spot(db, r, "step = 2000 AND raw_name = 'perplexity'", 43.970662)
    spot(db, r, "step = 2300 AND metric = 'tokens_per_s'", 1952.32)
    wall = datetime.strptime("2019-03-17 14:20:54", "%Y-%m-%d %H:%M:%S").replace(
        tzinfo=timezone.utc).timestamp()
    close("sockeye: the date in the bracketed logger record is the wall time",
          sql(db, f"SELECT min(wall_time) AS w FROM steplog_values WHERE {where_run(r)}")[0]["w"],
          wall)


def espnet(db):
    f = "espnet2_issue2675_excerpt.log"
    r, err = ingest(db, f)
    got = rows(f, r"(\d+)epoch:train:(\d+)-(\d+)batch: iter_time=([\d.e-]+), .*"
                  r"train_time=([\d.]+)")
    chk.eq("espnet2 (Nepoch:train:A-Bbatch:): steps", steps(db, r), len(got))
    # train_time is the mean time of a batch over the range the line reports; the
    # wall time between the lines agrees; iter_time (the wait for the batch) does not
    check_mean(db, r, sum(float(x[4]) * (int(x[2]) - int(x[1]) + 1) for x in got)
               / sum(int(x[2]) - int(x[1]) + 1 for x in got), "step_time (interval_mean)")
    spot(db, r, "step = 6750 AND raw_name = 'loss'", 2.386)
    spot(db, r, "step = 7125 AND raw_name = 'iter_time (part of step)'", 0.001)
    chk.true("espnet2: the reading says iter_time is not the step time",
             "'iter_time' is well below" in err, err)
    chk.eq("espnet2: the epoch results and 'epoch started' lines are summaries",
           count(db, r, "kind = 'summary' AND raw_name = 'total_count'") > 0, True)


def tf2_od(db):
    f = "tf2_od_api_issue6_excerpt.log"
    r, _ = ingest(db, f)
    got = {int(a): float(b) for a, b in rows(f, r"Step (\d+) per-step time ([\d.]+)s")}
    # each step printed twice (INFO:tensorflow: and absl): one record each
    chk.eq("tf2 object detection (Step N per-step time Ts): steps", steps(db, r), len(got))
    check_mean(db, r, sum(got.values()) / len(got), "step_time (point)")
    spot(db, r, "step = 500 AND raw_name = 'loss'", 1.444)
    spot(db, r, "step = 900 AND raw_name = 'loss'", 2.374)


def tf_cnn_benchmarks(db):
    f = "tf_cnn_benchmarks_pr63_excerpt.log"
    r, _ = ingest(db, f, "steplog:csv")
    got = rows(f, r"^(\d+)\timages/sec: ([\d.]+) \+/- [\d.]+ \(jitter = [\d.]+\)\t([\d.]+)$")
    chk.eq("tf_cnn_benchmarks (Step Img/sec loss table): steps", steps(db, r), len(got))
    chk.eq("tf_cnn_benchmarks: no per-step time in the log", step_time_mean(db, r), (None, None))
    spot(db, r, "step = 50 AND raw_name = 'loss'", 7.903)
    spot(db, r, "step = 100 AND metric = 'samples_per_s'", 139.2)


def dllogger(db):
    f = "dllogger_dlperf_rn50_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"^DLL (\S+ \S+) - Epoch: (\d+) Iteration: (\d+)  train.loss : ([\d.]+)")
    chk.eq("DLLogger (DLL date - Epoch: E Iteration: N  name : value): steps", steps(db, r),
           len(got))
    t = [datetime.strptime(x[0], "%Y-%m-%d %H:%M:%S.%f").timestamp() for x in got]
    check_mean(db, r, (t[-1] - t[0]) / (int(got[-1][2]) - int(got[0][2])), "step_time (derived)")
    spot(db, r, "step = 4 AND raw_name = 'train.loss'", 6.80420)
    spot(db, r, "step = 7 AND metric = 'samples_per_s'", 10879.48)
    chk.eq("DLLogger: the PARAMETER line is a configuration, not a record",
           count(db, r, "raw_name IN ('batch_size', 'epochs', 'world_size', 'lr')"), 0)


def torchtune(db):
    f = "torchtune_pr1358_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"^Step (\d+) \| loss:([\d.]+) lr:\S+ tokens_per_second_per_gpu:([\d.]+)")
    chk.eq("torchtune (Step N | loss:v lr:v tokens_per_second_per_gpu:v): steps", steps(db, r),
           len(got))
    chk.eq("torchtune: no per-step time in the log", step_time_mean(db, r), (None, None))
    spot(db, r, "step = 5 AND raw_name = 'loss'", 0.9739330410957336)
    spot(db, r, "step = 10 AND metric = 'tokens_per_s_per_gpu'", 962.2259327743811)
    chk.true("torchtune: a rate per GPU is not the job's", "tokens_per_s" not in metrics(db, r))


def xgboost(db):
    f = "xgboost_issue1692_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"boosting round (\d+), ([\d.]+) sec elapsed")
    rounds = {int(g[0]) for g in got} | {int(g[0]) for g in rows(f, r"\] \[(\d+)\] test-error")}
    # "boosting round N" and "[N] test-error ... train-error ..." of one round
    # are one step (the training set's metric makes the evaluation line a step)
    chk.eq("xgboost (boosting round N, T sec elapsed): steps", steps(db, r), len(rounds))
    # the time since the start: differences over the rounds between lines
    check_mean(db, r, (float(got[-1][1]) - float(got[0][1])) / (int(got[-1][0]) - int(got[0][0])),
               "step_time (derived)")
    # "[55] test-error:... train-error:...": the evaluation after round 55
    spot(db, r, "step = 55 AND split = 'val' AND raw_name = 'test-error'", 0.027193)
    spot(db, r, "step = 60 AND raw_name = 'elapsed'", 228.197)


def kaldi(db):
    f = "kaldi_pybind_chain_pr3892_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"^(\S+ \S+) INFO \[train.py:\d+\] Process (\d+)/(\d+)\(.* epoch (\d+)$")
    chk.eq("kaldi pybind chain (Process N/T(P%) ..., epoch E): steps", steps(db, r), len(got))
    g = [int(x[3]) * int(x[2]) + int(x[1]) for x in got]
    t = [datetime.strptime(x[0], "%Y-%m-%d %H:%M:%S,%f").timestamp() for x in got]
    check_mean(db, r, (t[-1] - t[0]) / (g[-1] - g[0]), "step_time (derived)")
    spot(db, r, "step = 300 AND raw_name = 'current batch average objf'", -0.261345)
    spot(db, r, f"step = {g[-1]} AND raw_name = 'global average objf'", -0.060549)
    chk.eq("kaldi: the prose around the values ('over') is no name",
           count(db, r, "raw_name = 'over'"), 0)


def mmengine(db):
    f = "mmengine_yoloworld_issue190_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"Epoch\(train\) \[(\d+)\]\[\s*(\d+)/(\d+)\].*  time: ([\d.]+)")
    chk.eq("mmengine (MM/DD time - mmengine - INFO - Epoch(train) [E][N/T]): steps",
           steps(db, r), len(got))
    check_mean(db, r, sum(float(x[3]) for x in got) / len(got), "step_time (interval_mean)")
    first = f"(SELECT min(step) FROM steplog_values WHERE {where_run(r)})"
    spot(db, r, f"step - {first} = 100 AND raw_name = 'grad_norm'", 1001.3682)
    spot(db, r, f"step - {first} = 200 AND metric = 'mem_used'", 8574)


def bigdl(db):
    f = "bigdl_issue2494_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"\[Iteration (\d+)\]\[Wall Clock ([\d.]+)s\] .* Loss is ([\d.]+)\.")
    chk.eq("BigDL ([Epoch E n/N][Iteration I][Wall Clock Ts] ... Loss is v.): steps",
           steps(db, r), len(got))
    # the wall clock since the start: differences over the iterations between lines
    check_mean(db, r, (float(got[-1][1]) - float(got[0][1])) / (int(got[-1][0]) - int(got[0][0])),
               "step_time (derived)")
    # "Loss is 1.9208802." : a number before a sentence's period
    spot(db, r, "step = 17443 AND raw_name = 'Loss'", 1.9208802)
    spot(db, r, "step = 17445 AND metric = 'samples_per_s'", 2083.1252)


def irn(db):
    f = "irn_issue13_excerpt.log"
    r, _ = ingest(db, f)
    got = rows(f, r"^step: (\d+)/ (\d+) loss:([\d.]+) ")
    chk.eq("IRN (step: N/ T loss:a b c d imps:v lr: v etc:DATE): steps", steps(db, r), len(got))
    chk.eq("IRN: no per-step time in the log", step_time_mean(db, r), (None, None))
    spot(db, r, "step = 2500 AND raw_name = 'loss'", 0.3537)
    spot(db, r, "step = 3000 AND raw_name = 'lr'", 0.0117)
    # "etc:Tue Sep 17 15:31:41 2019" is the expected end, a date: no value of it
    chk.eq("IRN: the date after 'etc:' is not read as values",
           count(db, r, "raw_name LIKE '%etc%' OR raw_name LIKE '%Sep%' OR unit = 's'"), 0)


NEW = [maxtext, pytorch_imagenet, deit, opennmt, mxnet, sockeye, yolox, espnet, tf2_od,
       tf_cnn_benchmarks, fb_resnet, dllogger, torchtune, nemo, xgboost, kaldi, mmengine, bigdl,
       irn]


def every_log(tmp):
    """No prefix field stored as a metric, on every step log here and in the corpus."""
    files = sorted(glob.glob(os.path.join(DIR, "*")) + glob.glob(os.path.join(DIR, "unseen", "*")))
    files = [f for f in files if os.path.isfile(f) and not f.endswith((".json", "PROVENANCE"))]
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
        prefix_shapes()
        right = []
        for test in NEW:
            before = chk.failed
            try:
                test(db)
            except AssertionError as e:
                chk.true(test.__name__, False, str(e))
            right.append(test.__name__) if chk.failed == before else None
        print(f"read right: {len(right)} of {len(NEW)} new families ({', '.join(right)})")
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
