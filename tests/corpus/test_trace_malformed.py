"""Malformed traces, made here from a real corpus trace, are refused cleanly.

Each case must: exit 2; print exactly one line 'profdb: FILE: byte N: ...'
(or the case's expected wording); and leave the database exactly as it was,
including a good file ingested earlier in the same command (one transaction)."""

import gzip
import os
import re

from common import Checker, need_corpus, run, tempdir

GOOD = "trace_filter_sampled_rank-1.json.gz"
# byte N of a gzip file says whether it counts compressed or decompressed bytes
BAD_LINE = re.compile(r"^profdb: .+: byte \d+( \((de)?compressed\))?: .+$")


def cases(text, gz_bytes):
    """(name, file bytes, expected message fragment) for every malformed case."""
    raw = text.encode()
    n = len(raw)
    first_ts = re.search(r'"ts": ?\d+', text)
    first_pid = re.search(r'"pid": ?\d+', text)
    first_args = re.search(r'"args": ?\{', text)
    yield "truncated at 10%", raw[: n // 10], "unexpected end of data"
    yield "truncated at 50%", raw[: n // 2], "unexpected end of data"
    yield "truncated one byte short", raw[:-2], "unexpected end of data"
    yield "gzip cut in half", gz_bytes[: len(gz_bytes) // 2], "gzip data ends early"
    crc = bytearray(gz_bytes)
    crc[-8] ^= 0xFF  # the CRC-32 in the gzip trailer
    yield "gzip checksum wrong", bytes(crc), "corrupt gzip data (incorrect data check)"
    header = bytearray(gz_bytes)
    header[2] = 7  # compression method: only 8 (deflate) exists
    yield "gzip header corrupted", bytes(header), "corrupt gzip data"
    yield "ts is a string", (text[: first_ts.start()] + '"ts": "soon"' +
                             text[first_ts.end():]).encode(), 'expected a number (microseconds) for "ts"'
    yield "pid is an object", (text[: first_pid.start()] + '"pid": {"a": 1}' +
                               text[first_pid.end():]).encode(), 'expected a number or string for "pid"'
    yield "args is a number", (text[: first_args.start()] + '"args": 5, "x": {' +
                               text[first_args.end():]).encode(), 'expected an object for "args"'
    yield "traceEvents is an object", raw.replace(b'"traceEvents": [', b'"traceEvents": {"a": [', 1), \
        'expected an array for "traceEvents"'
    yield "event is a number", raw.replace(b'"traceEvents": [', b'"traceEvents": [42, ', 1), \
        "expected an event object"
    yield "bad token", raw.replace(b",", b";", 50)[:], "invalid JSON"
    yield "trailing garbage", raw + b"\n{}", "invalid JSON"
    yield "garbage bytes", bytes(range(256)) * 8, "not a recognised input"
    yield "empty file", b"", "empty input"
    # Written the way Kineto writes its header, but with no event list.
    yield "object without traceEvents", b'{\n  "schemaVersion": 1,\n  "deviceProperties": [],\n' \
        b'  "traceName": "x"\n}\n', 'no "traceEvents" array'
    legacy = b'[{"name": "a", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1}, {"name": "b", "ph'
    yield "legacy array cut inside an event", legacy, "unexpected end of data"
    # A ts out of range (1e300) is no longer a malformed file: that event is
    # skipped and counted (tests/golden/trace_time_range, test_limits).


def check_gzip_offsets(c, tmp, text, gz_bytes, db):
    """A .gz input's offsets say what they count: bytes of the compressed
    file for gzip errors, bytes of the decompressed data for the rest."""
    cut = text.encode()[: len(text) // 2]
    path = os.path.join(tmp, "cut.json.gz")
    with open(path, "wb") as f:
        f.write(gzip.compress(cut))
    _, _, err = run("ingest", path, db=db, check=False)
    c.true("gzip input cut inside the JSON: the decompressed offset, said so",
           f"byte {len(cut)} (decompressed): unexpected end of data" in err, err.strip())
    path = os.path.join(tmp, "half.json.gz")
    with open(path, "wb") as f:
        f.write(gz_bytes[: len(gz_bytes) // 2])
    _, _, err = run("ingest", path, db=db, check=False)
    c.true("gzip cut in half: the compressed offset, said so",
           re.search(r"byte (\d+) \(compressed\): gzip data ends early", err) is not None and
           int(re.search(r"byte (\d+) \(", err).group(1)) == len(gz_bytes) // 2, err.strip())


def main():
    c = Checker()
    good = need_corpus("traces", GOOD)
    other = need_corpus("traces", "trace_filter_sampled_rank-0.json.gz")
    gz_bytes = open(good, "rb").read()
    text = gzip.decompress(gz_bytes).decode()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        run("ingest", "--quiet", "--run", "before", good, db=db)
        before = run("runs", "--format", "csv", db=db)[1]
        before_rows = run("sql", "SELECT count(*) FROM slices", db=db)[1]
        for i, (name, data, fragment) in enumerate(cases(text, gz_bytes)):
            bad = os.path.join(tmp, f"bad{i}.json")
            with open(bad, "wb") as f:
                f.write(data)
            # A good file first: it must be rolled back with the bad one.
            code, out, err = run("ingest", "--run", f"case{i}", other, bad, db=db, check=False)
            lines = [l for l in err.splitlines() if l.startswith("profdb: ") and "records" not in l]
            c.eq(f"{name}: exit code", code, 2)
            c.eq(f"{name}: one error line", len(lines), 1)
            if lines:
                c.true(f"{name}: message names the file", bad in lines[-1], lines[-1])
                # an empty file has no byte to point at
                c.true(f"{name}: message has a byte offset", BAD_LINE.match(lines[-1]) is not None
                       or "byte" in lines[-1] or fragment == "empty input", lines[-1])
                c.true(f"{name}: message says '{fragment}'", fragment in lines[-1], lines[-1])
            c.eq(f"{name}: runs unchanged", run("runs", "--format", "csv", db=db)[1], before)
            c.eq(f"{name}: rows unchanged", run("sql", "SELECT count(*) FROM slices", db=db)[1],
                 before_rows)
        check_gzip_offsets(c, tmp, text, gz_bytes, db)
        code, out, err = run("sql", "PRAGMA integrity_check", db=db)
        c.eq("integrity", out.split(), ["integrity_check", "---------------", "ok"])
    c.close()


if __name__ == "__main__":
    main()
