"""`profdb merge` without --full: the events stay in the shards (issue 35).

Shards: the corpus's two sampled rank traces (ranks 0 and 1) and copies of
rank 0 given ranks 2 to 13 (distributedInfo.rank rewritten), one shard
each, as Slurm array tasks make them, and a pstats dump in a shard of its
own run.

1. The job database: one shard_files row per trace with the shard's
   absolute path, none of the event tables' rows, the pstats run whole;
   smaller than the shards.
2. Cross-rank reports read only the job database: the same output as on a
   `--full` merge of the same shards (exact and --compat hta). Every other
   trace report prints the same output or refuses with exit 2, one line,
   nothing on stdout, naming --rank: never another answer. The overview and
   the report folder (--out) list the latter as needing the ranks' events;
   the folder's tables are those of --full.
3. Drill-down: `report --rank 1 R` on the job database prints what `report
   R` prints on a --full merge of that one shard, for every trace report,
   and names the shard it read on stderr.
4. Incremental: shards merged two at a time into a growing database give
   the same reports; more shards than SQLite attaches at once (merged in
   groups through intermediate files) record the real shards, not the
   intermediates; a job database merged into another brings its shard
   files.
5. diff, check and trend of two runs in shards: the same output as on --full, or a
   metric read from events refused (exit 2) naming --full.
6. rank-spread on the 14 ranks, one of them stretched by 1.3 (a designed
   straggler): its distributions and named ranks as recomputed here from
   the job database's analysis tables, rank 13 named ~30% above on step
   time, the same output as --full.
7. scripts/slurm/merge.sh, run by hand: PROFDB_KEEP_SHARDS=1 merges
   without --full and keeps the shards, by default --full and deletes them;
   report.txt as a --full merge's report.
8. A deleted or modified shard: --rank gives exit 2, one line naming the
   file; cross-rank reports still answer from the job database. `profdb
   analyze` of such a run is refused (it would replace the analysis with
   nothing)."""

# ctest-labels: slow (16 s: 16 ingests, 10 merges, about 150 reports)

import gzip
import json
import os
import shutil
import sqlite3

import subprocess

from common import (CHECKED, PROFDB, SOURCE, Checker, checked_subset, need_corpus, run, tempdir,
                    table_counts)

TRACES = need_corpus("traces")
RANK0 = os.path.join(TRACES, "trace_filter_sampled_rank-0.json.gz")
RANK1 = os.path.join(TRACES, "trace_filter_sampled_rank-1.json.gz")
PSTATS = need_corpus("pstats", "stdlib_compileall.prof")

CROSS_RANK = ["summary", "gpu", "kernel-types", "kernels", "ops", "steps", "idle",
              "queue-length", "ranks"]
TRACE_REPORTS = CROSS_RANK + ["attribution", "annotations", "launch", "kernel-sequences",
                              "comm", "critical-path", "memory-bw", "insights"]
EVENT_TABLES = ["slices", "instants", "counters", "flows", "metadata_events",
                "analysis_gpu_attribution", "analysis_memory_allocs"]


def rank_copy(src, dst, rank, slower=1.0):
    """A copy of src (a path, or a trace already read) as rank; slower > 1
    stretches its time (a designed straggler: every step and GPU time that
    much longer)."""
    if isinstance(src, str):
        with gzip.open(src, "rt") as f:
            d = json.load(f)
    else:
        d = json.loads(json.dumps(src)) if slower != 1.0 else dict(src)
    d["distributedInfo"] = dict(d.get("distributedInfo") or {}, rank=rank)
    if slower != 1.0:
        t0 = min(e["ts"] for e in d["traceEvents"] if isinstance(e.get("ts"), (int, float)))
        for e in d["traceEvents"]:
            if isinstance(e.get("ts"), (int, float)):
                e["ts"] = round(t0 + (e["ts"] - t0) * slower, 3)
            if isinstance(e.get("dur"), (int, float)):
                e["dur"] = round(e["dur"] * slower, 3)
    with gzip.open(dst, "wt", compresslevel=1) as f:
        json.dump(d, f)


def report(db, *args):
    return run("report", "--run", "job", *args, db=db, check=False)


def make_shards(tmp):
    traces = [RANK0, RANK1]
    with gzip.open(RANK0, "rt") as f:
        rank0 = json.load(f)  # read once for the twelve copies
    for r in range(2, 14):
        traces.append(os.path.join(tmp, f"rank-{r}.json.gz"))
        rank_copy(rank0, traces[-1], r, slower=1.3 if r == 13 else 1.0)
    shards = []
    for i, t in enumerate(traces):
        shards.append(os.path.join(tmp, f"shard-{i}.db"))
        run("ingest", "-q", "--run", "job", t, db=shards[-1])
    prof = os.path.join(tmp, "pstats.db")
    run("ingest", "-q", "--run", "prof", PSTATS, db=prof)
    return shards, prof


def check_job_db(c, tmp, shards, prof):
    job = os.path.join(tmp, "job.db")
    code, _, err = run("merge", job, *shards[:4], prof, check=False)
    c.eq("merge: exit 0, one line", (code, err.count("\n")), (0, 1))
    full = os.path.join(tmp, "full.db")
    run("merge", "-q", "--full", full, *shards[:4], prof)
    counts, fcounts = table_counts(job), table_counts(full)
    c.eq("job database: no event rows", {t: counts[t] for t in EVENT_TABLES},
         {t: 0 for t in EVENT_TABLES})
    c.true("--full: the events are copied", fcounts["slices"] > 0 and fcounts["metadata_events"] > 0,
           str(fcounts))
    c.eq("job database: the tables that are not events as --full has them",
         {t: n for t, n in counts.items() if t not in EVENT_TABLES + ["shard_files"]},
         {t: n for t, n in fcounts.items() if t not in EVENT_TABLES + ["shard_files"]})
    _, out, _ = run("sql", "SELECT rank, path FROM shard_files ORDER BY rank", "--format",
                    "json", db=job)
    c.eq("shard_files: a row per rank naming its shard by its absolute path",
         [(r["rank"], r["path"]) for r in json.loads(out)],
         [(i, os.path.realpath(s)) for i, s in enumerate(shards[:4])])
    c.eq("--full: no shard files", fcounts["shard_files"], 0)
    size = os.path.getsize(job)
    total = sum(os.path.getsize(s) for s in shards[:4])
    print(f"job database {size} bytes, the shards {total} ({100 * size / total:.1f}%)")
    c.true("job database smaller than a third of the shards", size * 3 < total,
           f"{size} vs {total}")
    # the pstats run is copied whole
    c.eq("pstats run: the same report", run("report", "--run", "prof", "pstats", db=job)[1],
         run("report", "--run", "prof", "pstats", db=full)[1])
    return job, full


def check_reports(c, job, full):
    for r in CROSS_RANK:
        # (--compat hta: in the normal build; sanitizers see the same code paths)
        compat = r in ("gpu", "idle", "kernels") and not CHECKED
        for extra in ([], ["--compat", "hta"]) if compat else ([],):
            got, want = report(job, r, *extra), report(full, r, *extra)
            c.eq(f"{r} {' '.join(extra)}: the same output as --full", got, want)
    for r in TRACE_REPORTS:
        got = report(job, r)
        code, out, err = got
        if code == 2 and "--rank N" in err:
            # a refusal needs no --full output to compare with (and the
            # refused reports are the costly ones on 14 ranks' events)
            c.true(f"{r}: refused (exit 2, one line naming --rank, nothing on stdout)",
                   out == "" and err.count("\n") == 1, repr(got)[:300])
            continue
        c.eq(f"{r}: the same output as --full", got, report(full, r))
    folders = {}
    for name, db in (("job", job), ("full", full)):
        folders[name] = os.path.join(os.path.dirname(job), f"folder-{name}")
        code, _, err = report(db, "--out", folders[name])
        c.eq(f"report folder of the {name} database: exit 0", code, 0)
    csvs = sorted(f for f in os.listdir(folders["job"]) if f.endswith(".csv"))
    c.true("report folder: the cross-rank tables", {"gpu.csv", "kernels.csv", "ranks.csv"}
           <= set(csvs), str(csvs))
    for f in csvs:
        with open(os.path.join(folders["job"], f)) as a, \
                open(os.path.join(folders["full"], f)) as b:
            c.eq(f"report folder: {f} as --full", a.read(), b.read())
    with open(os.path.join(folders["job"], "index.md")) as f:
        index = f.read()
    c.true("report folder: launch listed as needing the ranks' events",
           "- `launch`: it needs its ranks' events" in index, index[-1500:])
    code, out, err = report(job)
    c.eq("overview: exit 0", (code, err), (0, ""))
    c.true("overview: says comm needs the ranks' events",
           "comm (it needs its ranks' events" in out, out[:2000])
    applies = next((line for line in out.splitlines() if line.startswith("reports that apply:")),
                   "").split()[3:]
    c.eq("overview: the reports that apply are those the job database answers",
         [r for r in TRACE_REPORTS if r in applies], CROSS_RANK)


def check_drill_down(c, tmp, job, shards):
    one = os.path.join(tmp, "one.db")
    run("merge", "-q", "--full", one, shards[1])
    for r in checked_subset(TRACE_REPORTS, 2, "reports"):
        code, out, err = report(job, "--rank", "1", r)
        want = report(one, r)
        c.eq(f"--rank 1 {r}: the output of a --full merge of that shard", (code, out),
             want[:2])
        c.true(f"--rank 1 {r}: names the shard it read",
               err.startswith(f"profdb: rank 1 of run 'job': events read from "
                              f"{os.path.realpath(shards[1])}\n"), err)
    code, out, err = report(job, "--rank", "9", "gpu")
    c.eq("--rank of no shard: exit 2, one line", (code, out, err.count("\n")), (2, "", 1))


def check_incremental(c, tmp, shards, job, full):
    inc = os.path.join(tmp, "inc.db")
    run("merge", "-q", inc, *shards[:2])
    run("merge", "-q", inc, *shards[2:4])
    for r in ("gpu", "kernels", "ranks", "steps"):
        c.eq(f"incremental merge: {r} as one merge", report(inc, r), report(job, r))
    c.eq("incremental merge: a shard again is refused", run("merge", "-q", inc, shards[3],
                                                            check=False)[0], 2)
    many = os.path.join(tmp, "many.db")
    run("merge", "-q", many, *shards)
    _, out, _ = run("sql", "SELECT rank, path FROM shard_files ORDER BY rank", "--format",
                    "json", db=many)
    c.eq("14 shards (merged in groups): the real shards recorded",
         [(r["rank"], r["path"]) for r in json.loads(out)],
         [(i, os.path.realpath(s)) for i, s in enumerate(shards)])
    fullmany = os.path.join(tmp, "fullmany.db")
    run("merge", "-q", "--full", fullmany, *shards)
    for r in ("gpu", "ranks"):
        c.eq(f"14 shards: {r} as --full", report(many, r), report(fullmany, r))
    c.eq("14 shards: --rank 13 launch as a --full merge of that shard",
         report(many, "--rank", "13", "launch")[:2],
         report(one_rank_db(tmp, shards[13]), "launch")[:2])
    # a job database merged into another brings its shard files
    again = os.path.join(tmp, "again.db")
    run("merge", "-q", again, inc)
    c.eq("a job database merged again: its shard files",
         run("sql", "SELECT rank, path FROM shard_files ORDER BY rank", db=again)[1],
         run("sql", "SELECT rank, path FROM shard_files ORDER BY rank", db=inc)[1])
    c.eq("a job database merged again: --rank 2 gpu", report(again, "--rank", "2", "gpu")[:2],
         report(inc, "--rank", "2", "gpu")[:2])


def one_rank_db(tmp, shard):
    path = os.path.join(tmp, "one-" + os.path.basename(shard))
    if not os.path.exists(path):
        run("merge", "-q", "--full", path, shard)
    return path


def check_broken_shards(c, tmp, job, shards):
    before = report(job, "gpu")
    # modified: a row written into the shard
    run("sql", "--write", "UPDATE runs SET created_at = created_at || ' '", db=shards[2])
    code, out, err = report(job, "--rank", "2", "launch")
    c.eq("modified shard: exit 2, one line, nothing on stdout",
         (code, out, err.count("\n")), (2, "", 1))
    c.true("modified shard: names the file and says it changed",
           err.startswith(f"profdb: {os.path.realpath(shards[2])}: ") and "changed" in err, err)
    # deleted
    os.rename(shards[3], shards[3] + ".away")
    code, out, err = report(job, "--rank", "3", "gpu")
    c.eq("deleted shard: exit 2, one line, nothing on stdout",
         (code, out, err.count("\n")), (2, "", 1))
    c.true("deleted shard: names the file",
           err.startswith(f"profdb: {os.path.realpath(shards[3])}: "), err)
    c.eq("deleted and modified shards: cross-rank reports still answer",
         report(job, "gpu"), before)
    os.rename(shards[3] + ".away", shards[3])
    code, _, err = run("analyze", "job", db=job, check=False)
    c.eq("analyze of a run in shards: refused, one line", (code, err.count("\n")), (2, 1))


def check_compare(c, tmp, shards):
    other = os.path.join(tmp, "job2.db")
    run("ingest", "-q", "--run", "job2", RANK1, db=other)
    two, twofull = os.path.join(tmp, "two.db"), os.path.join(tmp, "twofull.db")
    run("merge", "-q", two, shards[0], other)
    run("merge", "-q", "--full", twofull, shards[0], other)
    for kind in ([], ["gpu"], ["kernels"], ["ops"], ["steps"]):
        c.eq(f"diff {' '.join(kind)}: as on --full",
             run("diff", "job", "job2", *kind, db=two, check=False),
             run("diff", "job", "job2", *kind, db=twofull, check=False))
    c.eq("check -m step_time: as on --full",
         run("check", "job", "job2", "-m", "step_time=10%", db=two, check=False),
         run("check", "job", "job2", "-m", "step_time=10%", db=twofull, check=False))
    code, _, err = run("check", "job", "job2", "-m", "kernel-type:COMPUTATION=10%", db=two,
                       check=False)
    c.true("check of a metric read from events: refused, naming --full",
           code == 2 and err.splitlines()[-1].endswith("merge the shards with --full to "
                                                      "compare such runs"), err)
    c.eq("trend step_time: as on --full", run("trend", "step_time", db=two, check=False),
         run("trend", "step_time", db=twofull, check=False))
    code, out, err = run("trend", "kernel-type:COMPUTATION", db=two, check=False)
    c.true("trend of a metric read from events: refused, one line naming --full",
           code == 2 and out == "" and err.count("\n") == 1 and "with --full" in err, err)
    c.true("the same check on --full: answered (exit 0 or 1)",
           run("check", "job", "job2", "-m", "kernel-type:COMPUTATION=10%", db=twofull,
               check=False)[0] in (0, 1))


def nearest(sorted_values, p_num, p_den):
    """The value at position ceil(p * n) (1-based) of sorted values."""
    n = len(sorted_values)
    return sorted_values[max(1, -(-p_num * n // p_den)) - 1]


def check_spread(c, tmp, shards):
    """rank-spread on the 14 ranks (rank 13 stretched by 1.3) against a
    recomputation from the job database's analysis tables."""
    many = os.path.join(tmp, "many.db")
    code, out, err = report(many, "rank-spread", "--format", "json", "--unit", "ns")
    c.eq("rank-spread: exit 0", (code, err), (0, ""))
    got = {r["measure"]: r for r in json.loads(out)}
    con = sqlite3.connect(f"file:{many}?mode=ro", uri=True)
    steps = "SELECT rank, avg({}) FROM analysis_steps GROUP BY rank"
    gpu = "SELECT rank, {} FROM analysis_gpu WHERE mode = 'exact'"
    measures = {"step": steps.format("dur_ns"),
                "step: data loading": steps.format("dataloader_ns"),
                "step: CPU execution": steps.format("cpu_exec_ns"),
                "step: GPU kernels": steps.format("kernel_ns"),
                "GPU busy": gpu.format("busy_ns"), "GPU computation": gpu.format("compute_ns"),
                "GPU communication": gpu.format("comm_ns"), "GPU idle": gpu.format("idle_ns")}
    c.eq("rank-spread: its measures", list(got), list(measures))
    for name, query in measures.items():
        vals = dict(con.execute(query).fetchall())
        order = sorted(vals.values())
        med = nearest(order, 1, 2)
        mad = nearest(sorted(abs(v - med) for v in order), 1, 2)
        high = sorted((r for r, v in vals.items()
                       if v > med + 3 * mad and v >= med * 1.05 and v > med),
                      key=lambda r: (-vals[r], r))
        row = got.get(name, {})
        want = {"ranks": len(order), "min_ns": order[0], "p10_ns": nearest(order, 1, 10),
                "median_ns": med, "p90_ns": nearest(order, 9, 10), "max_ns": order[-1],
                "high_ranks": len(high)}
        c.eq(f"rank-spread {name}: as recomputed",
             {k: round(row.get(k, 0), 3) for k in want}, {k: round(v, 3) for k, v in want.items()})
        named = [x.split(" ")[0] for x in row.get("highest", "").split(", ") if x and "more" not in x]
        c.eq(f"rank-spread {name}: the highest ranks named", named, [str(r) for r in high[:5]])
    con.close()
    c.true("rank-spread: the stretched rank 13 is the step's outlier, about 30% above",
           got["step"]["highest"].startswith("13 (+30.") or
           got["step"]["highest"].startswith("13 (+29."), got["step"])
    full = os.path.join(tmp, "fullmany.db")
    c.eq("rank-spread: as on --full", report(many, "rank-spread"), report(full, "rank-spread"))


def check_slurm_merge(c, tmp, shards):
    """scripts/slurm/merge.sh run by hand (what the dependent Slurm job
    runs): PROFDB_KEEP_SHARDS=1 merges without --full and keeps the shards;
    by default --full, and the shards are deleted."""
    script = os.path.join(SOURCE, "scripts", "slurm", "merge.sh")
    for keep in ("1", None):
        d = os.path.join(tmp, f"slurm-{keep}")
        os.mkdir(d)
        with open(os.path.join(d, "inputs.txt"), "w") as f:
            f.write("rank-0\nrank-1\n")
        for i in range(2):
            shutil.copy(shards[i], os.path.join(d, f"shard-{i}.db"))
        out = os.path.join(tmp, f"slurm-{keep}.db")
        env = dict(os.environ, PROFDB=PROFDB, PROFDB_RUN="job")
        if keep:
            env["PROFDB_KEEP_SHARDS"] = keep
        p = subprocess.run(["sh", script, out, d, "rank-spread"], env=env,
                           capture_output=True, text=True)
        what = "merge.sh with PROFDB_KEEP_SHARDS=1" if keep else "merge.sh"
        c.eq(f"{what}: exit 0", p.returncode, 0)
        kept = sorted(f for f in os.listdir(d) if f.startswith("shard-"))
        c.eq(f"{what}: the shards kept or deleted", kept,
             ["shard-0.db", "shard-1.db"] if keep else [])
        counts = table_counts(out)
        c.eq(f"{what}: events left in the shards or copied",
             (counts["shard_files"], counts["slices"] > 0), (2, False) if keep else (0, True))
        with open(os.path.join(d, "report.txt")) as f:
            c.eq(f"{what}: report.txt as the report of a --full merge", f.read(),
                 run("report", "--run", "job", "rank-spread", db=two_ranks(tmp, shards))[1])


def two_ranks(tmp, shards):
    path = os.path.join(tmp, "two-ranks-full.db")
    if not os.path.exists(path):
        run("merge", "-q", "--full", path, shards[0], shards[1])
    return path


def main():
    c = Checker()
    with tempdir() as tmp:
        shards, prof = make_shards(tmp)
        job, full = check_job_db(c, tmp, shards, prof)
        check_reports(c, job, full)
        check_drill_down(c, tmp, job, shards)
        check_incremental(c, tmp, shards, job, full)
        check_spread(c, tmp, shards)
        check_compare(c, tmp, shards)
        check_slurm_merge(c, tmp, shards)
        check_broken_shards(c, tmp, job, shards)
    c.close()


if __name__ == "__main__":
    main()
