"""Malformed pstats dumps are refused: exit 2, one clear line naming the
file and the byte offset, and the database unchanged.

Works from the repository's sample dump (samples/pstats/sample.prof), plus
the corpus dumps when ../shared/corpus is present (required with
PROFDB_REQUIRE_PREREQS=1): truncations, crafted
corruptions (made with the standard library's marshal), wrong shapes, and
a few hundred random byte flips that must never crash profdb."""

import marshal
import os
import random
import re

from common import SOURCE, Checker, have_corpus, run, scaled, tempdir


def state(db):
    """What the database holds, to check a failed ingest changed nothing."""
    _, out, _ = run("sql", "--format", "csv",
                    "SELECT (SELECT group_concat(name) FROM runs),"
                    " (SELECT count(*) FROM sources), (SELECT count(*) FROM pstats_functions),"
                    " (SELECT count(*) FROM pstats_edges), (SELECT count(*) FROM pstats_dumps),"
                    " (SELECT count(*) FROM strings)", db=db)
    return out


def expect_refused(c, db, before, what, path, *extra, pattern=None):
    rc, out, err = run("ingest", "--run", "bad", *extra, path, check=False, db=db)
    lines = err.strip().split("\n")
    c.eq(f"{what}: exit code", rc, 2)
    c.true(f"{what}: one error line naming the file", len(lines) == 1 and
           lines[0].startswith("profdb: ") and path in lines[0], err)
    if pattern:
        c.true(f"{what}: message says {pattern!r}", re.search(pattern, err) is not None, err)
    c.eq(f"{what}: database unchanged", state(db), before)


def write(tmp, name, data):
    p = os.path.join(tmp, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


def crafted():
    """(name, bytes, regex the message must match, extra ingest args)."""
    good = marshal.dumps({("a.py", 1, "f"): (1, 1, 0.5, 0.5, {})})
    return [
        ("unknown type code", b"{)\x01\x01", r"byte 3: unknown marshal type code 0x01", ()),
        ("negative size", b"{(\xff\xff\xff\xff", r"byte 2: negative size", ()),
        ("huge size", b"{(\xff\xff\xff\x7f", r"byte 2: size \d+ is larger than the data", ()),
        ("reference to an unseen object", b"{)\x03r\x05\x00\x00\x00",
         r"byte 3: back-reference 5 to an object not seen", ()),
        ("reference to an unfinished tuple", b"{\xa9\x03r\x00\x00\x00\x00",
         r"back-reference 0 to an unfinished container", ()),
        ("nesting bomb", b"{" + b")\x01" * 5000, r"nested deeper than", ()),
        ("truncated float", b"{)\x03z\x01ai\x01\x00\x00\x00z\x01f)\x05i\x01\x00\x00\x00"
         b"i\x01\x00\x00\x00g\x00\x00", r"unexpected end of data", ()),
        ("trailing bytes", good + b"junk", r"4 unexpected bytes after the end", ()),
        ("not a dict at the top", marshal.dumps([1, 2]), r"expected a dict of functions",
         ("--format", "pstats")),
        ("key is not a function tuple", marshal.dumps({"a": 1}), r"expected a \(file, line",
         ("--format", "pstats")),
        ("value is not a stats tuple", marshal.dumps({("a.py", 1, "f"): (1, 2, 3)}),
         r"expected a \(cc, nc, tt, ct, callers\) tuple", ()),
        ("count is a float", marshal.dumps({("a.py", 1, "f"): (1.5, 2, 3.0, 4.0, {})}),
         r"expected a call count", ()),
        ("profile-module callers",
         marshal.dumps({("a.py", 1, "f"): (1, 1, 0.1, 0.1, {("b.py", 2, "g"): 1})}),
         r"pure-Python 'profile'", ()),
        ("invalid UTF-8", b"{)\x03u\x02\x00\x00\x00\xff\xfei\x01\x00\x00\x00z\x01f0",
         r"not valid UTF-8", ()),
        ("code object", marshal.dumps(compile("1", "x", "eval")), r"code object",
         ("--format", "pstats")),
        ("empty file", b"", r"empty input", ()),
    ]


def main():
    c = Checker()
    sample = os.path.join(SOURCE, "samples", "pstats", "sample.prof")
    dumps = [sample]
    d = have_corpus("pstats")
    if d:
        dumps += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".prof"))
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        run("ingest", "-q", "--run", "good", sample, db=db)
        before = state(db)
        c.true("sample stored", "good" in before, before)

        for name, data, pattern, extra in crafted():
            expect_refused(c, db, before, name, write(tmp, "x.prof", data), *extra,
                           pattern=pattern)

        for path in dumps:
            with open(path, "rb") as f:
                data = f.read()
            base = os.path.basename(path)
            for cut in sorted({1, 2, 7, len(data) // 3, len(data) // 2, len(data) - 1}):
                p = write(tmp, f"cut{cut}-{base}", data[:cut])
                expect_refused(c, db, before, f"{base} cut at {cut}", p,
                               pattern=r"byte \d+: |not a recognised input")
        # A good file and a bad one in one command: neither is stored.
        bad = write(tmp, "bad.prof", open(sample, "rb").read()[:-3])
        rc, _, err = run("ingest", "--run", "pair", sample, bad, check=False, db=db)
        c.eq("good + bad in one ingest: exit 2", rc, 2)
        c.eq("good + bad in one ingest: nothing stored", state(db), before)

        # Random byte flips: decoded or refused, never a crash.
        rnd = random.Random(1234)
        data = open(sample, "rb").read()
        crashes, odd = [], []
        flips = scaled(300, 40)
        for i in range(flips):
            b = bytearray(data)
            for _ in range(rnd.randint(1, 4)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            p = write(tmp, "flip.prof", bytes(b))
            rc, _, err = run("ingest", "-q", "--replace", "--run", "flip", "--format", "pstats",
                             p, check=False, db=db)
            if rc not in (0, 2):
                crashes.append((i, rc, err))
            elif rc == 2 and (err.count("\n") != 1 or not err.startswith("profdb: ")):
                odd.append((i, err))
        c.true(f"{flips} random byte flips: exit 0 or 2, never a crash", not crashes, crashes[:3])
        c.true("byte flips: every refusal is one 'profdb:' line", not odd, odd[:3])
    c.close()


if __name__ == "__main__":
    main()
