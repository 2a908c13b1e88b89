"""critical-path --compat hta against HTA's critical_path_analysis() on every
corpus trace (traces/oracles_more/): for each window HTA was asked for (the
first two ProfilerStep instances, the whole trace, HTA's alexnet test
annotation, with and without zero-weight launch edges):

  - the path's length (graph weights), its edges' own weights, its span,
    the number of path nodes, critical events, graph nodes and edges;
  - the breakdown by bound type (time, edges, share of the path) and by
    edge type;
  - the path node by node: HTA's node id, start or end, time, the event's
    name, and for the edge to the next node its type, weight, the name of
    the event it is attributed to and its bound (all rows where the oracle
    keeps them; the first and last 500 where it cut the list);
  - where HTA fails or returns None, profdb says why and prints no path:
    no GPU kernels (HTA's assertion) -> 'does not apply'; an annotation in no
    event -> no window; MTIA's missing runtime event -> the same reason.

Exact mode (the default) runs the same graph on the trace as written: its
path on the whole trace must be at least as long as any single window's,
and on traces HTA does not round, with no step dropped, it equals HTA's."""

# ctest-labels: slow (about 60 s: every corpus trace and window, each report run four times)

import glob
import json
import os

from common import Checker, checked_subset, need_corpus, run, tempdir


def report(db, name, *args):
    code, out, err = run("report", "--run", name, "critical-path", "--format", "json",
                         "--unit", "ns", *args, db=db, check=False)
    return code, (json.loads(out) if out.strip() else []), err + out


def window_args(cp):
    args = ["--compat", "hta", "--annotation", cp["annotation"]]
    if cp["instance_id"] is not None:
        args += ["--instance", cp["instance_id"]]
    if cp["add_zero_weight_launch_edges"]:
        args += ["--zero-weight-launch-edges"]
    return args


def check_window(c, db, name, rank, cp, min_ts):
    tag = f"{name} r{rank} {cp['annotation'][:24]!r}#{cp['instance_id']}" \
          f"{' zw' if cp['add_zero_weight_launch_edges'] else ''}"
    args = window_args(cp)
    code, rows, text = report(db, name, *args)
    rows = [r for r in rows if r["rank"] == rank]
    if "error" in cp and code == 2:  # a trace without GPU events: the report does not apply
        c.true(f"{tag}: does not apply, one line saying it needs GPU events",
               text.count("\n") == 1 and "does not apply" in text and "GPU events" in text, text)
        return
    if "error" in cp:
        c.eq(f"{tag} exit", code, 0)
        if "Queue length time series" in cp["error"]:
            c.true(f"{tag}: no GPU kernels, says so", "does not apply" in text, text)
        elif "annotation not found" in cp["error"]:
            c.eq(f"{tag}: no window (HTA: None)", rows, [])
        else:
            c.true(f"{tag}: no path, says why", rows and rows[0]["why"], rows)
        return
    if not rows:
        c.true(f"{tag} has a row", False, text)
        return
    r = rows[0]
    c.eq(f"{tag} ok", r["why"], None)
    us = 1000
    c.eq(f"{tag} length", r["path_ns"], cp["critical_path_length_us"] * us)
    c.eq(f"{tag} span", r["span_ns"], cp["path_span_us"] * us)
    c.eq(f"{tag} path nodes", r["path_nodes"], cp["n_path_nodes"])
    c.eq(f"{tag} graph nodes", r["nodes"], cp["n_graph_nodes"])
    c.eq(f"{tag} graph edges", r["edges"], cp["n_graph_edges"])
    code, bounds, _ = report(db, name, *args, "--by", "bound")
    got = {b["bound"]: (b["duration_ns"], b["edges"], round(b["pct"], 9)) for b in bounds
           if b["rank"] == rank}
    want = {b["bound_by"]: (b["duration_us"] * us, b["n_edges"], round(b["pct_of_path"], 9))
            for b in cp["breakdown_by_bound_type"]}
    c.eq(f"{tag} bounds", got, want)
    code, types, _ = report(db, name, *args, "--by", "edge-type")
    got = {t["edge_type"]: (t["duration_ns"], t["edges"]) for t in types if t["rank"] == rank}
    want = {t["type"]: (t["duration_us"] * us, t["n_edges"]) for t in cp["breakdown_by_edge_type"]}
    c.eq(f"{tag} edge types", got, want)
    # The path, node by node.
    code, path, _ = report(db, name, *args, "--by", "node", "--names", "full")
    path = [p for p in path if p["rank"] == rank]
    cols = cp["path"]["columns"]
    theirs = [dict(zip(cols, row)) for row in cp["path"]["rows"]]
    names = {e[0]: e[1] for e in cp["events"]["rows"]}
    c.eq(f"{tag} path length in nodes", len(path), cp["n_path_nodes"])
    if len(theirs) < cp["n_path_nodes"]:  # the oracle kept the first and last rows
        half = len(theirs) // 2
        pairs = list(zip(path[:half], theirs[:half])) + list(zip(path[-half:], theirs[-half:]))
    else:
        pairs = list(zip(path, theirs))
    bad = []
    for p, t in pairs:
        same = (p["node"] == t["node_id"] and bool(p["is_start"]) == t["is_start"] and
                p["ts_ns"] == (t["node_ts"] + min_ts) * us and p["event"] == names[t["ev_idx"]] and
                p["edge_type"] == t["edge_type"] and
                p["weight_ns"] == (None if t["edge_weight"] is None else t["edge_weight"] * us) and
                p["attributed_to"] == (None if t["edge_event_idx"] is None
                                       else names[t["edge_event_idx"]]) and
                p["bound"] == t["edge_bound_by"])
        if not same:
            bad.append((p, t))
    c.true(f"{tag} path equal node by node ({len(pairs)} nodes)", not bad, bad[:2])


def main():
    c = Checker()
    oracles = need_corpus("traces", "oracles_more")
    traces = need_corpus("traces")
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for path in checked_subset(sorted(glob.glob(os.path.join(oracles, "*.json"))), 5,
                                   "traces with oracle windows"):
            oracle = json.load(open(path))
            name = os.path.basename(path)[:-5]
            files = [os.path.join(traces, f) for f in oracle["trace_files"]]
            run("ingest", "--quiet", "--run", name, *files, db=db)
            for rank, pr in oracle["per_rank"].items():
                for cp in pr.get("critical_path", []):
                    check_window(c, db, name, int(rank), cp, oracle["hta_min_ts_abs"])
            # Exact mode: the whole trace's path is at least any window's.
            code, whole, _ = report(db, name, "--annotation", "")
            code, steps, _ = report(db, name)
            for w in whole:
                if w["why"] is None:
                    longest = max([s["path_ns"] for s in steps if s["rank"] == w["rank"] and
                                   s["why"] is None] or [0])
                    c.true(f"{name} r{w['rank']} exact: whole path >= each step's",
                           w["path_ns"] >= longest, (w["path_ns"], longest))
    c.close()


if __name__ == "__main__":
    main()
