"""pstats dumps against the corpus oracles (../shared/corpus/pstats).

For every X.prof with X.oracle.json: ingest it (format sniffed, also gzip),
then compare every function's cc/nc/tt/ct and every edge (in dump order),
the totals, the top-30 orders for cumulative/tottime/calls (JSON report),
the printed cumulative and tottime reports line for line (apart from
pstats' first line: file mtime and name), and the callers/callees text.
Also: several dumps in one run add up like pstats.Stats.add (checked with
the standard library's pstats), and the marshal facts of the oracle."""

import glob
import gzip
import json
import os
import shutil

from common import Checker, need_corpus, run, run_json, tempdir

KEY = ("file", "line", "name")


def key(d):
    return tuple(d[k] for k in KEY)


def sql_json(db, query):
    _, out, _ = run("sql", "--format", "json", query, db=db)
    return json.loads(out) if out.strip() else []


def check_functions(c, name, db, run_name, oracle):
    rows = sql_json(db, "SELECT f.file, f.line, f.name, f.cc, f.nc, f.tt, f.ct"
                        " FROM pstats_functions f JOIN runs r USING (run_id)"
                        f" WHERE r.name = '{run_name}' AND f.in_stats ORDER BY f.ord")
    c.eq(f"{name}: function count", len(rows), len(oracle["functions"]))
    bad = [(o, r) for o, r in zip(oracle["functions"], rows)
           if any(o[k] != r[k] for k in KEY + ("cc", "nc", "tt", "ct"))]
    c.true(f"{name}: every function's key, cc, nc, tt, ct in dump order", not bad,
           f"first mismatch: {bad[:1]}")


def check_edges(c, name, db, run_name, oracle):
    rows = sql_json(db, "SELECT a.file AS caller_file, a.line AS caller_line,"
                        " a.name AS caller_name, b.file AS callee_file, b.line AS callee_line,"
                        " b.name AS callee_name, e.cc, e.nc, e.tt, e.ct"
                        " FROM pstats_edges e JOIN runs r USING (run_id)"
                        " JOIN pstats_functions a ON a.func_id = e.caller_id"
                        " JOIN pstats_functions b ON b.func_id = e.callee_id"
                        f" WHERE r.name = '{run_name}' ORDER BY e.ord")
    got = [((r["caller_file"], r["caller_line"], r["caller_name"]),
            (r["callee_file"], r["callee_line"], r["callee_name"]),
            r["cc"], r["nc"], r["tt"], r["ct"]) for r in rows]
    want = [(key(e["caller"]), key(e["callee"]), e["cc"], e["nc"], e["tt"], e["ct"])
            for e in oracle["edges"]]
    c.eq(f"{name}: edge count", len(got), len(want))
    bad = [(g, w) for g, w in zip(got, want) if g != w]
    c.true(f"{name}: every edge (caller, callee, cc, nc, tt, ct) in dump order", not bad,
           f"first mismatch: {bad[:1]}")


def check_totals(c, name, db, run_name, oracle):
    rows = sql_json(db, "SELECT d.total_calls, d.prim_calls, d.total_tt, d.functions, d.edges"
                        " FROM pstats_dumps d JOIN runs r USING (run_id)"
                        f" WHERE r.name = '{run_name}'")
    c.eq(f"{name}: one dump row", len(rows), 1)
    for k in ("total_calls", "prim_calls", "total_tt"):
        c.eq(f"{name}: {k}", rows[0][k], oracle[k])
    c.eq(f"{name}: functions", rows[0]["functions"], oracle["n_functions"])
    c.eq(f"{name}: edges", rows[0]["edges"], oracle["n_edges"])


def check_orders(c, name, db, run_name, oracle):
    for sort in ("cumulative", "tottime", "calls"):
        rows = run_json("report", "--run", run_name, "pstats", "--sort", sort,
                        "--limit", "30", db=db)
        got = [(r["filename"], r["lineno"], r["function"]) for r in rows]
        want = [key(k) for k in oracle["top_" + sort]]
        c.eq(f"{name}: top 30 by {sort}", got, want)


def check_text(c, name, db, run_name, base, oracle):
    for sort in ("cumulative", "tottime"):
        _, out, _ = run("report", "--run", run_name, "pstats", "--sort", sort,
                        "--limit", "30", db=db)
        with open(f"{base}.print_{sort}.txt") as f:
            want = f.read().split("\n")
        got = out.split("\n")
        c.eq(f"{name}: print_{sort} line count", len(got), len(want))
        diff = [(i + 1, g, w) for i, (g, w) in enumerate(zip(got, want)) if i > 0 and g != w]
        c.true(f"{name}: print_{sort} text equal apart from line 1", not diff,
               f"first difference: {diff[:1]}")
    regex = oracle["callers_for"]["restriction"]
    for what in ("callers", "callees"):
        _, out, _ = run("report", "--run", run_name, what, "--sort",
                        oracle["callers_for"]["sort"], "--match", regex, db=db)
        with open(f"{base}.{what}.txt") as f:
            want = f.read()
        c.true(f"{name}: {what} text equal", out == want,
               f"\n--- got ---\n{out}\n--- want ---\n{want}")


def check_pictures(c, name, db, run_name, oracle):
    """DOT: a node per function over 0.5% of the time, edges labelled with the
    oracle's call counts. Chart: the top functions' cumtime and tottime."""
    import csv
    import io
    import re
    funcs = {key(f): f for f in oracle["functions"]}
    _, dot, _ = run("report", "--run", run_name, "pstats-dot", db=db)
    ids = sql_json(db, "SELECT f.func_id, f.file, f.line, f.name FROM pstats_functions f"
                       f" JOIN runs r USING (run_id) WHERE r.name = '{run_name}'")
    by_id = {r["func_id"]: (r["file"], r["line"], r["name"]) for r in ids}
    nodes = set(int(m) for m in re.findall(r"^\t(\d+) \[", dot, re.M))
    want_nodes = {k for k, f in funcs.items() if f["ct"] / oracle["total_tt"] >= 0.005}
    c.eq(f"{name}: DOT nodes are the functions over 0.5%", {by_id[i] for i in nodes}, want_nodes)
    edge_nc = {(key(e["caller"]), key(e["callee"])): e["nc"] for e in oracle["edges"]}
    bad = []
    labels = re.findall(r"^\t(\d+) -> (\d+) .*\\n(\d+)\u00d7", dot, re.M)
    c.eq(f"{name}: every DOT edge has a calls label", len(labels), dot.count(" -> "))
    for a, b, n in labels:
        if edge_nc.get((by_id[int(a)], by_id[int(b)])) != int(n):
            bad.append((by_id[int(a)], by_id[int(b)], n))
    c.true(f"{name}: DOT edges carry the oracle call counts", not bad and "->" in dot, bad[:2])
    _, gp, _ = run("report", "--run", run_name, "pstats-chart", "--top", "10", db=db)
    data = gp.split("$data << EOD\n")[1].split("EOD\n")[0].split("\n")[:-1]
    got = [tuple(float(x) for x in line.split()[1:]) for line in data]
    want = [(funcs[key(k)]["ct"], funcs[key(k)]["tt"]) for k in oracle["top_cumulative"][:10]]
    c.true(f"{name}: chart data = top 10 cumtime/tottime", len(got) == len(want) and all(
        abs(g[0] - w[0]) <= 1e-9 * max(1, w[0]) and abs(g[1] - w[1]) <= 1e-9 * max(1, w[1])
        for g, w in zip(got, want)), f"{got[:2]} vs {want[:2]}")
    _, out, _ = run("report", "--run", run_name, "pstats", "--sort", "tottime", "--limit", "30",
                    "--format", "csv", db=db)
    rows = list(csv.DictReader(io.StringIO(out)))
    want = [funcs[key(k)] for k in oracle["top_tottime"]]
    c.eq(f"{name}: csv rows (ncalls, pcalls, tottime, cumtime) by tottime",
         [(int(r["ncalls"]), int(r["pcalls"]), float(r["tottime"]), float(r["cumtime"]))
          for r in rows], [(f["nc"], f["cc"], f["tt"], f["ct"]) for f in want])


def check_merge(c, tmp, dumps):
    """Two dumps in one run equal pstats.Stats(a).add(b)."""
    import pstats
    a, b = dumps[0], dumps[1]
    db = os.path.join(tmp, "merge.db")
    run("ingest", "-q", "--run", "both", a, b, db=db)
    st = pstats.Stats(a)
    st.add(b)
    rows = sql_json(db, "SELECT f.file, f.line, f.name, f.cc, f.nc, f.tt, f.ct"
                        " FROM pstats_functions f WHERE f.in_stats ORDER BY f.ord")
    got = [((r["file"], r["line"], r["name"]), (r["cc"], r["nc"], r["tt"], r["ct"]))
           for r in rows]
    want = [(k, v[:4]) for k, v in st.stats.items()]
    c.eq("merge: functions and sums equal Stats.add, in its order", got, want)
    edges = sql_json(db, "SELECT a.file AS af, a.line AS al, a.name AS an, b.file AS bf,"
                         " b.line AS bl, b.name AS bn, e.nc, e.cc, e.tt, e.ct FROM pstats_edges e"
                         " JOIN pstats_functions a ON a.func_id = e.caller_id"
                         " JOIN pstats_functions b ON b.func_id = e.callee_id")
    got_e = {((r["af"], r["al"], r["an"]), (r["bf"], r["bl"], r["bn"])):
             (r["nc"], r["cc"], r["tt"], r["ct"]) for r in edges}
    want_e = {(caller, callee): v for callee, (_, _, _, _, callers) in st.stats.items()
              for caller, v in callers.items()}
    c.eq("merge: edges equal Stats.add", got_e, want_e)
    _, out, _ = run("report", "pstats", "--sort", "tottime", "--limit", "20", db=db)
    import io
    s = io.StringIO()
    st.stream = s
    st.sort_stats("tottime").print_stats(20)
    # profdb prints one file line per dump like pstats; compare after them.
    c.eq("merge: printed report equals pstats after the file lines",
         out.split("\n")[2:], s.getvalue().split("\n")[2:])


def main():
    corpus = need_corpus("pstats")
    c = Checker()
    dumps = sorted(glob.glob(os.path.join(corpus, "*.prof")))
    c.true("corpus has pstats dumps", len(dumps) >= 1)
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for path in dumps:
            base = path[:-len(".prof")]
            name = os.path.basename(base)
            with open(base + ".oracle.json") as f:
                oracle = json.load(f)
            # As given: the format is sniffed from the bytes.
            _, _, err = run("ingest", "--run", name, path, db=db)
            c.true(f"{name}: ingest says pstats", "pstats into run" in err, err)
            check_functions(c, name, db, name, oracle)
            check_edges(c, name, db, name, oracle)
            check_totals(c, name, db, name, oracle)
            check_orders(c, name, db, name, oracle)
            check_text(c, name, db, name, base, oracle)
            check_pictures(c, name, db, name, oracle)
            # gzip is transparent: the same functions come out.
            gz = os.path.join(tmp, name + ".prof.gz")
            with open(path, "rb") as src, gzip.open(gz, "wb") as dst:
                shutil.copyfileobj(src, dst)
            run("ingest", "-q", "--run", name + "-gz", gz, db=db)
            check_functions(c, name + " (gzip)", db, name + "-gz", oracle)
        if len(dumps) >= 2:
            check_merge(c, tmp, dumps)
    c.close()


if __name__ == "__main__":
    main()
