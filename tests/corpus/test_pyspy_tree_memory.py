"""The reports over a whole py-spy stack tree (folded, pyspy-tree,
flamegraph: report/pyspy_graph.c) in bounded memory: their peak RSS must not
grow with the input. Two shapes, each at n and 4n: many distinct stacks
(n two-frame stacks under one root: wide) and one very deep stack (n frames,
and its first half as a second stack). The outputs are checked against
what was generated, so a report that left stacks out would fail too.
Generated inputs only: no corpus needed. No timing assertion (bench/)."""

import os
import re
import subprocess
import sys

from common import CHECKED, PROFDB, Checker, run, scaled, tempdir

# Peak RSS may grow by this much when the input grows 4 times: SQLite's
# page caches and sorters fill up to their limits (2 MiB each by default),
# the smaller input nearly does (measured: 8-9 MiB, then 10-12 MiB, and no
# more at 16 times); the tree held in memory grew by 8 MiB (deep) and
# 20 MiB (many) here.
SLACK_KIB = 5 * 1024


def write_many(path, n):
    """n stacks `<module>;gI COUNT`, COUNT = 1 + I % 5; returns the samples."""
    with open(path, "w") as f:
        for i in range(n):
            f.write(f"<module> (/a/main.py:1);g{i} (/a/b{i % 97}.py:{i}) {1 + i % 5}\n")
    return sum(1 + i % 5 for i in range(n))


def write_deep(path, n):
    """f0;...;f(n-1) 7 and its first half 3; returns the samples."""
    with open(path, "w") as f:
        for stop, count in ((n, 7), (n // 2, 3)):
            for i in range(stop - 1):
                f.write(f"f{i} (/a/m.py:{i});")
            f.write(f"f{stop - 1} (/a/m.py:{stop - 1}) {count}\n")
    return 10


# Measures one profdb run from a fresh, small Python (-S -I: about 8 MiB,
# under profdb's own peak): Linux carries a process's peak RSS across fork
# and exec into the child's ru_maxrss, and this process reads the outputs
# (a folded line of 80,000 frames).
MEASURER = """
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
null = os.open(os.devnull, os.O_WRONLY)
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ,
                     file_actions=[(os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def measure(args, out_path):
    """Runs profdb with stdout to out_path; returns (exit code, peak RSS KiB)."""
    p = subprocess.run([sys.executable, "-S", "-I", "-c", MEASURER, out_path, PROFDB] + args,
                       capture_output=True, text=True, check=True)
    code, rss = p.stdout.split()
    return int(code), int(rss)


def folded_check(c, label, path, stacks, samples):
    lines = 0
    total = 0
    with open(path) as f:
        for line in f:
            lines += 1
            total += int(line.rsplit(" ", 1)[1])
    c.eq(f"{label}: folded lines", lines, stacks)
    c.eq(f"{label}: folded samples", total, samples)


def reports(c, tmp, label, db, stacks, samples, nodes):
    """Runs the three reports on db; checks their output; returns their RSS."""
    out = os.path.join(tmp, "out.txt")
    rss = {}
    code, rss["folded"] = measure(["report", "--db", db, "folded"], out)
    c.eq(f"{label}: folded exit", code, 0)
    folded_check(c, label, out, stacks, samples)
    code, rss["pyspy-tree"] = measure(
        ["report", "--db", db, "pyspy-tree", "--min-share", "0"], out)
    c.eq(f"{label}: pyspy-tree exit", code, 0)
    lines, first = 0, None
    with open(out) as f:  # streamed: this process's RSS counts in its child's
        for line in f:
            if re.match(r"\s*\d+\.\d\d% ", line):
                lines += 1
                first = first or line
    c.eq(f"{label}: pyspy-tree lines (every node at --min-share 0)", lines, nodes)
    c.true(f"{label}: pyspy-tree first line is the root with every sample",
           first and first.split()[2] == str(samples), first)
    fg = os.path.join(tmp, "fg")
    code, rss["flamegraph"] = measure(
        ["report", "--db", db, "flamegraph", "--min-share", "0", "--out", fg], out)
    c.eq(f"{label}: flamegraph exit", code, 0)
    with open(os.path.join(fg, "flamegraph.svg")) as f:
        boxes = sum(line.startswith('<g class="f"') for line in f)
    c.eq(f"{label}: flamegraph boxes (every node and 'all')", boxes, nodes + 1)
    return rss


def shape(c, tmp, name, write, n, nodes_of, stacks_of):
    """Both sizes of one shape; RSS of the larger within SLACK_KIB."""
    got = {}
    for k in (n, 4 * n):
        path = os.path.join(tmp, f"{name}{k}.pyspy")
        samples = write(path, k)
        db = os.path.join(tmp, f"{name}{k}.db")
        run("ingest", "-q", "--no-analyze", path, db=db)
        os.remove(path)
        got[k] = reports(c, tmp, f"{name} {k}", db, stacks_of(k), samples, nodes_of(k))
        print(f"{name} {k}: peak RSS " +
              ", ".join(f"{r} {v >> 10} MiB" for r, v in got[k].items()))
        os.remove(db)
    if CHECKED:  # sanitizers' own bookkeeping grows with allocations
        return
    for r in got[n]:
        c.true(f"{name}: {r} peak RSS does not grow with 4 times the input "
               f"(within {SLACK_KIB >> 10} MiB)", got[4 * n][r] < got[n][r] + SLACK_KIB,
               (got[n][r], got[4 * n][r]))


def main():
    c = Checker()
    with tempdir() as tmp:
        n = scaled(40000, 5000)
        shape(c, tmp, "many", write_many, n, lambda k: k + 1, lambda k: k)
        d = scaled(20000, 4000)
        shape(c, tmp, "deep", write_deep, d, lambda k: k, lambda k: 2)
    c.close()


if __name__ == "__main__":
    main()
