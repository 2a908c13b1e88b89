"""With --compat hta, profdb's GPU reports equal what HTA computed.

For every corpus trace with an HTA oracle (traces/oracles/ and, for the
seven traces added last, traces/oracles_new/): the temporal breakdown (times to
the microsecond, percentages to the 0.01 point HTA prints), the
communication/computation overlap, the kernel-type breakdown (every
combination with time, percentages to HTA's 0.1), the number of GPU events,
and per-kernel count, total, min, max and mean. Where HTA fails (no GPU
events), profdb must say the GPU reports do not apply and exit 0."""

import glob
import json
import os

from common import Checker, checked_subset, need_corpus, run, run_json, tempdir


def check_rank(c, db, name, rank, want):
    tb = want["temporal_breakdown"]
    if "error" in tb:
        code, out, err = run("report", "--run", name, "gpu", "--compat", "hta", db=db, check=False)
        c.eq(f"{name}: no-GPU trace: gpu does not apply, exit 2", code, 2)
        c.true(f"{name}: says gpu does not apply, needing GPU events",
               "does not apply" in err and "GPU events" in err, err)
        return
    gpu = [r for r in run_json("report", "--run", name, "gpu", "--compat", "hta", db=db)
           if r["rank"] == int(rank)][0]
    for ours, theirs in [("kernel_time_us", "kernel_time_us"), ("idle_us", "idle_time_us"),
                         ("compute_us", "compute_time_us"),
                         ("non_compute_us", "non_compute_time_us")]:
        c.eq(f"{name} {ours}", gpu[ours], tb[theirs])
    for ours, theirs in [("idle_pct", "idle_time_pctg"), ("compute_pct", "compute_time_pctg"),
                         ("non_compute_pct", "non_compute_time_pctg")]:
        c.eq(f"{name} {ours}", gpu[ours], tb[theirs])
    c.eq(f"{name} comm_comp_overlap_pct", gpu["comm_comp_overlap_pct"],
         want["comm_comp_overlap"]["comp_comm_overlap_pctg"])
    c.eq(f"{name} gpu events", gpu["gpu_events"], want["n_gpu_events"])

    types = run_json("report", "--run", name, "kernel-types", "--compat", "hta", db=db)
    # Percentages with HTA's own formula, from our sums: rounding the 0.01
    # values we print a second time would not be the same number.
    total = sum(r["time_us"] for r in types)
    got = {r["kernel_type"]: (r["time_us"], round(r["time_us"] / total * 100, 1)) for r in types}
    exp = {r["kernel_type"]: (r["sum"], r["percentage"]) for r in want["kernel_type_breakdown"]
           if r["sum"] > 0}
    c.eq(f"{name} kernel types", got, exp)

    kernels = run_json("report", "--run", name, "kernels", "--compat", "hta", db=db)
    got = {k["name"]: (k["kernel_type"], k["count"], k["total_us"], k["min_us"], k["max_us"],
                       round(k["mean_us"], 6)) for k in kernels}
    exp = {k["name"]: (k["kernel_type"], k["count"], k["sum_us"], k["min_us"], k["max_us"],
                       round(k["mean_us"], 6)) for k in want["kernels"]}
    c.eq(f"{name} kernels", got, exp)


def oracle_files(oracles):
    """HTA's answers: traces/oracles/ and traces/oracles_new/ (the seven traces
    added last; the corpus is read-only here, so they are read where they are)."""
    return sorted(glob.glob(os.path.join(oracles, "*.json")) +
                  glob.glob(os.path.join(oracles + "_new", "*.json")))


def main():
    c = Checker()
    oracles = need_corpus("traces", "oracles")
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for path in checked_subset(oracle_files(oracles), 3, "traces with HTA oracles"):
            oracle = json.load(open(path))
            trace = need_corpus("traces", oracle["trace_file"])
            name = os.path.basename(path)[:-5]
            run("ingest", "--quiet", "--run", name, trace, db=db)
            for rank, want in oracle["per_rank"].items():
                check_rank(c, db, name, rank, want)
    c.close()


if __name__ == "__main__":
    main()
