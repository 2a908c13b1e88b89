"""Deep JSON nesting in every JSON-based reader (issue 30, items 3, 5, 16).

Each JSON reader gets a value nested 1,000,000 levels deep, closed and never
closed: Kineto traces (an event's field, trace-level metadata), a legacy
array trace, JSON Lines step logs (a later line, the first line, a first line
longer than the sniffer's 64 KiB), detectron2's metrics.json, Megatron golden
values (the issue's 400,000-level crash) and trainer_state.json, also through
`ingest --dry-run` and a one-shot `report FILE`. Every one must be refused at
once with one error line that names the file and the line (JSON Lines) or the
byte (documents, traces) and says what was nested, exit 2, database unchanged,
no run added, peak RSS within 64 MB. Before: golden values and trainer_state
crashed (SIGSEGV in yajl's recursive tree free), JSON Lines and detectron2
lines took time quadratic in their depth (a 1.6 M-level line 20 s, 5 MB over
120 s) and a first line was refused in the trace reader's words ("event args
or metadata nested deeper than 100 levels").

A JSON Lines line of 5,000,000 '[' is refused within seconds, and SIGINT
stops a long step-log read that stores nothing (where no SQL statement runs
to notice it) at once: exit 130, nothing stored. No corpus needed."""

import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import PROFDB, Checker, run, tempdir  # noqa: E402

SANITIZED = os.environ.get("PROFDB_SANITIZED") == "1"
RSS_MB = 64
DEPTH = 1_000_000
LINEAR_SIZES = [200_000, 400_000, 800_000, 1_600_000, 5_000_000]
LINEAR_HEADS = [("jsonl", b'{"step": 1, "loss": 2.0}\n{"step": 2, "x": '),
                ("detectron2", b'{"data_time": 0.1, "iteration": 19, "time": 0.5}\n'
                               b'{"data_time": 0.1, "iteration": 39, "x": ')]
chk = Checker()


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def run_measured(args, timeout):
    """Runs profdb; returns (exit code or None on timeout, stderr, the child's peak RSS
    in MB from os.wait4, seconds)."""
    t0 = time.monotonic()
    p = subprocess.Popen([PROFDB] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = t0 + timeout
    err = b""
    os.set_blocking(p.stderr.fileno(), False)
    while True:
        chunk = p.stderr.read()
        if chunk:
            err += chunk
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            rest = p.stderr.read()
            err += rest or b""
            p.returncode = os.waitstatus_to_exitcode(status)
            return (p.returncode, err.decode(errors="replace"), usage.ru_maxrss / 1024,
                    time.monotonic() - t0)
        if time.monotonic() > deadline:
            p.kill()
            os.wait4(p.pid, 0)
            p.returncode = -9
            return None, err.decode(errors="replace"), 0, time.monotonic() - t0
        time.sleep(0.01)


def too_deep_at(data):
    """The byte just past the container that opens level 1001 (yajl's offset
    for a refusal there); these inputs hold no bracket inside a string."""
    depth = 0
    for i, ch in enumerate(data):
        if ch in b"[{":
            depth += 1
            if depth > 1000:
                return i + 1
        elif ch in b"]}":
            depth -= 1
    return None


def case_list():
    """(name, file name, data, extra args, what the one error line must hold)."""
    o, c = b"[" * DEPTH, b"]" * DEPTH
    ev = b'{"ph": "X", "name": "k", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "x": '
    golden = b'{"lm loss": {"start_step": 0, "end_step": 10, "step_interval": 5, "values": '
    state = b'{"global_step": 5, "log_history": [{"loss": 1.0, "step": 1, "x": '
    out = [
        ("trace: an event's field", "trace_field.json",
         b'{"traceEvents": [' + ev + o + c + b"}]}", [], ": byte 1087: JSON nested deeper than 1000"),
        ("trace: an event's field, never closed", "trace_open.json",
         b'{"traceEvents": [' + ev + o, [], ": byte 1087: JSON nested deeper than 1000"),
        ("trace: trace-level metadata", "trace_meta.json",
         b'{"traceEvents": [], "meta": ' + o + c + b"}", [], "nested deeper than 100 levels"),
        ("trace: legacy array", "legacy.json", o + c, ["--format", "trace"], ": byte 2: "),
        ("JSON Lines: a later line", "later.jsonl",
         b'{"step": 1, "loss": 2.0}\n{"step": 2, "x": ' + o + c + b'}\n{"step": 3, "loss": 1.0}\n',
         [], ": line 2: JSON nested deeper than 1000 levels"),
        ("JSON Lines: a later line never closed", "open.jsonl",
         b'{"step": 1, "loss": 2.0}\n{"step": 2, "x": ' + o + b'\n{"step": 3, "loss": 1.0}\n',
         [], ": line 2: JSON nested deeper than 1000 levels"),
        ("JSON Lines: the first line, past the sniffer's 64 KiB", "first.jsonl",
         b'{"step": 1, "x": ' + o + b'\n{"step": 2, "loss": 1.0}\n',
         [], ": line 1: JSON nested deeper than 1000 levels"),
        ("JSON Lines: one short line never closed", "short.jsonl",
         b'{"step": 1, "x": ' + b"[" * 5000 + b"\n",
         [], ": line 1: JSON nested deeper than 1000 levels"),
        ("detectron2 metrics.json", "metrics.json",
         b'{"data_time": 0.1, "iteration": 19, "loss": 2.0, "time": 0.5}\n'
         b'{"data_time": 0.1, "iteration": 39, "x": ' + o + b"\n",
         ["--format", "steplog:detectron2"], ": line 2: JSON nested deeper than 1000 levels"),
        ("golden values, the issue's 400,000 levels", "golden400k.json",
         golden + b"[10.0, " + b"[" * 400000 + b"]" * 400000 + b"]}}", [], None),
        ("golden values", "golden.json", golden + b'{"1": ' + o + c + b"}}}", [], None),
        ("golden values, never closed", "golden_open.json", golden + o,
         ["--format", "steplog:megatron-golden"], None),
        ("trainer_state.json", "trainer_state.json", state + o + c + b"}]}", [], None),
        ("trainer_state.json.gz, NaN before", "trainer_state.json.gz",
         state.replace(b"1.0", b"NaN") + o + c + b"}]}", [], None),
    ]
    for name, fname, data, extra, says in out:
        if says is None:  # a document: the byte, in the text as written
            at = too_deep_at(data)
            gz = " (decompressed)" if fname.endswith(".gz") else ""
            says = f": byte {at}{gz}: JSON nested deeper than 1000 levels; expected a trainer"
        yield name, fname, data, extra, says


def make_inputs(tmp):
    """Writes every input into tmp and cases.json describing the refusals.
    Runs in a child process: Linux carries a process's peak RSS across fork
    and exec into ru_maxrss, so the process that measures profdb must never
    have held these buffers itself."""
    cases = []
    for name, fname, data, extra, says in case_list():
        p = os.path.join(tmp, fname)
        with open(p, "wb") as f:
            f.write(gzip.compress(data) if fname.endswith(".gz") else data)
        cases.append((name, p, extra, says))
    with open(os.path.join(tmp, "cases.json"), "w") as f:
        json.dump(cases, f)
    for n in LINEAR_SIZES:
        for flavor, head in LINEAR_HEADS:
            with open(os.path.join(tmp, f"lin_{flavor}_{n}.json"), "wb") as f:
                f.write(head + b"[" * n + b"\n")
    # 512 MiB of "[]" lines (not JSON object lines: skipped), a few MB on disk
    block = gzip.compress(b"[]\n" * (1 << 20), 1)
    with open(os.path.join(tmp, "skips.jsonl.gz"), "wb") as f:
        f.write(gzip.compress(b'{"step": 1, "loss": 2.0}\n'))
        for _ in range(170 if not SANITIZED else 40):
            f.write(block)
    with open(os.path.join(tmp, "base.jsonl"), "w") as f:
        f.write('{"step": 1, "loss": 2.0}\n')


def refusals(tmp):
    db = os.path.join(tmp, "t.db")
    run("ingest", "--db", db, "--run", "base", "-q",
        os.path.join(tmp, "base.jsonl"))
    before = sha(db)
    limit = 600 if SANITIZED else 30
    with open(os.path.join(tmp, "cases.json")) as f:
        cases = json.load(f)
    for name, path, extra, says in cases:
        for how, args in (("ingest", ["--db", db, "ingest", *extra, path]),
                          ("ingest -n", ["--db", db, "ingest", "-n", *extra, path]),
                          ("report", ["report", *extra, path])):
            if how != "ingest" and "golden" not in path and "first" not in path:
                continue  # the readers are the same; the crash was there
            if how == "report" and extra:
                continue  # a one-shot report sniffs its inputs
            code, err, rss, secs = run_measured(args, limit)
            what = f"{name} ({how})"
            print(f"{what}: exit {code}, {secs:.2f} s, peak RSS {rss:.0f} MB")
            chk.eq(f"{what}: exit 2", code, 2)
            lines = err.strip().splitlines()
            chk.eq(f"{what}: one error line", len(lines), 1)
            chk.true(f"{what}: names the file and says '{says}'",
                     bool(lines) and lines[0].startswith(f"profdb: {path}") and says in lines[0],
                     err.strip()[-300:])
            if not SANITIZED:
                chk.true(f"{what}: peak RSS {rss:.0f} MB within {RSS_MB} MB", rss <= RSS_MB)
                chk.true(f"{what}: {secs:.1f} s within 5 s", secs < 5)
        chk.eq(f"{name}: database unchanged", sha(db), before)
        os.remove(path)
    _, out, _ = run("sql", "--db", db, "SELECT count(*) FROM runs")
    chk.eq("only the base run is stored", out.split()[-1], "1")


def linear_time(tmp):
    """One JSON Lines line opening N '[' and never closing: refused in time
    that does not grow with N squared (was 0.17/0.82/3.8/20.1 s for N = 200k,
    400k, 800k, 1.6M; a 5 MB line over 120 s)."""
    db = os.path.join(tmp, "lin.db")
    for n in LINEAR_SIZES:
        for flavor, _ in LINEAR_HEADS:
            p = os.path.join(tmp, f"lin_{flavor}_{n}.json")
            code, err, rss, secs = run_measured(["--db", db, "ingest", "--format",
                                                 f"steplog:{flavor}", p], 600 if SANITIZED else 30)
            what = f"{flavor}: a line of {n:,} '[' never closed"
            print(f"{what}: exit {code}, {secs:.2f} s, peak RSS {rss:.0f} MB")
            chk.eq(f"{what}: exit 2", code, 2)
            chk.true(f"{what}: refused at its line", ": line 2: JSON nested deeper" in err, err[-300:])
            if not SANITIZED:
                chk.true(f"{what}: {secs:.1f} s within 5 s", secs < 5)
                chk.true(f"{what}: peak RSS {rss:.0f} MB within {RSS_MB} MB", rss <= RSS_MB)
            os.remove(p)
    chk.true("no database made by refused first ingests", not os.path.exists(db))


def interrupt(tmp):
    """SIGINT while a step log of lines that store nothing is read: no SQL
    statement runs, so the reader must look at the flag itself."""
    path = os.path.join(tmp, "skips.jsonl.gz")
    db = os.path.join(tmp, "int.db")
    run("ingest", "--db", db, "--run", "base", "-q", os.path.join(tmp, "base.jsonl"))
    before = sha(db)
    p = subprocess.Popen([PROFDB, "--db", db, "ingest", "--format", "steplog:jsonl", path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # early, but after profdb has started reading: the whole read takes about
    # 2 s in a normal build and not much longer under ASan on an idle machine
    # (a 5 s wait there let it finish first)
    wait = 0.3 if not SANITIZED else 0.6
    time.sleep(wait)
    running = p.poll() is None
    chk.true(f"the read is still going after {wait} s (the input is big enough)", running)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        err = p.communicate(timeout=60 if SANITIZED else 5)[1].decode(errors="replace")
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1].decode(errors="replace")
        p.returncode = None
    secs = time.monotonic() - t0
    print(f"SIGINT during a read of skipped lines: exit {p.returncode} after {secs:.2f} s")
    chk.eq("SIGINT: exit 130", p.returncode, 130)
    chk.true("SIGINT: says nothing was stored", "interrupted by SIGINT; nothing was stored" in err,
             err[-300:])
    chk.eq("SIGINT: database unchanged", sha(db), before)


def main():
    with tempdir() as tmp:
        subprocess.run([sys.executable, __file__, "--make-inputs", tmp], check=True)
        floor = run_measured(["--version"], 30)[2]
        print(f"peak RSS of 'profdb --version' (the floor of these readings): {floor:.0f} MB")
        refusals(tmp)
        linear_time(tmp)
        interrupt(tmp)
    chk.close()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--make-inputs":
        make_inputs(sys.argv[2])
    else:
        main()
