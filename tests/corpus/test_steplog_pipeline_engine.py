"""DeepSpeed's pipeline engine prints "steps: N loss: X iter time (s): T
samples/sec: S" every steps_per_print steps (Megatron-DeepSpeed adds "lm loss:
... moe loss: ..."; diffusion-pipe runs on it). The plural "steps" is no
counter for the general reader, so before the deepspeed flavor read these
lines a DeepSpeed log fell back to 1-second timestamp deltas (issue 32).

No whole log of this family was found with a named source; the lines below
are real lines quoted in public repositories (each names where). A log of one
line is read on its own; a two-line log is derived from a real line by
repeating it with the step doubled, which is how the engine prints its next
window, to check that the second line's iter time is the step time over the
steps since the first."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import run, tempdir  # noqa: E402
from steplog_checks import chk, close, sql, step_time_mean, where_run  # noqa: E402

LINES = {
    # microsoft/onnxruntime, orttraining deepspeed pipeline-parallel test's expected output
    "ort": "steps: 100 loss: 0.0585 iter time (s): 0.186 samples/sec: 53.694",
    # a diffusion-pipe log parser's test (the line diffusion-pipe prints)
    "diffusion_pipe": "steps: 30 loss: 0.1808 iter time (s): 3.662 samples/sec: 1.092",
    # Megatron-DeepSpeed MoE checkpoint test script's comment: its final training line
    "megatron_ds_moe": "steps: 200 loss: 5.5508 lm loss: 5.5103 moe loss: 0.0405 "
                       "iter time (s): 0.936 samples/sec: 136.706",
}


def values(db, r):
    return {row["raw_name"]: (row["value"], row["unit"]) for row in
            sql(db, f"SELECT raw_name, value, unit FROM steplog_values WHERE {where_run(r)}")}


def main():
    with tempdir() as tmp:
        db = os.path.join(tmp, "p.db")
        for name, line in LINES.items():
            path = os.path.join(tmp, name + ".log")
            with open(path, "w") as f:
                f.write(line + "\n")
            code, _, err = run("ingest", "--db", db, "--run", name, path, check=False)
            chk.eq(f"{name}: exit code ({err.strip()[-200:]})", code, 0)
            chk.true(f"{name}: read by the deepspeed flavor's pipeline-engine line",
                     "(deepspeed)" in err and '"steps: N" (pipeline engine)' in err, err)
            got = values(db, name)
            words = line.split()
            chk.eq(f"{name}: loss as printed", got.get("loss"), (float(words[3]), ""))
            time = float(words[words.index("(s):") + 1])
            chk.eq(f"{name}: the first line's iter time is kept, not as a step time (its "
                   "window is unknown)", got.get("iter time (first window)"), (time, "s"))
            rate = float(words[-1])
            chk.eq(f"{name}: samples/sec as a rate", got.get("samples/sec/samples_per_second"),
                   (rate, "samples/s"))
        moe = values(db, "megatron_ds_moe")
        chk.eq("megatron_ds_moe: lm loss and moe loss kept under their names",
               (moe.get("lm loss"), moe.get("moe loss")), ((5.5103, ""), (0.0405, "")))
        # derived: the MoE line again 200 steps later
        line = LINES["megatron_ds_moe"]
        path = os.path.join(tmp, "two.log")
        with open(path, "w") as f:
            f.write(line + "\n" + line.replace("steps: 200", "steps: 400") + "\n")
        code, _, err = run("ingest", "--db", db, "--run", "two", path, check=False)
        chk.eq("two lines: exit code", code, 0)
        mean, src = step_time_mean(db, "two")
        close(f"two lines: the step time is the second line's iter time (from {src})",
              mean, 0.936, 1e-9)
        chk.true("two lines: the reading says where the step time comes from",
                 "window mean of 'iter time' over 200 steps" in err, err)
    chk.close()


main()
