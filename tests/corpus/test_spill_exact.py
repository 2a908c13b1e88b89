"""Bounded memory changes no number: every spill path gives the same rows.

Readers and passes keep bounded state in memory and move the rest to
SQLite (interned strings, open B events, per-name records, op stacks,
step windows, step buckets, launches in flight, the launch queue's
streams and their values). Real traces seldom pass a bound, so PROFDB_SPILL_TEST=1 makes
every bound a handful and each trace here is ingested twice, normally and
so: every raw table and every analysis table must hold the same rows
(analysis_queue in the same order too: its rows are written in an order
that the spilled streams' path must keep). The traces are generated in each
hostile shape (distinct names, a thread per event with B events all open
at once, many streams, many short steps), a typical trace, a hand-made B/E
trace with nesting, unmatched and reversed pairs and a thread nested past
the depth cap (test_spill_exact_corpus.py does the same with the corpus
traces).

Each ingest also logs the paths past a bound it took (PROFDB_SPILL_LOG,
common/bounds.h): the normal ingests must take none (else both sides of
the comparison would run the same code) and the ingests with tiny bounds
together every one of PATHS (a path added to profdb must be added there,
and get an input that reaches it).

A second check compares B/E pairing with an independent pairing written
here (a stack per (pid, tid), as the trace-event format defines)."""

import json
import os
import subprocess

from common import GENTRACE, PROFDB, Checker, run, scaled, tempdir

TABLES = {
    "slices": "SELECT r.name, x.ph, n.value, c.value, x.pid, x.tid, x.ts, x.dur, x.stream,"
              " x.correlation, x.input_dims, x.args FROM slices x JOIN traces t USING (trace_id)"
              " JOIN runs r USING (run_id) JOIN strings n ON n.id = x.name"
              " LEFT JOIN strings c ON c.id = x.cat",
    "skips": "SELECT r.name, reason, count FROM skips JOIN runs r USING (run_id)",
    "trace_steps": "SELECT name, ph, ts, dur FROM trace_steps",
    # analysis_op_steps may split a step's op in parts past a bound: summed
    "analysis_op_steps": "SELECT r.name, rank, step, o.name, cat, sum(calls), sum(total_ns),"
                         " sum(self_ns) FROM analysis_op_steps o JOIN runs r USING (run_id)"
                         " GROUP BY 1, 2, 3, 4, 5",
    "gpu_attribution": "SELECT r.name, rank, n.value, dur_ns, step, l.ts, o.value, t.value,"
                       " a.value, g.value, m.value FROM analysis_gpu_attribution x"
                       " JOIN runs r USING (run_id) JOIN strings n ON n.id = x.name"
                       " LEFT JOIN slices l ON l.id = x.launch_id"
                       " LEFT JOIN strings o ON o.id = x.op LEFT JOIN strings t ON t.id = x.top_op"
                       " LEFT JOIN strings a ON a.id = x.annotation"
                       " LEFT JOIN strings g ON g.id = x.gpu_annotation"
                       " LEFT JOIN strings m ON m.id = x.module",
}
for t in ("analysis_gpu", "analysis_kernel_types", "analysis_kernels", "analysis_ops",
          "analysis_steps", "analysis_idle", "analysis_annotations", "analysis_queue",
          "analysis_queue_ranks"):
    TABLES[t] = f"SELECT r.name, x.* FROM {t} x JOIN runs r USING (run_id)"


# Every path past a bound, as pdb_bound_passed() names it; recstore tables
# as pdb_rs_<name>.
PATHS = {
    "interned strings: a generation dropped",
    "open B events sent to a table",
    "op stacks sent to a table",
    "op stack back from the table",
    "step bucket written in parts",
    "launches in flight sent to a table", "launchers sent to a table",
    "pdb_rs_ops", "pdb_rs_nodes", "pdb_rs_kernels",
    "pdb_rs_ranges",
    "pdb_rs_queue_exact", "pdb_rs_queue_hta", "pdb_rs_queue_hist",
    "queue points sent to a table", "queue values summed in parts", "pdb_rs_idle", "pdb_rs_idle_hta",
}


# Tables whose rows must also come in the same order (by rowid).
ORDERED = {
    "analysis_queue (in order)": "SELECT r.name, x.* FROM analysis_queue x"
                                 " JOIN runs r USING (run_id) ORDER BY x.rowid",
}


def rows(db, sql, ordered=False):
    p = subprocess.run([PROFDB, "--db", db, "sql", "--format", "json", sql],
                       capture_output=True, text=True, check=True)
    # run ids and row ids may differ; everything else must not
    got = [json.dumps({k: v for k, v in r.items() if k not in ("run_id",)}, sort_keys=True)
           for r in json.loads(p.stdout or "[]")]
    return got if ordered else sorted(got)


def ingest(db, run_name, path, spill):
    """Ingests path as run_name; returns the set of paths past a bound taken."""
    env = dict(os.environ)
    env.pop("PROFDB_SPILL_TEST", None)
    if spill:
        env["PROFDB_SPILL_TEST"] = "1"
    log = db + ".spill-log"
    if os.path.exists(log):
        os.remove(log)
    env["PROFDB_SPILL_LOG"] = log
    p = subprocess.run([PROFDB, "--db", db, "ingest", "-q", "--run", run_name, path], env=env,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    if not os.path.exists(log):
        return set()
    with open(log) as f:
        return set(f.read().split("\n")) - {""}


def be_trace(path, deep):
    """B/E pairs as a hand-written trace: nesting, an E without a B, a B
    without an E, an E earlier than its B, 30 threads each with a B left
    open at once (more than the spill bound); if deep, one thread nested
    past the cap of 10,000 open B events (more open events than a normal
    ingest holds in memory: both ingests pair it in the table)."""
    ev = []
    def b(tid, ts, name="b"):
        ev.append({"ph": "B", "name": name, "cat": "cpu_op", "pid": 1, "tid": tid, "ts": ts})
    def e(tid, ts):
        ev.append({"ph": "E", "pid": 1, "tid": tid, "ts": ts})
    b(1, 10, "outer"), b(1, 12, "inner"), e(1, 15), e(1, 20)
    e(2, 5)                      # no B
    b(3, 30, "never closed")
    b(4, 50), e(4, 40)           # E before its B
    for t in range(30):
        b(100 + t, 100 + t, f"open{t}")
    for t in reversed(range(30)):
        e(100 + t, 500 - t)
    for k in range(10005 if deep else 0):     # past the per-thread cap
        b(7, 1000 + k, "deep")
    for k in range(10005 if deep else 0):
        e(7, 30000 + k)
    ev.append({"ph": "X", "name": "x", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 11, "dur": 1})
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)
    return ev


def interleaved_trace(path):
    """Twelve threads, each inside one long op, taking turns with short ops:
    more threads with open ops than the stacks the op pass keeps (with tiny
    bounds), each coming back after its stack was sent to the table."""
    ev = []
    for t in range(12):
        ev.append({"ph": "X", "name": f"outer{t}", "cat": "cpu_op", "pid": 1, "tid": t,
                   "ts": 0, "dur": 100000})
    for r in range(50):
        for t in range(12):
            ev.append({"ph": "X", "name": f"op{r % 7}", "cat": "cpu_op", "pid": 1, "tid": t,
                       "ts": 10 + (r * 12 + t) * 10, "dur": 5})
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


def deep_queue_trace(path):
    """Six streams, each sent eight kernels at once that start one after
    another: the launch queue of each stream takes nine values, more than
    the values of a spilled stream summed at once (with tiny bounds)."""
    ev, corr = [], 1
    for st in range(6):
        for i in range(8):
            ev.append({"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 1,
                       "tid": 1, "ts": 1000 * st + 10 + i, "dur": 1,
                       "args": {"correlation": corr}})
            ev.append({"ph": "X", "name": f"kernel{i % 3}", "cat": "kernel", "pid": 0,
                       "tid": 7 + st, "ts": 1000 * st + 100 + 10 * i, "dur": 5,
                       "args": {"stream": 7 + st, "correlation": corr, "device": 0}})
            corr += 1
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


def pair(events):
    """The trace-event format's pairing: per (pid, tid) an E closes the
    innermost open B. Returns (pairs as (name, tid, ts, dur), skip counts)."""
    stacks, pairs, skips = {}, [], {}
    def skip(why):
        skips[why] = skips.get(why, 0) + 1
    for ev in events:
        key = (ev["pid"], ev["tid"])
        if ev["ph"] == "B":
            s = stacks.setdefault(key, [])
            if len(s) >= 10000:
                skip("B event nested deeper than 10000 on one thread")
            else:
                s.append(ev)
        elif ev["ph"] == "E":
            s = stacks.get(key)
            if not s:
                skip("E event without a matching B")
                continue
            open_b = s.pop()
            if ev["ts"] < open_b["ts"]:
                skip("E event earlier than its B")
            else:
                pairs.append((open_b["name"], ev["tid"], open_b["ts"] * 1000,
                              (ev["ts"] - open_b["ts"]) * 1000))
    for s in stacks.values():
        for _ in s:
            skip("B event without a matching E")
    return sorted(pairs), skips


def check_pairing(c, tmp, events, spill):
    db = os.path.join(tmp, f"pairs{int(spill)}.db")
    ingest(db, "be", os.path.join(tmp, "deep.json"), spill)
    _, out, _ = run("sql", "--format", "json", "SELECT n.value AS name, x.tid, x.ts, x.dur"
                    " FROM slices x JOIN strings n ON n.id = x.name WHERE x.ph = 'B'", db=db)
    got = sorted((r["name"], r["tid"], r["ts"], r["dur"]) for r in json.loads(out))
    want, skips = pair(events)
    mode = "spilled" if spill else "in memory"
    c.eq(f"B/E pairs {mode} equal the format's pairing ({len(want)} pairs)", got, want)
    _, out, _ = run("sql", "--format", "json", "SELECT reason, count FROM skips", db=db)
    c.eq(f"B/E skips {mode}", {r["reason"]: r["count"] for r in json.loads(out)}, skips)


def compare(c, tmp, inputs, paths=PATHS, may_be_empty=()):
    """Ingests every input normally and with every bound tiny; checks that
    the normal ingests took no path past a bound and the others together
    took every one of paths; compares the tables (each must have rows,
    except those in may_be_empty)."""
    normal, small = os.path.join(tmp, "normal.db"), os.path.join(tmp, "small.db")
    taken = set()
    for name, path in inputs:
        c.eq(f"{name}: no path past a bound in a normal ingest",
             ingest(normal, name, path, False), set())
        taken |= ingest(small, name, path, True)
    if paths is not None:  # None: a spread of inputs, which need not take every path
        c.eq("paths past a bound taken with every bound tiny", sorted(taken & PATHS),
             sorted(paths))
    c.eq("no path past a bound without a name in PATHS", sorted(taken - PATHS), [])
    for table, sql in TABLES.items():
        want = rows(normal, sql)
        if table not in may_be_empty:
            c.true(f"{table}: rows to compare", len(want) > 0)
        c.eq(f"{table}: the same {len(want)} rows with every bound tiny", rows(small, sql), want)
    for table, sql in ORDERED.items():
        want = rows(normal, sql, ordered=True)
        c.eq(f"{table}: the same {len(want)} rows with every bound tiny",
             rows(small, sql, ordered=True), want)


def main():
    c = Checker()
    with tempdir() as tmp:
        be_trace(os.path.join(tmp, "be.json"), False)
        events = be_trace(os.path.join(tmp, "deep.json"), True)
        interleaved_trace(os.path.join(tmp, "interleaved.json"))
        deep_queue_trace(os.path.join(tmp, "queue.json"))
        inputs = [("be", os.path.join(tmp, "be.json")),
                  ("interleaved", os.path.join(tmp, "interleaved.json")),
                  ("queue", os.path.join(tmp, "queue.json"))]
        n = scaled(8000, 4000)
        for name, args in (("typical", ["--steps", "40"]),
                           ("names", ["--shape", "names", "--events", str(n)]),
                           ("tids", ["--shape", "tids", "--events", str(n)]),
                           ("streams", ["--shape", "streams", "--events", str(n),
                                        "--streams", "300"]),
                           ("steps", ["--shape", "steps", "--events", str(n), "--steps",
                                      str(n // 20)])):
            path = os.path.join(tmp, name + ".json")
            subprocess.run([GENTRACE, *args, path], check=True, capture_output=True)
            inputs.append((name, path))
        compare(c, tmp, inputs)
        for spill in (False, True):
            check_pairing(c, tmp, events, spill)
    c.close()


if __name__ == "__main__":
    main()
