"""Every input in fuzz/regressions/ (each once crashed a fuzz target) goes
through `profdb ingest --dry-run` with the reader its target forces. It must
be read (exit 0) or refused with one error line (exit 2): never a crash, a
sanitizer report or a hang. The file name says the target: TARGET-what.ext,
e.g. steplog_megatron_golden-inf-step-key.json is --format
steplog:megatron-golden, pyspy_raw-... is --format pyspy-raw; sniff-... files
are sniffed. No corpus needed."""

import os
import subprocess

from common import PROFDB, SOURCE, Checker, tempdir


def format_of(target):
    if target == "sniff":
        return []
    if target.startswith("pyspy_"):
        return ["--format", target.replace("_", "-")]
    if target.startswith("steplog_"):
        return ["--format", "steplog:" + target[len("steplog_"):].replace("_", "-")]
    return ["--format", target]


def main():
    c = Checker()
    folder = os.path.join(SOURCE, "fuzz", "regressions")
    names = sorted(os.listdir(folder))
    c.true("fuzz/regressions holds inputs", len(names) > 0)
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for name in names:
            target = name.split("-", 1)[0]
            args = [PROFDB, "--db", db, "ingest", "--dry-run", *format_of(target),
                    os.path.join(folder, name)]
            try:
                p = subprocess.run(args, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                c.true(f"{name}: finishes within 120 s", False)
                continue
            c.true(f"{name}: exit 0 or 2", p.returncode in (0, 2),
                   f"exit {p.returncode}: {p.stderr.strip()[-2000:]}")
            if p.returncode == 2:
                lines = p.stderr.strip().splitlines()
                c.eq(f"{name}: one error line", len(lines), 1)
            c.true(f"{name}: no sanitizer report", "Sanitizer" not in p.stderr
                   and "runtime error" not in p.stderr, p.stderr[-2000:])
            c.true(f"{name}: no database created by a dry run", not os.path.exists(db))
    c.close()


if __name__ == "__main__":
    main()
