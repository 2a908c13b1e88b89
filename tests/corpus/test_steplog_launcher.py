"""Launcher prefixes are not the trainer's text (issue 32: "host:0" stored as a
metric). Every real text log in tests/steplogs (and its unseen/ families) is
read as printed and again as a launcher would have written it: each line under
Slurm's `srun --label` ("  3: "), torchrun --tee's "[default3]:" or Open MPI's
--tag-output "[1,3]<stdout>:" (the three in turn over the logs). Each copy must give the same reading (step
records, first and last step, step time, the same metric names: no prefix
stored as a metric) and file its values under the prefix's rank. A log whose
lines start with a counter ("1000: 0.51, ...", darknet) is not a labelled log:
its numbers stay the counter."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import CHECKED, checked_subset, run, tempdir  # noqa: E402
from steplog_checks import chk, close, sql, step_time_mean, where_run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = os.path.join(HERE, "..", "steplogs")

PREFIXES = {
    "srun": lambda line: "  3: " + line,
    "torchrun": lambda line: "[default3]:" + line,
    "mpi": lambda line: "[1,3]<stdout>:" + line,
}


def text_logs():
    out = []
    for d in (LOGS, os.path.join(LOGS, "unseen")):
        for n in sorted(os.listdir(d)):
            if n.endswith((".log", ".txt")):
                out.append(os.path.join(d, n))
    return out


def reading(db, r):
    got = sql(db, "SELECT count(DISTINCT record) AS n, min(step) AS first, max(step) AS last "
                  f"FROM steplog_values WHERE {where_run(r)} AND coalesce(split, 'train') = "
                  "'train' AND kind NOT IN ('val', 'summary', 'epoch', 'eval')")[0]
    names = {row["raw_name"] for row in
             sql(db, f"SELECT DISTINCT raw_name FROM steplog_values WHERE {where_run(r)}")}
    ranks = {row["rank"] for row in
             sql(db, f"SELECT DISTINCT rank FROM steplog_values WHERE {where_run(r)}")}
    mean, _ = step_time_mean(db, r)
    return got, names, ranks, mean


def ingest(db, r, path):
    code, _, err = run("ingest", "--db", db, "--run", r, path, check=False)
    return code, err


def check_log(tmp, db, path, k):
    name = os.path.basename(path)
    base = f"l{k}"
    code, err = ingest(db, base, path)
    if code != 0:
        return  # a refused log: test_steplog_unseen says why; nothing to compare
    want, want_names, want_ranks, want_mean = reading(db, base)
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    # each log under one launcher's prefix, the three in turn: every log and
    # every prefix kind are read, at a third of the ingests
    how = list(PREFIXES)[k % len(PREFIXES)]
    if how == "srun" and sum(1 for ln in lines if ln) < 3:
        # srun's bare "  3: " is told from a counter by repeating on every
        # line (docs/steplogs.md): a log of one or two lines takes the next kind
        how = "torchrun"
    for how, prefix in [(how, PREFIXES[how])]:
        copy = os.path.join(tmp, f"{how}_{name}")
        with open(copy, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(prefix(ln) if ln else ln for ln in lines))
        r = f"{base}_{how}"
        code, err = ingest(db, r, copy)
        chk.eq(f"{name} under {how} labels: exit code ({err.strip()[-200:]})", code, 0)
        if code != 0:
            continue
        got, names, ranks, mean = reading(db, r)
        chk.eq(f"{name} under {how} labels: step records, first, last", got, want)
        chk.eq(f"{name} under {how} labels: metric names (none from the prefix)",
               sorted(names - want_names), [])
        # the trainer's own rank ("[default7]:" inside the label) wins
        if want_ranks == {None}:
            chk.eq(f"{name} under {how} labels: the prefix's rank is stored", ranks, {3})
        else:
            chk.eq(f"{name} under {how} labels: the log's own ranks are kept", ranks, want_ranks)
        if want_mean is None:
            chk.eq(f"{name} under {how} labels: no step time", mean, None)
        else:
            close(f"{name} under {how} labels: mean step time (s)", mean, want_mean, 1e-9)


def counter_lines_are_not_labels(tmp, db):
    """Darknet prints "N: loss, avg loss, rate, seconds, images": N is the
    iteration, different on every line, so the lines are not labelled."""
    path = os.path.join(tmp, "darknet_like.log")
    with open(path, "w") as f:
        for i in range(1, 7):
            f.write(f"{i}: 719.{i}, 719.{i} avg loss, 0.000000 rate, 2.8{i} seconds, "
                    f"{64 * i} images\n")
            f.write("Loaded: 0.000035 seconds\n")
    code, err = ingest(db, "darknet_like", path)
    chk.true("darknet-like counter lines: not read as launcher labels",
             "rank" not in err and (code == 0 or "no step records" in err), err)
    if code == 0:
        got = sql(db, "SELECT min(step) AS first, max(step) AS last FROM steplog_values "
                      f"WHERE {where_run('darknet_like')}")[0]
        chk.eq("darknet-like counter lines: the leading numbers stay the counter",
               (got["first"], got["last"]), (1, 6))


def main():
    logs = text_logs()
    chk.true("text logs to prefix", len(logs) >= 30, len(logs))
    if CHECKED:
        logs = checked_subset(logs, 6, "logs")
    with tempdir() as tmp:
        db = os.path.join(tmp, "launcher.db")
        for k, path in enumerate(logs):
            check_log(tmp, db, path, k)
        counter_lines_are_not_labels(tmp, db)
    chk.close()


main()
