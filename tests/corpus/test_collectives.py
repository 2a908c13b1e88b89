"""report collectives: the same collective's skew across ranks (issue 35).

Recomputed here from the trace files themselves (json, not profdb's tables):
every GPU kernel named like NCCL's (^nccl, ncclKernel, ^hccl) is one rank's
part of a collective of kind args["Collective name"] (else the kernel name's)
in group args["Process Group Name"] (else none); instances are matched across
ranks by args.Seq, else by their place in each rank's start order of that kind
and group. An instance's skew is its longest kernel minus its shortest (the
arrivals measured back from the collective's end, which every rank shares);
p50/p90/max by nearest rank over instances of two ranks or more; a rank's
lateness is the instance's upper median duration minus its own, and a rank is
named when its mean lateness is at least half the median skew.

1. A generated job (profdb-gentrace --late 5:400: rank 5 arrives 400 us late
   at every all-reduce; the kernels carry Seq and the group), 8 ranks in two
   node shards merged without --full: the numbers as recomputed, rank 5 alone
   named, matched by Seq; the same output as the shards merged --full.
2. The corpus's two sampled ranks of a 128-rank job (no collective args):
   matched by order, and said so; the numbers as recomputed.
3. The corpus's NCCL trace with collective args but no Seq (PyTorch 2.2), as
   rank 0 and as a rank 1 whose all-reduces are 50 us shorter (it arrived
   late): matched by order within (kind, group); the numbers as recomputed.
4. One rank: the report says there is nothing to compare, exit 0; a bad
   --late is gentrace's usage line and exit 2."""

import gzip
import json
import os
import re
import subprocess

from common import GENTRACE, Checker, have_corpus, run, tempdir

RANKS, LATE, LATE_US, STEPS = 8, 5, 400, 3
KINDS = (("AllReduce", "allreduce"), ("AllGather", "allgather"),
         ("ReduceScatter", "reduce_scatter"), ("Broadcast", "broadcast"),
         ("SendRecv", "send_recv"), ("AllToAll", "all_to_all"), ("Reduce", "reduce"))


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def ns(us):
    return round(float(us) * 1000)


def parts(trace):
    """(kind, group, seq or None, start, end) of each communication kernel,
    in file order."""
    out = []
    for e in trace["traceEvents"]:
        name, a = e.get("name", ""), e.get("args", {})
        if e.get("ph") != "X" or not isinstance(a.get("stream"), int):
            continue
        if not (name.startswith("nccl") or "ncclKernel" in name or name.startswith("hccl")):
            continue
        kind = a.get("Collective name") or next((k for p, k in KINDS if p in name), "other")
        seq = a.get("Seq") if isinstance(a.get("Seq"), int) else None
        out.append((kind, a.get("Process Group Name", ""), seq, ns(e["ts"]),
                    ns(e["ts"]) + ns(e["dur"])))
    return out


def instances(traces):
    """{(kind, group, by, id): {rank: duration ns}}."""
    inst = {}
    for rank, tr in traces.items():
        seqd, plain = {}, []
        for i, (kind, pg, seq, s, e) in enumerate(parts(tr)):
            if seq is not None:
                lo, hi = seqd.get((kind, pg, seq), (s, e))
                seqd[(kind, pg, seq)] = (min(lo, s), max(hi, e))
            else:
                plain.append((s, i, kind, pg, e))
        for (kind, pg, seq), (s, e) in seqd.items():
            inst.setdefault((kind, pg, "Seq", seq), {})[rank] = e - s
        place = {}
        for s, i, kind, pg, e in sorted(plain):
            n = place[(kind, pg)] = place.get((kind, pg), 0) + 1
            inst.setdefault((kind, pg, "order", n), {})[rank] = e - s
    return inst


def expected(traces):
    groups = {}
    for (kind, pg, by, _), durs in instances(traces).items():
        if len(durs) >= 2:
            groups.setdefault((kind, pg, by), []).append(durs)
    out = {}
    for key, insts in groups.items():
        skews = sorted(max(d.values()) - min(d.values()) for d in insts)
        n = len(skews)
        p50, p90, hi = skews[(n + 1) // 2 - 1], skews[(9 * n + 9) // 10 - 1], skews[-1]
        late = {}
        for d in insts:
            order = sorted(d.items(), key=lambda kv: (kv[1], kv[0]))
            med = order[len(order) // 2][1]
            for rank, dur in d.items():
                x = late.setdefault(rank, [0, 0, 0])
                x[0] += med - dur
                x[1] += rank == order[0][0]
                x[2] += 1
        named = sorted(((r, s / k, t, k) for r, (s, t, k) in late.items()
                        if s / k > 0 and s / k >= p50 / 2), key=lambda x: (-x[1], x[0]))[:3]
        out[key] = (n, p50, p90, hi, named)
    return out


def check_report(c, what, rows, traces):
    want = expected(traces)
    got = {(r["kind"], r["process_group"], "Seq" if r["matched_by"] == "Seq" else "order"): r
           for r in rows}
    c.eq(f"{what}: (kind, group, matched by) rows", sorted(got), sorted(want))
    for key, (n, p50, p90, hi, named) in want.items():
        r = got.get(key)
        if not r:
            continue
        c.eq(f"{what} {key}: instances, skew p50/p90/max (us)",
             (r["instances"], r["skew_p50_us"], r["skew_p90_us"], r["skew_max_us"]),
             (n, p50 / 1e3, p90 / 1e3, hi / 1e3))
        c.eq(f"{what} {key}: latest ranks named",
             r["latest"], ", ".join(f"{rk} (+{lt / 1e3:.1f} us, last {t}/{k})"
                                    for rk, lt, t, k in named))
        if key[2] == "order":
            c.eq(f"{what} {key}: says it matched by order", r["matched_by"],
                 "order (no Seq in the traces)")
    return want


def main():
    c = Checker()
    with tempdir() as tmp:
        # 1. a generated job with a designed late rank, shard-backed
        paths = []
        for r in range(RANKS):
            p = os.path.join(tmp, f"rank-{r}.json")
            subprocess.run([GENTRACE, "--steps", str(STEPS), "--rank", str(r), "--world",
                            str(RANKS), "--seed", str(r), "--late", f"{LATE}:{LATE_US}", p],
                           check=True, capture_output=True)
            paths.append(p)
        nodes = [os.path.join(tmp, f"node-{k}.db") for k in range(2)]
        for k, node in enumerate(nodes):
            run("ingest", "-q", "--jobs", "2", "--run", "job", *paths[4 * k:4 * k + 4], db=node)
        job, full = os.path.join(tmp, "job.db"), os.path.join(tmp, "full.db")
        run("merge", "-q", job, *nodes)
        run("merge", "-q", "--full", full, *nodes)
        c.eq("the job database holds no events",
             run("sql", "SELECT count(*) FROM slices", "--format", "csv", db=job)[1].split(),
             ["count(*)", "0"])
        rows = json.loads(run("report", "collectives", "--format", "json", db=job)[1])
        want = check_report(c, "generated job", rows, {r: load(p) for r, p in enumerate(paths)})
        c.eq("generated job: one all-reduce row matched by Seq", list(want),
             [("allreduce", "0", "Seq")])
        m = re.fullmatch(rf"{LATE} \(\+([0-9.]+) us, last {3 * STEPS}/{3 * STEPS}\)",
                         rows[0]["latest"] if rows else "")
        c.true(f"generated job: rank {LATE} alone named, {LATE_US} us late (+ jitter under 10 us)",
               m and LATE_US - 10 < float(m.group(1)) < LATE_US + 10, rows)
        c.eq("generated job: the same as merged --full", run("report", "collectives", db=job),
             run("report", "collectives", db=full))

        # 2. the corpus's two sampled ranks: no collective args
        r0 = have_corpus("traces", "trace_filter_sampled_rank-0.json.gz")
        r1 = have_corpus("traces", "trace_filter_sampled_rank-1.json.gz")
        if r0 and r1:
            db = os.path.join(tmp, "sampled.db")
            run("ingest", "-q", "--run", "s", r0, r1, db=db)
            rows = json.loads(run("report", "collectives", "--format", "json", db=db)[1])
            want = check_report(c, "sampled ranks", rows, {0: load(r0), 1: load(r1)})
            c.true("sampled ranks: some collective matched", len(want) > 0, want)

        # 3. collective args without Seq: a rank 1 whose all-reduces are shorter
        nc = have_corpus("traces", "nccl_parser_config_nccl_data.json.gz")
        if nc:
            t0 = load(nc)
            t1 = load(nc)
            t1["distributedInfo"]["rank"] = 1
            for e in t1["traceEvents"]:
                a = e.get("args", {})
                if e.get("ph") == "X" and "stream" in a and a.get("Collective name") == \
                        "allreduce" and e["dur"] > 60:
                    e["dur"] = round(e["dur"] - 50, 3)
            p1 = os.path.join(tmp, "nccl-rank1.json")
            with open(p1, "w") as f:
                json.dump(t1, f)
            db = os.path.join(tmp, "nccl.db")
            run("ingest", "-q", "--run", "n", nc, p1, db=db)
            rows = json.loads(run("report", "collectives", "--format", "json", db=db)[1])
            want = check_report(c, "NCCL args without Seq", rows, {0: t0, 1: t1})
            c.true("NCCL args without Seq: allreduce in group '0' by order",
                   ("allreduce", "0", "order") in want, want)
            c.true("NCCL args without Seq: rank 1 named on allreduce",
                   any(r["kind"] == "allreduce" and r["latest"].startswith("1 (+")
                       for r in rows), rows)

        # 4. one rank; a bad --late
        one = os.path.join(tmp, "one.db")
        run("ingest", "-q", "--run", "one", paths[0], db=one)
        code, out, err = run("report", "collectives", db=one, check=False)
        c.eq("one rank: does not apply, says why (exit 2, nothing on stdout)",
             (code, out, "it needs collective kernels on two or more ranks" in err),
             (2, "", True))
        for bad in ("8:400", "5", "5:", "5:-1", "x:400", "5:400us"):
            p = subprocess.run([GENTRACE, "--world", "8", "--late", bad,
                                os.path.join(tmp, "bad.json")], capture_output=True, text=True)
            c.eq(f"--late {bad}: usage, exit 2",
                 (p.returncode, p.stderr.startswith("usage: profdb-gentrace")), (2, True))
    c.close()


if __name__ == "__main__":
    main()
