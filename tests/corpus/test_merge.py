"""`profdb merge` and `profdb ingest --jobs N` (issue 16).

1. Shards merged equal a direct ingest of the same files: two ranks of one
   run (plus its pstats dump and step log) ingested into different shards,
   other traces into two more, then `profdb merge --full OUT a b c d` (the
   events copied too: test_merge_shards.py checks the default, which leaves
   them in the shards); the result
   has the same runs, ranks, row count in every table, the same analysis
   rows (ids resolved to names), the same step-log values, and the same
   output of every trace, pstats and step-log report, as `ingest --jobs 1`.
2. `--jobs 2` and `--jobs 3` equal `--jobs 1`: a directory of rank traces
   (ranks from distributedInfo, the file name, and the order of traces
   without either), and a run made of traces, a pstats dump and step logs;
   the same stderr lines, tables and reports.
3. All or nothing: one bad input among several (--jobs 2) gives the message
   --jobs 1 gives, exit 2, the database unchanged and no shard left; a bad
   shard (a truncated file, a text file, a rank the run already has)
   changes nothing, even when it comes after good ones; pstats dumps of one
   run in three shards add up exactly as one ingest adds them.
4. More shards than SQLite attaches at once (12 and 13, merged in groups):
   the same result, and a bad last shard changes nothing.
5. Foreign shards are refused with one line and exit 2: another schema
   version (newer and older), a SQLite file that is not profdb's.
6. Runs that exist: --jobs 2 refuses them like --jobs 1, --replace replaces.
7. SIGINT or SIGTERM during an `ingest --jobs 2` (to the parent alone, and
   to the whole process group as a terminal's Ctrl-C does): exit 130/143,
   'nothing was stored', the database unchanged, no shard folder and no
   worker process left behind; SIGINT during a `profdb merge`: exit 130 and
   the target unchanged.
8. kill -9 of an `ingest --jobs 2` leaves its shard folder; the next --jobs
   ingest next to it removes it and says so, but keeps a folder a live
   process locks, one made under a minute ago, and one holding a file
   profdb did not write.
Checked builds (ASan, valgrind) merge a small trace in place of the corpus's
largest and compare the tables but not every report (see OTHERS, same_db):
they look for memory errors in the same code."""

# ctest-labels: slow (about 30 processes ingesting, 100 reports, three signalled ingests)

import fcntl
import glob
import gzip
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time

from common import (CHECKED, CORPUS, GENTRACE, PROFDB, Checker, need_corpus, run, run_json,
                    scaled, tempdir)

TRACES = need_corpus("traces")
# stdlib_compileall.prof, not hta_analysis.prof: the same reader and merge of
# functions and call edges on a sixth of the bytes (each ingest of
# hta_analysis.prof took 1.3 s under ASan, and this test made ten).
PSTATS = need_corpus("pstats", "stdlib_compileall.prof")
STEPLOGS = [need_corpus("steplogs", "nanogpt_train.log"),
            need_corpus("steplogs", "megatron_deepspeed_gpt125m_8gpu.log")]
RANK0 = os.path.join(TRACES, "trace_filter_sampled_rank-0.json.gz")
RANK1 = os.path.join(TRACES, "trace_filter_sampled_rank-1.json.gz")
# The first is the corpus's largest trace (1.4 MB gzipped, ten times the
# next): the normal build merges it; checked builds, which look for memory
# errors in the same ingest and merge code, take a small trace in its place
# (its ingests, merges and comparisons were 15 s of this test under ASan).
OTHERS = [os.path.join(TRACES, f) for f in (
    scaled("negative_queue_length_values_check_rank0.json.gz",
           "critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz"),
    "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
    "amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz")]

TRACE_REPORTS = ["gpu", "kernel-types", "kernels", "ops", "annotations", "steps", "idle",
                 "launch", "comm", "ranks", "insights"]
PSTATS_REPORTS = [["pstats", "--sort", "cumulative"], ["callers"], ["callees"]]
STEPLOG_REPORTS = ["metrics", "phases", "throughput"]

# Tables whose rows carry no surrogate id once run_id is resolved to the
# run's name: compared row for row.
ANALYSIS = ["analysis_gpu", "analysis_kernel_types", "analysis_kernels", "analysis_ops",
            "analysis_op_steps", "analysis_steps", "analysis_idle", "analysis_annotations"]


def con(db):
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def table_counts(db):
    c = con(db)
    names = [r[0] for r in c.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
    got = {n: c.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    c.close()
    return got


def rows(db, query):
    c = con(db)
    got = sorted(c.execute(query).fetchall(), key=repr)
    c.close()
    return got


def content(db):
    """What must be equal between two databases, ids resolved."""
    out = {"runs": rows(db, "SELECT name FROM runs"),
           "ranks": rows(db, "SELECT r.name, t.rank, t.rank_from, s.path, t.format, t.float_ts"
                             " FROM traces t JOIN runs r USING (run_id)"
                             " JOIN sources s USING (source_id)"),
           "sources": rows(db, "SELECT r.name, s.path, s.format, s.compressed, s.bytes, s.records"
                               " FROM sources s JOIN runs r USING (run_id)"),
           "labels": rows(db, "SELECT r.name, key, value FROM run_labels JOIN runs r"
                              " USING (run_id)"),
           "skips": rows(db, "SELECT s.path, k.reason, k.count FROM skips k"
                             " JOIN sources s USING (source_id)"),
           "attribution": rows(db, "SELECT r.name, a.rank, a.kernel, a.kernel_type, a.ts,"
                                   " a.dur_ns, a.step, a.launch, a.op, a.top_op, a.annotation,"
                                   " a.gpu_annotation, a.module FROM gpu_attribution a"
                                   " JOIN runs r USING (run_id)"),
           "slices": rows(db, "SELECT r.name, v.rank, count(*), sum(v.ts % 1000000007), sum(v.dur),"
                              " count(DISTINCT v.name), sum(length(v.args))"
                              " FROM slice_view v JOIN runs r USING (run_id) GROUP BY 1, 2"),
           "steplog": rows(db, "SELECT s.path, v.record, v.line, v.kind, v.rank, v.metric,"
                               " v.value, v.unit, v.agg, v.step, v.window, v.raw_name"
                               " FROM steplog_values v JOIN sources s USING (source_id)"),
           "pstats": rows(db, "SELECT r.name, f.ord, f.in_stats, f.std_name, f.cc, f.nc, f.tt,"
                              " f.ct FROM pstats_functions f JOIN runs r USING (run_id)"),
           "edges": rows(db, "SELECT r.name, a.std_name, b.std_name, e.nc, e.cc, e.tt, e.ct"
                             " FROM pstats_edges e JOIN runs r USING (run_id)"
                             " JOIN pstats_functions a ON a.func_id = e.callee_id"
                             " JOIN pstats_functions b ON b.func_id = e.caller_id")}
    for t in ANALYSIS:
        c = con(db)
        # name_id is an id into the interned names: the name is there, and a
        # merge in another order (Slurm's tasks finish as they will) gives
        # other ids
        cols = [r[1] for r in c.execute(f"PRAGMA table_info({t})")
                if r[1] not in ("run_id", "name_id")]
        c.close()
        out[t] = rows(db, f"SELECT r.name, {', '.join('x.' + x for x in cols)} FROM {t} x"
                          " JOIN runs r USING (run_id)")
    return out


def reports(db):
    """Every report of every run, as CSV."""
    out = {}
    for (name,) in rows(db, "SELECT name FROM runs"):
        kinds = rows(db, "SELECT DISTINCT format FROM sources s JOIN runs r USING (run_id)"
                         f" WHERE r.name = '{name}'")
        kinds = {k for (k,) in kinds}
        wanted = []
        if kinds & {"kineto-json", "legacy-json"}:
            wanted += [[r] for r in TRACE_REPORTS]
        if "pstats" in kinds:
            wanted += PSTATS_REPORTS
        if any(k.startswith("steplog") for k in kinds):
            wanted += [[r] for r in STEPLOG_REPORTS]
        for r in wanted:
            code, out_text, err = run("report", "--run", name, "--format", "csv", *r, db=db,
                                      check=False)
            out[(name, tuple(r))] = (code, out_text, err)
    return out


def same_db(c, what, got_db, want_db, with_reports=True, min_reports=20):
    c.eq(f"{what}: row count of every table", table_counts(got_db), table_counts(want_db))
    got, want = content(got_db), content(want_db)
    for k in want:
        c.true(f"{what}: {k} equal", got[k] == want[k],
               f"({len(got[k])} rows vs {len(want[k])}; first difference: "
               f"{next((a, b) for a, b in zip(got[k] + [None] * 9, want[k] + [None] * 9) if a != b) if got[k] != want[k] else ''})")
    if not with_reports:
        return
    if CHECKED:
        # The reports read the tables compared above; printing every report
        # of both databases (about 60 profdb runs a call) is the normal
        # build's check, where it takes seconds, not minutes.
        print(f"checked build: {what}: tables compared, reports left to the normal build")
        return
    got_r, want_r = reports(got_db), reports(want_db)
    c.eq(f"{what}: the same reports", sorted(got_r), sorted(want_r))
    bad = [k for k in want_r if got_r.get(k) != want_r[k]]
    c.true(f"{what}: every report prints the same", not bad, bad[:5])
    c.true(f"{what}: reports ran", len(want_r) >= min_reports and
           all(v[0] == 0 or (v[0] == 2 and "does not apply" in v[2])
               for v in want_r.values()),
           [(k, v[2]) for k, v in want_r.items() if v[0] != 0][:3])


def leftovers(folder):
    return glob.glob(os.path.join(folder, ".profdb-shards-*"))


def ingest(db, *args, jobs=1, check=True):
    return run("ingest", "--jobs", str(jobs), *args, db=db, check=check)


def strip_rank_info(src, dst):
    """A copy of a trace without distributedInfo (rank from the order)."""
    with gzip.open(src, "rt") as f:
        d = json.load(f)
    d.pop("distributedInfo", None)
    with open(dst, "w") as f:
        json.dump(d, f)


def check_merge_equals_ingest(c, tmp):
    direct = os.path.join(tmp, "direct.db")
    ingest(direct, "--run", "job", "--label", "gpus=2", RANK0, RANK1, PSTATS, *STEPLOGS)
    ingest(direct, *OTHERS)
    shards = [os.path.join(tmp, f"shard{i}.db") for i in range(4)]
    ingest(shards[0], "--run", "job", "--label", "gpus=2", RANK0, PSTATS, STEPLOGS[0])
    ingest(shards[1], "--run", "job", "--label", "gpus=2", RANK1, STEPLOGS[1])
    ingest(shards[2], *OTHERS[:2])
    ingest(shards[3], *OTHERS[2:])
    merged = os.path.join(tmp, "merged.db")
    code, _, err = run("merge", "--full", merged, *shards, check=False)
    c.eq("merge: exit 0", (code, err.count("\n")), (0, 1))
    same_db(c, "merge of four shards vs one ingest", merged, direct)
    # the same, one shard at a time into a growing database
    step = os.path.join(tmp, "stepwise.db")
    for s in shards:
        run("merge", "-q", "--full", step, s)
    same_db(c, "four merges, one shard each", step, direct, with_reports=False)
    return direct, shards


def check_jobs_equal(c, tmp):
    ranks = os.path.join(tmp, "ranks")
    os.mkdir(ranks)
    for f in (RANK0, RANK1):
        shutil.copy(f, ranks)
    for i, f in enumerate(OTHERS[1:3]):
        strip_rank_info(f, os.path.join(ranks, f"x{i}.json"))
    shutil.copy(PSTATS, os.path.join(ranks, os.path.basename(PSTATS)))
    with open(os.path.join(ranks, "README"), "w") as f:
        f.write("not an input\n")
    dbs = {}
    for jobs in (1, 2, 3):
        db = os.path.join(tmp, f"jobs{jobs}.db")
        code, out, err = ingest(db, ranks, jobs=jobs, check=False)
        c.eq(f"--jobs {jobs}: directory: exit 0", code, 0)
        # ranks: 0 from distributedInfo, then 1 and 2 from the order of the traces
        code2, out2, err2 = ingest(db, "--run", "mixed", "--label", "k=v", STEPLOGS[0], RANK0,
                                   PSTATS, os.path.join(ranks, "x0.json"), STEPLOGS[1],
                                   os.path.join(ranks, "x1.json"), jobs=jobs, check=False)
        c.eq(f"--jobs {jobs}: mixed run: exit 0", code2, 0)
        dbs[jobs] = (db, err + err2)
        c.eq(f"--jobs {jobs}: no shard folder left", leftovers(tmp), [])
    orders = rows(dbs[1][0], "SELECT s.path, t.rank, t.rank_from FROM traces t"
                             " JOIN sources s USING (source_id) WHERE t.rank_from = 'order'")
    c.eq("ranks from the order of traces",
         sorted((os.path.basename(p), r) for p, r, _ in orders),
         [("x0.json", 1), ("x0.json", 2), ("x1.json", 2), ("x1.json", 3)])
    for jobs in (2, 3):
        c.eq(f"--jobs {jobs}: the same stderr lines as --jobs 1",
             sorted(dbs[jobs][1].splitlines()), sorted(dbs[1][1].splitlines()))
        same_db(c, f"--jobs {jobs} vs --jobs 1", dbs[jobs][0], dbs[1][0], with_reports=jobs == 2)


def check_atomic_ingest(c, tmp, base):
    bad = os.path.join(tmp, "truncated.json.gz")
    # a small trace cut in half: a truncated gzip stream whatever its size
    with open(OTHERS[3], "rb") as f:
        data = f.read()
    with open(bad, "wb") as f:
        f.write(data[:len(data) // 2])
    empty = os.path.join(tmp, "empty.json")
    open(empty, "w").close()
    # the bad input in the middle, last (a worker's part), and two bad ones
    # in different parts (the first in command-line order is reported)
    orders = {"in the middle": [OTHERS[1], RANK0, bad, OTHERS[2], RANK1],
              "last": [OTHERS[1], RANK0, OTHERS[2], RANK1, bad],
              "two": [empty, OTHERS[1], RANK0, OTHERS[2], RANK1, bad]}
    for where, inputs in orders.items():
        results = {}
        for jobs in (1, 2, 3) if where == "two" else (1, 2):
            db = os.path.join(tmp, f"atomic{jobs}.db")
            shutil.copy(base, db)
            before = (table_counts(db), content(db))
            code, _, err = ingest(db, *inputs, jobs=jobs, check=False)
            results[jobs] = (code, err)
            what = f"--jobs {jobs}, bad input {where}"
            c.eq(f"{what}: exit 2", code, 2)
            c.true(f"{what}: the database unchanged", (table_counts(db), content(db)) == before)
            c.eq(f"{what}: no shard left", leftovers(tmp), [])
        c.eq(f"bad input {where}: --jobs 2 says what --jobs 1 says", results[2], results[1])
        if 3 in results:
            c.eq(f"bad input {where}: --jobs 3 says what --jobs 1 says", results[3], results[1])
        c.true(f"bad input {where}: the message names the file",
               inputs[0 if where == "two" else inputs.index(bad)] in results[1][1], results[1][1])


def check_atomic_merge(c, tmp, direct, shards):
    out = os.path.join(tmp, "out.db")
    shutil.copy(direct, out)
    before = (table_counts(out), content(out))
    text = os.path.join(tmp, "text.db")
    with open(text, "w") as f:
        f.write("hello\n" * 100)
    cut = os.path.join(tmp, "cut.db")
    with open(shards[2], "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 3])
    other_app = os.path.join(tmp, "other.db")
    s = sqlite3.connect(other_app)
    s.execute("CREATE TABLE t (x)")
    s.commit()
    s.close()
    newer = os.path.join(tmp, "newer.db")
    older = os.path.join(tmp, "older.db")
    for path, version in ((newer, 99), (older, 1)):
        shutil.copy(shards[3], path)
        s = sqlite3.connect(path)
        s.execute(f"PRAGMA user_version = {version}")
        s.commit()
        s.close()
    # a shard whose run and rank the target has (job, rank 0)
    again = shards[0]
    fresh_run = os.path.join(tmp, "fresh.db")
    ingest(fresh_run, "--run", "new-run", OTHERS[3])
    cases = [("a text file", [fresh_run, text], "not a readable SQLite database"),
             ("a truncated shard", [fresh_run, cut], ""),
             ("a SQLite file not profdb's", [fresh_run, other_app], "not a profdb database"),
             ("a newer schema", [fresh_run, newer], "schema version 99 is newer"),
             ("an older schema", [fresh_run, older], "schema version 1 is older"),
             ("a rank the run has", [fresh_run, again], "already has rank 0"),
             ("a missing shard", [fresh_run, os.path.join(tmp, "nope.db")], "no such database")]
    for what, args, message in cases:
        code, _, err = run("merge", out, *args, check=False)
        c.eq(f"merge, {what}: exit 2 and one line", (code, err.count("\n")), (2, 1))
        c.true(f"merge, {what}: says why", message in err and err.startswith("profdb: "), err)
        c.true(f"merge, {what}: the target unchanged",
               (table_counts(out), content(out)) == before)
    # pstats dumps of one run in three shards: added up as one ingest adds them
    dumps = [PSTATS, need_corpus("pstats", "recursion_threads.prof"), PSTATS]
    one = os.path.join(tmp, "pstats-one.db")
    ingest(one, "--run", "prof", *dumps)
    parts = []
    for i, d in enumerate(dumps):
        parts.append(os.path.join(tmp, f"pstats{i}.db"))
        ingest(parts[-1], "--run", "prof", d)
    added = os.path.join(tmp, "pstats-added.db")
    code, _, err = run("merge", "--full", added, *parts, check=False)
    c.eq("merge, pstats of one run in three shards: exit 0", (code, err.count("\n")), (0, 1))
    same_db(c, "pstats of one run in three shards", added, one, min_reports=3)


def check_existing_runs(c, tmp, direct):
    for jobs in (1, 2):
        db = os.path.join(tmp, f"exists{jobs}.db")
        shutil.copy(direct, db)
        code, _, err = ingest(db, "--run", "job", RANK0, RANK1, jobs=jobs, check=False)
        c.eq(f"--jobs {jobs}: a run that exists: refused",
             (code, err.strip()),
             (2, "profdb: run 'job' already exists (use --replace to replace it)"))
        code, _, err = ingest(db, "--replace", "--run", "job", RANK1, RANK0, jobs=jobs,
                              check=False)
        c.eq(f"--jobs {jobs}: --replace: exit 0", code, 0)
        c.eq(f"--jobs {jobs}: --replace: the run has its two ranks",
             rows(db, "SELECT t.rank FROM traces t JOIN runs r USING (run_id)"
                      " WHERE r.name = 'job'"), [(0,), (1,)])
    c.eq("--replace: --jobs 2 equals --jobs 1", content(os.path.join(tmp, "exists2.db")),
         content(os.path.join(tmp, "exists1.db")))


def check_many_shards(c, tmp):
    """More shards than SQLite attaches at once (10): merged in groups through
    intermediate files, with the same result; a bad last shard changes
    nothing and leaves no intermediate file."""
    d = os.path.join(tmp, "many")
    os.mkdir(d)
    traces, shards = [], []
    for i in range(12):
        traces.append(os.path.join(d, f"r{i}.json"))
        subprocess.run([GENTRACE, "--steps", "1", "--rank", str(i), "--world", "12", "--seed",
                        str(i + 1), traces[-1]], check=True, capture_output=True)
        shards.append(os.path.join(d, f"s{i}.db"))
        ingest(shards[-1], "-q", "--run", "job", traces[-1])
    direct = os.path.join(d, "direct.db")
    ingest(direct, "-q", "--run", "job", *traces)
    merged = os.path.join(d, "merged.db")
    code, _, err = run("merge", "--full", merged, *shards, check=False)
    c.eq("merge of 12 shards: exit 0", code, 0)
    same_db(c, "merge of 12 shards", merged, direct, with_reports=False)
    jobs = os.path.join(d, "jobs.db")
    ingest(jobs, "-q", "--run", "job", *traces, jobs=12)
    same_db(c, "--jobs 12 (11 shards) vs --jobs 1", jobs, direct, with_reports=False)
    c.eq("12 shards: the gpu report of --jobs 12 equals --jobs 1",
         run("report", "gpu", db=jobs)[1], run("report", "gpu", db=direct)[1])
    before = (table_counts(merged), content(merged))
    code, _, err = run("merge", merged, *shards[:11], os.path.join(d, "r0.json"), check=False)
    c.eq("merge of 12 shards, the last not a database: exit 2", code, 2)
    c.true("merge of 12 shards, the last not a database: the target unchanged",
           (table_counts(merged), content(merged)) == before)
    again = os.path.join(d, "again.db")
    ingest(again, "-q", "--run", "other", traces[0])
    before = (table_counts(again), content(again))
    code, _, err = run("merge", again, *shards, shards[5], check=False)
    c.eq("merge of 13 shards, the last a rank again: exit 2", code, 2)
    c.true("merge of 13 shards, the last a rank again: names that shard",
           err.startswith(f"profdb: {shards[5]}: run 'job' already has rank 5"), err)
    c.true("merge of 13 shards, the last a rank again: the target unchanged",
           (table_counts(again), content(again)) == before)
    c.eq("many shards: no intermediate folder left", leftovers(d), [])


def workers_of(db):
    """Processes whose command line names db (the parent and its forks)."""
    found = []
    for p in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(p, "rb") as f:
                if db.encode() in f.read():
                    found.append(p)
        except OSError:
            pass
    return found


def check_interrupt(c, tmp, base):
    big = [os.path.join(tmp, f"big{i}.json") for i in range(2)]
    for i, path in enumerate(big):
        subprocess.run([GENTRACE, "--steps", str(scaled(600, 100)), "--rank", str(i),
                        "--world", "2", "--seed", str(i + 1), path],
                       check=True, capture_output=True)
    db = os.path.join(tmp, "interrupted.db")
    shutil.copy(base, db)
    before = (table_counts(db), content(db))
    t0 = time.time()
    ingest(os.path.join(tmp, "timing.db"), "-q", "--run", "big", *big, jobs=2)
    took = time.time() - t0
    print(f"an uninterrupted --jobs 2 ingest took {took:.2f} s")
    stops = [(signal.SIGINT, False, 0.3), (signal.SIGTERM, False, 0.6),
             (signal.SIGINT, True, 0.5)]
    for sig, group, when in stops:
        what = f"{signal.Signals(sig).name} to the {'process group' if group else 'parent'}" \
               f" at {when:.0%}"
        p = subprocess.Popen([PROFDB, "--db", db, "ingest", "--jobs", "2", "--run", "big", *big],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        time.sleep(took * when)
        if group:
            os.killpg(p.pid, sig)
        else:
            p.send_signal(sig)
        _, err = p.communicate(timeout=120)
        if p.returncode == 0:
            print(f"{what}: came too late (the ingest had finished)")
            # the run is stored now: the next stop starts from the base again
            for suffix in ("-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            shutil.copy(base, db)
            continue
        c.eq(f"{what}: exit 128 + signal", p.returncode, 128 + sig)
        c.true(f"{what}: says nothing was stored", "nothing was stored" in err, err)
        c.true(f"{what}: the database unchanged", (table_counts(db), content(db)) == before)
        c.eq(f"{what}: no shard folder left", leftovers(tmp), [])
        time.sleep(0.2)
        c.eq(f"{what}: no worker left", workers_of(db), [])
    return big


def make_shard_folder(folder, name, files, age_s):
    """A folder as profdb makes one: its owner mark, then files."""
    path = os.path.join(folder, f".profdb-shards-{name}")
    os.mkdir(path)
    for f in [".profdb-owner"] + files:
        with open(os.path.join(path, f), "wb") as out:
            out.write(b"left behind")
    when = time.time() - age_s
    os.utime(path, (when, when))
    return path


def check_stale_shards(c, tmp, big):
    """kill -9 of an ingest --jobs 2 leaves its shard folder; the next
    ingest or merge next to it removes it, but not a folder a live process
    locks, a young one, or one holding a file profdb did not write."""
    folder = os.path.join(tmp, "stale")
    os.mkdir(folder)
    db = os.path.join(folder, "t.db")
    p = subprocess.Popen([PROFDB, "--db", db, "ingest", "--jobs", "2", "--run", "k", *big],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    killed = None
    for _ in range(400):  # until a worker has written into its shard folder
        time.sleep(0.01)
        # (a first ingest's own folder holds the new database and the
        # workers' folder: fresh_db.c)
        made = [d for d in leftovers(folder)
                if any(f.startswith("shard-") for _, _, fs in os.walk(d) for f in fs)]
        if made:
            os.killpg(p.pid, signal.SIGKILL)
            killed = made[0]
            break
    p.wait()
    if killed:  # its worker (not our child) may outlive it a moment: wait for its lock
        fd = os.open(killed, os.O_RDONLY)
        for _ in range(400):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                break
            except BlockingIOError:
                time.sleep(0.025)
        os.close(fd)
    c.true("kill -9: the ingest was killed while its shards were being written",
           killed is not None and p.returncode == -signal.SIGKILL, str(p.returncode))
    c.true("kill -9: its shard folder is left behind", killed and os.path.isdir(killed))
    if killed:
        when = time.time() - 120
        os.utime(killed, (when, when))
    live = make_shard_folder(folder, "live", ["shard-1.db"], 120)
    young = make_shard_folder(folder, "young", ["shard-1.db"], 0)
    foreign = make_shard_folder(folder, "foreign", ["shard-1.db", "notes.txt"], 120)
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a live owner's lock
    try:
        rc, _, err = run("ingest", "--jobs", "2", "--run", "again", RANK0, RANK1,
                         db=db, check=False)
    finally:
        os.close(fd)
    c.eq(f"after kill -9: the next --jobs ingest works ({err.strip().splitlines()[-1][:300]})", rc, 0)
    c.true("after kill -9: the killed ingest's folder is removed",
           killed and not os.path.exists(killed), str(leftovers(folder)))
    c.true("after kill -9: says what it removed", "removed" in err and (killed or "?") in err,
           err)
    c.true("a folder a live process locks is kept", os.path.exists(os.path.join(live, "shard-1.db")))
    c.true("a folder made under a minute ago is kept", os.path.exists(os.path.join(young, "shard-1.db")))
    c.true("a folder holding another file is kept, that file too",
           os.path.exists(os.path.join(foreign, "notes.txt")))
    c.eq("the three kept folders are all that is left", sorted(leftovers(folder)),
         sorted([live, young, foreign]))


def check_merge_interrupt(c, tmp, base):
    """SIGINT during a merge of a large shard: exit 130, the target as it was."""
    shard = os.path.join(tmp, "timing.db")
    db = os.path.join(tmp, "merge-interrupted.db")
    shutil.copy(base, os.path.join(tmp, "merge-timing.db"))
    t0 = time.time()
    run("merge", "-q", "--full", os.path.join(tmp, "merge-timing.db"), shard)
    took = time.time() - t0
    print(f"an uninterrupted merge took {took:.2f} s")
    shutil.copy(base, db)
    before = (table_counts(db), content(db))
    p = subprocess.Popen([PROFDB, "merge", "--full", db, shard], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(took * 0.4)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:
        print("SIGINT to merge: came too late (the merge had finished)")
        return
    c.eq("SIGINT to merge: exit 130", p.returncode, 130)
    c.true("SIGINT to merge: says nothing was merged or stored",
           "nothing was merged" in err or "nothing was stored" in err, err)
    c.true("SIGINT to merge: the target unchanged", (table_counts(db), content(db)) == before)


def main():
    c = Checker()
    t0 = time.time()

    def lap(what):
        print(f"{what}: done at {time.time() - t0:.1f} s")

    with tempdir() as tmp:
        direct, shards = check_merge_equals_ingest(c, tmp)
        lap("merge equals ingest")
        check_jobs_equal(c, tmp)
        lap("--jobs N equals --jobs 1")
        base = os.path.join(tmp, "base.db")
        ingest(base, OTHERS[3])
        check_atomic_ingest(c, tmp, base)
        check_atomic_merge(c, tmp, direct, shards)
        check_existing_runs(c, tmp, direct)
        lap("failures")
        check_many_shards(c, tmp)
        lap("many shards")
        big = check_interrupt(c, tmp, base)
        check_merge_interrupt(c, tmp, base)
        check_stale_shards(c, tmp, big)
        lap("interruptions")
    c.close()


if __name__ == "__main__":
    main()
