"""Interrupted ingests leave the database exactly as it was (issue 8).

A database holds three earlier runs (a trace, a pstats dump, a step log).
A long ingest (a generated trace of ~300 000 events plus a step log, one
run, two readers) is started again and again and stopped at random points
spread over its measured duration:
  - SIGKILL: afterwards `PRAGMA integrity_check` is ok, every table has the
    same row count as before, `profdb runs` shows the same runs with the same
    numbers, and the next ingest into the same database works;
  - SIGINT (Ctrl-C) and SIGTERM: exit 130 / 143 with 'interrupted by SIGINT;
    nothing was stored' (or SIGTERM), and the same checks.
A stop that lands after COMMIT (while profdb checkpoints and closes) must
leave the whole run, exactly as an uninterrupted ingest does; at least four
of the seven stops must fall before it.
The seed is printed; PROFDB_TEST_SEED=N repeats a run. Generated inputs only."""

# ctest-labels: slow (seven signalled ingests of a 300,000-event trace)

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

from common import CHECKED, GENTRACE, PROFDB, SOURCE, TIMEOUT, Checker, run, run_json, scaled, tempdir

KILLS = 4
SIGNALS = (signal.SIGINT, signal.SIGINT, signal.SIGTERM)


def table_counts(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    names = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
    got = {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    con.close()
    return got


def state(db):
    """Everything an interrupted ingest must not change (times left out)."""
    runs = [{k: v for k, v in r.items() if k not in ("ingested_at", "ingest_ms")}
            for r in run_json("runs", db=db)]
    return table_counts(db), runs


def intact(c, db, base, full, what):
    """True when the signal came after COMMIT and the whole run landed."""
    _, out, _ = run("sql", "PRAGMA integrity_check", db=db, check=False)
    c.eq(f"{what}: integrity_check", out.split()[-1:], ["ok"])
    got = state(db)
    if got == full:
        print(f"{what}: came after the commit: the whole run landed")
        return True
    counts, runs = got
    c.eq(f"{what}: runs unchanged", runs, base[1])
    c.true(f"{what}: every table's row count unchanged", counts == base[0],
           {k: (v, counts.get(k)) for k, v in base[0].items() if counts.get(k) != v})
    return False


def make_inputs(tmp):
    big = os.path.join(tmp, "big.json")
    subprocess.run([GENTRACE, "--steps", str(scaled(1100, 150)), "--rank", "0", "--world", "1",
                    big],
                   check=True, capture_output=True)
    log = os.path.join(tmp, "big.jsonl")
    with open(log, "w") as f:
        subprocess.run([sys.executable, os.path.join(SOURCE, "samples", "gen", "gensteplog.py"),
                        "jsonl", str(scaled(20000, 3000))], check=True, stdout=f)
    small = os.path.join(tmp, "small.json")
    subprocess.run([GENTRACE, "--steps", "20", "--rank", "0", "--world", "1", small],
                   check=True, capture_output=True)
    return [big, log], small


def make_base(tmp, small):
    db = os.path.join(tmp, "base.db")
    run("ingest", "-q", "--run", "earlier-trace", small, db=db)
    run("ingest", "-q", "--run", "earlier-pstats",
        os.path.join(SOURCE, "samples", "pstats", "sample.prof"), db=db)
    run("ingest", "-q", "--run", "earlier-log",
        os.path.join(SOURCE, "samples", "steplogs", "train.jsonl"), db=db)
    return db


def fresh_copy(base_db, db):
    for ext in ("", "-wal", "-shm"):
        if os.path.exists(db + ext):
            os.remove(db + ext)
    shutil.copy(base_db, db)


def start(db, inputs):
    return subprocess.Popen([PROFDB, "--db", db, "ingest", "--run", "long"] + inputs,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def measure(tmp, base_db, inputs):
    """Duration of a full ingest (the window the signals are spread over)
    and the state it leaves."""
    db = os.path.join(tmp, "full.db")
    fresh_copy(base_db, db)
    t0 = time.monotonic()
    p = start(db, inputs)
    _, err = p.communicate()
    if p.returncode != 0:
        raise AssertionError(f"full ingest failed: {err}")
    return time.monotonic() - t0, state(db)


def stop_at(db, inputs, delay, sig):
    """Starts the ingest, sends sig after delay; None if it had finished."""
    p = start(db, inputs)
    time.sleep(delay)
    if p.poll() is not None:
        p.communicate()
        return None
    p.send_signal(sig)
    _, err = p.communicate(timeout=TIMEOUT)
    return p.returncode, err


def attempt(c, db, base_db, base, full, inputs, duration, rnd, sig, what):
    """One stop of the ingest into db, which the earlier stops also used."""
    for tries in range(5):
        delay = rnd.uniform(0.03, 0.85) * duration / (tries + 1)
        if sig != signal.SIGKILL:
            # profdb has started and caught the signal (valgrind takes seconds)
            delay = max(delay, 0.25 * duration if CHECKED else 0.15)
        got = stop_at(db, inputs, delay, sig)
        if got is not None:
            break
        fresh_copy(base_db, db)  # it finished first: start again from the base
    else:
        c.true(f"{what}: ingest still running when signalled", False)
        return False
    rc, err = got
    print(f"{what}: signalled after {delay:.2f} s of {duration:.2f} s")
    if intact(c, db, base, full, what):
        # Signalled while the committed process was closing: all, not part.
        c.eq(f"{what}: committed, so exit 0 or killed", rc in (0, -signal.SIGKILL), True)
        fresh_copy(base_db, db)
        return False
    if sig == signal.SIGKILL:
        c.eq(f"{what}: killed", rc, -signal.SIGKILL)
    else:
        name = signal.Signals(sig).name
        c.eq(f"{what}: exit code", rc, 128 + sig)
        c.true(f"{what}: says it rolled back",
               f"interrupted by {name}; nothing was stored" in err, err.strip())
    return True


def main():
    seed = int(os.environ.get("PROFDB_TEST_SEED", time.time_ns() % 1000000))
    print(f"seed {seed} (PROFDB_TEST_SEED={seed} repeats this run)")
    rnd = random.Random(seed)
    c = Checker()
    with tempdir() as tmp:
        inputs, small = make_inputs(tmp)
        base_db = make_base(tmp, small)
        base = state(base_db)
        duration, full = measure(tmp, base_db, inputs)
        db = os.path.join(tmp, "work.db")
        fresh_copy(base_db, db)
        stops = [signal.SIGKILL] * KILLS + list(SIGNALS)
        midway = sum(attempt(c, db, base_db, base, full, inputs, duration, rnd, sig,
                             f"{signal.Signals(sig).name} {i}")
                     for i, sig in enumerate(stops))
        c.true("most stops fell before the commit", midway >= 4,
               f"{midway} of {len(stops)}")
        run("ingest", "-q", "--run", "after", small, db=db)
        runs = [r["run"] for r in run_json("runs", db=db)]
        c.eq("an ingest after the stops lands", runs,
             ["earlier-trace", "earlier-pstats", "earlier-log", "after"])
    c.close()


if __name__ == "__main__":
    main()
