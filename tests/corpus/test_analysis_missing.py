"""A report over analysis tables that are empty because the analysis is
missing says so and how to fix it, never "no GPU events in this run"
(issue 30 item 16).

  - the two-rank sample run (448 GPU events) ingested with --no-analyze:
    gpu, kernel-types, kernels, kernels --by op, idle, steps, annotations,
    queue-length and critical-path used to say "no GPU events in this run"
    (or "no ProfilerStep annotations"), and ops, ranks, insights, launch,
    kernel-sequences, comm, memory-bw and memory printed empty tables (or
    rows of blanks); now each says the run is not
    analysed, that its traces hold 448 GPU events and to run `profdb
    analyze`; in JSON the document stays [] and the sentence goes to
    stderr. The overview says "not analysed" instead of "0 GPU events" and
    lists the trace reports as not applicable for that reason;
  - the schema-1 fixture (tests/migrate/v1.db.gz) migrated: its trace run
    has GPU events but no attribution nor launch queue (the migrations add
    those tables empty): kernels --by op and queue-length say the run was
    analysed by an older profdb, as does the overview;
  - a launch queue missing on its own (as after a migration from schema 2
    or 3; made here by deleting the rows): queue-length says so;
  - after `profdb analyze` every one of these reports has rows again, and a
    trace that really has no GPU events still says "no GPU events".
Needs no corpus: the inputs are the repository's samples and fixtures."""

import gzip
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE, Checker, run, tempdir  # noqa: E402

REPORTS = [["gpu"], ["kernel-types"], ["kernels"], ["kernels", "--by", "op"], ["idle"],
           ["steps"], ["annotations"], ["queue-length"], ["critical-path"], ["ops"],
           ["ranks"], ["insights"], ["launch"]]
# Trace reports that have no rows on the samples even when analysed (no
# collectives, no memory profile, no op with 3 or more kernels a call): only
# the missing analysis is checked.
MISSING_ONLY = [["kernel-sequences"], ["comm"], ["memory-bw"], ["memory"]]


def says_missing(c, what, out, err, run_name, events, older=False):
    text = out + err
    c.true(f"{what}: says the analysis is missing and how to fix it",
           f"run '{run_name}' " in text
           and ("analysed by an older profdb" if older else "is not analysed") in text
           and f"profdb analyze {run_name}" in text and f"{events} GPU events" in text, text)
    c.true(f"{what}: not 'no GPU events'", "no GPU events" not in text, text)


def main():
    c = Checker()
    traces = os.path.join(SOURCE, "samples", "traces")
    with tempdir() as tmp:
        # ---- --no-analyze ----
        db = os.path.join(tmp, "na.db")
        run("ingest", "-q", "--no-analyze", "--run", "s", traces, db=db)
        for args in REPORTS + MISSING_ONLY:
            rc, out, err = run("report", "--run", "s", *args, db=db, check=False)
            c.eq(f"not analysed: report {' '.join(args)} exit 0", rc, 0)
            says_missing(c, f"not analysed: report {' '.join(args)}", out, err, "s", 448)
        rc, out, err = run("report", "--run", "s", "gpu", "--format", "json", db=db,
                           check=False)
        c.eq("json: still a JSON document", (rc, out.strip()), (0, "[]"))
        says_missing(c, "json: the sentence on stderr", "", err, "s", 448)
        rc, out, err = run("report", "--run", "s", db=db, check=False)
        c.eq("overview: exit 0", rc, 0)
        c.true("overview: 448 GPU events, not analysed",
               "448 GPU events, not analysed" in out and "0 GPU events" not in out, out)
        c.true("overview: trace reports not applicable because not analysed",
               "(not analysed: run 'profdb analyze')" in out and "(no GPU events)" not in out,
               out)
        says_missing(c, "overview", out, err, "s", 448)
        run("analyze", "s", db=db)
        for args in REPORTS:
            rc, out, err = run("report", "--run", "s", *args, "--format", "csv", db=db,
                               check=False)
            c.true(f"analysed: report {' '.join(args)} has rows",
                   rc == 0 and len(out.splitlines()) >= 2 and not err, out + err)
        # ---- a launch queue missing on its own ----
        run("sql", "--write", "DELETE FROM analysis_queue", db=db)
        rc, out, err = run("report", "--run", "s", "queue-length", db=db, check=False)
        says_missing(c, "no launch queue: queue-length", out, err, "s", 448, older=True)
        c.true("... the schema versions named", "before schema version 4" in out, out)

        # ---- the schema-1 fixture, migrated ----
        v1 = os.path.join(tmp, "v1.db")
        with gzip.open(os.path.join(SOURCE, "tests", "migrate", "v1.db.gz")) as f, \
                open(v1, "wb") as g:
            shutil.copyfileobj(f, g)
        run("migrate", db=v1)
        for args in (["kernels", "--by", "op"], ["queue-length"]):
            rc, out, err = run("report", "--run", "trace", *args, db=v1, check=False)
            c.eq(f"migrated: report {' '.join(args)} exit 0", rc, 0)
            says_missing(c, f"migrated: report {' '.join(args)}", out, err, "trace", 224,
                         older=True)
        rc, out, err = run("report", "--run", "trace", db=v1, check=False)
        says_missing(c, "migrated: overview", out, err, "trace", 224, older=True)
        rc, out, err = run("report", "--run", "trace", "gpu", "--format", "csv", db=v1,
                           check=False)
        c.true("migrated: gpu (analysis_gpu kept) still reports", len(out.splitlines()) == 2,
               out + err)
        run("analyze", "trace", db=v1)
        for args in (["kernels", "--by", "op"], ["queue-length"]):
            rc, out, err = run("report", "--run", "trace", *args, "--format", "csv", db=v1,
                               check=False)
            c.true(f"migrated, analysed: report {' '.join(args)} has rows",
                   rc == 0 and len(out.splitlines()) >= 2 and not err, out + err)
        rc, out, err = run("report", "--run", "trace", db=v1, check=False)
        c.true("migrated, analysed: the overview says nothing is missing",
               "profdb analyze" not in out, out)

        # ---- a trace without GPU events ----
        cpu = os.path.join(tmp, "cpu.json")
        with open(cpu, "w") as f:
            json.dump({"traceEvents": [
                {"ph": "X", "name": "aten::add", "cat": "cpu_op", "pid": 1, "tid": 1,
                 "ts": 10, "dur": 5},
                {"ph": "X", "name": "ProfilerStep#1", "cat": "user_annotation", "pid": 1,
                 "tid": 1, "ts": 0, "dur": 20}]}, f)
        run("ingest", "-q", "--run", "cpu", cpu, db=db)
        rc, out, err = run("report", "--run", "cpu", "gpu", db=db, check=False)
        c.true("a CPU-only trace: gpu does not apply, needing GPU events",
               rc == 2 and "does not apply" in err and "GPU events" in err
               and "analy" not in err and out == "", out + err)
    return c.close()


if __name__ == "__main__":
    sys.exit(main())
