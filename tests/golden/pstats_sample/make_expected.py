#!/usr/bin/env python3
"""Writes tests/golden/pstats_sample/expected with CPython's own pstats, so
the golden case compares profdb with pstats (not with itself).
usage: python3 tests/golden/pstats_sample/make_expected.py [OUT]
(OUT defaults to the case's expected file; corpus/test_golden_oracles.py
writes elsewhere and checks that expected still equals pstats' output.)"""
import io
import os
import pstats
import sys

here = os.path.dirname(os.path.abspath(__file__))
dump = os.path.join(here, "..", "..", "..", "samples", "pstats", "sample.prof")


def run(fn):
    s = io.StringIO()
    fn(pstats.Stats(dump, stream=s))
    return s.getvalue()


out = []
out.append(run(lambda st: st.sort_stats("tottime", "name").print_stats()).split("\n", 1)[1])
out.append(run(lambda st: st.sort_stats("nfl").print_stats("fib|is_", 0.5)).split("\n", 1)[1])
out.append(run(lambda st: st.sort_stats("name").print_callers("is_")))
out.append(run(lambda st: st.sort_stats("calls").print_callees(3)))
with open(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "expected"), "w") as f:
    f.write("".join(out) + "exit: 0\n")
