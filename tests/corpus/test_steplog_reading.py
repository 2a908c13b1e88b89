#!/usr/bin/env python3
"""The reading of a step log (issue 32, ingest/steplog/steplog_reading.c): every
ingest of a corpus step log prints how it read the log, one line
'profdb: FILE: reading (READER): step counter ...; N step records (steps A to
B); step time: SOURCE, resolution R; throughput: ...; epochs: ...; lines
used: U of L (P%)', stores it in steplog_readings, and `profdb runs
--reading` shows the stored row. Checked against what
../shared/corpus/steplogs/README.md says of each log (its counter, how many
step lines, where its step time comes from and at what resolution), with the
counts and printed decimals parsed here from the log text: a reading that
names the wrong counter or step-time source, or miscounts, fails.

Weak readings are warned with exit 0: the HF Trainer stdout log's bars of
several loops (dataset map, evaluation, training) in one counter collide;
OLMo's text log is timed by 1-second timestamps; the Caffe iter/s excerpt
has 2 step records. No corpus or tests/steplogs log warns of
prefix-looking metrics, and each of the other logs is read without a
warning. A log whose per-epoch counter is read as one (the DGL excerpt
with its 'Epoch N |' column cut off, a derived copy) warns of colliding
counters. With --quiet the reading is not printed, but a weak reading is
still warned."""

import json
import os
import sqlite3
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checker, need_corpus, run, tempdir, SOURCE  # noqa: E402

STEPLOGS = os.path.join(SOURCE, "tests", "steplogs")


def lines_of(path):
    """Lines as profdb counts them: ended by LF (CRLF), a CR inside a line
    separating tqdm's updates (no log here ends its lines in bare CR)."""
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        text = f.read()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")[:-1]] + (
        [text.rsplit("\n", 1)[-1]] if not text.endswith("\n") else [])


def decimals(numbers):
    """The most decimals any of the printed numbers shows."""
    return max(len(n.split(".")[1]) if "." in n else 0 for n in numbers)


def count(path, pattern):
    return sum(1 for ln in lines_of(path) if re.search(pattern, ln))


def expectations(d):
    """What README.md says of each corpus log, and the numbers parsed from
    the log that the reading must give. 'counter' is the main counter as
    printed; 'counted' how many records it counted (the README's count);
    'source' where the step time comes from; 'res' its resolution in s."""
    p = lambda f: os.path.join(d, f)  # noqa: E731
    meg = p("megatron_deepspeed_gpt125m_8gpu.log")
    nano = p("nanogpt_train.log")
    chat = p("deepspeed_chat_rlhf_step3.log")
    gold = p("megatron_ci_golden_values_h100.json")
    golden_times = re.findall(r'"(?:\d+)":\s*([0-9.]+)',
                              open(gold).read().split('"iteration-time"')[1].split("}")[0])
    return {
        # "213 Megatron iteration lines (iteration 10 ... 2130, every 10)";
        # "elapsed time per iteration (ms) is a mean over the log interval (10 steps)"
        meg: dict(reader="megatron", counter='"iteration N/ M"',
                  counted=count(meg, r"\biteration\s+\d+/\s*\d+ \|"), steps=(10, 2130),
                  source="window mean of 'elapsed time per iteration (ms)' over 10 steps",
                  agg="interval_mean",
                  res=10 ** -decimals(re.findall(r"per iteration \(ms\): ([0-9.]+)",
                                                 open(meg).read())) * 1e-3,
                  throughput="'CurrSamplesPerSec' (samples_per_s)"),
        # "50 steps (1-50)", metric-major; "iteration-time is in seconds"
        gold: dict(reader="megatron-golden", counter='values: {"N": v}', steps=(1, 50), lines=None,
                   source="logged field 'iteration-time'", agg="point",
                   res=10 ** -decimals(golden_times)),
        # "91 lines iter N: loss X, time Yms, mfu Z%"; time = wall time of the iteration
        nano: dict(reader="nanogpt", counter="iter N:", records=count(nano, r"^iter \d+: loss"),
                   source="logged field 'time'", agg="point",
                   res=10 ** -decimals(re.findall(r"time ([0-9.]+)ms", open(nano).read()))
                   * 1e-3),
        # "18 steps"; "There is no explicit step time. Derive it from the timestamp
        # deltas"; timestamps "with comma milliseconds"
        p("torchtitan_qwen3vl_excerpt_A.log"): dict(
            reader="torchtitan", counter="step: N", records=18, source="timestamp deltas",
            agg="derived", res=1e-3, throughput="'tps' (tokens_per_s)"),
        # "200 training entries ... every 25 steps"; "There is no per-step timing anywhere"
        p("hf_trainer_state_whisper.json"): dict(
            reader="hf-trainer-state", counter='key "step"', records=200, steps=(25, 5000),
            source="none", agg=None, lines=None),
        # "The only per-step timing is tqdm's smoothed rate"; eval and map bars
        # are kept apart, the training bar (N/8264) found from the dicts' epochs
        p("hf_trainer_stdout_gemma2_lora.log"): dict(
            reader="hf-trainer", counter="'step' key, or dict order x logging_steps; bar N/T",
            source="moving average 'tqdm'", agg="moving_avg"),
        # "step is the 0-based global step"; epoch_time is per epoch, no step time;
        # "114 step rows": the validation and epoch-end rows share the last
        # batch's step and are no steps of their own (the step rows: a
        # train_loss_step cell, the 6th column, is filled)
        p("lightning_csvlogger_metrics.csv"): dict(
            reader="csv", counter="column step", source="none", agg=None,
            records=count(p("lightning_csvlogger_metrics.csv"),
                          r"^\d+,[^,]*,\d+,[^,]*,[^,]*,[0-9]")),
        # "476 steps. Each is a multi-line record: epoch: 0|step: N|...";
        # "|E2E latency=3.73s |..."
        chat: dict(reader="deepspeed", counter='"epoch: E|step: N"',
                   counted=count(chat, r"^epoch: \d+\|step: \d+\|"),
                   source="logged field 'E2E latency'", agg="point",
                   res=10 ** -decimals(re.findall(r"E2E latency=([0-9.]+)s", open(chat).read())),
                   throughput="'CurSamplesPerSec' (samples_per_s)"),
        # "There is no step number. Correlate with step=N lines or count lines";
        # 5 complete lines with [YYYY-MM-DD HH:MM:SS,mmm] stamps
        p("deepspeed_wallclock_breakdown_gptneox965_excerpt.log"): dict(
            reader="deepspeed", counter="timer lines counted (no step number)", records=5,
            source="timestamp deltas", agg="derived", res=1e-3),
        # "90 JSON objects ... every 20 iterations (iteration 19 ... 1799)";
        # "time and data_time ... smoothed over the 20-iteration window"
        p("detectron2_metrics.json"): dict(
            reader="detectron2", counter='key "iteration"', counted=90, records=90,
            steps=(19, 1799), source="window median of 'time' over 20 steps",
            agg="window_median"),
        # "There is no step number. Join to the step logs by wall-clock time."
        p("nvidia_smi_query_gpu.csv"): dict(
            reader="nvidia-smi", counter="none", source="none", agg=None),
    }


def reading_line(err, path):
    for ln in err.splitlines():
        if ln.startswith(f"profdb: {path}: reading ("):
            return ln
    return None


def stored(db, run_name):
    _, out, _ = run("runs", "--db", db, "--reading", "--format", "json", run_name)
    return json.loads(out)


def check_log(c, db, path, want):
    name = os.path.basename(path)
    run_name = os.path.splitext(name)[0]
    code, _, err = run("ingest", "--db", db, "--run", run_name, path, check=False)
    c.eq(f"{name}: exit", code, 0)
    line = reading_line(err, path)
    c.true(f"{name}: the reading is printed", line is not None, err)
    if line is None:
        return
    c.true(f"{name}: reader {want['reader']}", f"reading ({want['reader']})" in line, line)
    c.true(f"{name}: counter {want['counter']}", f"step counter {want['counter']}" in line, line)
    c.true(f"{name}: step time from {want['source']}", f"step time: {want['source']}" in line,
           line)
    if "throughput" in want:
        c.true(f"{name}: throughput {want['throughput']}", want["throughput"] in line, line)
    rows = stored(db, run_name)
    c.eq(f"{name}: one stored reading", len(rows), 1)
    if not rows:
        return
    row = rows[0]
    c.eq(f"{name}: stored reader", row["reader"], want["reader"])
    c.true(f"{name}: stored counter", (row["counter"] or "none").startswith(want["counter"]),
           row["counter"])
    c.true(f"{name}: stored step time", row["step_time"].startswith(want["source"]),
           row["step_time"])
    c.eq(f"{name}: stored agg", row["step_time_agg"], want["agg"])
    c.true(f"{name}: the stored step time is the printed one",
           f"step time: {row['step_time']};" in line, (row["step_time"], line))
    if "counted" in want:
        c.true(f"{name}: the counter counted {want['counted']} records",
               f"{want['counter']} (line " in line and f", {want['counted']} records)" in line,
               line)
    if "records" in want:
        c.eq(f"{name}: step records", row["step_records"], want["records"])
        c.true(f"{name}: step records printed", f"; {want['records']} step records" in line,
               line)
    if "steps" in want:
        c.eq(f"{name}: first and last step", (row["first_step"], row["last_step"]),
             want["steps"])
    if "res" in want:
        got = row["resolution_s"]
        c.true(f"{name}: resolution {want['res']:g} s (the decimals printed)",
               got is not None and abs(got - want["res"]) <= 1e-9 + 1e-6 * want["res"], got)
    if want.get("lines", True) is None:
        c.eq(f"{name}: a JSON document has no lines", row["lines"], None)
    else:
        c.eq(f"{name}: lines", row["lines"], len(lines_of(path)))
        c.true(f"{name}: lines used at most lines", 0 < row["lines_used"] <= row["lines"],
               row["lines_used"])
    weak = want.get("weak")
    warned = [ln for ln in err.splitlines() if "weak reading" in ln]
    if weak:
        c.true(f"{name}: a weak reading is warned ({weak})",
               any(ln.startswith(f"profdb: warning: {path}: weak reading:") and weak in ln
                   for ln in warned), err)
        c.true(f"{name}: stored warnings", weak in (row["warnings"] or ""), row["warnings"])
    else:
        c.eq(f"{name}: no weak-reading warning", warned, [])
        c.eq(f"{name}: no stored warning", row["warnings"], None)


def tests_steplogs(c, db):
    """Every log of tests/steplogs: a reading, and no metric that looks like
    a log prefix; the weak ones are the expected ones."""
    weak_expected = {
        # 2 iterations (issue 32)
        "caffe_iters_issue50_excerpt.log": "2 step records from",
        # [2024-...T...Z] stamps to the second, no printed step time
        "olmo_ai_on_aks_readme_excerpt.log": "step times from timestamps at 1 s resolution",
    }
    for name in sorted(os.listdir(STEPLOGS)):
        if name == "README.md" or not os.path.isfile(os.path.join(STEPLOGS, name)):
            continue  # unseen/ has its own test, with the refusals it expects
        path = os.path.join(STEPLOGS, name)
        code, _, err = run("ingest", "--db", db, "--run", "t_" + name, path, check=False)
        c.eq(f"{name}: exit", code, 0)
        c.true(f"{name}: the reading is printed", reading_line(err, path) is not None, err)
        c.true(f"{name}: no prefix-looking metric", "look like log prefixes" not in err and
               "looks like log prefixes" not in err, err)
        warned = [ln for ln in err.splitlines() if "weak reading" in ln]
        if name in weak_expected:
            c.true(f"{name}: weak reading warned", len(warned) == 1 and
                   weak_expected[name] in warned[0], warned)
        else:
            c.eq(f"{name}: no weak-reading warning", warned, [])


def collisions(c, db, tmp):
    """The DGL excerpt counts steps within epochs ('Epoch 00003 | Step 00020');
    without its epoch column the counter restarts every epoch and the steps
    collide: said, with where the step first went back."""
    src = os.path.join(STEPLOGS, "dgl_graphsage_multigpu_excerpt.log")
    cut = os.path.join(tmp, "dgl_no_epoch.log")
    lines = lines_of(src)
    with open(cut, "w") as f:
        for ln in lines:
            f.write(re.sub(r"Epoch \d+ \| ", "", ln) + "\n")
    steps = [int(m.group(1)) for ln in lines for m in [re.search(r"Step (\d+)", ln)] if m]
    backs = sum(1 for a, b in zip(steps, steps[1:]) if b < a)
    first = next(i for i in range(1, len(steps)) if steps[i] < steps[i - 1])
    c.true("dgl: the excerpt restarts its step counter more than once", backs >= 2, backs)
    code, _, err = run("ingest", "--db", db, "--run", "collide", cut, check=False)
    c.eq("dgl without epochs: exit", code, 0)
    want = (f"colliding counters: the step went back {backs} times (first at line "
            f"{[i + 1 for i, ln in enumerate(lines) if 'Step' in ln][first]}: step "
            f"{steps[first]} after {steps[first - 1]})")
    c.true("dgl without epochs: colliding counters warned, with the first step back",
           want in err, (want, err))
    # the original is read with its epochs: no warning
    code, _, err = run("ingest", "--db", db, "--run", "dgl", src, check=False)
    c.true("dgl: per-epoch counter made global, no warning",
           code == 0 and "per-epoch counter made global" in err and "weak reading" not in err,
           err)


def quiet(c, db, tmp):
    path = os.path.join(STEPLOGS, "olmo_ai_on_aks_readme_excerpt.log")
    code, _, err = run("ingest", "--db", db, "--run", "q", "-q", path, check=False)
    c.eq("--quiet: exit", code, 0)
    c.true("--quiet: no reading printed", reading_line(err, path) is None, err)
    c.true("--quiet: the weak reading is still warned", "weak reading" in err, err)
    rows = stored(db, "q")
    c.true("--quiet: the reading is stored", len(rows) == 1 and rows[0]["step_records"] == 10,
           rows)
    _, out, _ = run("runs", "--db", db, "--format", "json", "q")
    summary = json.loads(out)[0]["reading"]
    c.true("runs: the compact reading", summary.startswith('text; "step N/M"; 10 steps; '
                                                           "step time: timestamps (1 s); WEAK"),
           summary)
    code, out, _ = run("runs", "--db", db, "--reading", "q")
    c.true("runs --reading: 'column = value' lines",
           code == 0 and re.search(r"^ +counter = \"step N/M\"$", out, re.M) is not None, out)


def prose_is_no_table(c, db, tmp):
    """Two opening lines with one comma each (a script's comment and a call)
    made a CSV header and row; the lines after them have other cell counts,
    so the text reader reads the log (keras-rl's output pasted under a
    script, session 18)."""
    path = os.path.join(tmp, "script_then_log.txt")
    with open(path, "w") as f:
        f.write("# After training, save the weights.\n"
                "agent.save_weights('w.h5f', overwrite=True)\n\n")
        for i in range(1, 7):
            f.write(f"step {i * 10}: loss {1.0 / i:.4f}, time 0.25s\n")
    code, _, err = run("ingest", "--db", db, "--run", "prose", path, check=False)
    line = reading_line(err, path) or ""
    c.true("prose with a comma per line is no CSV: read as text, 6 step records",
           code == 0 and "reading (general text reader)" in line and "6 step records" in line,
           err)


def notebook_table(c, db, tmp):
    """The HF Trainer's notebook table (steplog_html.c), per epoch: each body
    row a record of its epoch, 'No log' no value, 'Validation Loss' a
    validation value; tags on lines of their own or sharing one."""
    path = os.path.join(tmp, "notebook_epochs.txt")
    rows = [(1, "No log", 0.412, 0.81), (2, 0.3581, 0.377, 0.84), (3, 0.2042, 0.371, 0.85)]
    with open(path, "w") as f:
        f.write('<table border="1" class="dataframe">\n  <thead>\n <tr style="text-align: left;">\n'
                "      <th>Epoch</th>\n      <th>Training Loss</th>\n"
                "      <th>Validation Loss</th><th>Accuracy</th>\n    </tr>\n  </thead>\n  <tbody>\n")
        for e, tr, va, acc in rows:
            f.write(f"    <tr>\n      <td>{e}</td>\n      <td>{tr}</td>\n"
                    f"      <td>{va}</td><td>{acc}</td>\n    </tr>\n")
        f.write("  </tbody>\n</table><p>\n")
    code, _, err = run("ingest", "--db", db, "--run", "nb", path, check=False)
    c.eq("notebook table: exit", code, 0)
    _, out, _ = run("sql", "--db", db, "--format", "json",
                    "SELECT epoch, split, raw_name, value FROM steplog_values WHERE run = 'nb' "
                    "ORDER BY epoch, raw_name")
    got = [(r["epoch"], r["split"], r["raw_name"], r["value"]) for r in json.loads(out)]
    want = []
    for e, tr, va, acc in rows:
        want.append((e, "val", "Accuracy", acc))
        if tr != "No log":
            want.append((e, "train", "Training Loss", tr))
        want.append((e, "val", "Validation Loss", va))
    c.eq("notebook table: every cell of every row, by its column", sorted(got, key=str),
         sorted(want, key=str))


def interval_time_warned(c, db, tmp):
    """A printed time that would put hours between lines logged every 250
    steps, in a log without a clock, is read as the interval's and said so
    (GluonNLP pretraining's "time=163.24"; vietocr's "gpu time: 38.92"
    every 200 iterations); a time that grows as a clock does is not."""
    path = os.path.join(tmp, "interval_time.txt")
    with open(path, "w") as f:
        for i in range(1, 6):
            f.write(f"INFO:root:[step {i * 250 - 1}]\tmlm_loss={9.0 - i / 10:.4f}\t"
                    f"time={160 + i:.2f}\n")
    code, _, err = run("ingest", "--db", db, "--run", "interval", path, check=False)
    c.true("a time of hours between lines: exit 0, said to be read as the 250 steps' time",
           code == 0 and "read as the time of the 250 steps between records" in err and
           "11.2 h or more" in err and "{time:s}" in err, err)
    got = run_values(db, "interval", "v.step, v.value", "v.metric = 'step_time'",
                     "ORDER BY v.step")
    c.eq("... and divided by them", [(s, round(v, 6)) for s, v in got],
         [(i * 250 - 1, round((160 + i) / 250, 6)) for i in range(2, 6)])
    path = os.path.join(tmp, "clock_time.txt")
    with open(path, "w") as f:
        for i in range(1, 6):
            f.write(f"[step {i * 250 - 1}] loss={9.0 - i / 10:.4f} time={400 * i:.2f}\n")
    code, _, err = run("ingest", "--db", db, "--run", "clock", path, check=False)
    c.true("a time that grows as a clock does is no window's", code == 0 and
           "read as the time" not in err, err)


def ingest_text(c, db, tmp, name, text):
    """Ingests text as run name; checks it exits 0."""
    code, err = ingest_any(db, tmp, name, text)
    c.true(f"{name}: exit 0", code == 0, err)


def ingest_any(db, tmp, name, text):
    """Ingests text as run name, whatever the outcome; (exit code, stderr)."""
    path = os.path.join(tmp, name + ".txt")
    with open(path, "w") as f:
        f.write(text)
    code, _, err = run("ingest", "--db", db, "--run", name, path, check=False)
    return code, err


def run_values(db, name, select, where="1", tail=""):
    """Rows of SELECT select over run name's step-log values v."""
    with sqlite3.connect(db) as con:
        return con.execute(f"SELECT {select} FROM steplog_values v JOIN runs r USING (run_id)"
                           f" WHERE r.name = ? AND {where} {tail}", (name,)).fetchall()


def split_counts(db, name, where):
    return run_values(db, name, "coalesce(v.split, 'train'), count(*)", where,
                      "GROUP BY 1 ORDER BY 1")


def dates_are_no_names(c, db, tmp):
    """A date before a time of day is no metric's name (FLAML's logger, an
    ETA date), and a time zone and a clock since the start after a timestamp
    are prefix fields (mistral-finetune): the timestamps time the steps."""
    flaml = [f"[flaml.automl: 11-12 18:21:{44 + i}] {{1826}} INFO - iteration {i}, "
             f"loss {2.0 - i / 10:.2f}" for i in range(4)]
    mistral = [f"2024-12-19 09:{24 + 2 * i}:38 (CET) - 0:0{3 + 2 * i}:12 - train - INFO - "
               f"step: {i + 1:06d} - loss: {1.7 - i / 10:.3f} - ETA: >2024-12-31 06:50:16"
               for i in range(4)]
    for name, lines in (("flaml", flaml), ("mistral", mistral)):
        ingest_text(c, db, tmp, name, "\n".join(lines) + "\n")
        names = [r[0] for r in run_values(db, name, "DISTINCT v.raw_name", tail="ORDER BY 1")]
        c.true(f"{name}: every stored name has a letter (no 11-12, no >2024-12-31)",
               all(any(ch.isalpha() for ch in n) for n in names), names)
        c.true(f"{name}: the loss is read", "loss" in names, names)
    mean = run_values(db, "mistral", "round(avg(v.value), 1)", "v.metric = 'step_time'")[0][0]
    c.eq("mistral: the timestamps time the steps, not the clock since the start", mean, 120.0)


def eval_tag_decides(c, db, tmp):
    """A tag that opens the message says evaluation even when the values are
    named like training ones (PaddleClas: '[Eval][Epoch 1][Iter: 0/4]loss'),
    and so does a progress named by evaluation (fairseq 0.x)."""
    text = "".join(f"[2021/08/13 10:4{i}:49] root INFO: [Train][Epoch 1/20][Iter: {i}/36]"
                   f"lr: 0.10000, loss: {2.0 + i:.5f}, batch_cost: 1.5s\n" for i in range(3))
    text += "".join(f"[2021/08/13 11:1{i}:02] root INFO: [Eval][Epoch 1][Iter: {i}/4]"
                    f"CELoss: 51.0, loss: {51.0 + i:.5f}, batch_cost: 0.3s\n" for i in range(2))
    ingest_text(c, db, tmp, "eval_tag", text)
    c.eq("eval tag: three training losses, two validation ones",
         split_counts(db, "eval_tag", "v.metric = 'loss'"), [("train", 3), ("val", 2)])
    text = "".join(f"| epoch 010  {n} / 8223 loss=1.27 (1.50), wps=962, wpb=908, bsz=32\n"
                   for n in (1000, 2000, 3000))
    text += "| epoch 010 | valid on 'valid' subset  1000 / 1311 loss=1.60\n"
    ingest_text(c, db, tmp, "valid_progress", text)
    c.eq("valid progress: three training losses, one validation loss",
         split_counts(db, "valid_progress", "v.raw_name = 'loss'"), [("train", 3), ("val", 1)])


def counter_words(c, db, tmp):
    """Counters named in words the first readers did not know: a genetic
    search's generations (TPOT), a plural (Acme's 'Steps = N'), 'Number of
    iterations: N' (GRIT), spaCy v2's 'Itn' column; but a plural that opens
    a line is a setting."""
    shapes = {
        "generation": "Generation {n} - Current best internal CV score: 0.7{n}",
        "plural": "[Learner] Loss = 0.00{n} | Steps = {s} | Walltime = {w}.5",
        "number_of": "Number of iterations: {s}, batch_size=8, Total time per 1 batch: 0.3{n}s",
    }
    steps = "count(DISTINCT v.step), min(v.step), max(v.step)"
    for name, shape in shapes.items():
        ingest_text(c, db, tmp, "cw_" + name,
                    "".join(shape.format(n=n, s=100 * n + 1, w=10 * n) + "\n"
                            for n in range(1, 5)))
        got = run_values(db, "cw_" + name, steps, "coalesce(v.split, 'train') = 'train'")[0]
        want = (4, 1, 4) if name == "generation" else (4, 101, 401)
        c.eq(f"{name}: four records at their steps", got, want)
    text = "Itn    Dep Loss    NER Loss      UAS    CPU WPS\n"
    text += "---  ----------  ----------  -------  -------\n"
    text += "".join(f"{n:3d}  {125910.684 - n:10.3f}  {7581.375 - n:10.3f}   84.740     6890\n"
                    for n in range(4))
    ingest_text(c, db, tmp, "cw_itn", text)
    c.eq("spaCy v2's Itn column counts the rows",
         run_values(db, "cw_itn", steps, "v.raw_name = 'Dep Loss'")[0], (4, 0, 3))
    text = "config:\n  steps: 1000\n  iterations: 500\n  lr: 0.1\n"
    text += "".join(f"step {n} loss {2 - n / 10}\n" for n in range(1, 4))
    ingest_text(c, db, tmp, "cw_config", text)
    c.eq("a configuration's 'steps: 1000' and 'iterations: 500' count no step",
         run_values(db, "cw_config", "min(v.step), max(v.step)")[0], (1, 3))


def bar_percent_is_no_metric(c, db, tmp):
    """A percentage a drawn bar follows measures the bar (DJL's 'Validating:
    100% |████|'), not the model."""
    bar = "\u2588" * 20
    ingest_text(c, db, tmp, "bar_percent", "".join(
        f"Training:    100% |{bar}| Accuracy: 0.9{e}, Loss: 0.2{e}\n"
        f"Validating:  100% |{bar}|\n[INFO ] - Epoch {e} finished.\n" for e in range(1, 4)))
    names = [r[0] for r in run_values(db, "bar_percent", "DISTINCT v.raw_name", "v.value = 100")]
    c.eq("a bar's percentage is stored as no metric", names, [])


def epoch_lines_of_bracket_steps(c, db, tmp):
    """'[E][N/M] loss=...' counts steps within epochs, so 'Epoch E/5 | train:
    ... | time: 666.9s' lines are the epochs' summaries, not steps 1, 2, 3
    taking 663 s each (a real detection model's loop)."""
    text = ""
    for e in (1, 2, 3):
        text += "".join(f"  [{e}][{n}/162] loss={9 - e - n / 200:.4f} (hm=1.0 sz=0.000)\n"
                        for n in (10, 20, 160))
        text += f"Epoch   {e}/5 | train: 3.{e} | val: 2.{e} | lr: 1.81e-04 | time: 66{e}.9s\n"
    ingest_text(c, db, tmp, "bracket_epochs", text)
    c.eq("bracket epochs: the epoch lines are summaries at the epochs' last steps",
         run_values(db, "bracket_epochs", "coalesce(v.split, 'train'), v.step",
                    "v.raw_name = 'train'", "ORDER BY 2"),
         [("summary", 160), ("summary", 322), ("summary", 484)])
    c.eq("bracket epochs: no training step time from an epoch's time",
         run_values(db, "bracket_epochs", "count(*)", "v.metric = 'step_time' AND"
                    " coalesce(v.split, 'train') = 'train'")[0][0], 0)


def epoch_lines_are_one_record(c, db, tmp):
    """A log whose records are epochs, each printed over several lines
    (GluonTS: learning rate, a tqdm bar, elapsed time, the epoch's loss):
    one record per epoch, numbered by it, the bar's values in it; an
    evaluation after the last epoch stays out of it (the shape of a real
    GluonTS tutorial log, search id 23505470552, which gave 41 records
    without a step number and exit 0; candle's "Test Accuracy" after its
    last "Epoch: 9 | ..." line)."""
    lines = ["INFO:root:Start model training"]
    for e in range(4):
        lines += [f"INFO:root:Epoch[{e}] Learning rate is 0.001",
                  f"100%|##########| 64/64 [00:12<00:00,  5.0{e}it/s, avg_epoch_loss={3 - e / 4}]",
                  f"INFO:root:Epoch[{e}] Elapsed time {12.5 + e / 10:.3f} seconds",
                  f"INFO:root:Epoch[{e}] Evaluation metric 'epoch_loss'={3 - e / 4 + 0.01}"]
    lines += ["Evaluating on test set...", "Test Accuracy: 88.43%"]
    ingest_text(c, db, tmp, "epoch_lines", "\n".join(lines) + "\n")
    got = run_values(db, "epoch_lines", "v.step, count(DISTINCT v.record)",
                     "coalesce(v.split, 'train') = 'train'", "GROUP BY 1 ORDER BY 1")
    c.eq("epoch lines: one training record per epoch, numbered by it", got,
         [(e, 1) for e in range(4)])
    got = run_values(db, "epoch_lines", "v.step, v.raw_name", "v.raw_name LIKE 'Test%'")
    c.true("... the test line after the last epoch is not one of its values",
           all(split != "train" for split in
               [r[0] for r in run_values(db, "epoch_lines", "coalesce(v.split, 'train')",
                                         "v.raw_name LIKE 'Test%'")]), got)


def clock_of_a_part(c, db, tmp):
    """Two clocks since the start that together make the step (habitat's
    PPO log: "env-time: 296.408s  pth-time: 172.698s" every 10 updates,
    lines 171 s apart by their timestamps): the one that grew least is no
    step time when the timestamps say the steps take twice as long; the
    timestamps time them (a real log, facebookresearch/sound-spaces issue
    #7, gave 7.95 s for 17.09 s)."""
    lines = ["2020-09-29 12:14:11,793 agent number of parameters: 4346693"]
    for i in range(1, 7):
        t = 12 * 3600 + 14 * 60 + 11 + 171 * i
        stamp = f"2020-09-29 {t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d},350"
        lines += [f"{stamp} update: {10 * i}\tfps: 31.0\t",
                  f"{stamp} update: {10 * i}\tenv-time: {110.0 * i:.3f}s\t"
                  f"pth-time: {61.0 * i:.3f}s\tframes: {750 * i}"]
    ingest_text(c, db, tmp, "clock_part", "\n".join(lines) + "\n")
    got = run_values(db, "clock_part", "round(avg(v.value), 3)", "v.metric = 'step_time'")
    c.eq("a clock of a part of the step: the timestamps time the steps", got, [(17.1,)])
    got = run_values(db, "clock_part", "round(avg(v.value), 3)",
                     "v.raw_name = 'pth-time per step'")
    c.eq("... the clock's deltas are kept per step, by name", got, [(6.1,)])


def bulleted_notes_under_rows(c, db, tmp):
    """Optim.jl's show_trace table: a " * time: T" line (seconds since the
    start) under each iteration's row is the row's, and the table goes on
    after it (a real README's log in tests/steplogs/unseen gave 1 step of
    17 and no step time)."""
    lines = ["Iter     Function value   Gradient norm"]
    for i in range(6):
        lines += [f"{i:6d}    {-0.5 - i / 100:.6e}     {0.02 / (i + 1):.6e}",
                  f" * time: {0.3 * i + 4e-5!r}"]
    ingest_text(c, db, tmp, "optim_trace", "\n".join(lines) + "\n")
    got = run_values(db, "optim_trace", "v.step, round(v.value, 6)", "v.metric = 'step_time'",
                     "ORDER BY v.step")
    c.eq("notes under rows: every row a step, the clock's differences its time", got,
         [(i, 0.3) for i in range(1, 6)])


def class_columns(c, db, tmp):
    """R randomForest's do.trace table: "ntree  OOB  1  2  3", rows
    "   10:   4.88%  2.63% ...": ntree counts, the colon after it is no
    value, the class labels are columns (a real console log in
    tests/steplogs/unseen gave one step, at 500, from "Number of trees: 500",
    and a metric named "of variables tried at each split")."""
    lines = ["> modelFit <- randomForest(classe ~., data=traindata, do.trace=10)",
             "ntree      OOB      1      2      3"]
    for i in range(1, 6):
        lines.append(f"{10 * i:5d}:   {5 / i:.2f}%  {2 / i:.2f}%  {6 / i:.2f}%  {3 / i:.2f}%")
    lines += ["                     Number of trees: 50",
              "No. of variables tried at each split: 7"]
    ingest_text(c, db, tmp, "forest", "\n".join(lines) + "\n")
    got = run_values(db, "forest", "v.raw_name, count(*), min(v.step), max(v.step)", "1",
                     "GROUP BY 1 ORDER BY 1")
    c.eq("class columns: every column of every row, by ntree", got,
         [(n, 5, 10, 50) for n in ("1", "2", "3", "OOB")])


def padded_bar_count(c, db, tmp):
    """A tqdm bar without a total whose rate tqdm padded ("11it [00:06,
    1.59it/s]", two blanks): its count is the bar's, no step counter, so a
    log of such bars alone (wav2lip_288x288's epochs, a real issue's log)
    is refused, not read as 26 records all at step 11."""
    path = os.path.join(tmp, "bars.txt")
    with open(path, "w") as f:
        for i in range(6):
            f.write(f"Loss: 0.52{i}: : 11it [00:06,  1.5{i}it/s]\n")
    code, _, err = run("ingest", "--db", db, "--run", "bars", path, check=False)
    c.true("padded bar count: no step counter, refused", code == 2 and
           "no step records found" in err, err)


def banners_and_sentences(c, db, tmp):
    """An evaluation banner ("***** Evaluating perplexity, Epoch 0/1
    *****", DeepSpeed-Chat) makes the values under it an evaluation's, and
    of sentences before a colon ("Overflow detected. Skipping step.
    Attempted loss scale: 65536") the last one names the value; "Avg. Loss"
    is one name."""
    lines = []
    for e in range(3):
        lines += [f"***** Evaluating perplexity, Epoch {e}/3 *****",
                  f"ppl: {40 - e}.5, loss: {3.6 - e / 10:.2f}"]
        for i in range(1, 4):
            lines.append(f"Epoch {e} step {i}: Avg. Loss: {2 - i / 10:.2f}")
        lines.append(f"Epoch {e} step 4: overflow detected. Skipping step. Attempted loss "
                     "scale: 65536")
    ingest_text(c, db, tmp, "banners", "\n".join(lines) + "\n")
    got = run_values(db, "banners", "v.raw_name, coalesce(v.split, 'train'), count(*)", "1",
                     "GROUP BY 1, 2 ORDER BY 1, 2")
    c.eq("banners: evaluations under their banner; a name of sentences is its last one's",
         got, [("Attempted loss scale", "train", 3), ("Avg. Loss", "train", 9),
               ("loss", "val", 3), ("ppl", "val", 3)])


def hifigan_steps(c, db, tmp):
    """HiFi-GAN's train.py print, "Steps : 0, Gen Loss: 3.475, ..., Time
    Loss: 1.252, ..., s/b : 1.858": a plural counter first on a line of
    values counts, "s/b" is seconds per batch, and a loss named by time is
    no time (MP-SENet-style notes in tests/steplogs/unseen were refused)."""
    lines = ["Epoch: 1"]
    for i in range(4):
        lines.append(f"Steps : {i * 100}, Gen Loss: {3.4 - i / 10:.3f}, Time Loss: "
                     f"{1.25 - i / 100:.3f}, s/b : {0.3 + i / 100:.3f}")
    lines.append("  iterations: 500")
    ingest_text(c, db, tmp, "hifigan", "\n".join(lines) + "\n")
    got = run_values(db, "hifigan", "v.step, round(v.value, 3)", "v.metric = 'step_time'",
                     "ORDER BY v.step")
    c.eq("HiFi-GAN: 'Steps : N' counts, 's/b' times each step", got,
         [(i * 100, round(0.3 + i / 100, 3)) for i in range(4)])
    got = run_values(db, "hifigan", "count(*)", "v.raw_name = 'Time Loss'")
    c.eq("... 'Time Loss' is kept as a loss", got, [(4,)])


def unclosed_bracket(c, db, tmp):
    """carpedm20's DCGAN-tensorflow: "[     300 Epoch:[ 1/25] [  26/ 273]
    time: 229.3281, d_loss: 1.39, g_loss: 0.69" never closes its first
    bracket: its values are the line's, the number that opens it is the
    global step, "time" is the clock since the start; a warning glued to
    the last value (no newline before it) is no part of it (a real
    nohup.out in tests/steplogs/unseen was refused: no value outside
    brackets)."""
    lines = []
    for i in range(5):
        lines.append(f"[{300 + i:8d} Epoch:[ 1/25] [{26 + i:4d}/ 273] time: "
                     f"{229.3281 + 0.76 * i:.4f}, d_loss: 1.3{i}, g_loss: 0.6{i}")
    lines[-1] += "WARNING:tensorflow:From /x/saver.py:963: remove_checkpoint"
    ingest_text(c, db, tmp, "dcgan", "\n".join(lines) + "\n")
    got = run_values(db, "dcgan", "v.step, round(v.value, 4)", "v.metric = 'step_time'",
                     "ORDER BY v.step")
    c.eq("unclosed bracket: global steps, the clock's differences", got,
         [(300 + i, 0.76) for i in range(1, 5)])
    got = run_values(db, "dcgan", "v.raw_name, v.value", "v.step = 304 AND v.raw_name LIKE "
                     "'%loss%' OR v.raw_name LIKE '%saver%'", "ORDER BY 1")
    c.eq("... the glued warning is no value or name", got, [("d_loss", 1.34), ("g_loss", 0.64)])


def total_loss_first(c, db, tmp):
    """FastSpeech2's "Step 100/500000, Total Loss: 0.3777, Mel Loss: ...":
    a step's total loss first on its line is the step's, in any case (a
    real log.txt in tests/steplogs/unseen was refused: only summary
    values)."""
    lines = [f"Step {i * 100}/500000, Total Loss: {0.37 + i / 100:.4f}, Mel Loss: 0.18"
             for i in range(1, 5)]
    ingest_text(c, db, tmp, "fastspeech2", "\n".join(lines) + "\n")
    got = run_values(db, "fastspeech2", "v.step, v.value", "v.raw_name = 'Total Loss' AND "
                     "coalesce(v.split, 'train') = 'train'", "ORDER BY v.step")
    c.eq("'Total Loss' first: the step's", got,
         [(i * 100, round(0.37 + i / 100, 4)) for i in range(1, 5)])


def boxed_step_rounded(c, db, tmp):
    """OpenAI's logger (improved-/guided-diffusion) prints its step in a
    boxed table with %g: "| step | 5.04e+03 |": the step, said to be
    rounded (a real note in tests/steplogs/unseen was refused)."""
    lines = []
    for i in range(3):
        lines += ["    ------------------------", f"    | loss      | 0.01{i}    |",
                  f"    | step      | 5.0{4 + i}e+03 |", "    ------------------------"]
    code, err = ingest_any(db, tmp, "boxed", "\n".join(lines) + "\n")
    c.true("boxed 'step' in %g: read, said to be rounded", code == 0 and
           "is printed rounded ('5.04e+03')" in err, err)
    got = run_values(db, "boxed", "v.step, v.value", "v.raw_name = 'loss'", "ORDER BY v.step")
    c.eq("... every table a step", got, [(5040 + 10 * i, float(f"0.01{i}")) for i in range(3)])


def interval_by_name(c, db, tmp):
    """VoxCPM's "[train] step 980: ..., log interval: 4.73s" every 10 steps:
    a time named the log interval's is the time of the steps since the last
    record (a real tutorial's log in tests/steplogs/unseen had no step time)."""
    lines = [f"[train] step {980 + 10 * i}: loss/diff: 0.63{i}, log interval: 4.{70 + i}s"
             for i in range(4)]
    ingest_text(c, db, tmp, "voxcpm", "\n".join(lines) + "\n")
    got = run_values(db, "voxcpm", "v.step, round(v.value, 4)", "v.metric = 'step_time'",
                     "ORDER BY v.step")
    c.eq("'log interval' by its name: the window's time over its steps", got,
         [(980 + 10 * i, round((4.70 + i / 100) / 10, 4)) for i in range(1, 4)])


def catalyst_epochs(c, db, tmp):
    """Catalyst 19.x: "1/4 * Epoch 1 (train): ... | loss=2.0389" and "1/4 *
    Epoch 1 (valid): ...": the fraction is the epoch's place in the run, no
    step within it, and "(valid)" names the evaluation (a real issue's log
    in tests/steplogs/unseen gave steps 0, 5, 10 with rc 0)."""
    lines = []
    for e in range(1, 4):
        for loader in ("train", "valid"):
            lines.append(f"{e}/4 * Epoch {e} ({loader}): _timers/batch_time=0.01{e} | "
                         f"loss={2 - e / 10:.4f}")
    ingest_text(c, db, tmp, "catalyst", "\n".join(lines) + "\n")
    got = run_values(db, "catalyst", "v.step, coalesce(v.split, 'train'), v.value",
                     "v.raw_name = 'loss'", "ORDER BY v.step, 2")
    c.eq("Catalyst: an epoch a step, its (valid) line an evaluation", got,
         [(e, s, round(2 - e / 10, 4)) for e in range(1, 4) for s in ("train", "val")])


def list_cells(c, db, tmp):
    """DeepXDE's table: "Step  Train loss  Test loss  Test metric", rows
    "1000  [1.90e-02, 1.76e-03]  [1.25e-02, 1.76e-03]  []": a bracketed list
    is one cell, its terms stored as "Train loss[0]", "Train loss[1]" (a
    real README's log, in neither tests/ nor ../shared, gave one step, from
    "Epoch 15000: saving model")."""
    lines = ["Step      Train loss              Test loss               Test metric"]
    for i in range(4):
        lines.append(f"{i * 1000:<10d}[{6 - i}.00e-02, {3 - i}.00e-01]    "
                     f"[{5 - i}.00e-02, 1.00e-03]    []  ")
    ingest_text(c, db, tmp, "deepxde", "\n".join(lines) + "\n")
    got = run_values(db, "deepxde", "v.raw_name, count(*), min(v.step), max(v.step)", "1",
                     "GROUP BY 1 ORDER BY 1")
    c.eq("list cells: each term of each row", got,
         [(f"{n} loss[{k}]", 4, 0, 3000) for n in ("Test", "Train") for k in (0, 1)])
    got = run_values(db, "deepxde", "v.value", "v.step = 1000 AND v.raw_name = 'Train loss[1]'")
    c.eq("... by its place in the list", got, [(0.2,)])


def epoch_running_means(c, db, tmp):
    """ClearerVoice's "Train Epoch: 0/100 Step: 10/965 | 2.057s/batch": a
    per-step time falling at every record from the epoch's first is the
    mean since the epoch began; each record's step time is the mean over the
    steps since the one before, said in a warning (a real sbatch log in
    tests/steplogs/unseen gave 1.04 s, the mean of the printed means, for
    0.86 s); a step's own time, slow only at first, is kept as printed."""
    first, per = 12.0, 0.8  # the epoch's first 10 steps take 12 s more
    lines = []
    for i in range(1, 9):
        n = 10 * i
        lines.append(f"Train Epoch: 0/100 Step: {n}/965 | {(first + per * n) / n:.4f}s/batch"
                     f" | lr 5.0000e-04 || Mask_Loss 1.6{i}")
    code, err = ingest_any(db, tmp, "means", "\n".join(lines) + "\n")
    c.true("epoch means: read as means since the epoch began, said", code == 0 and
           "read as the mean since the epoch began" in err, err)
    got = run_values(db, "means", "v.step, round(v.value, 3), v.window", "v.metric = "
                     "'step_time'", "ORDER BY v.step")
    c.eq("... each record's steps at their own time", got,
         [(10, round((first + per * 10) / 10, 3), 10)] +
         [(10 * i, per, 10) for i in range(2, 9)])
    lines = [f"Train Epoch: 0/100 Step: {10 * i}/965 | {t}s/batch | Mask_Loss 1.6"
             for i, t in enumerate([2.1, 0.81, 0.79, 0.8, 0.82, 0.78], 1)]
    ingest_text(c, db, tmp, "points", "\n".join(lines) + "\n")
    got = run_values(db, "points", "round(v.value, 3)", "v.metric = 'step_time'",
                     "ORDER BY v.step")
    c.eq("... a step's own time, slow at first only, as printed", got,
         [(t,) for t in (2.1, 0.81, 0.79, 0.8, 0.82, 0.78)])


def bars_alone(c, db, tmp):
    """A log of nothing but tqdm bars that no Trainer dict names as the
    training loop's (PDPP's nohup.out: "total train:   0%|   | 0/200
    [00:00<?, ?it/s]" of 8 ranks): refused, not exit 0 with records whose
    split is 'progress' and no training step."""
    lines = [f"total train:  {i}%|#         | {i}/200 [00:{30 + i:02d}<10:00,  3{i}.1s/it]"
             for i in range(4)]
    code, err = ingest_any(db, tmp, "bars_alone", "\n".join(lines) + "\n")
    c.true("bars alone: refused, the bars named", code == 2 and "no step records found" in err
           and "none known as the training loop's" in err, err)
    c.eq("... and nothing stored", run_values(db, "bars_alone", "count(*)"), [(0,)])


def main():
    d = need_corpus("steplogs")
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "r.db")
        exp = expectations(d)
        logs = sorted(os.path.join(d, f) for f in os.listdir(d) if f != "README.md")
        c.eq("every corpus step log has an expectation", sorted(exp), logs)
        for path in logs:
            if path in exp:
                check_log(c, db, path, exp[path])
        tests_steplogs(c, db)
        collisions(c, db, tmp)
        quiet(c, db, tmp)
        prose_is_no_table(c, db, tmp)
        notebook_table(c, db, tmp)
        interval_time_warned(c, db, tmp)
        dates_are_no_names(c, db, tmp)
        eval_tag_decides(c, db, tmp)
        counter_words(c, db, tmp)
        bar_percent_is_no_metric(c, db, tmp)
        epoch_lines_of_bracket_steps(c, db, tmp)
        epoch_lines_are_one_record(c, db, tmp)
        clock_of_a_part(c, db, tmp)
        bulleted_notes_under_rows(c, db, tmp)
        class_columns(c, db, tmp)
        padded_bar_count(c, db, tmp)
        banners_and_sentences(c, db, tmp)
        hifigan_steps(c, db, tmp)
        unclosed_bracket(c, db, tmp)
        total_loss_first(c, db, tmp)
        boxed_step_rounded(c, db, tmp)
        interval_by_name(c, db, tmp)
        catalyst_epochs(c, db, tmp)
        list_cells(c, db, tmp)
        epoch_running_means(c, db, tmp)
        bars_alone(c, db, tmp)
    c.close()


if __name__ == "__main__":
    main()
