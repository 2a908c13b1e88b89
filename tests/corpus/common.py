"""Shared helpers for the corpus tests (Python standard library only).

Each test_*.py is one ctest test. It finds the profdb binary in $PROFDB and
the corpus in $PROFDB_CORPUS; when the corpus (or a tool such as gnuplot) is
absent, as in a fresh clone, it prints why and exits 77, which ctest reports
as Skipped. With PROFDB_REQUIRE_PREREQS=1 (scripts/test.sh, hence CI, sets it)
a missing prerequisite is a failure instead: exit 1, with the same reason."""

import json
import os
import subprocess
import sys
import tempfile

PROFDB = os.environ.get("PROFDB", "profdb")
CORPUS = os.environ.get("PROFDB_CORPUS", "")
GENTRACE = os.environ.get("PROFDB_GENTRACE", "profdb-gentrace")
SOURCE = os.environ.get("PROFDB_SOURCE", ".")
SKIP = 77
REQUIRED = os.environ.get("PROFDB_REQUIRE_PREREQS") == "1"
# Sanitizer and valgrind builds (PROFDB_SANITIZED=1) run profdb 3 to 50 times
# slower: tests that make large inputs scale them by CHECKED_SCALE and wait
# TIMEOUT seconds for a child; they print what they scaled.
CHECKED = os.environ.get("PROFDB_SANITIZED") == "1"
TIMEOUT = 900 if CHECKED else 60


def checked_subset(items, every, what="inputs"):
    """items in a normal build; every every-th of them (the first included)
    in a sanitizer or valgrind build, where a run costs 3 to 30 times more.
    The checked builds look for memory errors, which a spread of inputs
    shows; the normal build checks every input's numbers."""
    items = list(items)
    if not CHECKED or every <= 1:
        return items
    kept = items[::every]
    print(f"checked build: {len(kept)} of {len(items)} {what}")
    return kept


def scaled(n, checked_n):
    """n in a normal build, checked_n in a sanitizer or valgrind build."""
    if CHECKED and checked_n != n:
        print(f"checked build: {checked_n} instead of {n}")
    return checked_n if CHECKED else n


def missing(what):
    """A prerequisite is absent: exits 77 (Skipped) with the reason, or 1 when
    PROFDB_REQUIRE_PREREQS=1 says it must be there."""
    if REQUIRED:
        print(f"FAIL: {what}, and PROFDB_REQUIRE_PREREQS=1 says it must be "
              "(unset it to skip instead)")
        sys.exit(1)
    print(f"SKIPPED: {what}")
    sys.exit(SKIP)


def missing_part(what):
    """A prerequisite of one part of a test is absent: that part is left out
    with a note, or the test fails when PROFDB_REQUIRE_PREREQS=1."""
    if REQUIRED:
        print(f"FAIL: {what}, and PROFDB_REQUIRE_PREREQS=1 says it must be")
        sys.exit(1)
    print(f"note: {what}: that part is left out")


def need_corpus(*parts):
    """Returns the corpus path joined with parts, or calls missing()."""
    path = os.path.join(CORPUS, *parts)
    if not CORPUS or not os.path.exists(path):
        missing(f"{path or '../shared/corpus'} is not present "
                "(the shared corpus is only beside CI and developer checkouts)")
    return path


def have_corpus(*parts):
    """The corpus path joined with parts if present, else None after
    missing_part() (for tests whose other parts need no corpus)."""
    path = os.path.join(CORPUS, *parts)
    if CORPUS and os.path.exists(path):
        return path
    missing_part(f"{path or '../shared/corpus'} is not present")
    return None


def run(*args, check=True, db=None, stdin=None):
    """Runs profdb; returns (exit code, stdout, stderr)."""
    cmd = [PROFDB] + (["--db", db] if db else []) + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, input=stdin)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return p.returncode, p.stdout, p.stderr


def run_json(*args, db=None):
    _, out, _ = run(*args, "--format", "json", db=db)
    return json.loads(out)


def scratch_db(tmp):
    return os.path.join(tmp, "t.db")


class Checker:
    """Collects failures so one run reports all of them, then the totals."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def eq(self, what, got, want):
        if got == want:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}: got {got!r}, want {want!r}")

    def true(self, what, cond, detail=""):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what} {detail}")

    def close(self):
        """Prints the totals and exits: 1 on any failure, and 1 when no check
        ran at all (a test that checked nothing proved nothing)."""
        print(f"{self.passed} passed, {self.failed} failed")
        if self.passed + self.failed == 0:
            print("FAIL: no check ran")
            sys.exit(1)
        sys.exit(1 if self.failed else 0)


def tempdir():
    return tempfile.TemporaryDirectory(prefix="profdb-test-")


def q(text):
    """An SQL string literal (tests build queries for `profdb sql`)."""
    return "'" + str(text).replace("'", "''") + "'"


def sql(db, query):
    return run_json("sql", query, db=db)


def table_counts(db):
    """Rows of every table of db, read-only: {table: count}."""
    import sqlite3
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type ="
                                           " 'table' ORDER BY name")]
        return {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        con.close()
