#!/usr/bin/env python3
"""genpstats.py: writes a small cProfile dump for samples/ and the tests.

Profiles a deterministic workload (direct and mutual recursion, a callable
object, builtins, a generator) with cProfile and dumps it with marshal, the
way `python -m cProfile -o FILE` does. Call counts are the same on every
run; the times are whatever this machine measures.

usage: python3 samples/gen/genpstats.py samples/pstats/sample.prof
"""
import cProfile
import sys


# The workload is compiled under a fixed file name so the dump does not
# depend on where the repository is checked out.
WORKLOAD = """
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


class Scaler:
    def __init__(self, k):
        self.k = k

    def __call__(self, xs):
        return [x * self.k for x in xs]


def squares(n):
    for i in range(n):
        yield i * i


def workload():
    total = fib(15)
    total += sum(1 for i in range(50) if is_even(i))
    total += sum(Scaler(3)(list(squares(200))))
    total += len(sorted(str(i) for i in range(300)))
    return total
"""


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "sample.prof"
    ns = {}
    exec(compile(WORKLOAD, "workload.py", "exec"), ns)
    prof = cProfile.Profile()
    prof.runcall(ns["workload"])
    prof.dump_stats(out)


if __name__ == "__main__":
    main()
