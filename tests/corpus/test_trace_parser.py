"""The trace tokenizer stores exactly what yajl does (issue 36).

profdb reads trace JSON with a tokenizer specialised for trace events
(ingest/trace/trace_fast.c) that hands whatever it does not handle to yajl
(ingest/trace/trace_json.c); PROFDB_TRACE_PARSER=yajl reads the whole file
with yajl. For every input below, both ways must give the same exit code,
the same stderr (skip and replacement counts, error messages with their
byte offsets) and, table by table and row by row in rowid order, the same
database (only the wall-clock columns left out; the corpus traces are
ingested without the analysis, which reads the stored events: the
generated trace compares it). Inputs:
  - every corpus trace (traces/, torch_legacy/), the era traces of
    tests/traces/eras and the samples;
  - a generated trace, whole, gzipped, and with shapes put in at the start
    and in the middle (a \\u escape and a lone surrogate, which yajl takes
    over at; the other escapes; a deep value; numbers with exponents, a
    20-digit one and a fractional stream; \\v and \\f as whitespace; a
    token longer than the tokenizer's buffer);
  - small traces with escapes, BOMs, invalid UTF-8, odd whitespace, every
    JSON literal in every position, metadata after the events, and an
    unclosed legacy array;
  - tokens across the reader's chunk boundaries (65,536 and 327,680
    bytes), from a byte before to a byte after: a \\u escape (where yajl
    takes over), an escape the tokenizer decodes, a number, a bad number
    and NaN (whose error hint looks at the bytes around it);
  - malformed traces: truncated at many offsets, bad tokens at many
    offsets, NaN, trailing garbage, wrong types.
The fuzz inputs (fuzz/fuzz_trace_diff.c) are at most 4 KiB, within one
chunk: the boundaries are this test's.
A failed first ingest leaves no database either way.

Sanitizer builds (PROFDB_SANITIZED=1) take every third corpus file, a
smaller generated trace, fewer cut points and one chunk boundary (a byte
before, at and after it)."""

import gzip
import os
import sqlite3
import subprocess

from common import (CHECKED, GENTRACE, PROFDB, SOURCE, Checker, checked_subset, need_corpus,
                    scaled, tempdir)

VOLATILE = {"ingested_at", "created_at", "ingest_ms"}


def dump(db):
    """Every table's rows in rowid order (key order without rowid); None
    when there is no database."""
    if not os.path.exists(db):
        return None
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = {}
    tables = con.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'table'"
                         " ORDER BY name").fetchall()
    for name, ddl in tables:
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{name}")')]
        keep = [c for c in cols if c not in VOLATILE]
        order = "1" if "WITHOUT ROWID" in (ddl or "").upper() else "rowid"
        sel = ", ".join(f'"{c}"' for c in keep)
        out[name] = con.execute(f'SELECT {sel} FROM "{name}" ORDER BY {order}').fetchall()
    con.close()
    return out


def ingest(tmp, tag, parser, args, stdin=None, analyze=True):
    db = os.path.join(tmp, f"{tag}-{parser}.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    env = dict(os.environ, PROFDB_TRACE_PARSER=parser)
    extra = [] if analyze else ["--no-analyze"]
    p = subprocess.run([PROFDB, "--db", db, "ingest", "--run", tag] + extra + args, env=env,
                       input=stdin, capture_output=True)
    err = p.stderr.decode("utf-8", "replace").replace(f"{tag}-{parser}.db", "DB")
    return p.returncode, err, dump(db)


def compare(c, tmp, tag, args, want_rc=None, **kw):
    slow = ingest(tmp, tag, "yajl", args, **kw)
    fast = ingest(tmp, tag, "fast", args, **kw)
    c.eq(f"{tag}: exit code, tokenizer vs yajl", fast[0], slow[0])
    c.eq(f"{tag}: stderr, tokenizer vs yajl", fast[1], slow[1])
    diff = [t for t in slow[2] or {} if slow[2][t] != (fast[2] or {}).get(t)]
    c.true(f"{tag}: every table identical", fast[2] == slow[2], f"tables that differ: {diff}")
    if want_rc is not None:
        c.eq(f"{tag}: exit code", slow[0], want_rc)
    if want_rc:
        c.true(f"{tag}: a failed first ingest leaves no database", slow[2] is None)
    return slow


def write(tmp, name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def corpus_inputs():
    files = []
    for group in ("traces", "torch_legacy"):
        d = need_corpus(group)
        files += [os.path.join(d, f) for f in sorted(os.listdir(d))
                  if (f.endswith(".json") or f.endswith(".json.gz"))
                  and f != "COUNTS.json" and not f.endswith(".oracle.json")]
    eras = os.path.join(SOURCE, "tests", "traces", "eras")
    for era in sorted(os.listdir(eras)):
        d = os.path.join(eras, era)
        if os.path.isdir(d):
            files += [os.path.join(d, f) for f in sorted(os.listdir(d))
                      if f.endswith((".json", ".json.gz")) and not f.startswith("oracle")]
    d = os.path.join(SOURCE, "samples", "traces")
    files += [os.path.join(d, f) for f in sorted(os.listdir(d))]
    return files


EV = (b'{"ph": "X", "cat": "kernel", "name": "k%d", "pid": 0, "tid": 7, "ts": %d.125, '
      b'"dur": 3.5, "args": {"stream": 7, "device": 0, "correlation": %d, '
      b'"grid": [1, 2, 3], "note": null, "flag": true}}')


def small(events, head=b'{"schemaVersion": 1, "traceEvents": [', tail=b']}'):
    return head + b",\n".join(events) + tail


def main():
    c = Checker()
    with tempdir() as tmp:
        files = checked_subset(corpus_inputs(), 3, "corpus traces")
        # without the analysis: it reads the stored events, which are compared
        # (the two paths' analyses of the generated trace below are compared too)
        for path in files:
            compare(c, tmp, os.path.basename(path).split(".")[0], [path], want_rc=0,
                    analyze=False)
        print(f"{len(files)} corpus traces compared")

        gen = os.path.join(tmp, "gen.json")
        subprocess.run([GENTRACE, "--steps", str(scaled(60, 12)), gen], check=True,
                       capture_output=True)
        with open(gen, "rb") as f:
            data = f.read()
        compare(c, tmp, "gen", [gen], want_rc=0)
        compare(c, tmp, "gen-stdin", ["-"], want_rc=0, stdin=gzip.compress(data, 1))

        # What the tokenizer leaves to yajl, put before the event at a
        # fraction of the file: yajl takes over there and must end the same.
        shapes = {
            "uescape": b'{"ph": "i", "name": "caf\\u00e9 \\ud83d\\ude00", "ts": 1, "pid": 1,'
                       b' "tid": 1},',
            "surrogate": b'{"ph": "i", "name": "x\\ud800y\\udc00", "ts": 1, "pid": 1, "tid": 1},',
            "escapes": b'{"ph": "i", "name": "a\\"b\\\\c\\/d\\n\\t\\r\\b\\f", "ts": 1,'
                       b' "pid": 1, "tid": 1},',
            "deep": b'{"ph": "i", "name": "d", "ts": 1, "pid": 1, "tid": 1, "args": {"x": '
                    + b'[' * 90 + b']' * 90 + b'}},',
            "numbers": b'{"ph": "X", "name": "n", "ts": 1E3, "dur": -0.0e-0, "pid": 1, "tid": 1,'
                       b' "args": {"stream": 7.0, "bytes": 12345678901234567890}},',
            "longtoken": b'{"ph": "i", "name": "' + b'L' * (1100 * 1024)
                         + b'", "ts": 1, "pid": 1, "tid": 1},',
            "ws": b'{"ph":\x0b"i",\x0c"name":"w","ts":1,"pid":1,"tid":1},',
        }
        for name, shape in shapes.items():
            for frac in (0.0, 0.6):
                at = data.index(b'{"ph"', int(len(data) * frac))
                path = write(tmp, f"{name}{frac}.json", data[:at] + shape + data[at:])
                compare(c, tmp, f"{name}{frac}", [path], want_rc=0, analyze=False)

        # Small traces: escapes, BOM, invalid UTF-8, literals, metadata last.
        evs = [EV % (i, 1000 + i, i) for i in range(12)]
        cases = {
            "plain": small(evs),
            "bom": b"\xef\xbb\xbf" + small(evs),
            "utf8": small(evs[:3] + [b'{"ph": "i", "name": "\xc3\xa9\xff\xfe\xed\xa0\x80",'
                                     b' "ts": 1, "pid": "p\xe2\x82", "tid": 1}']),
            "meta_last": small(evs, tail=b'], "distributedInfo": {"rank": 3, "x": [true, false,'
                                         b' null, 1.5e3, "s"]}, "deviceProperties": []}'),
            "legacy": b"[" + b",".join(evs),
            "legacy_closed": b"[" + b",".join(evs) + b"]\n\n",
            "empty_events": b'{"traceEvents": []}',
            "literals": small([b'{"ph": "i", "name": null, "cat": null, "ts": 1, "pid": true}']),
            "ws_everywhere": small([e.replace(b" ", b" \r\n\t ") for e in evs]),
            "no_ws": small([e.replace(b": ", b":").replace(b", ", b",") for e in evs]),
            "ph_number": small([b'{"ph": 5, "ts": 1}']),
            "ts_string": small([b'{"ph": "X", "ts": "1", "dur": 1}']),
            "nan": small(evs[:2] + [b'{"ph": "X", "ts": NaN, "dur": 1}']),
            "infinity": small(evs[:2] + [b'{"ph": "X", "ts": -Infinity, "dur": 1}']),
            "garbage": small(evs) + b" x",
            "two_values": small(evs) + b" {}",
            "comment": small(evs[:2]) + b"// c",
            "leading_zero": small([b'{"ph": "X", "ts": 01, "dur": 1}']),
            "hex": small([b'{"ph": "X", "ts": 0x1, "dur": 1}']),
            "trailing_comma": small(evs[:2] + [b""]),
            "key_comma": small([b'{"ph": "X",}']),
            "number_key": small([b'{1: 2}']),
            "ctrl": small([b'{"ph": "X", "name": "a\x01b"}']),
            "bad_escape": small([b'{"ph": "X", "name": "a\\qb"}']),
            "scalar_root": b"42",
            "string_root": b'"traceEvents"',
            "empty": b"",
            "blank": b"  \n ",
            "deep_fail": small([b'{"ph": "i", "args": {"a": ' + b"[" * 1200 + b"]" * 1200
                                + b"}}"]),
            "events_object": b'{"traceEvents": {}}',
            "no_events": b'{"schemaVersion": 1}',
        }
        for name, blob in cases.items():
            path = write(tmp, f"{name}.json", blob)
            compare(c, tmp, name, [path], analyze=False)

        # Chunk boundaries: the first read ends at 65,536 bytes (the sniffer's
        # peek), the next at 327,680. A token the tokenizer leaves to yajl,
        # an escape it decodes, a bad token and NaN, each put across both,
        # a byte before to a byte after.
        evs = [EV % (i, 1000 + i, i) for i in range(2400)]
        head = b'{"schemaVersion": 1, "traceEvents": ['
        kinds = {
            "u": (b'{"ph": "i", "name": "', b'\\u00e9x", "ts": 1, "pid": 1, "tid": 1}'),
            "esc": (b'{"ph": "i", "name": "', b'\\nx", "ts": 1, "pid": 1, "tid": 1}'),
            "num": (b'{"ph": "i", "name": "', b'", "ts": 12345e1, "pid": 1, "tid": 1}'),
            "bad": (b'{"ph": "i", "name": "', b'", "ts": 123x, "pid": 1, "tid": 1}'),
            "nan": (b'{"ph": "i", "name": "', b'", "ts": NaN, "pid": 1, "tid": 1}'),
        }
        checked = 0
        bounds = (65536,) if CHECKED else (65536, 327680)
        offsets = (-1, 0, 1) if CHECKED else range(-3, 4)
        for bound in bounds:
            for kind, (pre, post) in kinds.items():
                for d in offsets:
                    body = b""
                    k = 0
                    while len(head) + len(body) < bound - 400:
                        body += evs[k] + b",\n"
                        k += 1
                    at = len(head) + len(body) + len(pre)
                    # the token's first byte after the pad lands at bound + d
                    pad = b"p" * (bound + d - at - (0 if kind in ("u", "esc") else 10))
                    tail = b",\n".join(evs[k:k + 20])
                    blob = head + body + pre + pad + post + b",\n" + tail + b"]}"
                    path = write(tmp, f"bound{bound}{kind}{d}.json", blob)
                    compare(c, tmp, f"bound{bound}{kind}{d}", [path], analyze=False)
                    checked += 1
        print(f"{checked} tokens across chunk boundaries compared"
              + (" (checked build: one boundary, 3 offsets)" if CHECKED else ""))

        # Malformed at many offsets: truncated, and a bad byte put in.
        base = cases["meta_last"]
        cuts = range(0, len(base), scaled(53, 157))
        for cut in cuts:
            path = write(tmp, f"cut{cut}.json", base[:cut])
            compare(c, tmp, f"cut{cut}", [path], analyze=False)
            path = write(tmp, f"bad{cut}.json", base[:cut] + b"#" + base[cut:])
            compare(c, tmp, f"bad{cut}", [path], analyze=False)
        print(f"{len(cuts)} truncations and {len(cuts)} insertions compared")
    c.close()


if __name__ == "__main__":
    main()
