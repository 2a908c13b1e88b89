"""A gate with no data for the run it was asked about is an error, not a
pass (issue 30 item 6).

A history of 12 nightly JSON Lines step logs (about 100 ms a step, no
shift), then a 13th night whose step log went missing:

  - the night holds only a pstats dump: `trend --check` used to leave the
    run out (no samples) and gate night 12 in its place, exit 0; now exit 2
    naming the run and what it holds. Also with --by date (the night's
    label is the newest) and for several metrics at once;
  - the night holds only a trace: step_time then comes from its
    ProfilerSteps, numbers no earlier night was measured with (trend used
    to find the newest run 95% "better" and pass); exit 2. `check` against
    a logged night said INCONCLUSIVE, exit 0; now exit 2 too;
  - what still passes: trend without --check (the run is left out and
    counted), --runs leaving the night out, a sample-less run that is not
    the newest (by ingest order or by --by label), and a night that has its
    log again. `check` of a run without samples was already an error.
  - with --by date, the most recently ingested night lacks the label: it
    used to be left out and night 12 gated in its place (exit 0); now exit
    2 naming it.

Needs no corpus: the logs are written here, the dump and the trace are the
repository's samples."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE, Checker, run, tempdir  # noqa: E402

NIGHTS = 12


def night_log(path, r):
    """Night r's step log: 20 steps of about 100 ms (+-0.8% a night)."""
    lvl = 0.100 * (1 + 0.004 * ((r * 7) % 5 - 2))
    with open(path, "w") as f:
        for i in range(1, 21):
            t = lvl * (1 + 0.002 * ((i * 5) % 7 - 3))
            f.write(f'{{"step": {i}, "step_time": {t:.6f}, "tokens_per_s": {4096 / t:.1f}}}\n')


def history(tmp, db, label=True):
    for r in range(1, NIGHTS + 1):
        p = os.path.join(tmp, f"night{r}.jsonl")
        night_log(p, r)
        args = ["ingest", "-q", "--run", f"night{r}"]
        if label:
            args += ["--label", f"date=2024-06-{r:02d}"]
        run(*args, p, db=db)


def main():
    c = Checker()
    prof = os.path.join(SOURCE, "samples", "pstats", "sample.prof")
    traces = os.path.join(SOURCE, "samples", "traces")
    with tempdir() as tmp:
        # ---- the 13th night holds only a pstats dump ----
        db = os.path.join(tmp, "h.db")
        history(tmp, db)
        rc, out, err = run("trend", "--check", "5%", db=db, check=False)
        c.eq(f"12 logged nights: trend --check passes ({err.strip()})", rc, 0)
        run("ingest", "-q", "--run", "night13", "--label", "date=2024-06-13", prof, db=db)
        rc, out, err = run("trend", "--check", "5%", db=db, check=False)
        c.eq("newest night without samples: trend --check exit 2", rc, 2)
        c.true("... naming the run and that it has no samples",
               "'night13'" in err and "no samples of 'step_time'" in err, err)
        c.true("... and the older run it did not judge instead", "'night12'" in err, err)
        c.true("... with no PASS line", "PASS" not in out, out)
        rc, out, err = run("trend", "--by", "date", "--check", "step_time=5%",
                           "--check", "throughput=5%", db=db, check=False)
        c.eq("--by date, two metrics: exit 2", rc, 2)
        c.true("... the first metric named", "'step_time'" in err, err)
        rc, out, err = run("trend", "--check", "5%", "--out", os.path.join(tmp, "out"),
                           db=db, check=False)
        c.eq("with --out: exit 2", rc, 2)
        rc, out, err = run("trend", db=db, check=False)
        c.eq("without --check the trend still shows (exit 0)", rc, 0)
        c.true("... and counts the run left out", "1 run without samples left out" in err, err)
        rc, out, err = run("trend", "--runs", "night[0-9]", "--check", "5%", db=db,
                           check=False)
        c.eq(f"--runs leaving the night out (nights 1-9): passes ({err.strip()})", rc, 0)
        # A sample-less run that is not the newest by --by: an older date.
        run("ingest", "-q", "--replace", "--run", "night13", "--label", "date=2024-06-13",
            os.path.join(tmp, "night12.jsonl"), db=db)
        run("ingest", "-q", "--run", "stray", "--label", "date=2024-05-01", prof, db=db)
        rc, out, err = run("trend", "--by", "date", "--check", "5%", db=db, check=False)
        c.eq(f"sample-less run dated before the newest night: passes ({err.strip()})", rc, 0)
        c.true("... PASS printed", out.startswith("PASS"), out)
        rc, out, err = run("trend", "--check", "5%", db=db, check=False)
        c.eq("... but newest by ingest order: exit 2", rc, 2)
        c.true("... naming it", "'stray'" in err, err)

        # ---- the 13th night holds only a trace ----
        db2 = os.path.join(tmp, "t.db")
        history(tmp, db2, label=False)
        run("ingest", "-q", "--run", "night13", traces, db=db2)
        rc, out, err = run("trend", "--check", "5%", db=db2, check=False)
        c.eq("newest night measured only by its trace: trend --check exit 2", rc, 2)
        c.true("... saying where its samples come from and that none before did",
               "'night13'" in err and "trace steps" in err and "none of the 12 runs" in err,
               err)
        rc, out, err = run("trend", "--check", "throughput=5%", db=db2, check=False)
        c.eq("... throughput too (tokens/s against 1/ProfilerStep)", rc, 2)
        rc, out, err = run("check", "night1", "night13", db=db2, check=False)
        c.eq("check of a logged night against the trace-only night: exit 2", rc, 2)
        c.true("... naming both runs and sources",
               "'night13'" in err and "'night1'" in err and "trace steps" in err
               and "step log" in err, err)
        c.true("... no INCONCLUSIVE verdict", "INCONCLUSIVE" not in out, out)
        rc, out, err = run("check", "night13", "night1", db=db2, check=False)
        c.eq("... and the other way round", rc, 2)
        rc, out, err = run("check", "night1", "night12", db=db2, check=False)
        c.eq(f"check of two logged nights passes ({err.strip()[:200]})", rc, 0)
        # The night after: the log is back; the trace-only night is in the middle.
        p = os.path.join(tmp, "night14.jsonl")
        night_log(p, 14)
        run("ingest", "-q", "--run", "night14", p, db=db2)
        rc, out, err = run("trend", "--check", "5%", db=db2, check=False)
        c.eq(f"the log is back the next night: trend --check passes ({err.strip()[:300]})",
             rc, 0)

        # ---- --by date: the newest night ingested without its label ----
        db4 = os.path.join(tmp, "l.db")
        history(tmp, db4)
        p = os.path.join(tmp, "night13.jsonl")
        night_log(p, 13)
        run("ingest", "-q", "--run", "night13", p, db=db4)
        rc, out, err = run("trend", "--by", "date", "--check", "5%", db=db4, check=False)
        c.eq("newest night without the --by label: trend --check exit 2", rc, 2)
        c.true("... naming it, the label and the night judged in its place",
               "'night13'" in err and "'date'" in err and "'night12'" in err, err)
        c.true("... with no PASS line", "PASS" not in out, out)
        rc, out, err = run("trend", "--by", "date", "--check", "5%", "--runs", "night[0-9]",
                           db=db4, check=False)
        c.eq(f"... --runs leaving it out: passes ({err.strip()[:200]})", rc, 0)
        run("ingest", "-q", "--run", "old-unlabelled", p, db=db4)
        run("ingest", "-q", "--run", "night14", "--label", "date=2024-06-14", p, db=db4)
        rc, out, err = run("trend", "--by", "date", "--check", "5%", "--runs", "[no]*[0-9d]",
                           db=db4, check=False)
        c.eq(f"... an unlabelled run before the newest labelled one: passes "
             f"({err.strip()[:200]})", rc, 0)

        # ---- check: a side without samples was already an error ----
        rc, out, err = run("check", "night1", "stray", db=db, check=False)
        c.eq("check against a run with no samples: exit 2", rc, 2)
        c.true("... naming it", "'stray' has no samples" in err, err)
        db3 = os.path.join(tmp, "c.db")
        history(tmp, db3, label=False)
        run("ingest", "-q", "--run", "cand", prof, db=db3)
        rc, out, err = run("check", "night1", "cand", db=db3, check=False)
        c.eq("check of a pstats-only candidate: exit 2", rc, 2)
        c.true("... naming it", "'cand' has no samples of metric 'step_time'" in err, err)
        rc, out, err = run("check", "--db-test", db3, "--baseline-from", db, "cand",
                           check=False)
        c.eq("check --baseline-from (newest baseline run) against it: exit 2", rc, 2)
    return c.close()


if __name__ == "__main__":
    sys.exit(main())
