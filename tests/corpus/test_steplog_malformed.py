"""Malformed step logs: a record-like line that does not parse is reported with
its line number and counted, the rest is kept; a malformed file is one
error line (file, line or offset, what was expected), exit 2, and the
database is unchanged; mutated inputs never crash profdb."""

import hashlib
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE, Checker, run, scaled, tempdir  # noqa: E402

chk = Checker()
SAMPLES = os.path.join(SOURCE, "samples", "steplogs")


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def write(tmp, name, text, mode="w"):
    p = os.path.join(tmp, name)
    with open(p, mode) as f:
        f.write(text)
    return p


def skips(db, run_name):
    _, out, _ = run("sql", "--db", db, "--format", "json",
                    "SELECT reason, count FROM skips JOIN runs USING (run_id)"
                    f" WHERE name = '{run_name}' ORDER BY reason")
    return {r["reason"]: r["count"] for r in json.loads(out)}


def bad_lines(tmp):
    db = os.path.join(tmp, "lines.db")
    p = write(tmp, "bad.jsonl", '{"step": 1, "loss": 2.5}\n{"step": 2, "loss": 2.4}\n'
                                '{"step": 3, "loss": \n{"step": 4, "loss": NaN}\nnot json\n')
    code, _, err = run("ingest", "--db", db, p, check=False)
    chk.eq("bad JSONL line: exit", code, 0)
    chk.true("bad JSONL line: reported with its line number", f"{p}:3:" in err, err)
    s = skips(db, "bad")
    chk.eq("bad JSONL line: counted", s.get("malformed record"), 1)
    chk.eq("bad JSONL line: non-record line counted", s.get("not a JSON object line"), 1)
    _, out, _ = run("sql", "--db", db, "--format", "json",
                    "SELECT step, value FROM steplog_values WHERE raw_name = 'loss' ORDER BY step")
    chk.eq("bad JSONL line: other records kept, NaN as NULL", json.loads(out),
           [{"step": 1, "value": 2.5}, {"step": 2, "value": 2.4}, {"step": 4, "value": None}])

    p = write(tmp, "meg.log",
              " iteration       10/    100 | consumed samples:   80 | elapsed time per iteration"
              " (ms): 812.5 | lm loss: 1.0E+01 |\n"
              "time (ms) | forward-compute: 300.00 | backward-compute: 400.00\n"
              " iteration       xx/    100 | consumed samples:  160 | elapsed time per iteration"
              " (ms): 800.0 |\n"
              "time (ms) | forward-compute: 3{garbage\n")
    code, _, err = run("ingest", "--db", db, p, check=False)
    chk.eq("bad Megatron lines: exit", code, 0)
    chk.true("bad iteration line reported", f"{p}:3:" in err, err)
    chk.true("cut timer line reported", f"{p}:4:" in err, err)
    chk.eq("bad Megatron lines: counted", skips(db, "meg").get("malformed record"), 2)


def bad_files(tmp):
    db = os.path.join(tmp, "files.db")
    run("ingest", "--db", db, "--run", "base", os.path.join(SAMPLES, "train.jsonl"))
    before = sha(db)
    cases = [
        ("truncated trainer_state.json", "trainer_state.json",
         '{"global_step": 5, "log_history": [{"loss": 1.0, "step": 1}, {"loss": ', []),
        ("golden values that are not JSON", "golden.json",
         '{"lm loss": {"start_step": 1, "values": {"1": 2.0,,}}}', []),
        ("forced flavor that finds nothing", "x.csv", "a,b\n1,2\n", ["--format", "steplog:nanogpt"]),
        ("unknown flavor", "y.log", "iter 1: loss 2.0, time 5.0ms\n", ["--format", "steplog:bogus"]),
        ("empty file", "empty.log", "", []),
        ("text with no records", "prose.txt", "hello\nworld\n", ["--format", "steplog"]),
    ]
    for what, name, text, extra in cases:
        p = write(tmp, name, text)
        code, out, err = run("ingest", "--db", db, *extra, p, check=False)
        chk.eq(f"{what}: exit 2", code, 2)
        lines = err.strip().split("\n")
        chk.true(f"{what}: one error line naming the input",
                 len(lines) == 1 and lines[0].startswith("profdb: ") and
                 (p in lines[0] or "flavor" in lines[0]), err)
        chk.eq(f"{what}: database unchanged", sha(db), before)


def document_offsets(tmp):
    """A whole-document log (trainer_state.json, golden values) that does
    not parse names the byte where parsing stopped, in the file as written
    (bare NaN and Infinity are rewritten before parsing, with other lengths),
    and says a .gz offset counts decompressed bytes."""
    import gzip
    db = os.path.join(tmp, "offsets.db")
    cut = '{"global_step": 5, "log_history": [{"loss": 1.0, "step": 1}, {"loss": '
    nan = '{"log_history": [{"step": 1, "loss": NaN, "x": -Infinity}, {"step": 2, "loss": 1,, }]}'
    golden = '{"lm loss": {"start_step": 1, "values": {"1": NaN, "2": 2.0,,}}}'
    cases = [
        # yajl stops past the byte it refuses: the second comma
        ("truncated trainer_state.json", "trainer_state.json", cut, len(cut), ""),
        ("truncated trainer_state.json.gz", "trainer_state.json.gz", cut, len(cut),
         " (decompressed)"),
        ("trainer_state.json with NaN before the error", "trainer_state.json", nan,
         nan.index(",,") + 2, ""),
        ("golden values with NaN before the error", "golden.json", golden,
         golden.index(",,") + 2, ""),
    ]
    for what, name, text, offset, note in cases:
        sub = os.path.join(tmp, what.replace(" ", "_"))
        os.makedirs(sub, exist_ok=True)
        if name.endswith(".gz"):
            p = os.path.join(sub, name)
            with gzip.open(p, "wt") as f:
                f.write(text)
        else:
            p = write(sub, name, text)
        extra = ["--format", "steplog:megatron-golden"] if name == "golden.json" else []
        code, _, err = run("ingest", "--db", db, *extra, p, check=False)
        chk.eq(f"{what}: exit 2", code, 2)
        chk.true(f"{what}: error at byte {offset}{note}",
                 err.startswith(f"profdb: {p}: byte {offset}{note}: expected a JSON object"), err)


def query(db, text):
    """Rows of a query as dicts; [] when profdb refuses it (no database yet:
    the ingest before it failed, which the caller's checks report)."""
    code, out, _ = run("sql", "--db", db, "--format", "json", text, check=False)
    return json.loads(out) if code == 0 else []


def wide_csv(tmp):
    """CSV step logs wider than the reader's old 512 cells (Lightning writes a
    column per logged key: per-layer metrics make thousands) are read; past
    65,536 columns the file is refused with the limit and the line (was: every
    row a 'malformed record', then 'no step records found')."""
    db = os.path.join(tmp, "wide.db")
    cols = 700
    p = write(tmp, "wide.csv", "step," + ",".join(f"m{i}" for i in range(cols)) + "\n"
              + "".join(f"{s}," + ",".join(str(s + i) for i in range(cols)) + "\n"
                        for s in (1, 2)))
    code, _, err = run("ingest", "--db", db, p, check=False)
    chk.eq(f"{cols} CSV columns: exit 0", code, 0)
    out = query(db, f"SELECT step, value FROM steplog_values WHERE raw_name = 'm{cols - 1}'"
                    " ORDER BY step")
    chk.eq(f"{cols} CSV columns: the last column read", out,
           [{"step": 1, "value": float(cols)}, {"step": 2, "value": float(cols + 1)}])
    # Lightning rewrote its header with many new keys
    p = write(tmp, "rewritten.csv", "step,loss\n1,2.0\n"
              + "step,loss," + ",".join(f"k{i}" for i in range(cols)) + "\n"
              + "2,1.5," + ",".join("7" for _ in range(cols)) + "\n")
    code, _, err = run("ingest", "--db", db, p, check=False)
    chk.eq("header rewritten with 702 columns: exit 0", code, 0)
    chk.true("header rewritten with 702 columns: no malformed record", "malformed" not in err, err)
    out = query(db, "SELECT count(*) AS n FROM steplog_values JOIN runs USING (run_id)"
                    " WHERE name = 'rewritten' AND step = 2")
    chk.eq("header rewritten with 702 columns: every value of its row", out,
           [{"n": cols + 1}])
    before = sha(db) if os.path.exists(db) else None
    too = 65537
    p = write(tmp, "too_wide.csv", ",".join(f"c{i}" for i in range(too)) + "\n"
              + ",".join("1" for _ in range(too)) + "\n")
    code, _, err = run("ingest", "--db", db, "--format", "steplog:csv", p, check=False)
    chk.eq(f"{too:,} CSV columns: exit 2", code, 2)
    chk.eq(f"{too:,} CSV columns: one line with the limit and the line", err.strip(),
           f"profdb: {p}: line 1: too many cells: more than 65536 columns, the most the CSV "
           "reader reads; expected a CSV header or row")
    chk.eq(f"{too:,} CSV columns: database unchanged",
           sha(db) if os.path.exists(db) else None, before)


def cr_lines(tmp):
    """Logs whose lines end in a bare CR (no LF) are read line by line: line
    numbers, skip counts and every flavor as with LF (was: the whole file one
    line, so 'N lines' counted 1 while every CR segment counted a skip, JSON
    Lines and CSV were not read, and a CR log over 16 MiB was refused as one
    overlong line). tqdm's CR updates inside LF lines stay one line."""
    import re
    db = os.path.join(tmp, "cr.db")
    prose = ["hello", "world", "nothing here", "x y z"]
    p = write(tmp, "prose_cr.log", "\r".join(prose) + "\r")
    code, _, err = run("ingest", "--db", db, p, check=False)
    chk.eq("CR prose: exit 2", code, 2)
    m = re.search(r"; (\d+) lines: ([^)]*)\)", err)
    counted = sum(int(n) for n in re.findall(r"(\d+) [a-z]", m.group(2))) if m else -1
    chk.true("CR prose: counts its 4 lines, no more skips than lines",
             m is not None and int(m.group(1)) == 4 and counted == 4, err)

    def rows(name):
        return query(db, "SELECT line, step, raw_name, value FROM steplog_values JOIN runs"
                         f" USING (run_id) WHERE name = '{name}' ORDER BY line, raw_name")

    logs = {
        "nanogpt": ["Starting training"]
        + [f"iter {i}: loss {2.0 - i / 100:.3f}, time 12.{i}ms, mfu 3.2%" for i in range(5)]
        + ["some chatter", "done"],
        "jsonl": [f'{{"step": {i}, "loss": {2.0 - i / 100}}}' for i in range(5)],
        "csv": ["step,loss"] + [f"{i},{2.0 - i / 100}" for i in range(5)],
    }
    for name, lines in logs.items():
        for end, tag in (("\n", "lf"), ("\r", "cr"), ("\r\n", "crlf")):
            write(tmp, f"{name}_{tag}.log", end.join(lines) + end)
            code, _, err = run("ingest", "--db", db, os.path.join(tmp, f"{name}_{tag}.log"),
                               check=False)
            chk.eq(f"{name} with {tag} line ends: exit 0", code, 0)
        lf = rows(f"{name}_lf")
        first = 1 if name == "jsonl" else 2  # after a header or a preamble line
        chk.true(f"{name}: LF rows from line {first}", len(lf) > 0 and lf[0]["line"] == first,
                 lf[:2])
        chk.eq(f"{name}: bare-CR log read as the LF one", rows(f"{name}_cr"), lf)
        chk.eq(f"{name}: CRLF log read as the LF one", rows(f"{name}_crlf"), lf)
    # a bare-CR log over 16 MiB: lines, not one overlong line
    n = 60_000  # lines of 300 bytes (trailing blanks: fewer records to store)
    p = os.path.join(tmp, "big_cr.log")
    with open(p, "w", newline="") as f:
        for i in range(n):
            f.write(f"iter {i}: loss {2.0 - i / 1e6:.6f}, time 12.5ms, mfu 3.2%".ljust(299) + "\r")
    chk.true("big CR log is over 16 MiB", os.path.getsize(p) > 16 << 20, os.path.getsize(p))
    code, _, err = run("ingest", "--db", db, p, check=False)
    chk.eq("bare-CR log over 16 MiB: exit 0", code, 0)
    out = query(db, "SELECT max(line) AS l, count(*) AS n FROM steplog_values JOIN runs"
                    " USING (run_id) WHERE name = 'big_cr' AND raw_name = 'loss'")
    chk.eq("bare-CR log over 16 MiB: a record per line", out, [{"l": n, "n": n}])
    # tqdm updates within an LF line stay segments of that line
    p = write(tmp, "tqdm.log", "  0%|          | 0/10 [00:00<?, ?it/s]\r 10%|#         | 1/10"
              " [00:01<00:09,  1.00s/it]\r 20%|##        | 2/10 [00:02<00:08,  1.00s/it]\n"
              "{'loss': 1.0, 'learning_rate': 0.1, 'epoch': 0.1}\n")
    code, _, err = run("ingest", "--db", db, "--format", "steplog:hf-trainer", p, check=False)
    chk.eq("tqdm log: exit 0", code, 0)
    out = query(db, "SELECT DISTINCT line FROM steplog_values JOIN runs USING (run_id)"
                    " WHERE name = 'tqdm' AND raw_name = 'loss'")
    chk.eq("tqdm log: the dict after the bar is line 2", out, [{"line": 2}])


def mutations(tmp):
    """Random damage to sample logs, read with every flavor: exit 0 or 2 only."""
    rnd = random.Random(7)
    flavors = ["", "jsonl", "csv", "kv", "rectflow", "mae", "megatron", "hf-trainer",
               "hf-trainer-state", "megatron-golden", "nvidia-smi", "torchtitan"]
    srcs = [open(os.path.join(SAMPLES, f), "rb").read()[:6000] for f in sorted(os.listdir(SAMPLES))]
    crashes = []
    for i in range(scaled(120, 30)):
        data = bytearray(rnd.choice(srcs))
        for _ in range(rnd.randint(1, 8)):
            op = rnd.randrange(4)
            pos = rnd.randrange(len(data) + 1)
            if op == 0:
                data = data[:pos]
            elif op == 1 and data:
                data[min(pos, len(data) - 1)] = rnd.randrange(256)
            elif op == 2:
                data[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 40)))
            else:
                data[pos:pos] = rnd.choice([b"{'", b"\r", b"=== Profiling Report (Step 9) ===\n",
                                            b"|E2E latency=", b"NaN", b"9" * 40, b"\x1b[A",
                                            b" iteration 5/ 9 |", b"time (ms) |"])
        p = write(tmp, f"m{i}.log", bytes(data), "wb")
        fl = rnd.choice(flavors)
        extra = ["--format", "steplog:" + fl] if fl else []
        code, _, err = run("ingest", "--db", os.path.join(tmp, f"m{i}.db"), *extra, p, check=False)
        if code not in (0, 2) or (code == 2 and not err.startswith("profdb: ")):
            crashes.append((i, fl, code, err[-200:]))
    chk.eq("mutated inputs exit 0 or 2 with a message", crashes, [])


def main():
    with tempdir() as tmp:
        bad_lines(tmp)
        bad_files(tmp)
        document_offsets(tmp)
        wide_csv(tmp)
        cr_lines(tmp)
        mutations(tmp)
        chk.close()


main()
