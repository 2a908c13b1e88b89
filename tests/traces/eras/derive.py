#!/usr/bin/env python3
"""Derived traces of tests/traces/eras/ (see PROVENANCE), made from the real
ones here; run from anywhere, it rewrites them:

pt18_nolaunch/: pt18_v100/window.json.gz with the runtime calls of two
kernels (correlations 548 and 579) left out, as when the profiler drops
them, and its latest CPU event (cudaDeviceSynchronize) listed first. HTA
takes the first event of the file for the launch of a kernel whose launch is
not in the trace (its row 0), so the two gaps are host wait for HTA; profdb's
exact mode counts them as waits of queued kernels."""

import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with gzip.open(os.path.join(HERE, path), "rt") as f:
        return json.load(f)


def save(doc, path):
    os.makedirs(os.path.dirname(os.path.join(HERE, path)), exist_ok=True)
    with gzip.GzipFile(os.path.join(HERE, path), "wb", mtime=0) as f:
        f.write(json.dumps(doc, indent=1).encode())


def no_launch():
    doc = load("pt18_v100/window.json.gz")
    evs = [e for e in doc["traceEvents"]
           if not (e.get("cat") == "Runtime" and e["args"].get("correlation") in (548, 579))]
    sync = next(e for e in evs if e.get("name") == "cudaDeviceSynchronize")
    evs.remove(sync)
    doc["traceEvents"] = [sync] + evs
    save(doc, "pt18_nolaunch/nolaunch.json.gz")


if __name__ == "__main__":
    no_launch()
