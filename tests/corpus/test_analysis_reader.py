"""The analysis reads a committed trace on a thread of its own exactly as it
reads it on one.

When a trace's slices are committed (`profdb analyze`; a first ingest, whose
private database commits its rows before the analysis; a --jobs shard), the
scan runs on a reader thread with a connection of its own while the passes
run (analyze/scan_reader.c). Checked here:
  - the reader is used where it should be (PROFDB_PATH_LOG names it), and
    not by an ingest into an existing database (its rows are not committed
    yet) nor under PROFDB_PIPELINE=0;
  - every analysis table is the same, row by row: `profdb analyze` (reader)
    of a run that an ingest into an existing database analysed on its own
    connection changes nothing, for every corpus trace (every third in checked
    builds), a run of three
    generated ranks (one reader after another) and a generated trace that
    fills many batches, the latter also with every bound tiny
    (PROFDB_SPILL_TEST=1: the launchers' spill table then lives on the
    reader's connection);
  - a first ingest through the reader equals one under PROFDB_PIPELINE=0;
  - a reader that fails (a zeroed page of slices) fails the command as the
    one-thread reading does: exit 2, one line saying the database is
    malformed, and the analysis tables as they were;
  - passes that fail while the reader is still reading (a trigger refusing
    an attribution row early in the trace) stop it: the same exit, line and
    unchanged tables both ways."""

import os
import shutil
import sqlite3
import subprocess

from common import (GENTRACE, PROFDB, SOURCE, Checker, checked_subset, need_corpus, scaled,
                    tempdir)

READER = "analysis rows read on a reader thread"


def analysis_rows(db):
    """Every analysis table's rows, sorted (row order is not the point)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table'"
                                       " AND name LIKE 'analysis%' ORDER BY name")]
    out = {n: sorted(con.execute(f'SELECT * FROM "{n}"').fetchall(), key=repr) for n in names}
    con.close()
    return out


def run(tmp, db, args, **env_extra):
    """Runs profdb; returns (exit code, stderr, the paths it logged)."""
    log = os.path.join(tmp, "paths.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, PROFDB_PATH_LOG=log, PROFDB_PIPELINE="1")  # even on one core
    env.update(env_extra)
    p = subprocess.run([PROFDB, "--db", db] + args, env=env, capture_output=True)
    paths = open(log).read().split("\n") if os.path.exists(log) else []
    return p.returncode, p.stderr.decode("utf-8", "replace"), paths


def fresh(db):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)


def same_both_ways(c, tmp, tag, seed, trace, **env):
    """A trace (or a list of traces: one run of several ranks, a reader
    for each) ingested into an existing database (no reader), then
    re-analysed (reader): the same analysis tables. Returns the database."""
    db = os.path.join(tmp, f"{tag}.db")
    fresh(db)
    rc, err, _ = run(tmp, db, ["ingest", "--quiet", "--run", "seed", seed], **env)
    c.true(f"{tag}: seed ingest", rc == 0, err)
    traces = trace if isinstance(trace, list) else [trace]
    # --jobs 1: worker processes would load their shards privately, with a reader
    rc, err, paths = run(tmp, db, ["ingest", "--quiet", "--jobs", "1", "--run", "t"] + traces,
                         **env)
    c.true(f"{tag}: ingest into an existing database", rc == 0, err)
    c.true(f"{tag}: that ingest reads on its own connection", READER not in paths, paths)
    before = analysis_rows(db)
    rc, err, paths = run(tmp, db, ["analyze", "t"], **env)
    c.true(f"{tag}: analyze", rc == 0, err)
    c.true(f"{tag}: analyze reads on a reader thread", READER in paths, paths)
    after = analysis_rows(db)
    diff = [t for t in before if before[t] != after.get(t)]
    c.eq(f"{tag}: analysis tables identical both ways", diff, [])
    return db


def corrupted_reader(c, tmp, db):
    """A zeroed leaf page of slices: exit 2 and one line, both ways, with
    the analysis tables unchanged."""
    con = sqlite3.connect(db)
    pages = [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE name = 'slices'"
                                       " AND pagetype = 'leaf' ORDER BY pageno")]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    before = analysis_rows(db)
    page = pages[len(pages) // 2]
    for mode in ("1", "0"):
        bad = os.path.join(tmp, f"corrupt{mode}.db")
        shutil.copy(db, bad)
        with open(bad, "r+b") as f:
            f.seek((page - 1) * size)
            f.write(b"\0" * size)
        rc, err, paths = run(tmp, bad, ["analyze", "t"], PROFDB_PIPELINE=mode)
        tag = f"corrupted slices page, PROFDB_PIPELINE={mode}"
        c.true(f"{tag}: exit 2", rc == 2, err)
        c.true(f"{tag}: one line saying so", err.count("\n") == 1 and "malformed" in err, err)
        c.eq(f"{tag}: reader used", READER in paths, mode == "1")
        c.true(f"{tag}: analysis tables unchanged", analysis_rows(bad) == before)


def refused_writer(c, tmp, db):
    """The passes fail early (a trigger refuses the 50th GPU event's
    attribution row) while the reader has most of the trace left."""
    before = analysis_rows(db)
    for mode in ("1", "0"):
        bad = os.path.join(tmp, f"refused{mode}.db")
        shutil.copy(db, bad)
        con = sqlite3.connect(bad)
        nth = con.execute("SELECT slice_id FROM analysis_gpu_attribution a JOIN runs r"
                          " USING (run_id) WHERE r.name = 't' ORDER BY slice_id"
                          " LIMIT 1 OFFSET 49").fetchone()[0]
        con.execute("CREATE TRIGGER refuse BEFORE INSERT ON analysis_gpu_attribution"
                    f" WHEN NEW.slice_id = {nth}"
                    " BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END")
        con.commit()
        con.close()
        rc, err, paths = run(tmp, bad, ["analyze", "t"], PROFDB_PIPELINE=mode)
        tag = f"passes failing early, PROFDB_PIPELINE={mode}"
        c.true(f"{tag}: exit 2", rc == 2, err)
        c.true(f"{tag}: the trigger's one line",
               err.count("\n") == 1 and "refused by a test trigger" in err, err)
        c.eq(f"{tag}: reader used", READER in paths, mode == "1")
        c.true(f"{tag}: analysis tables unchanged", analysis_rows(bad) == before)


def main():
    c = Checker()
    traces = need_corpus("traces")
    inputs = [os.path.join(traces, f) for f in sorted(os.listdir(traces))
              if f.endswith(".json.gz") or (f.endswith(".json") and f != "COUNTS.json")]
    seed = os.path.join(SOURCE, "samples", "traces", sorted(os.listdir(
        os.path.join(SOURCE, "samples", "traces")))[0])
    with tempdir() as tmp:
        # checked builds: every third corpus trace (the reader thread and the
        # passes run the same on each; the generated traces below fill batches)
        for path in checked_subset(inputs, 3, "corpus traces"):
            same_both_ways(c, tmp, os.path.basename(path).split(".")[0], seed, path)

        gen = os.path.join(tmp, "gen.json")
        subprocess.run([GENTRACE, "--steps", str(scaled(200, 30)), gen], check=True,
                       capture_output=True)
        ranks = []
        for rank in range(3):
            ranks.append(os.path.join(tmp, f"rank{rank}.json"))
            subprocess.run([GENTRACE, "--steps", "20", "--rank", str(rank), "--world", "3",
                            "--seed", str(rank + 1), ranks[-1]], check=True, capture_output=True)
        same_both_ways(c, tmp, "ranks", seed, ranks)
        db = same_both_ways(c, tmp, "gen", seed, gen)
        same_both_ways(c, tmp, "gen-spill", seed, gen, PROFDB_SPILL_TEST="1")

        # A first ingest: through the reader, and on one thread.
        firsts = {}
        for mode in ("1", "0"):
            one = os.path.join(tmp, f"first{mode}.db")
            fresh(one)
            rc, err, paths = run(tmp, one, ["ingest", "--quiet", "--run", "t", gen],
                                 PROFDB_PIPELINE=mode)
            c.true(f"first ingest, PROFDB_PIPELINE={mode}", rc == 0, err)
            c.eq(f"first ingest, PROFDB_PIPELINE={mode}: reader used", READER in paths,
                 mode == "1")
            firsts[mode] = analysis_rows(one)
        c.true("first ingest: the same analysis both ways", firsts["1"] == firsts["0"])

        corrupted_reader(c, tmp, db)
        refused_writer(c, tmp, db)
    c.close()


if __name__ == "__main__":
    main()
