"""One rule for a report that does not apply to a run.

On a corpus trace, a pstats dump and a step log (one run each), every
report is asked for by name. A report that the overview lists under
"reports that apply" exits 0 and prints at least one row; every other one
exits 2 with one line on stderr, `profdb: report X does not apply to run R:
it needs ...`, and nothing on stdout: never an empty table with exit 0.
And the overview lists each report once, as applying or not.

Which run: without --run a report says on stderr which run it used, when
the database holds more than one (one run: nothing to say); --run given
twice is refused, and so is a misspelled run or option, with the closest
name offered."""

import json
import os

from common import Checker, need_corpus, run, tempdir

INPUTS = {
    "trace": ("traces", "trace_filter_sampled_rank-0.json.gz"),
    "pstats": ("pstats", "hta_analysis.prof"),
    "steplog": ("steplogs", "nanogpt_train.log"),
}
NOT_JSON = {"pstats-dot", "pstats-chart", "folded", "pyspy-tree"}  # text of their own
NEEDS_OUT = {"flamegraph"}  # writes files into --out DIR


def all_reports():
    _, out, _ = run("report", "--help")
    lines = out.split("\nreports:\n", 1)[1].splitlines()
    return [ln.split()[0] for ln in lines if ln.startswith("  ") and ln.split()]


def overview(db, run_name):
    """(reports that apply, reports listed as not applicable)."""
    _, out, _ = run("report", "--run", run_name, db=db)
    applies, not_applicable = [], []
    for line in out.splitlines():
        if line.startswith("reports that apply:"):
            applies = line.split(":", 1)[1].split()
        elif line.startswith("not applicable:"):
            names = line.split(":", 1)[1].split(" (", 1)[0].split()
            not_applicable += names
    return applies, not_applicable


def check_report(c, db, run_name, report, applies):
    args = ["report", "--run", run_name, report]
    fmt = [] if report in NOT_JSON else ["--format", "json"]
    rc, out, err = run(*args, *fmt, check=False, db=db)
    if report in applies:
        c.eq(f"{run_name} {report} (applies): exit code", rc, 0)
        if fmt and rc == 0:
            rows = json.loads(out) if out.strip().startswith("[") else None
            c.true(f"{run_name} {report} (applies): prints rows", bool(rows), out[:200])
        return
    c.eq(f"{run_name} {report} (does not apply): exit code", rc, 2)
    c.eq(f"{run_name} {report} (does not apply): nothing on stdout", out, "")
    lines = err.splitlines()
    want = f"profdb: report {report} does not apply to run {run_name}: it needs "
    c.true(f"{run_name} {report} (does not apply): one line saying what it needs",
           len(lines) == 1 and lines[0].startswith(want) and len(lines[0]) > len(want), err)


def check_which_run(c, db, tmp):
    rc, out, err = run("report", "summary", db=db)
    c.eq("no --run: exit code", rc, 0)
    c.true("no --run, three runs: says which", "profdb: run 'steplog' (the newest of 3;" in err,
           err)
    _, named, named_err = run("report", "--run", "steplog", "summary", db=db)
    c.eq("no --run: the newest run's report", out, named)
    c.eq("--run: nothing to say", named_err, "")
    one = os.path.join(tmp, "one.db")
    run("ingest", "--run", "only", need_corpus(*INPUTS["steplog"]), db=one)
    _, _, err = run("report", "summary", db=one)
    c.eq("no --run, one run: quiet", err, "")
    rc, out, err = run("report", "--run", "trace", "--run", "pstats", "summary", check=False,
                       db=db)
    c.true("--run twice: refused, naming both",
           rc == 2 and out == "" and "'--run' given twice ('trace', then 'pstats')" in err, err)
    rc, _, err = run("report", "--run", "trcae", "summary", check=False, db=db)
    c.true("misspelled run: did you mean", rc == 2 and "did you mean 'trace'?" in err, err)
    rc, _, err = run("report", "--run", "zzzzzzzz", "summary", check=False, db=db)
    c.true("unknown run, nothing close: no guess", rc == 2 and "did you mean" not in err, err)
    rc, _, err = run("diff", "trace", "tracee", check=False, db=db)
    c.true("diff, misspelled run: did you mean", rc == 2 and "did you mean 'trace'?" in err, err)
    rc, _, err = run("report", "--colums", "name", "kernels", check=False, db=db)
    c.true("misspelled option: did you mean", rc == 2 and "did you mean --columns?" in err, err)


def main():
    c = Checker()
    reports = all_reports()
    c.true("report --help lists the reports", len(reports) > 30, str(reports))
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for run_name, parts in INPUTS.items():
            run("ingest", "--run", run_name, need_corpus(*parts), db=db)
        for run_name in INPUTS:
            applies, not_applicable = overview(db, run_name)
            c.eq(f"{run_name}: the overview lists every report once",
                 sorted(applies + not_applicable), sorted(reports))
            for report in reports:
                if report not in NEEDS_OUT:
                    check_report(c, db, run_name, report, applies)
        check_which_run(c, db, tmp)
    c.close()


if __name__ == "__main__":
    main()
