#!/usr/bin/python3
"""HTA's answers for the traces of tests/traces/eras/ (see PROVENANCE).

Run with Debian's Python and HTA's prerequisites (../shared/anchors/README.md):
    /usr/bin/python3 tests/traces/eras/make_oracles.py ../shared/anchors/hta
For every folder here (one run: one trace, or the ranks of one job) it loads
the traces with HTA's defaults and writes oracle.json next to them: the
temporal breakdown per rank, the idle time breakdown per rank and stream
(consecutive_kernel_delay 30 us, HTA's default), the kernel-type breakdown
(one total over the folder's ranks, as HTA gives it) and the number of GPU
events per rank. A folder HTA cannot analyse records HTA's error instead."""

import glob
import gzip
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def traces_of(folder):
    return sorted(p for p in glob.glob(os.path.join(folder, "*.json*"))
                  if not p.endswith("oracle.json"))


def records(df):
    return json.loads(df.to_json(orient="records"))


def analyse(folder):
    from hta.trace_analysis import TraceAnalysis
    with tempfile.TemporaryDirectory() as tmp:
        # HTA reads every JSON file of the folder: hand it the traces only.
        for p in traces_of(folder):
            shutil.copy(p, tmp)
        ta = TraceAnalysis(trace_dir=tmp)
        out = {"ranks": sorted(int(r) for r in ta.t.traces)}
        for name, call in [
                ("temporal_breakdown", lambda: ta.get_temporal_breakdown(visualize=False)),
                ("idle_time_breakdown",
                 lambda: ta.get_idle_time_breakdown(visualize=False)[0]),
                ("kernel_type_breakdown",
                 lambda: ta.get_gpu_kernel_breakdown(visualize=False)[0])]:
            try:
                out[name] = records(call())
            except Exception as e:  # HTA fails on traces without GPU events
                out[name] = {"error": f"{type(e).__name__}: {e}"}
        out["gpu_events"] = {str(r): int((df["stream"] >= 0).sum())
                             for r, df in ta.t.traces.items()}
    return out


def main():
    sys.path.insert(0, os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                                       else os.path.join(HERE, "../../../../shared/anchors/hta")))
    for folder in sorted(glob.glob(os.path.join(HERE, "*/"))):
        result = analyse(folder)
        result["traces"] = [os.path.basename(p) for p in traces_of(folder)]
        with open(os.path.join(folder, "oracle.json"), "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
            f.write("\n")
        print(folder, "ok")


if __name__ == "__main__":
    main()
