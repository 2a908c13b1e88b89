"""Step, idle, launch, collective and rank reports against independent
computations from the raw trace JSON (and HTA's idle oracle).

- idle --compat hta equals HTA's per-stream idle breakdown;
- idle (exact) per stream: host + kernel + other wait = span - union, by
  brute force over elementary segments;
- steps: each step's duration equals its ProfilerStep annotation's, and
  every category equals a priority assignment over elementary segments
  computed here (a sweep for every trace, and brute force on small ones);
- launch: count, max delay and kernels shorter than their launch equal a
  join on correlation done here;
- comm: count and bytes per collective kind from the NCCL args;
- ranks: the mean ProfilerStep per rank; two steps per rank are too few to
  call a straggler."""

import glob
import json
import os

from common import Checker, need_corpus, run, run_json, tempdir
from trace_oracle import (ORDER, brute_steps, collectives, cpu_steps, events_of,
                          idle_per_stream, launch_pairs, sweep_steps)



def report_rows(*args, db):
    """A report's rows as JSON; none when it does not apply to the run (exit
    2 and one line saying what it needs: a trace without GPU events or
    ProfilerSteps)."""
    code, out, err = run(*args, "--format", "json", db=db, check=False)
    if code == 2 and "does not apply" in err:
        return []
    if code != 0:
        raise AssertionError(f"profdb {' '.join(map(str, args))} exited {code}: {err.strip()}")
    return json.loads(out)

def check_steps(c, db, name, evs, small):
    """Each step's duration equals its annotation's, and every category
    equals the sweep (and, on small traces, the brute force, which also
    checks the sweep). profdb stores `other` as the duration minus what the
    categories cover, so only checks of each category can fail."""
    rows = report_rows("report", "--run", name, "steps", "--unit", "ns", db=db)
    durs = {st["name"]: st["e"] - st["s"] for st in cpu_steps(evs)}
    c.eq(f"{name} step durations", {r["step"]: r["dur_ns"] for r in rows}, durs)
    got = {r["step"]: {k: r[f"{k}_ns"] for k in ORDER + ["other"]} for r in rows}
    want = sweep_steps(evs)
    c.eq(f"{name} steps by sweep", got, want)
    if small:
        c.eq(f"{name} steps by brute force", got, brute_steps(evs))


def check_idle_exact(c, db, name, evs):
    rows = report_rows("report", "--run", name, "idle", "--unit", "ns", db=db)
    got = {str(r["stream"]): r["idle_ns"] for r in rows}
    c.eq(f"{name} idle per stream (exact)", got, idle_per_stream(evs))


def check_idle_hta(c, db, name, oracle):
    ib = oracle.get("idle_time_breakdown")
    if not isinstance(ib, dict) or "per_stream" not in ib:
        return
    rows = report_rows("report", "--run", name, "idle", "--compat", "hta", db=db)
    got = {str(r["stream"]): {"host_wait": r["host_wait_us"], "kernel_wait": r["kernel_wait_us"],
                              "other": r["other_us"]} for r in rows}
    c.eq(f"{name} idle per stream (hta)", got, ib["per_stream"])


def check_launch(c, db, name, evs):
    pairs = launch_pairs(evs)
    rows = report_rows("report", "--run", name, "launch", "--unit", "ns", db=db)
    if not pairs:
        c.eq(f"{name} no launches", rows, [])
        return
    r = rows[0]
    c.eq(f"{name} launches", r["launches"], len(pairs))
    c.eq(f"{name} max launch delay", r["max_delay_ns"], max(g["s"] - rt["s"] for g, rt in pairs))
    c.eq(f"{name} kernels shorter than launch", r["shorter_than_launch"],
         sum(1 for g, rt in pairs if g["e"] - g["s"] < rt["e"] - rt["s"]))


def check_comm(c, db, name, evs):
    want = collectives(evs)
    if not want:
        return
    rows = report_rows("report", "--run", name, "comm", db=db)
    c.eq(f"{name} collectives", {r["kind"]: [r["count"], r["bytes"]] for r in rows}, want)


def oracle_files(oracles):
    """HTA's answers: traces/oracles/ and traces/oracles_new/ (the seven traces
    added last; the corpus is read-only here, so they are read where they are)."""
    return sorted(glob.glob(os.path.join(oracles, "*.json")) +
                  glob.glob(os.path.join(oracles + "_new", "*.json")))


def main():
    c = Checker()
    oracles = need_corpus("traces", "oracles")
    small = {"amd_trace_mi250_minitoy_train_ROCm6_2_kineto",
             "critical_path_alexnet_benchmark_result_2869224_1695835535_trace"}
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for path in oracle_files(oracles):
            oracle = json.load(open(path))
            name = os.path.basename(path)[:-5]
            trace = need_corpus("traces", oracle["trace_file"])
            run("ingest", "--quiet", "--run", name, trace, db=db)
            evs = events_of(trace)
            check_steps(c, db, name, evs, name in small)
            check_idle_hta(c, db, name, list(oracle["per_rank"].values())[0])
            if name in small or "sampled" in name:
                check_idle_exact(c, db, name, evs)
            check_launch(c, db, name, evs)
            check_comm(c, db, name, evs)
        # Two ranks of one job, two steps each: mean steps as written, and no
        # straggler, since two steps against two cannot pass the test
        # (test_trace_findings checks the rule where it can decide).
        r0 = need_corpus("traces", "trace_filter_sampled_rank-0.json.gz")
        r1 = need_corpus("traces", "trace_filter_sampled_rank-1.json.gz")
        run("ingest", "--quiet", "--run", "two", r0, r1, db=db)
        means = {}
        for rank, p in ((0, r0), (1, r1)):
            durs = [e["e"] - e["s"] for e in events_of(p) if e["name"].startswith("ProfilerStep#")]
            means[rank] = sum(durs) / len(durs)
        rows = report_rows("report", "--run", "two", "ranks", "--unit", "ns", db=db)
        c.eq("mean step per rank", {r["rank"]: r["mean_step_ns"] for r in rows}, means)
        c.eq("notes", [r["note"] for r in rows], ["too few steps to test"] * 2)
    c.close()


if __name__ == "__main__":
    main()
