"""Text from a trace is stored as valid UTF-8, whole.

- Invalid UTF-8 (an overlong '/', an encoded surrogate, a stray byte) and
  escapes of lone surrogates ('\\ud800' alone, '\\udc00' alone, a high one
  followed by a non-low escape) are stored with U+FFFD in their place, and
  the ingest warns with their count; a surrogate pair stays one character,
  also when the pair is cut by the reader's 256 KiB chunk boundary at any
  byte (the rewrite keeps byte offsets: an error after it names the right
  byte).
- A name with '\\u0000' is kept whole, through the strings table, the
  analysis tables and every report format (CSV shows the NUL as \\x00,
  JSON as \\u0000), not cut at the NUL.

Expected values are written here from the JSON and Unicode rules, not from
profdb's output."""

import json
import os

from common import Checker, run, tempdir

FFFD = "\ufffd"
CHUNK = 256 * 1024


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def event(name_json, extra=b""):
    return (b'{"ph": "X", "cat": "cpu_op", "name": ' + name_json +
            b', "pid": 1, "tid": 1, "ts": 1, "dur": 2' + extra + b'}')


def names(db):
    """Strings of the run's slices, decoded from their stored bytes."""
    _, out, _ = run("sql", "--format", "json",
                    "SELECT hex(s.value) AS h FROM slices x JOIN strings s ON s.id = x.name"
                    " ORDER BY x.id", db=db)
    return [bytes.fromhex(r["h"]).decode("utf-8") for r in json.loads(out)]


def check_invalid(c, tmp):
    cases = [
        (b'"a\\ud800b"', "a" + FFFD + "b", 1),             # lone high escape (yajl made '?')
        (b'"a\\udc00b"', "a" + FFFD + "b", 1),             # lone low escape
        (b'"a\\ud800\\u0041b"', "a" + FFFD + "Ab", 1),     # high, then not a low
        (b'"\\ud83d\\ude00"', "\U0001F600", 0),            # a pair: one character
        (b'"x\xc0\xafy"', "x" + FFFD + "y", 1),            # overlong '/'
        (b'"x\xed\xa0\x80y"', "x" + FFFD + "y", 1),        # an encoded surrogate
        (b'"x\xffy"', "x" + FFFD + "y", 1),                # a stray byte
        (b'"caf\xc3\xa9"', "caf\u00e9", 0),                # valid: unchanged
    ]
    db = os.path.join(tmp, "u.db")
    body = b",\n".join(event(n) for n, _, _ in cases)
    path = write(os.path.join(tmp, "u.json"), b'{"traceEvents": [\n' + body + b"\n]}")
    _, _, err = run("ingest", path, db=db)
    c.eq("names stored", names(db), [want for _, want, _ in cases])
    bad = sum(k for _, _, k in cases)
    c.true(f"the ingest warns of {bad} strings", f"{bad} strings held invalid UTF-8" in err, err)
    # args keep valid JSON text too
    path = write(os.path.join(tmp, "a.json"), b'{"traceEvents": [' + event(
        b'"n"', b', "args": {"k\xc0\xaf": "v\\udc00", "ok": "\\ud83d\\ude00"}') + b"]}")
    run("ingest", path, db=db)
    _, out, _ = run("sql", "--format", "json", "SELECT hex(args) AS h FROM slices"
                    " WHERE args IS NOT NULL", db=db)
    args = json.loads(bytes.fromhex(json.loads(out)[0]["h"]).decode("utf-8"))
    c.eq("args as JSON", args, {"k" + FFFD: "v" + FFFD, "ok": "\U0001F600"})


def at_boundary(shift, text, tail):
    """A trace whose second event's name is text, starting `shift` bytes
    after the reader's first chunk boundary; tail follows that event."""
    pre = b'{"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "name": "'
    head = b'{"traceEvents": [' + event(b'"pad"', b', "x": "')
    fill = CHUNK + shift - len(head) - len(b'"}, ') - len(pre)
    prefix = head + b"y" * fill + b'"}, ' + pre
    assert len(prefix) == CHUNK + shift
    return prefix + text + b'"}' + tail


def check_chunk_boundary(c, tmp):
    """A surrogate pair and a lone high surrogate at every position across
    the first chunk boundary; then an error after it, whose byte offset
    must be exact."""
    db = os.path.join(tmp, "b.db")
    for shift in range(-13, 2):
        for text, want in ((b"\\ud83d\\ude00", "\U0001F600"), (b"\\ud83d", FFFD)):
            path = write(os.path.join(tmp, "b.json"), at_boundary(shift, text, b"]}"))
            run("ingest", "--replace", "--run", "b", path, db=db)
            c.eq(f"{text.decode()} at the chunk boundary {shift:+d}", names(db)[-1], want)
            data = at_boundary(shift, text, b', {"ph": 5}]}')
            code, _, err = run("ingest", "--run", "e", write(os.path.join(tmp, "e.json"), data),
                               db=db, check=False)
            at = data.rindex(b"5}]}") + 1  # yajl has read the number when it reports it
            c.true(f"an error after it names byte {at}", code == 2 and f"byte {at}:" in err,
                   err.strip())


def check_nul(c, tmp):
    db = os.path.join(tmp, "n.db")
    trace = (b'{"traceEvents": [\n'
             b'{"ph": "X", "cat": "kernel", "name": "k\\u0000tail", "pid": 0, "tid": 7, "ts": 1,'
             b' "dur": 2, "args": {"stream": 7, "correlation": 1}},\n'
             b'{"ph": "X", "cat": "cpu_op", "name": "op\\u0000x", "pid": 1, "tid": 1, "ts": 0,'
             b' "dur": 5},\n'
             b'{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,'
             b' "ts": 0.5, "dur": 0.2, "args": {"correlation": 1}}]}')
    run("ingest", write(os.path.join(tmp, "nul.json"), trace), db=db)
    _, out, _ = run("sql", "--format", "json", "SELECT hex(name) AS k FROM analysis_kernels "
                    "UNION ALL SELECT hex(name) FROM analysis_ops WHERE name LIKE 'op%'", db=db)
    c.eq("analysis tables hold whole names", [bytes.fromhex(r["k"]) for r in json.loads(out)],
         [b"k\0tail", b"k\0tail", b"op\0x"])
    _, out, _ = run("report", "kernels", "--format", "json", db=db)
    c.eq("report kernels --format json", json.loads(out)[0]["name"], "k\0tail")
    _, out, _ = run("report", "ops", "--format", "csv", db=db)
    c.true("report ops --format csv", "op\\x00x," in out, out)
    _, out, _ = run("report", "kernels", "--by", "op", "--format", "json", db=db)
    row = json.loads(out)[0]
    c.eq("report kernels --by op", (row["op"], row["top_kernel"]), ("op\0x", "k\0tail"))


def main():
    c = Checker()
    with tempdir() as tmp:
        check_invalid(c, tmp)
        check_nul(c, tmp)
        check_chunk_boundary(c, tmp)
    c.close()


if __name__ == "__main__":
    main()
