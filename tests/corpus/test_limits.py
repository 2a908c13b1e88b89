"""Resource limits of every reader, on inputs made here (no corpus needed).

Each case runs profdb as a child and reads that child's own peak RSS
(os.wait4), so memory stays bounded whatever the input: gzip bombs that
inflate to 4 GiB (padding, one endless string, an endless line, a pstats dump
and a JSON document), deep nesting, a 40 MB string, NaN and Infinity, numbers
out of range, negative durations, 100,000 CSV columns and a trace of millions
of tiny events. Every case ends with exit 0 (records stored, oddities counted
as skips) or exit 2 with one error line, and the database is unchanged by a
refused input.

In sanitizer and valgrind builds (PROFDB_SANITIZED=1) the RSS bounds are not
checked (shadow memory and quarantine inflate RSS) and the large cases are
scaled down, which the output says."""

# ctest-labels: slow (gzip bombs inflating to 4 GiB and a 2-million-event trace)

import gzip
import json
import marshal
import os
import subprocess
import sys
import time
import zlib

from common import GENTRACE, PROFDB, Checker, tempdir

MB = 1 << 20
GIB = 1 << 30
SANITIZED = os.environ.get("PROFDB_SANITIZED") == "1"


def run_child(args, stdin=None):
    """Runs profdb; returns (exit code, stderr, peak RSS in MB, seconds)."""
    t0 = time.monotonic()
    p = subprocess.Popen([PROFDB] + args, stdin=stdin, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(p.pid, 0)
    return (os.waitstatus_to_exitcode(status), err, usage.ru_maxrss / 1024,
            time.monotonic() - t0)


def gzip_member(data):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def write_bomb(path, head, filler_byte, total, tail):
    """A multi-member gzip file (as `cat a.gz b.gz` makes) that inflates to
    head + total bytes of filler + tail while staying a few MB on disk."""
    block = 8 * MB  # small, so this process's own RSS (counted by ru_maxrss) stays small
    member = gzip_member(filler_byte * block)
    with open(path, "wb") as f:
        f.write(gzip_member(head))
        for _ in range(total // block):
            f.write(member)
        f.write(gzip_member(tail))


def write_gz(path, head, filler, count, tail):
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(head)
        for _ in range(count):
            f.write(filler)
        f.write(tail)
    return path


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def trace_cases(tmp, bomb_size):
    ev = '{"ph": "X", "name": "k", "pid": 1, "tid": 1, '
    yield ("trace: 40 MB string", [], write_gz(
        os.path.join(tmp, "bigstring.json.gz"), b'{"traceEvents": [{"ph": "X", "name": "',
        b"a" * MB, 40, b'", "ts": 1, "dur": 1}]}'), 2, "no complete JSON value", 64)
    path = os.path.join(tmp, "padding.json.gz")
    write_bomb(path, b'{"traceEvents": [', b" ", bomb_size, b"]}")
    yield (f"trace: gzip bomb, {bomb_size >> 20} MiB of padding", [], path, 2,
           "no complete JSON value", 64)
    path = os.path.join(tmp, "endless_string.json.gz")
    write_bomb(path, b'{"traceEvents": [{"name": "', b"x", bomb_size, b'"}]}')
    yield (f"trace: gzip bomb, a {bomb_size >> 20} MiB string", [], path, 2,
           "no complete JSON value", 64)
    yield ("trace: 100,000 nested arrays", [], write(
        os.path.join(tmp, "deep.json"), '{"traceEvents": [' + ev + '"ts": 1, "dur": 1, "x": '
        + "[" * 100000 + "]" * 100000 + "}]}"), 2, "nested deeper than 1000", 64)
    # args are kept as JSON text, re-serialised by yajl_gen (at most 128 levels)
    yield ("trace: args nested 200 deep", [], write(
        os.path.join(tmp, "deepargs.json"), '{"traceEvents": [' + ev + '"ts": 1, "dur": 1, '
        '"args": {"a": ' + "[" * 200 + "]" * 200 + "}}]}"), 2,
        "args or metadata nested deeper than 100 levels", 64)
    yield ("trace: metadata nested 200 deep", [], write(
        os.path.join(tmp, "deepmeta.json"), '{"meta": ' + "{\"a\": " * 200 + "1" + "}" * 200
        + ', "traceEvents": [' + ev + '"ts": 1, "dur": 1}]}'), 2,
        "args or metadata nested deeper than 100 levels", 64)
    yield ("trace: NaN", [], write(os.path.join(tmp, "nan.json"), '{"traceEvents": [' + ev +
           '"ts": 1, "dur": 1, "args": {"bandwidth": NaN}}]}'), 2,
           "NaN and Infinity are not JSON numbers", 64)
    yield ("trace: -Infinity", [], write(os.path.join(tmp, "ninf.json"), '{"traceEvents": ['
           + ev + '"ts": -Infinity, "dur": 1}]}'), 2, "NaN and Infinity are not JSON numbers", 64)
    # Out-of-range times are the event's problem, not the file's: skipped and counted.
    yield ("trace: ts out of range (1e400) is a counted skip", [], write(
        os.path.join(tmp, "range.json"), '{"traceEvents": [' + ev + '"ts": 1e400, "dur": 1}, '
        + ev + '"ts": 9, "dur": 2}]}'), 0, "1 records, 1 skipped", 64)
    yield ("trace: dur of 30 digits is a counted skip", [], write(
        os.path.join(tmp, "range2.json"), '{"traceEvents": [' + ev + '"ts": 1, "dur": '
        '123456789012345678901234567890}, ' + ev + '"ts": 9, "dur": 2}]}'), 0,
        "1 records, 1 skipped", 64)
    yield ("trace: negative duration is a counted skip", [], write(
        os.path.join(tmp, "negdur.json"), '{"traceEvents": [' + ev + '"ts": 5, "dur": -3}, '
        + ev + '"ts": 9, "dur": 2}]}'), 0, "1 records, 1 skipped", 64)


def many_events(c, db, run_name):
    """A trace of millions of small events, streamed from profdb-gentrace into
    `profdb ingest -` (no file: writing and re-reading a 30 MB gzip file took
    longer than the ingest): exit 0, every event stored, peak RSS bounded."""
    steps = 600 if SANITIZED else 7500  # about 160,000 / 2,000,000 events
    gen = subprocess.Popen([GENTRACE, "--steps", str(steps), "-"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    got, err, rss, secs = run_child(["--db", db, "ingest", "--run", run_name, "-"],
                                    stdin=gen.stdout)
    gen.stdout.close()
    said = gen.stderr.read().decode()
    gen.wait()
    events = int(said.split()[-2])  # "profdb-gentrace: N events"
    name = f"trace: {events:,} small events on stdin"
    print(f"{name}: exit {got}, peak RSS {rss:.0f} MB, {secs:.1f} s")
    c.eq(f"{name}: exit code ({err.strip()[-300:]})", got, 0)
    out = subprocess.run([PROFDB, "--db", db, "runs", "--format", "json"], capture_output=True,
                         text=True).stdout
    records = {r["run"]: r["records"] for r in json.loads(out)}.get(run_name)
    c.eq(f"{name}: every event stored", records, events)
    if not SANITIZED:
        c.true(f"{name}: peak RSS {rss:.0f} MB within 64 MB", rss < 64)


def pstats_cases(tmp, bomb_size):
    path = os.path.join(tmp, "bomb.prof.gz")
    write_bomb(path, b"{(", b"\0", bomb_size, b"0")
    want = "larger than 256 MiB"  # the dict header makes even a 256 MiB bomb too large
    yield (f"pstats: gzip bomb, a dict then {bomb_size >> 20} MiB of zeros", ["--format", "pstats"],
           path, 2, want, 320)
    path = os.path.join(tmp, "zeros.prof.gz")
    write_bomb(path, b"\0", b"\0", bomb_size, b"")
    yield ("pstats: gzip bomb of zeros is refused at byte 0", ["--format", "pstats"], path, 2,
           "byte 0 (decompressed): expected a dict of functions", 64)
    # 100,000 nested one-element lists as a function key
    yield ("pstats: 100,000 nested lists", ["--format", "pstats"], write(os.path.join(tmp, "deep.prof"),
           b"{" + b"[\x01\0\0\0" * 100000 + b"N" + b"N0"), 2, "nested deeper", 64)
    key = ("a.py", 1, "f")
    yield ("pstats: NaN time", [], write(os.path.join(tmp, "nan.prof"), marshal.dumps(
        {key: (1, 1, float("nan"), 1.0, {})})), 2, "expected a finite time in seconds", 64)
    yield ("pstats: infinite time", [], write(os.path.join(tmp, "inf.prof"), marshal.dumps(
        {key: (1, 1, 1.0, float("inf"), {})})), 2, "expected a finite time in seconds", 64)
    yield ("pstats: 2**62 calls", [], write(os.path.join(tmp, "big.prof"), marshal.dumps(
        {key: (2 ** 62, 2 ** 62, 1.0, 1.0, {})})), 0, "records", 64)
    yield ("pstats: call count beyond int64", [], write(os.path.join(tmp, "huge.prof"),
           marshal.dumps({key: (2 ** 70, 1, 1.0, 1.0, {})})), 2, "integer too large", 64)


def steplog_cases(tmp, bomb_size):
    path = os.path.join(tmp, "endless_line.log.gz")
    write_bomb(path, b"step 1 loss 2.0 ", b"x", bomb_size, b"\n")
    yield (f"steplog: gzip bomb, one {bomb_size >> 20} MiB line", ["--format", "steplog:nanogpt"],
           path, 2, "line longer than", 64)
    path = os.path.join(tmp, "state.json.gz")
    write_bomb(path, b'{"log_history": [', b" ", bomb_size, b"]}")
    yield (f"steplog: gzip bomb, a {bomb_size >> 20} MiB JSON document",
           ["--format", "steplog:hf-trainer-state"], path, 2, "JSON document larger than", 160)
    cols = 100000
    yield (f"steplog: {cols:,} CSV columns", ["--format", "steplog:csv"], write(
        os.path.join(tmp, "wide.csv"), ",".join(f"c{i}" for i in range(cols)) + "\n"
        + ",".join("1" for _ in range(cols)) + "\n"), 2, "too many cells", 64)
    yield ("steplog: out-of-range and non-finite numbers are read", [], write(
        os.path.join(tmp, "range.jsonl"), '{"step": 1e400, "loss": 1e400}\n'
        '{"step": 2, "loss": Infinity}\n{"step": 3, "loss": -Infinity, "lr": NaN}\n'
        '{"step": 99999999999999999999, "loss": 1}\n'), 0, "records", 64)
    yield ("steplog: CSV step 1e300", [], write(os.path.join(tmp, "range.csv"),
           "step,loss\n1,1e999\n1e300,2\n"), 0, "records", 64)


def make_inputs(tmp):
    """Writes every case's input into tmp and a cases.json describing them.
    Runs in a child process: Linux carries a process's peak RSS across fork
    and exec into ru_maxrss, so the process that measures profdb must never
    have held the bombs' buffers itself."""
    bomb = 256 * MB if SANITIZED else 4 * GIB
    cases = [*trace_cases(tmp, bomb), *pstats_cases(tmp, bomb), *steplog_cases(tmp, bomb)]
    with open(os.path.join(tmp, "cases.json"), "w") as f:
        json.dump(cases, f)


def main():
    c = Checker()
    if SANITIZED:
        print("sanitizer/valgrind build: RSS bounds not checked; gzip bombs inflate to "
              "256 MiB (not 4 GiB) and the many-events trace is ~160,000 events")
    with tempdir() as tmp:
        subprocess.run([sys.executable, __file__, "--make-inputs", tmp], check=True)
        with open(os.path.join(tmp, "cases.json")) as f:
            cases = json.load(f)
        db = os.path.join(tmp, "t.db")
        subprocess.run([PROFDB, "--db", db, "ingest", "-q", "--run", "base",
                        write(os.path.join(tmp, "base.jsonl"), '{"step": 1, "loss": 2}\n')],
                       check=True)
        floor = run_child(["--version"])[2]
        print(f"peak RSS of 'profdb --version' (the floor of these readings): {floor:.0f} MB")
        for i, (name, extra, path, code, text, rss_bound) in enumerate(cases):
            got, err, rss, secs = run_child(["--db", db, "ingest", "--run", f"case{i}", *extra,
                                             path])
            print(f"{name}: exit {got}, peak RSS {rss:.0f} MB, {secs:.1f} s")
            c.eq(f"{name}: exit code", got, code)
            c.true(f"{name}: says '{text}'", text in err, err.strip()[-500:])
            if code == 2:
                errors = [x for x in err.splitlines() if not x.startswith("profdb: warning:")]
                c.eq(f"{name}: one error line", len(errors), 1)
            os.remove(path)
            if not SANITIZED:
                c.true(f"{name}: peak RSS {rss:.0f} MB within {rss_bound} MB", rss < rss_bound)
        many_events(c, db, f"case{len(cases)}")
        out = subprocess.run([PROFDB, "--db", db, "sql",
                              "SELECT count(*) FROM runs WHERE name LIKE 'case%'"],
                             capture_output=True, text=True).stdout.split()
        stored = sum(1 for case in cases if case[3] == 0) + 1  # + the many-events run
        c.eq("only the accepted cases became runs", out[-1] if out else "", str(stored))
        ok = subprocess.run([PROFDB, "--db", db, "sql", "PRAGMA integrity_check"],
                            capture_output=True, text=True).stdout
        c.true("integrity_check ok", "ok" in ok, ok)
    c.close()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--make-inputs":
        make_inputs(sys.argv[2])
    else:
        main()
