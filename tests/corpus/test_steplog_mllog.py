"""MLPerf training logs (mlperf_logging's ':::MLLOG {json}' event lines, issue 32),
read by the 'mllog' flavor from the real excerpts in tests/steplogs/unseen
(provenance in its PROVENANCE file): the reading names the metadata counter it
used and where the step time comes from, and warns when a step is an epoch or
a block rather than an optimizer step; evaluation values are split 'val';
settings (global_batch_size, opt_*) are stored once without a step; string
values are skipped and counted; init and run durations are kept. A derived copy
of the ResNet excerpt with Intel MPI's '-l' rank label ("[0] ") before every
line (the label the Intel DLRM excerpt carries as printed) and one with Slurm's
'srun --label' ("0: ") must read the same and file the values under rank 0."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import run, tempdir  # noqa: E402
from steplog_checks import chk, close, sql, where_run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
UNSEEN = os.path.join(HERE, "..", "steplogs", "unseen")
RESNET = "mlperf_resnet_mxnet_asus_result_0_epochs16-23.txt"
LLAMA = "mlperf_llama2_70b_lora_nemo_result_0_head.txt"


def ingest(db, path, r):
    code, _, err = run("ingest", "--db", db, "--run", r, path, check=False)
    chk.eq(f"{r}: exit code", code, 0)
    chk.true(f"{r}: sniffed as mllog", ": steplog:mllog into run" in err, err)
    return err


def one(db, r, where):
    rows = sql(db, f"SELECT value, split, kind, step, rank FROM steplog_values WHERE "
                   f"{where_run(r)} AND {where}")
    chk.eq(f"{r}: one row where {where}", len(rows), 1)
    return rows[0] if rows else {}


def train_steps(db, r):
    return [row["step"] for row in sql(
        db, f"SELECT DISTINCT step FROM steplog_values WHERE {where_run(r)} AND "
            "coalesce(split, 'train') = 'train' AND kind NOT IN ('summary', 'eval') "
            "ORDER BY step")]


def check_resnet(db):
    err = ingest(db, os.path.join(UNSEEN, RESNET), "resnet")
    chk.true("resnet: the reading names the counter", 'step counter metadata "epoch_num"' in err,
             err)
    chk.true("resnet: the reading names the step-time source",
             "epoch/step_time is the epoch_start..epoch_stop time" in err, err)
    chk.true("resnet: warns that a step is an epoch", "not an optimizer step's" in err, err)
    chk.eq("resnet: steps", train_steps(db, "resnet"), list(range(16, 24)))
    ev = one(db, "resnet", "raw_name = 'eval_accuracy' AND step = 19")
    chk.eq("resnet: eval_accuracy is split val", ev.get("split"), "val")
    close("resnet: eval_accuracy at epoch 19", ev.get("value"), 0.65004)
    # an epoch's time: 1695775634977 - 1695775612356 ms
    close("resnet: epoch 16 time", one(db, "resnet", "raw_name = 'epoch/step_time' AND "
                                                      "step = 16").get("value"), 22.621)
    # block durations repeat the epochs' sums: not stored when epochs are timed
    chk.eq("resnet: no block durations", sql(db, "SELECT count(*) AS n FROM steplog_values "
                                                 f"WHERE {where_run('resnet')} AND raw_name = "
                                                 "'block/step_time'")[0]["n"], 0)


def check_llama(db):
    err = ingest(db, os.path.join(UNSEEN, LLAMA), "llama")
    chk.true("llama: the reading names the counters", 'metadata "samples_count"' in err, err)
    chk.true("llama: warns that a step is a block", "one block's" in err, err)
    chk.eq("llama: steps", train_steps(db, "llama"), [7296, 7680, 8064, 8448])
    gbs = one(db, "llama", "raw_name = 'global_batch_size'")
    chk.eq("llama: global_batch_size is a setting", (gbs.get("split"), gbs.get("step")),
           ("summary", None))
    close("llama: global_batch_size", gbs.get("value"), 128)
    close("llama: opt_base_learning_rate",
          one(db, "llama", "raw_name = 'opt_base_learning_rate'").get("value"), 0.0006)
    # init_stop - init_start: 1714905569479 - 1714905514036 ms
    close("llama: init_time", one(db, "llama", "raw_name = 'init_time'").get("value"), 55.443)
    skipped = sql(db, "SELECT count FROM skips WHERE reason LIKE 'string value%' AND run_id = "
                      "(SELECT run_id FROM runs WHERE name = 'llama')")
    chk.eq("llama: the five submission_* strings are counted as skipped",
           [s["count"] for s in skipped], [5])


def check_labelled(db, tmp, label, what):
    with open(os.path.join(UNSEEN, RESNET), encoding="utf-8") as f:
        text = "".join(label + line for line in f)
    path = os.path.join(tmp, f"resnet_{what}.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    r = f"resnet_{what}"
    ingest(db, path, r)
    chk.eq(f"{r}: the same steps", train_steps(db, r), list(range(16, 24)))
    row = one(db, r, "raw_name = 'tracked_stats/throughput' AND step = 16")
    close(f"{r}: throughput at epoch 16", row.get("value"), 56635.74945473797)
    chk.eq(f"{r}: filed under rank 0", row.get("rank"), 0)


def main():
    with tempdir() as tmp:
        db = os.path.join(tmp, "mllog.db")
        check_resnet(db)
        check_llama(db)
        check_labelled(db, tmp, "[0] ", "intel_mpi")
        check_labelled(db, tmp, "0: ", "srun")
    chk.close()


main()
