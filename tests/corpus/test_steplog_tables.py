"""Whitespace-aligned tables in text step logs (ingest/steplog/steplog_table.c), on
the real logs in tests/steplogs/unseen (provenance in its PROVENANCE file): what
test_steplog_unseen does not check. Validation tables are split 'val' at their
epoch, never steps; a row under an unfinished tqdm bar is no record; a row after
other lines resumes its table only under its columns; blank cells store nothing
(the values beside them keep their columns); multi-word column names stay whole;
the reading says what a record and its step time are; a YOLOv5 console is not read
as Trainer bars. Expected values are read by hand from the files."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import tempdir  # noqa: E402
from steplog_checks import chk, close, ingest, sql, where_run  # noqa: E402


def values(db, r, raw, split=None):
    """{step: value} of one printed name."""
    cond = "split = 'val'" if split == "val" else "coalesce(split, 'train') = 'train'"
    rows = sql(db, f"SELECT step, value FROM steplog_values WHERE {where_run(r)} AND "
                   f"raw_name = '{raw}' AND {cond} ORDER BY step")
    return {row["step"]: row["value"] for row in rows}


def yolov5(db):
    r, err = ingest(db, "unseen/ultralytics_yolov5_console_peshmerge_cots.log", "steplog:text")
    chk.true("yolov5: the reading says a record is an epoch and the bar times iterations",
             "a record is an epoch (column Epoch, no step column)" in err and
             "elapsed / 213 iterations" in err, err)
    # '               Class ... mAP@.5 mAP@.5:.95: 100%|...| 17/17' then '   all  657  2287
    # 1.52e-05  0.00131  7.63e-06  2.8e-06' after epoch 0's row
    m = values(db, r, "mAP@.5", "val")
    chk.eq("yolov5: one mAP@.5 per epoch, at the epoch", sorted(m), list(range(12)))
    close("yolov5: mAP@.5 of epoch 0", m.get(0), 7.63e-06)
    close("yolov5: mAP@.5:.95 of epoch 11", values(db, r, "mAP@.5:.95", "val").get(11), 0.268)
    chk.eq("yolov5: no bar count is a step, no bar a record of its own",
           sql(db, f"SELECT count(*) AS n FROM steplog_values WHERE {where_run(r)} AND "
                   "(step IN (17, 213) OR split = 'progress')")[0]["n"], 0)
    # epoch 0: [06:21<00:00, ...] over 213/213
    close("yolov5: epoch 0's time per iteration", values(db, r, "bar/step_time").get(0),
          381 / 213)


def yolov8(db):
    r, err = ingest(db, "unseen/ultralytics_yolov8_console_fathomnet23.log", "steplog:text")
    box = values(db, r, "box_loss")
    # epoch 8's bar stops at 67/298; epochs 9-16 were never printed; epoch 17's row
    # comes after the notebook's "IOPub message rate exceeded" lines, without a header
    chk.eq("yolov8: epochs read", sorted(box), [1, 2, 3, 4, 5, 6, 7, 17, 18, 19, 20])
    close("yolov8: box_loss of the resumed epoch 17", box.get(17), 1.469)
    close("yolov8: mAP50 of epoch 17's validation, at 17", values(db, r, "mAP50", "val").get(17),
          0.177)
    chk.eq("yolov8: validation rows, one per epoch read", sorted(values(db, r, "mAP50", "val")),
           sorted(box))


def chainer_blank_cells(db):
    r, err = ingest(db, "unseen/chainer_printreport_sentiment_blank_cells.log", "steplog:text")
    # epochs 1 and 3 print nothing under validation/main/loss
    chk.eq("chainer: validation loss only where printed",
           values(db, r, "validation/main/loss", "val"), {2: 617.106, 4: 544.221})
    close("chainer: main/accuracy of epoch 3 (after a blank cell)",
          values(db, r, "main/accuracy").get(3), 0.693694)
    close("chainer: elapsed_time of epoch 3 (after two blank cells)",
          values(db, r, "elapsed_time").get(3), 2.19765)
    chk.true("chainer: the reading takes the clock's differences",
             "cumulative clock 'elapsed_time'" in err, err)


def spacy(db):
    r, _ = ingest(db, "unseen/spacy_v3_train_spacy_course_ner.log", "steplog:text")
    # '  3     800        138.28    134.12   48.17 ...': epoch 3, step 800
    close("spacy: 'LOSS TOK2VEC' is one column", values(db, r, "LOSS TOK2VEC").get(800), 138.28)
    chk.eq("spacy: the epoch of step 1800 is column E",
           sql(db, f"SELECT DISTINCT epoch FROM steplog_values WHERE {where_run(r)} AND "
                   "step = 1800")[0]["epoch"], 13)


def fastai(db):
    r, err = ingest(db, "unseen/fastai_multifit_qrnn-ja-1152_lm.log", "steplog:text")
    # '0         3.886147    3.948560    0.430394  47:41': the epoch's time, 2861 s
    close("fastai: epoch 0's time is its step time", values(db, r, "time").get(0), 2861)
    chk.true("fastai: the reading says the step is the epoch",
             "the step time is the epoch's time" in err, err)


def main():
    with tempdir() as tmp:
        db = os.path.join(tmp, "tables.db")
        yolov5(db)
        yolov8(db)
        chainer_blank_cells(db)
        spacy(db)
        fastai(db)
    chk.close()


main()
