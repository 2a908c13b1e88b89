#!/usr/bin/python3
"""HTA's memory bandwidth answers for the traces derive.py writes here.

Run with Debian's Python and HTA's prerequisites (../shared/anchors/README.md):
    /usr/bin/python3 tests/traces/memory_bw/make_oracles.py ../shared/anchors/hta
For every folder it loads the trace with HTA's defaults and writes
oracle.json.gz: get_memory_bw_summary (per kind: count, mean, std, min,
quartiles, max of the points above 0) and get_memory_bw_time_series (every
point in HTA's order: ts in us from HTA's min_ts, kind, GB/s), both with
HTA's default (unstable) sort, and the numpy and pandas versions used."""

import glob
import gzip
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def analyse(folder):
    import numpy
    import pandas
    from hta.trace_analysis import TraceAnalysis
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(folder, "trace.json.gz"), tmp)
        ta = TraceAnalysis(trace_dir=tmp)
        summary = ta.get_memory_bw_summary()
        series = ta.get_memory_bw_time_series()[0]
        rows = []
        for (rank, name), r in summary.iterrows():
            v = r["memory_bw_gbps"]
            rows.append({"rank": int(rank), "name": name, "count": int(v["count"]),
                         "mean": float(v["mean"]), "std": float(v["std"]),
                         "min": float(v["min"]), "25%": float(v["25%"]),
                         "50%": float(v["50%"]), "75%": float(v["75%"]),
                         "max": float(v["max"])})
        points = [[int(t), n, float(b)] for t, n, b in
                  zip(series["ts"], series["name"], series["memory_bw_gbps"])]
        return {"numpy": numpy.__version__, "pandas": pandas.__version__,
                "min_ts_abs": int(ta.t.min_ts), "summary": rows, "series": points}


def main():
    sys.path.insert(0, os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                                       else os.path.join(HERE, "../../../../shared/anchors/hta")))
    import logging
    logging.disable(logging.WARNING)
    for folder in sorted(glob.glob(os.path.join(HERE, "*/"))):
        data = (json.dumps(analyse(folder), indent=0) + "\n").encode()
        with open(os.path.join(folder, "oracle.json.gz"), "wb") as f:
            with gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as g:
                g.write(data)


if __name__ == "__main__":
    main()
