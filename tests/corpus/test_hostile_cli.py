"""Names echoed by the command line itself stay one line of inert text
(reliability round 3, item 9's leftovers found by test_hostile_names).

Before: the per-file "FILE: FORMAT into run 'RUN'" line of ingest and of
`ingest -n` kept a newline of a file or run name (a second, forged line on
stderr); an unknown command or option was echoed as typed (ESC and BEL
reached the terminal); `migrate` and `merge` printed the --db path raw."""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import PROFDB, SOURCE, Checker, run, tempdir  # noqa: E402

HOSTILE = "x\x1b[2J\x07\nprofdb: forged line\r\x1b]0;title\x07y"
PSTATS = os.path.join(SOURCE, "samples", "pstats", "sample.prof")


def inert(c, what, text, lines):
    c.true(f"{what}: no ESC, BEL or CR ({text!r})",
           not any(ch in text for ch in "\x1b\x07\r"), text)
    c.eq(f"{what}: lines", text.count("\n"), lines)
    c.true(f"{what}: no forged line", "\nprofdb: forged" not in "\n" + text, text)


def main():
    c = Checker()
    with tempdir() as tmp:
        path = os.path.join(tmp, HOSTILE.replace("/", "_") + ".prof")
        shutil.copy(PSTATS, path)
        db = os.path.join(tmp, "t.db")
        for dry in (["-n"], []):
            code, _, err = run("ingest", *dry, "--run", HOSTILE, path, db=db, check=False)
            c.eq(f"ingest {' '.join(dry)}: exit", code, 0)
            inert(c, f"ingest {' '.join(dry)} stderr", err, 2 if dry else 1)
        for args in ([HOSTILE], ["--" + HOSTILE], ["help", HOSTILE]):
            p = subprocess.run([PROFDB] + args, capture_output=True, text=True)
            c.eq(f"{args[0][:6]!r}: exit", p.returncode, 2)
            inert(c, f"{args[0][:6]!r}: stderr", p.stderr.split("\nusage")[0].rstrip("\n") + "\n", 1)
        hostile_db = os.path.join(tmp, HOSTILE.replace("/", "_") + ".db")
        run("ingest", "-q", "--run", "a", PSTATS, db=hostile_db)
        code, out, err = run("migrate", db=hostile_db, check=False)
        c.eq("migrate: exit", code, 0)
        inert(c, "migrate stdout", out, 1)
        code, out, err = run("merge", hostile_db + ".out", hostile_db, check=False)
        c.eq("merge: exit", code, 0)
        inert(c, "merge stderr", err, 1)
    c.close()


if __name__ == "__main__":
    main()
