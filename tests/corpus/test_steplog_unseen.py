"""Real step logs of trainer families no other test names (tests/steplogs/unseen,
provenance in its PROVENANCE file), each checked against what a human reads in it
(tests/steplogs/unseen/expected.json, written by reading the files, not by running
profdb): its step counter and steps, and its step time. Each log must end in one of
the outcomes its 'accept' names: the right steps and step time; the right steps and a
reading that says it has no step time; or a refusal that says what was not understood.
Never exit 0 with no step record, never a step time far from the human's."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import checked_subset, run, tempdir  # noqa: E402
from steplog_checks import chk, close, sql, step_time_mean, where_run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
UNSEEN = os.path.join(HERE, "..", "steplogs", "unseen")


def q(text):
    return text.replace("'", "''")


def train_records(db, r):
    return sql(db, "SELECT count(DISTINCT record) AS n, min(step) AS first, max(step) AS last "
                   f"FROM steplog_values WHERE {where_run(r)} AND "
                   "coalesce(split, 'train') = 'train' AND kind NOT IN ('val', 'summary', "
                   "'epoch', 'eval')")[0]


def check_log(db, name, want):
    r = os.path.splitext(name)[0]
    code, _, err = run("ingest", "--db", db, "--run", r, os.path.join(UNSEEN, name),
                       check=False)
    if want["accept"] == "refusal":
        chk.eq(f"{name}: refused", code, 2)
        chk.true(f"{name}: the refusal says what was not understood",
                 want["refusal_says"] in err, err)
        return
    chk.eq(f"{name}: exit code", code, 0)
    chk.true(f"{name}: the reading is printed", ": reading (" in err, err)
    if want["accept"] == "evaluation rounds, no step time":
        # every counted line holds evaluation values: rounds kept as steps
        # split 'val', said in a warning; the summary after them is not one
        got = sql(db, "SELECT count(DISTINCT record) AS n, min(step) AS first, max(step) AS "
                      f"last FROM steplog_values WHERE {where_run(r)} AND split = 'val'")[0]
        chk.eq(f"{name}: evaluation rounds", (got["n"], got["first"], got["last"]),
               (want["steps"], want["first"], want["last"]))
        chk.true(f"{name}: the warning says so", "evaluation values only" in err, err)
        for step, raw, value in want.get("hand_values", []):
            got_v = sql(db, f"SELECT value FROM steplog_values WHERE {where_run(r)} AND "
                            f"step = {step} AND raw_name = '{q(raw)}' AND split = 'val'")
            chk.true(f"{name}: {raw} at step {step} is {value}",
                     got_v and abs(got_v[0]["value"] - value) <= 1e-9, got_v)
        return
    got = train_records(db, r)
    chk.eq(f"{name}: step records", got["n"], want["steps"])
    for k in ("first", "last"):
        if want[k] is not None:
            chk.eq(f"{name}: {k} step", got[k], want[k])
    for step, raw, value, *split in want.get("hand_values", []):
        # a value read by hand: stored at its step under the printed name
        # (perhaps with the role a rule gives it: "Speed/samples_per_second",
        # "Batch (t)/step_time"), or the metric a rule maps it to, in the
        # training split unless
        # the entry names another (CatBoost's "test" on a step's line)
        split = split[0] if split else "train"
        got_v = sql(db, f"SELECT value FROM steplog_values WHERE {where_run(r)} AND step = {step} "
                        f"AND (raw_name = '{q(raw)}' OR raw_name LIKE '{q(raw)}/%' OR "
                        f"metric = '{q(raw)}') AND "
                        f"coalesce(split, 'train') = '{split}' LIMIT 1")
        chk.true(f"{name}: {raw} at step {step} is {value}",
                 got_v and abs(got_v[0]["value"] - value) <= 1e-6 * max(1, abs(value)), got_v)
    for step, raw, window in want.get("hand_windows", []):
        # the steps a mean covers: a log interval, not all steps since the start
        got_w = sql(db, f"SELECT window FROM steplog_values WHERE {where_run(r)} AND "
                        f"step = {step} AND raw_name = '{q(raw)}' LIMIT 1")
        chk.true(f"{name}: {raw} at step {step} is a mean over {window} steps",
                 got_w and got_w[0]["window"] == window, got_w)
    mean, src = step_time_mean(db, r)
    if want["accept"] == "answer":
        # a window mean weighted by its windows, a clock's differences: within 2%
        close(f"{name}: mean step time (s) from {src}", mean, want["step_time_s"], 0.02)
    else:
        chk.true(f"{name}: the reading says it has no step time",
                 "step time: none" in err, err)
        chk.eq(f"{name}: no step time stored", mean, None)
        if "no step counter" in want["accept"]:
            chk.true(f"{name}: the reading says it has no step counter",
                     "step counter none" in err, err)
            chk.true(f"{name}: and warns of it",
                     "weak reading: no step record has a step number" in err, err)


def main():
    with open(os.path.join(UNSEEN, "expected.json")) as f:
        expected = json.load(f)
    chk.true("at least fifteen unseen families", len(expected) >= 15, len(expected))
    with tempdir() as tmp:
        db = os.path.join(tmp, "unseen.db")
        # sanitizer builds: every third log (the reader's memory errors show
        # on a spread of shapes; the normal build checks every reading)
        for name, want in checked_subset(sorted(expected.items()), 3, "logs"):
            check_log(db, name, want)
    chk.close()


main()
