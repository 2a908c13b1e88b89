"""Database paths that would store nothing are refused; a "file:" name is a
file of that name (reliability round 3, items 11 and 14).

Before: `--db ""`, `PROFDB_DB=` (set, empty), `merge "" SHARD` and
`--db 'file:x.db?mode=memory'` exited 0 and stored nothing (SQLite opened a
temporary or in-memory database), and a file literally named `file:S.db`
let `merge S.db 'file:S.db'` merge S.db into itself (SQLite read the name as
a URI for S.db). Now the empty path and `:memory:` are one-line errors with
exit 2 and no file made, and every name is a literal file name: the file
`file:x.db?mode=memory` is created and keeps the run, and merging the file
`file:S.db` into S.db merges that file, not S.db."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import PROFDB, SOURCE, Checker, run, sql, tempdir  # noqa: E402

PSTATS = os.path.join(SOURCE, "samples", "pstats", "sample.prof")


def profdb(args, cwd, env_db=None):
    env = dict(os.environ)
    env.pop("PROFDB_DB", None)
    if env_db is not None:
        env["PROFDB_DB"] = env_db
    p = subprocess.run([PROFDB] + args, cwd=cwd, env=env, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    c = Checker()
    with tempdir() as tmp:
        good = os.path.join(tmp, "good.db")
        run("ingest", "-q", "--run", "g", PSTATS, db=good)
        cases = [
            ("--db ''", ["--db", "", "ingest", "-q", PSTATS], None, "--db is empty"),
            ("--db=", ["--db=", "ingest", "-q", PSTATS], None, "--db is empty"),
            ("ingest --db ''", ["ingest", "-q", "--db", "", PSTATS], None, "--db is empty"),
            ("PROFDB_DB=", ["ingest", "-q", PSTATS], "", "PROFDB_DB is empty"),
            ("--db :memory:", ["--db", ":memory:", "ingest", "-q", PSTATS], None, ":memory:"),
            ("merge '' SHARD", ["merge", "", good], None, "OUT.db is empty"),
            ("merge OUT ''", ["merge", "out.db", ""], None, "SHARD.db is empty"),
            ("merge :memory: SHARD", ["merge", ":memory:", good], None, ":memory:"),
            ("migrate --db ''", ["migrate", "--db", ""], None, "--db is empty"),
            ("report --db ''", ["report", "--db", ""], None, "--db is empty"),
            ("diff --db-test ''", ["--db", good, "diff", "--db-test", "", "g", "g"], None,
             "--db-test is empty"),
            ("check --db ''", ["check", "--db", "", "g", "g"], None, "--db is empty"),
        ]
        for what, args, env_db, says in cases:
            folder = os.path.join(tmp, "c" + str(len(os.listdir(tmp))))
            os.mkdir(folder)
            code, _, err = profdb(args, folder, env_db)
            c.eq(f"{what}: exit", code, 2)
            c.true(f"{what}: says why ({err.strip()!r})",
                   says in err and err.count("\n") == 1, err)
            c.eq(f"{what}: no file made", os.listdir(folder), [])

        # "file:" names are files of that name
        folder = os.path.join(tmp, "uri")
        os.mkdir(folder)
        name = "file:x.db?mode=memory"
        code, _, err = profdb(["--db", name, "ingest", "-q", "--run", "u", PSTATS], folder)
        c.eq("--db 'file:x.db?mode=memory': exit", code, 0)
        c.true("--db 'file:x.db?mode=memory': that file holds the run",
               os.path.exists(os.path.join(folder, name)) and
               [r["name"] for r in sql(os.path.join(folder, name), "SELECT name FROM runs")]
               == ["u"], os.listdir(folder))

        s = os.path.join(folder, "S.db")
        run("ingest", "-q", "--run", "s", PSTATS, db=s)
        shutil.copy(good, os.path.join(folder, "file:S.db"))
        code, _, err = profdb(["merge", "S.db", "file:S.db"], folder)
        c.eq("merge S.db 'file:S.db': exit", code, 0)
        c.eq("merge S.db 'file:S.db': S.db gains the run of the file 'file:S.db'",
             sorted(r["name"] for r in sql(s, "SELECT name FROM runs")), ["g", "s"])
        code, _, err = profdb(["merge", "S.db", "S.db"], folder)
        c.eq("merge S.db S.db: refused", code, 2)
    c.close()


if __name__ == "__main__":
    main()
