"""rank-spread names a straggler with its cause (issue 35).

Small generated jobs (profdb-gentrace, 8 ranks of 3 steps, ingested by
`ingest --jobs 2` into one node's shard and merged without --full), rank 5
a designed straggler (`--straggle KIND:F`, the other ranks KIND:1) whose
extra time is in its compute kernels, its all-reduces or its data loading:

1. The step row of rank-spread names rank 5 first, with the cause the
   straggler was made with ('GPU computation', 'GPU communication', 'data
   loading'); every rank it names carries the cause recomputed here from the
   job database's analysis tables (the part, per step, furthest above its
   median); the output is that of the shard itself (all its events).
2. `ranks` on 21 ranks of 3 steps (63 steps: the test's normal
   approximation, whose smallest p-value, 3 steps above all 60 others, is
   recomputed here, times 21 ranks stays above 0.01): every rank's note is
   'too few steps to test' (was: none, since the floor was taken from the
   exact distribution, 1/C(63, 3), which the approximation never reaches).
3. rank-kernels (each kind): the named ranks' top 5 kernels by GPU time
   against the median rank's, as recomputed from the job database's
   analysis_kernels (it holds no events), and as on the shard itself.
4. profdb-gentrace --straggle: KIND:1 is the same trace for every KIND (the
   bench's other ranks are shared between kinds); a wrong KIND or F is its
   usage line and exit 2.

bench/job_scale.sh does the same at 1,024 ranks."""

import json
import math
import os
import sqlite3
import subprocess

from common import GENTRACE, Checker, run, tempdir

RANKS, STRAGGLER, STEPS = 8, 5, 3
KINDS = {"compute:1.5": "GPU computation", "comm:1.5": "GPU communication",
         "data:4": "data loading"}
PARTS = {"data loading": "SELECT rank, avg(dataloader_ns) FROM analysis_steps GROUP BY rank",
         "CPU execution": "SELECT rank, avg(cpu_exec_ns) FROM analysis_steps GROUP BY rank",
         "GPU computation": "SELECT g.rank, 1.0 * g.compute_ns / s.n FROM analysis_gpu g JOIN "
                            "(SELECT rank, count(*) AS n FROM analysis_steps GROUP BY rank) s "
                            "USING (rank) WHERE g.mode = 'exact'",
         "GPU communication": "SELECT g.rank, 1.0 * g.comm_ns / s.n FROM analysis_gpu g JOIN "
                              "(SELECT rank, count(*) AS n FROM analysis_steps GROUP BY rank) s "
                              "USING (rank) WHERE g.mode = 'exact'"}


def gen(path, rank, straggle, world=RANKS):
    subprocess.run([GENTRACE, "--steps", str(STEPS), "--rank", str(rank), "--world", str(world),
                    "--seed", str(rank), "--straggle", straggle, path], check=True,
                   capture_output=True)
    return path


def causes(db):
    """Each rank's cause as rank-spread defines it: of the parts per step,
    the one furthest above its median (nearest rank), in ns."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    best = {}
    for part, query in PARTS.items():
        vals = dict(con.execute(query).fetchall())
        order = sorted(vals.values())
        med = order[(len(order) + 1) // 2 - 1]
        for rank, v in vals.items():
            if v > med and (rank not in best or v - med > best[rank][0]):
                best[rank] = (v - med, part)
    con.close()
    return {r: p for r, (_, p) in best.items()}


def top_kernels(db, named, top):
    """rank-kernels recomputed from analysis_kernels: each named rank's top
    kernels by GPU time (exact mode) against the median rank's (by mean
    step time, nearest rank), the step row's excess as rank-spread prints it."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    steps = dict(con.execute("SELECT rank, avg(dur_ns) FROM analysis_steps GROUP BY rank"))
    order = sorted(steps, key=lambda r: (steps[r], r))
    med_rank = order[(len(order) + 1) // 2 - 1]
    med = steps[med_rank]
    kern = {}
    for rank, name, count, total in con.execute(
            "SELECT rank, name, count, total_ns FROM analysis_kernels WHERE mode = 'exact'"):
        kern.setdefault(rank, {})[name] = (count, total)
    con.close()
    rows = []
    for rank in named:
        mine = sorted(kern[rank].items(), key=lambda kv: -kv[1][1])[:top]
        for name, (count, total) in mine:
            mc, mt = kern[med_rank].get(name, (None, None))
            rows.append({"rank": rank, "outlier": f"step +{100.0 * (steps[rank] - med) / med:.1f}%",
                         "median_rank": med_rank, "kernel": name, "count": count,
                         "total_us": total / 1e3, "median_rank_count": mc,
                         "median_rank_total_us": None if mt is None else mt / 1e3,
                         "excess_us": (total - (mt or 0)) / 1e3})
    return rows


def main():
    c = Checker()
    with tempdir() as tmp:
        for kf, cause in KINDS.items():
            kind = kf.split(":")[0]
            traces = [gen(os.path.join(tmp, f"{kind}-{r}.json"), r,
                          kf if r == STRAGGLER else f"{kind}:1") for r in range(RANKS)]
            # one node's shard (ingest --jobs keeps every event: as a --full merge)
            full = os.path.join(tmp, f"{kind}-node.db")
            run("ingest", "-q", "--jobs", "2", "--run", "job", *traces, db=full)
            job = os.path.join(tmp, f"{kind}-job.db")
            run("merge", "-q", job, full)
            _, out, _ = run("report", "rank-spread", "--format", "json", db=job)
            step = {r["measure"]: r for r in json.loads(out)}["step"]["highest"]
            c.true(f"{kf}: rank {STRAGGLER} named first on the step row with '{cause}'",
                   step.startswith(f"{STRAGGLER} (+") and
                   step.split(", ")[0].endswith(f": {cause})"), step)
            want = causes(job)
            for named in (x for x in step.split(", ") if x and "more" not in x):
                rank = int(named.split(" ")[0])
                c.eq(f"{kf}: rank {rank}'s cause as recomputed", named.split(": ")[-1].rstrip(")"),
                     want.get(rank))
            c.eq(f"{kf}: rank-spread as on --full", run("report", "rank-spread", db=job),
                 run("report", "rank-spread", db=full))
            named = [int(x.split(" ")[0]) for x in step.split(", ") if x and "more" not in x]
            got = json.loads(run("report", "rank-kernels", "--format", "json", db=job)[1])
            c.eq(f"{kf}: rank-kernels rows as recomputed", got, top_kernels(job, named[:5], 5))
            c.eq(f"{kf}: rank-kernels as on --full", run("report", "rank-kernels", db=job),
                 run("report", "rank-kernels", db=full))
        many = [gen(os.path.join(tmp, f"r21-{r}.json"), r, "data:4" if r == 7 else "data:1", 21)
                for r in range(21)]
        db21 = os.path.join(tmp, "r21.db")
        run("ingest", "-q", "--jobs", "2", "--run", "job", *many, db=db21)
        rows = json.loads(run("report", "ranks", "--format", "json", db=db21)[1])
        n1, n2 = STEPS, 20 * STEPS
        sd = math.sqrt(n1 * n2 / 12.0 * (n1 + n2 + 1))
        floor = 0.5 * math.erfc((n1 * n2 / 2.0 - 0.5) / sd / math.sqrt(2))
        c.true("21 ranks of 3 steps: the approximation's floor times 21 is not below 0.01",
               floor * 21 >= 0.01, floor)
        c.eq("21 ranks of 3 steps: every note 'too few steps to test'",
             [r["note"] for r in rows], ["too few steps to test"] * 21)
        c.true("... and no p-value could have been flagged",
               all(r["p_value"] >= floor * 0.999 for r in rows), [r["p_value"] for r in rows])
        same = [open(gen(os.path.join(tmp, f"one-{k}.json"), 3, f"{k}:1"), "rb").read()
                for k in ("compute", "comm", "data")]
        c.true("--straggle KIND:1: the same trace for every KIND", same[0] == same[1] == same[2])
        for bad in ("fast:2", "data:0.5", "data:", "data", "comm:2x", "compute:101"):
            p = subprocess.run([GENTRACE, "--straggle", bad, os.path.join(tmp, "bad.json")],
                               capture_output=True, text=True)
            c.eq(f"--straggle {bad}: usage, exit 2",
                 (p.returncode, p.stderr.startswith("usage: profdb-gentrace")), (2, True))
    c.close()


if __name__ == "__main__":
    main()
