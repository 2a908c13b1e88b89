"""What a value means, on real logs of tests/steplogs (issue 32's older bugs):
ESPnet's durations in words ("time=1 minute and 42.6 seconds" is 102.6 s, not 60 s
or 1 s, and "Estimated time to finish: 33 minutes and 42.59 seconds" is no epoch
time); Kaldi's "global average objf" is a running mean (its "current batch average"
the batch's point value); DeiT's "loss: 6.8610 (6.8841)" keeps the point value first
and the running mean apart; a/b/c multi-values keep every value."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import run, tempdir  # noqa: E402
from steplog_checks import chk, ingest, lines, sql, where_run  # noqa: E402


def rows(db, r, where):
    return sql(db, f"SELECT step, kind, agg, value, window, metric FROM steplog_values WHERE "
                   f"{where_run(r)} AND ({where}) ORDER BY record, raw_name")


def words_to_seconds(text):
    """The independent parse of "1 minute and 42.6 seconds", "3 seconds"."""
    mult = {"second": 1, "minute": 60, "hour": 3600}
    return sum(float(n) * mult[u] for n, u in re.findall(r"([\d.]+) (second|minute|hour)s?", text))


def espnet(db):
    f = "espnet2_issue2675_excerpt.log"
    r, _ = ingest(db, f)
    text = "\n".join(lines(f))
    m = re.search(r"\[train\].*? time=([^,]+),", text)
    got = rows(db, r, "kind = 'summary' AND raw_name = 'time'")
    chk.true("espnet: the [train] time of the epoch summary, in words",
             got and abs(got[0]["value"] - words_to_seconds(m.group(1))) < 1e-9,
             (got, m.group(1)))
    chk.true("espnet: 1 minute and 42.6 seconds is 102.6 s", got and abs(got[0]["value"] - 102.6) < 1e-9, got)
    eta = rows(db, r, "raw_name LIKE '%Estimated time to finish%'")
    chk.eq("espnet: the estimated time to finish, read whole",
           [round(x["value"], 6) for x in eta],
           [round(words_to_seconds(re.search(r"finish: (.*)", text).group(1)), 6)])
    chk.true("espnet: an estimated time to finish is no epoch time",
             all(x["metric"] != "epoch_time" for x in eta), eta)


def kaldi(db):
    f = "kaldi_pybind_chain_pr3892_excerpt.log"
    r, _ = ingest(db, f)
    glob = rows(db, r, "raw_name = 'global average objf'")
    cur = rows(db, r, "raw_name = 'current batch average objf'")
    want = [float(x) for x in re.findall(r"global average objf: ([-\d.]+)", "\n".join(lines(f)))]
    chk.eq("kaldi: every global average", [x["value"] for x in glob], want)
    chk.eq("kaldi: the global average is a running mean", {x["agg"] for x in glob}, {"running_mean"})
    chk.eq("kaldi: over the batches of the epoch so far",
           [x["window"] for x in glob], [x["step"] % 3161 + 1 for x in glob])
    chk.eq("kaldi: the current batch's is a point value", {x["agg"] for x in cur}, {"point"})


def deit_and_multi(db, tmp):
    path = os.path.join(tmp, "deit_parens.log")
    with open(path, "w") as f:
        for n, (t, ta) in enumerate([(1.0552, 1.2345), (1.0452, 1.2245), (1.0352, 1.2145)]):
            f.write(f"Epoch: [2]  [ {150 + 10 * n}/1251]  eta: 0:20:52  lr: 0.000201  "
                    f"loss: 6.8610 (6.8841)  time: {t} ({ta})  data: 0.0035 (0.0040)  "
                    f"max mem: 8249  acc/top5=0.5/0.9\n")
    run("ingest", "--db", db, "--run", "deit_parens", path)
    st = rows(db, "deit_parens", "metric = 'step_time'")
    # maskrcnn-benchmark's MetricLogger prints "median (global mean)"; the
    # median is over its SmoothedValue's last 20 iterations
    chk.eq("deit: the value before the parentheses is the median of the last 20",
           [(x["value"], x["window"]) for x in st if x["agg"] == "window_median"],
           [(1.0552, 20), (1.0452, 20), (1.0352, 20)])
    chk.eq("deit: the parenthesised one is a running mean",
           [x["value"] for x in st if x["agg"] == "running_mean"], [1.2345, 1.2245, 1.2145])
    multi = sql(db, "SELECT raw_name, value FROM steplog_values WHERE "
                    f"{where_run('deit_parens')} AND raw_name IN ('acc', 'top5') ORDER BY record, raw_name")
    chk.eq("a/b=x/y: both values", [(x["raw_name"], x["value"]) for x in multi],
           [("acc", 0.5), ("top5", 0.9)] * 3)


def main():
    with tempdir() as tmp:
        db = os.path.join(tmp, "m.db")
        espnet(db)
        kaldi(db)
        deit_and_multi(db, tmp)
    chk.close()


main()
