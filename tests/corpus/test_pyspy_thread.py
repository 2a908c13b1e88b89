"""`--thread ID|NAME` for folded, pyspy-tree and flamegraph: one thread's
stacks. On the corpus speedscope file with four threads
(cs336_bpe_threads.speedscope.json, one profile per thread named
'Thread ID "NAME"'), each thread's folded lines hold exactly the samples of
its profile counted here from the JSON (by NAME and by the ID in lower
case), and the flame graph's width is the profile's samples. A small raw
file with py-spy --threads frames ('thread (ID): NAME' under a process
frame) checks the stacks under the thread's frame are kept and no other.
An unknown thread is refused with one line, exit 2. `report --out DIR` on
the raw file draws the run's flame graph into the folder."""

import json
import os
import re
from collections import Counter

from common import Checker, need_corpus, run, tempdir


def folded(db, thread):
    _, out, _ = run("report", "folded", "--thread", thread, db=db)
    lines = [line.rsplit(" ", 1) for line in out.splitlines()]
    return {stack: int(n) for stack, n in lines}


def check_speedscope(c, tmp):
    path = need_corpus("pyspy", "cs336_bpe_threads.speedscope.json")
    doc = json.load(open(path))
    db = os.path.join(tmp, "ss.db")
    run("ingest", "-q", path, db=db)
    for prof in doc["profiles"]:
        m = re.match(r'Thread (\S+) "(.*)"$', prof["name"])
        tid, name = m.group(1), m.group(2)
        stored = sum(1 for s in prof["samples"] if s)
        for key in (name, tid.lower()):
            got = folded(db, key)
            c.eq(f"speedscope {name} ({key}): folded samples", sum(got.values()), stored)
        fg = os.path.join(tmp, "fg")
        run("report", "flamegraph", "--thread", name, "--out", fg, db=db)
        svg = open(os.path.join(fg, "flamegraph.svg")).read()
        width = int(re.search(r'data-total-samples="(\d+)"', svg).group(1))
        c.eq(f"speedscope {name}: flame graph width in samples", width, len(prof["samples"]))
        _, out, _ = run("report", "pyspy-tree", "--thread", name, db=db)
        c.true(f"speedscope {name}: pyspy-tree of the thread's samples",
               f"({len(prof['samples'])} samples;" in out, out[:200])


RAW = """process 7:"python a.py";thread (0x7f01): MainThread;<module> (a.py:1);main (a.py:5) 4
process 7:"python a.py";thread (0x7f01): MainThread;<module> (a.py:1);work (a.py:9) 2
process 7:"python a.py";thread (0x7f02): loader;run (t.py:3);load (t.py:8) 3
process 7:"python a.py";thread (0x7f02): loader 1
process 7:"python a.py";<module> (a.py:1) 5
"""


def check_raw(c, tmp):
    path = os.path.join(tmp, "threads.pyspy")
    open(path, "w").write(RAW)
    db = os.path.join(tmp, "raw.db")
    run("ingest", "-q", path, db=db)
    want = Counter()
    for line in RAW.splitlines():
        stack, n = line.rsplit(" ", 1)
        if "thread (0x7f02): loader" in stack:
            want[stack] += int(n)
    for key in ("loader", "0x7f02", "0X7F02"):
        c.eq(f"raw: --thread {key} keeps the stacks under its frame", folded(db, key),
             dict(want))
    main = folded(db, "MainThread")
    c.eq("raw: MainThread's samples", sum(main.values()), 6)
    c.true("raw: a stack without a thread frame is no thread's",
           not any(s.endswith("<module> (a.py:1)") and "thread" not in s for s in main), main)
    # the report folder of a py-spy run draws the whole run's flame graphs
    out = os.path.join(tmp, "folder")
    run("report", "--out", out, db=db)
    svg = open(os.path.join(out, "flamegraph.svg")).read()
    c.eq("raw: report --out folder: flame graph of every sample",
         re.search(r'data-total-samples="(\d+)"', svg).group(1), "15")
    c.true("raw: report --out folder links it", "flamegraph.svg" in
           open(os.path.join(out, "index.md")).read())
    code, _, err = run("report", "folded", "--thread", "nope", db=db, check=False)
    c.true("raw: an unknown thread is refused with one line",
           code == 2 and len(err.strip().splitlines()) == 1 and "--thread 'nope'" in err,
           (code, err))


def main():
    c = Checker()
    with tempdir() as tmp:
        check_raw(c, tmp)
        check_speedscope(c, tmp)
    c.close()


if __name__ == "__main__":
    main()
