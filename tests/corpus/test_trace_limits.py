"""Resource limits of the trace reader, on inputs made here (no corpus needed).

Each case runs profdb as a child and reads that child's own peak RSS
(os.wait4), so memory stays bounded whatever the input: a string of 40 MB, 150
MB of padding inside a gzip bomb, 100,000 nested arrays, NaN, and a trace of
hundreds of thousands of tiny events (which must ingest, within 64 MB)."""

import gzip
import os
import subprocess

from common import GENTRACE, PROFDB, Checker, tempdir

MB = 1 << 20
# AddressSanitizer's shadow memory and quarantine inflate RSS: bounds are for real builds.
SANITIZED = os.environ.get("PROFDB_SANITIZED") == "1"


def run_child(args):
    """Runs profdb; returns (exit code, stderr, peak RSS in MB)."""
    p = subprocess.Popen([PROFDB] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, usage.ru_maxrss / 1024


def write_gz(path, head, filler, count, tail):
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(head)
        for _ in range(count):
            f.write(filler)
        f.write(tail)


def main():
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        cases = []
        big = os.path.join(tmp, "bigstring.json.gz")
        write_gz(big, b'{"traceEvents": [{"ph": "X", "name": "', b"a" * MB, 40,
                 b'", "ts": 1, "dur": 1}]}')
        cases.append(("40 MB string", big, 2, "no complete JSON value"))
        bomb = os.path.join(tmp, "padding.json.gz")
        write_gz(bomb, b'{"traceEvents": [', b" " * MB, 150, b"]}")
        cases.append(("150 MB of padding (gzip bomb)", bomb, 2, "no complete JSON value"))
        deep = os.path.join(tmp, "deep.json")
        with open(deep, "w") as f:
            f.write('{"traceEvents": [{"ph": "X", "ts": 1, "dur": 1, "args": {"a": '
                    + "[" * 100000 + "]" * 100000 + "}}]}")
        cases.append(("100,000 nested arrays", deep, 2, "nested deeper than 1000"))
        nan = os.path.join(tmp, "nan.json")
        with open(nan, "w") as f:
            f.write('{"traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur": 1,'
                    ' "args": {"bandwidth": NaN}}]}')
        cases.append(("NaN", nan, 2, "NaN and Infinity are not JSON numbers"))
        many = os.path.join(tmp, "many.json.gz")
        subprocess.run([GENTRACE, "--steps", "600", "--gzip", many], check=True,
                       stderr=subprocess.DEVNULL)
        cases.append(("~160,000 small events", many, 0, "records"))
        for i, (name, path, code, text) in enumerate(cases):
            got, err, rss = run_child(["--db", db, "ingest", "--run", f"case{i}", path])
            c.eq(f"{name}: exit code", got, code)
            c.true(f"{name}: says '{text}'", text in err, err.strip())
            if SANITIZED:
                print(f"{name}: peak RSS {rss:.0f} MB not checked (sanitizer build)")
            else:
                c.true(f"{name}: peak RSS {rss:.0f} MB within 64 MB", rss < 64)
    c.close()


if __name__ == "__main__":
    main()
