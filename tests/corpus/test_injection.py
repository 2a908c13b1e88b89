"""Hostile names reach SQLite only as bound parameters (issue 8, hardening).

Runs named with quotes, semicolons, SQL (x'; DROP TABLE runs; --), printf
directives (%s%n), LIKE wildcards (%, _), newlines, tabs, backslashes,
non-ASCII and ../../x, labels built from the same text, and a trace whose
file name is itself SQL (the run is named after it):
  - every name round-trips exactly through `profdb runs` (JSON), each name
    selects exactly its own run (`runs NAME`, `report --run NAME`), and the
    labels come back exactly;
  - `diff` and `check` between hostile runs work; `check -m op:<SQL>` and
    `--metric`/`--match` with SQL and % text are plain text (no rows, or a
    message quoting the text exactly);
  - afterwards `PRAGMA integrity_check` is ok and no table is missing;
  - `report --out DIR` for the run named ../../x, with DIR itself named with
    quotes, backquotes and $(...): every file lands inside DIR and nothing
    runs (no PWNED file). Hostile text inside gnuplot scripts is covered by
    test_report_charts.py.
Generated inputs only."""

import json
import os
import subprocess

from common import GENTRACE, SOURCE, Checker, run, run_json, tempdir

HOSTILE = [
    "x'; DROP TABLE runs; --",
    'a"b"; DELETE FROM sources; --',
    "100%s%n%d%%",
    "%",
    "_",
    "line1\nline2",
    "tab\there",
    "back\\slash\\",
    "ü名 run",
    "../../x",
    "' OR '1'='1",
]
FILE_SQL = "y'; DROP TABLE traces; --"


def gentrace(path, steps):
    subprocess.run([GENTRACE, "--steps", str(steps), "--rank", "0", "--world", "1", path],
                   check=True, capture_output=True)
    return path


def key(i, name):
    """A label key from a hostile name (a key cannot hold '=')."""
    return f"k{i}" + name.replace("=", "")


def tables(db):
    rows = run_json("sql", "SELECT name FROM sqlite_schema WHERE type = 'table'", db=db)
    return sorted(r["name"] for r in rows)


def ingest_all(c, db, trace, tmp):
    for i, name in enumerate(HOSTILE):
        run("ingest", "-q", "--run", name, "--label", f"{key(i, name)}={name}", trace, db=db)
    hostile_file = os.path.join(tmp, FILE_SQL + ".json")
    os.link(trace, hostile_file)
    run("ingest", "-q", hostile_file, db=db)
    run("ingest", "-q", "--run", "p'; DROP TABLE pstats_functions; --%s",
        os.path.join(SOURCE, "samples", "pstats", "sample.prof"), db=db)
    names = [r["run"] for r in run_json("runs", db=db)]
    c.eq("run names round-trip", names,
         HOSTILE + [FILE_SQL, "p'; DROP TABLE pstats_functions; --%s"])
    labels = run_json("sql", "SELECT key, value FROM run_labels ORDER BY run_id", db=db)
    c.eq("labels round-trip", [(r["key"], r["value"]) for r in labels],
         [(key(i, n), n) for i, n in enumerate(HOSTILE)])


def select_each(c, db):
    for name in HOSTILE + [FILE_SQL]:
        rows = run_json("runs", name, db=db)
        c.eq(f"runs {name!r} selects its run", [r["run"] for r in rows], [name])
        rc, out, err = run("report", "--run", name, "--format", "json", "summary", db=db,
                           check=False)
        c.eq(f"report --run {name!r} ({err.strip()[:200]})", rc, 0)
    rc, out, err = run("runs", "' OR 1=1 --", "--format", "json", db=db, check=False)
    c.eq("runs with an unknown SQL-like name: exit 2, nothing listed", (rc, out), (2, ""))
    c.true("... and says which run is missing", "no run named '' OR 1=1 --'" in err, err)


def compare(c, db):
    base, test = HOSTILE[0], HOSTILE[1]
    rc, out, err = run("diff", base, test, "ops", "--top", "3", db=db, check=False)
    c.eq(f"diff hostile runs ({err.strip()[:200]})", rc, 0)
    c.true("diff names both runs", base in out and test in out, out[:300])
    rc, _, err = run("check", base, test, "-m", "op:cudaStreamSynchronize=50", "--min-samples", "2",
                     db=db, check=False)
    c.true(f"check hostile runs exit 0/1 ({err.strip()[:200]})", rc in (0, 1))
    metric = "op:a'; DROP TABLE runs; --%s"
    rc, _, err = run("check", base, test, "-m", metric + "=5", db=db, check=False)
    c.eq("check -m op:<SQL>: exit", rc, 2)
    c.true("check -m op:<SQL>: message quotes it exactly", f"'{metric}'" in err, err)
    pst = "p'; DROP TABLE pstats_functions; --%s"
    for regex in ("'; DROP TABLE runs; --", "%s%n%", "fib|x' OR '1'='1"):
        rc, out, err = run("report", "--run", pst, "pstats", "--match", regex, db=db,
                           check=False)
        c.eq(f"report pstats --match {regex!r} ({err.strip()[:200]})", rc, 0)
    rc, out, _ = run("report", "--run", pst, "pstats", "--match", "fib", db=db)
    c.true("--match still matches", "(fib)" in out, out[-300:])
    rc, out, err = run("report", "--run", HOSTILE[0], "metrics", "--metric",
                       "x' OR '1'='1", db=db, check=False)
    c.true(f"--metric <SQL> is plain text ({err.strip()[:200]})", rc in (0, 2))


def walk(root):
    got = set()
    for d, _, files in os.walk(root):
        got.update(os.path.join(d, f) for f in files)
    return got


def out_folder(c, db, tmp):
    before = walk(tmp)
    os.makedirs(os.path.join(tmp, "a", "b"))
    out = os.path.join(tmp, "a", "b", "out '\"`touch PWNED`$(touch PWNED);x")
    rc, _, err = run("report", "--run", "../../x", "--out", out, db=db, check=False)
    c.eq(f"report --out for run ../../x ({err.strip()[:200]})", rc, 0)
    new = walk(tmp) - before
    c.true("files were written", len(new) > 3, sorted(new))
    outside = [p for p in new if os.path.dirname(p) != out]
    c.eq("every file lands directly inside --out", outside, [])
    c.eq("nothing ran (no PWNED)", [p for p in walk(tmp) if "PWNED" in os.path.basename(p)],
         [])
    c.true("cwd has no PWNED", not os.path.exists("PWNED"))


def main():
    c = Checker()
    with tempdir() as tmp:
        trace = gentrace(os.path.join(tmp, "t.json"), 12)
        fresh = os.path.join(tmp, "fresh.db")
        run("ingest", "-q", trace, db=fresh)
        db = os.path.join(tmp, "h.db")
        ingest_all(c, db, trace, tmp)
        select_each(c, db)
        compare(c, db)
        out_folder(c, db, tmp)
        _, out, _ = run("sql", "PRAGMA integrity_check", db=db)
        c.eq("integrity_check", out.split()[-1:], ["ok"])
        c.eq("no table missing", tables(db), tables(fresh))
        c.eq("run count", len(run_json("runs", db=db)), len(HOSTILE) + 2)
    c.close()


if __name__ == "__main__":
    main()
