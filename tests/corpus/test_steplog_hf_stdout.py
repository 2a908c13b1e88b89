"""HF Trainer stdout (../shared/corpus/steplogs/hf_trainer_stdout_gemma2_lora.log and
copies derived from it): only the training loop's tqdm bar gives step times. Its
total is found from 'Total optimization steps = T', else from num_train_epochs and the
last Trainer dict's step / epoch (steps per epoch); evaluation (N/2948), datasets.map
(N/71514) and checkpoint-shard (N/4) bars never do. When the training bar cannot be
told, no bar times the steps and the reading warns saying why."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import Checker, need_corpus, run, tempdir  # noqa: E402
from steplog_checks import sql  # noqa: E402

chk = Checker()
LOG = "hf_trainer_stdout_gemma2_lora.log"


def train_bar_rates(text, total):
    """The independent parse: every update of the bar N/total, its rate in s/step."""
    out = []
    for m in re.finditer(r"(\d+)/" + str(total) + r" \[[^,\]]*,\s*([\d.]+)(s/it|it/s)\]", text):
        v = float(m.group(2))
        out.append(v if m.group(3) == "s/it" else 1 / v)
    return out


def ingest(db, tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    code, _, err = run("ingest", "--db", db, "--run", name, path, check=False)
    chk.eq(f"{name}: exit code", code, 0)
    return err


def step_times(db, run_name):
    """Step times the gate would take (split train or none)."""
    return sql(db, "SELECT value FROM steplog_values WHERE run_id = (SELECT run_id FROM runs "
                   f"WHERE name = '{run_name}') AND metric = 'step_time' AND "
                   "coalesce(split, 'train') = 'train' ORDER BY record")


def other_bar_times(db, run_name):
    return sql(db, "SELECT count(*) AS n FROM steplog_values WHERE run_id = (SELECT run_id "
                   f"FROM runs WHERE name = '{run_name}') AND metric = 'step_time' AND "
                   "split = 'progress'")[0]["n"]


def expect_train_bar(db, tmp, name, text, total, basis):
    err = ingest(db, tmp, name, text)
    want = train_bar_rates(text, total)
    got = [r["value"] for r in step_times(db, name)]
    chk.eq(f"{name}: step times are the N/{total} bar's updates", len(got), len(want))
    chk.true(f"{name}: and equal them", all(abs(a - b) <= 1e-9 * max(1, b)
                                             for a, b in zip(got, want)), (got[:3], want[:3]))
    chk.true(f"{name}: the other bars' rates are kept apart", other_bar_times(db, name) > 0)
    chk.true(f"{name}: the reading names the bar and why ({basis})", basis in err, err)
    chk.true(f"{name}: no weak reading about bars", "progress bars of totals" not in err, err)


def expect_no_bar(db, tmp, name, text, why):
    err = ingest(db, tmp, name, text)
    chk.eq(f"{name}: no bar times the steps", step_times(db, name), [])
    chk.true(f"{name}: the reading warns why ({why})",
             "weak reading: progress bars of totals" in err and why in err, err)


def main():
    text = open(os.path.join(need_corpus("steplogs"), LOG), encoding="utf-8",
                errors="surrogateescape").read()
    chk.true("the log prints num_train_epochs=2", "num_train_epochs=2," in text)
    chk.true("and no 'Total optimization steps'", "Total optimization steps" not in text)
    with tempdir() as tmp:
        db = os.path.join(tmp, "hf.db")
        # as it is: 2 epochs x 200 / 0.05 steps per epoch gives the N/8264 bar
        expect_train_bar(db, tmp, "as_is", text, 8264, "from the bar N/8264")
        # the Trainer's banner names the total: that bar, whatever the epochs say
        banner = "***** Running training *****\n  Total optimization steps = 8264\n"
        expect_train_bar(db, tmp, "banner", banner + text.replace("num_train_epochs=2,", ""),
                         8264, "moving average 'tqdm'")
        # no epoch count: the bar cannot be told, so none is taken
        expect_no_bar(db, tmp, "no_epochs", text.replace("num_train_epochs=2,", ""),
                      "num_train_epochs not printed")
        # 3 epochs: no bar has 3 x ~4000 updates (the map bar's 71514 is not taken)
        expect_no_bar(db, tmp, "three_epochs",
                      text.replace("num_train_epochs=2,", "num_train_epochs=3,"), "none in")
        # 18 epochs: the datasets.map bar (71514) would fit the dicts as well as
        # training; the eval bar (2948) fits nothing. One fit is taken, so check the
        # eval bar is never the training bar for any epoch count from 1 to 20
        for e in range(1, 21):
            name = f"epochs{e}"
            ingest(db, tmp, name, text.replace("num_train_epochs=2,", f"num_train_epochs={e},"))
            rows = sql(db, "SELECT DISTINCT p.value AS total FROM steplog_values s JOIN "
                           "steplog_values p ON p.run_id = s.run_id AND p.record = s.record AND "
                           "p.raw_name = 'progress_total' WHERE s.run_id = (SELECT run_id FROM "
                           f"runs WHERE name = '{name}') AND s.metric = 'step_time' AND "
                           "coalesce(s.split, 'train') = 'train'")
            chk.true(f"{name}: the eval and shard bars never time the steps",
                     all(r["total"] not in (2948, 4) for r in rows), rows)
    chk.close()


main()
