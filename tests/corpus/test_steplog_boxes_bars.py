"""Two console shapes no single line of which is a record (issue 32), on the real
logs in tests/steplogs/unseen (provenance in its PROVENANCE file):

- Stable-Baselines3's boxed tables (PPO: one table per iteration; DQN: per 1000
  episodes, counted in environment steps): names carry their section as SB3's
  progress.csv does, the counter row is said, time_elapsed is a clock whose
  differences are the step times, fps a running mean, other counters cumulative.
- PyTorch Lightning's tqdm bars: read as Lightning (not as HF Trainer), only the
  'Epoch E' bar's training updates are steps, validation and sanity-check bars
  store nothing, the loss after the rate is read, and the reading says that the
  validation batches counted in the epoch bar were taken off.

The counts, hand-read values and step times are test_steplog_unseen.py's; this
checks what those do not: names, aggs, flavor and the reading's words."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import run, tempdir  # noqa: E402
from steplog_checks import chk, sql, where_run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
UNSEEN = os.path.join(HERE, "..", "steplogs", "unseen")


def ingest(db, r, name):
    code, _, err = run("ingest", "--db", db, "--run", r, os.path.join(UNSEEN, name),
                       check=False)
    chk.eq(f"{name}: exit code", code, 0)
    return err


def aggs(db, r):
    return {row["raw_name"]: row["agg"] for row in
            sql(db, f"SELECT DISTINCT raw_name, agg FROM steplog_values WHERE {where_run(r)}")}


def sb3(db):
    err = ingest(db, "ppo", "sb3_ppo_breakout_ZeshiWu.log")
    chk.true("ppo: the counter is the table's iterations row",
             "step counter boxed table row 'time/iterations'" in err, err)
    chk.true("ppo: step time from the clock", "cumulative clock 'time/time_elapsed'" in err, err)
    a = aggs(db, "ppo")
    chk.eq("ppo: time_elapsed is a clock", a.get("time/time_elapsed"), "cumulative")
    chk.eq("ppo: its differences are the step times", a.get("delta time/time_elapsed"),
           "derived")
    chk.eq("ppo: fps is a running mean since learn()", a.get("time/fps"), "running_mean")
    chk.eq("ppo: total_timesteps is cumulative", a.get("time/total_timesteps"), "cumulative")
    chk.eq("ppo: a train/ value is a point", a.get("train/value_loss"), "point")
    chk.true("ppo: the counter row is the step, not a value", "time/iterations" not in a, a)
    chk.true("ppo: no section stored alone", not any(n.endswith("/") for n in a), a)
    units = {row["raw_name"]: row["unit"] for row in
             sql(db, f"SELECT DISTINCT raw_name, unit FROM steplog_values WHERE {where_run('ppo')}")}
    chk.eq("ppo: the section 'time/' does not make a count seconds",
           units.get("time/total_timesteps"), "")
    err = ingest(db, "dqn", "sb3_dqn_breakout_ZeshiWu_joy.log")
    chk.true("dqn: off-policy tables count environment steps",
             "step counter boxed table row 'time/total_timesteps'" in err, err)
    chk.eq("dqn: episodes are a count kept", aggs(db, "dqn").get("time/episodes"), "cumulative")


def lightning(db):
    err = ingest(db, "pl", "lightning_walkjump_o_epochs0-5.log")
    chk.true("lightning: read as Lightning", ": reading (lightning)" in err, err)
    chk.true("lightning: stored as steplog:lightning", "steplog:lightning into run" in err, err)
    chk.true("lightning: the step numbering is said",
             "step = batches before + n - 1" in err, err)
    chk.true("lightning: validation counted in the epoch bar is said",
             "6 validation runs were counted in that bar" in err, err)
    rows = sql(db, "SELECT DISTINCT split, loader FROM steplog_values WHERE "
                   f"{where_run('pl')}")
    chk.eq("lightning: training records only (no validation or sanity bar stored)",
           rows, [{"split": "train", "loader": None}])
    epochs = sql(db, "SELECT step, epoch FROM steplog_values WHERE "
                     f"{where_run('pl')} AND raw_name = 'loss' ORDER BY step")
    chk.eq("lightning: the epoch from 'Epoch E:'",
           [(r["step"], r["epoch"]) for r in epochs], [(e, float(e)) for e in range(6)])
    chk.eq("lightning: the bar's loss is Lightning < 2.0's running loss",
           aggs(db, "pl").get("loss"), "moving_avg")
    chk.true("lightning: v_num is no metric", "v_num" not in aggs(db, "pl"))


def main():
    with tempdir() as tmp:
        db = os.path.join(tmp, "boxes_bars.db")
        sb3(db)
        lightning(db)
    chk.close()


main()
