"""test_spill_exact.py's check on every corpus trace: ingested normally and
with PROFDB_SPILL_TEST=1 (every memory bound a handful), all raw and
analysis tables hold the same rows; the normal ingests take no path past a
bound, the others every path but the B/E one (the corpus traces, written by
the PyTorch profiler, hold complete X events only)."""

# ctest-labels: slow (every corpus trace ingested twice, once through the spill paths)

import os

from common import CHECKED, Checker, checked_subset, need_corpus, tempdir
from test_spill_exact import PATHS, compare


def main():
    c = Checker()
    traces = need_corpus("traces")
    inputs = [(f, os.path.join(traces, f)) for f in sorted(os.listdir(traces))
              if f.endswith(".json.gz")]
    c.true("corpus traces to compare", len(inputs) >= 10, f"({len(inputs)})")
    with tempdir() as tmp:
        if CHECKED:
            # A third of the traces (checked_subset): their tables compared
            # under the sanitizers; that every path is taken is the normal
            # build's check (it needs every trace).
            compare(c, tmp, checked_subset(inputs, 3, "corpus traces"), paths=None,
                    may_be_empty=("skips",))
        else:
            compare(c, tmp, inputs, paths=PATHS - {"open B events sent to a table"},
                    may_be_empty=("skips",))
    c.close()


if __name__ == "__main__":
    main()
