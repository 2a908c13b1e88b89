"""profdb check on real step logs (issue 18).

1. Every real log that times its steps (the corpus's and tests/steplogs/) can
   be gated on step_time and on throughput: a run checked against itself
   passes, and the check says which values it compared.
2. A log without per-step time (HF trainer_state.json) is refused with a
   message that says so and names the summaries it has.
3. Pairs derived from three log families that record step time three ways
   (nanoGPT: a value per step; Megatron: a mean over 10 iterations;
   detectron2: a 20-iteration window median): 10% slower -> regression;
   1% slower under +-8% noise -> pass; the same steps with three of them
   ten times as long -> pass. The verdicts follow from how the pairs are
   made."""

import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE, Checker, need_corpus, run, tempdir  # noqa: E402

CORPUS_TIMED = ["deepspeed_chat_rlhf_step3.log", "deepspeed_wallclock_breakdown_gptneox965_excerpt.log",
                "detectron2_metrics.json", "hf_trainer_stdout_gemma2_lora.log",
                "lightning_csvlogger_metrics.csv", "megatron_ci_golden_values_h100.json",
                "megatron_deepspeed_gpt125m_8gpu.log", "nanogpt_train.log",
                "torchtitan_qwen3vl_excerpt_A.log"]
UNTIMED = "hf_trainer_state_whisper.json"

# Real logs in tests/steplogs too short to gate against themselves, kept for the
# reader's tests (test_steplog_families.py): the published excerpt holds 2
# iterations, so 1 step time (from glog timestamps): inconclusive, never PASS.
TOO_SHORT_TO_GATE = {"caffe_iters_issue50_excerpt.log"}

# Real logs here that print no time of an optimizer step (issue 32): LitGPT's
# "iter time" times one micro-batch of several, torchtune prints a rate per GPU
# only, tf_cnn_benchmarks a rate only, IRN no time (its "imps" rate is unnamed). The gate refuses what the log cannot
# give, naming what it has: {file: {metric refused: a name the refusal lists}}.
NOT_TIMED = {
    "litgpt_issue1607_excerpt.log": {"step_time": "iter time (micro-batch)",
                                     "throughput": "iter time (micro-batch)"},
    "litgpt_issue1042_excerpt.log": {"step_time": "iter time (micro-batch)",
                                     "throughput": "iter time (micro-batch)"},
    "torchtune_pr1358_excerpt.log": {"step_time": "tokens_per_s_per_gpu",
                                     "throughput": "tokens_per_s_per_gpu"},
    "tf_cnn_benchmarks_pr63_excerpt.log": {"step_time": "samples_per_s"},
    "irn_issue13_excerpt.log": {"step_time": "imps", "throughput": "imps"},
}

# (corpus file, regex whose group 1 is a step time to transform)
FAMILIES = [
    ("nanogpt_train.log", r"(?<=time )(\d+\.\d+)(?=ms)"),
    ("megatron_deepspeed_gpt125m_8gpu.log", r"(?<=elapsed time per iteration \(ms\): )(\d+\.\d+)"),
    ("detectron2_metrics.json", r'(?<="time": )(\d+\.\d+)'),
]


def transformed(text, pattern, fn):
    """text with every matched step time v replaced by fn(i, v)."""
    i = [0]

    def sub(m):
        v = fn(i[0], float(m.group(1)))
        i[0] += 1
        return f"{v:.4f}"
    out, n = re.subn(pattern, sub, text)
    return out, n


def check(db, base, test, *args):
    return run("check", "--db", db, base, test, *args, check=False)


def self_checks(c, db, path, name):
    run("ingest", "-q", "--db", db, "--run", name, path)
    for metric in ("step_time", "throughput"):
        rc, out, err = check(db, name, name, "-m", f"{metric}=5%")
        has = NOT_TIMED.get(name, {}).get(metric)
        if has:
            c.eq(f"{name}: {metric} refused ({err.strip()[:160]})", rc, 2)
            c.true(f"{name}: {metric}: the refusal names what the log has",
                   f"no samples of metric '{metric}'" in err and has in err, err)
            continue
        c.eq(f"{name}: {metric} against itself: exit ({out.strip()[:160]} {err.strip()[:200]})",
             rc, 0)
        c.true(f"{name}: {metric} against itself passes", out.startswith("PASS:"), out)
        c.true(f"{name}: {metric}: says which values it compared",
               re.search(r"\((step log|trace steps): [a-z]", err) is not None, err)


def main():
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "s.db")
        logs = [(need_corpus("steplogs", f), f) for f in CORPUS_TIMED]
        own = os.path.join(SOURCE, "tests", "steplogs")
        logs += [(os.path.join(own, f), f) for f in sorted(os.listdir(own))
                 if f not in ("README.md",) and f not in TOO_SHORT_TO_GATE
                 and os.path.isfile(os.path.join(own, f))]  # unseen/: own test
        for path, name in logs:
            self_checks(c, db, path, name)

        untimed = need_corpus("steplogs", UNTIMED)
        run("ingest", "-q", "--db", db, "--run", "whisper", untimed)
        rc, out, err = check(db, "whisper", "whisper")
        c.eq("trainer_state without step times: exit 2", rc, 2)
        c.true("... says it has no per-step samples of step_time and names the summaries",
               "no samples of metric 'step_time'" in err and "train_runtime" in err
               and "not gateable" in err, err)

        rng = random.Random(20261126)
        for name, pattern in FAMILIES:
            text = open(need_corpus("steplogs", name), encoding="utf-8", errors="surrogateescape").read()
            variants = {
                "slow10": lambda i, v: v * 1.10,
                "noisy1": lambda i, v: v * 1.01 * (1 + rng.uniform(-0.08, 0.08)),
                "outliers": lambda i, v: v * 10 if i in (7, 23, 41) else v,
            }
            base = name + ":base"
            run("ingest", "-q", "--db", db, "--run", base, need_corpus("steplogs", name))
            for tag, fn in variants.items():
                out_text, n = transformed(text, pattern, fn)
                c.true(f"{name}: the pattern finds step times ({n})", n >= 40, str(n))
                p = os.path.join(tmp, f"{tag}_{name}")
                with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(out_text)
                run("ingest", "-q", "--db", db, "--run", f"{name}:{tag}", p)
            rc, out, _ = check(db, base, name + ":slow10")
            c.eq(f"{name}: 10% slower fails ({out.strip()})", rc, 1)
            rc, out, _ = check(db, base, name + ":noisy1")
            c.eq(f"{name}: 1% slower in noise passes ({out.strip()})", rc, 0)
            c.true(f"{name}: ... with verdict PASS", out.startswith("PASS:"), out)
            rc, out, _ = check(db, base, name + ":outliers")
            c.eq(f"{name}: three outlier steps pass ({out.strip()})", rc, 0)
    return c.close()


if __name__ == "__main__":
    sys.exit(main())
