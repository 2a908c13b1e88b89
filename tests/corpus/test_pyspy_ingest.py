"""py-spy readers (ingest/pyspy/): every corpus file's oracle answers
(../shared/corpus/pyspy/NAME.oracle.json) reproduced by SQL written here over
the stored tables (pyspy_profiles, pyspy_frames, pyspy_nodes, pyspy_samples),
independent of the reports: total samples, distinct stacks, the full
by_frame and by_function self/total tables, the roots (process/thread chains,
speedscope profiles); sniffing by content, not by name; malformed inputs
refused with one line naming the file and line/byte, the database unchanged;
a run holding a trace, a pstats dump, a step log and a py-spy profile;
`ingest --jobs 2` and `merge` equal to one ingest; hostile files (a long
record, many distinct frames, a deep stack) in bounded memory.
Checked builds (ASan, valgrind) make the hostile files smaller and run
--jobs 2 and merge on every fourth file (scaled(), checked_subset())."""

import os
import shutil
import sqlite3
import subprocess

from common import (CHECKED, CORPUS, PROFDB, SOURCE, Checker, checked_subset, need_corpus, run,
                    scaled, tempdir)

SPEEDSCOPE = ["cs336_bpe_threads.speedscope.json", "jax_gp_voronoi.speedscope.json",
              "deepdrr_pyspy0314.speedscope.json"]
SVG = ["tf_cnn_pretrain_function.svg", "sim_experiment_rate1000.svg"]
RAW = ["iferadata_torch_run1.pyspy", "btc_trading_windows.pyspy", "perfanno_native_idle.txt",
       "jupyter_ipykernel.pyspy", "spaces_in_path_script.pyspy"]

PSEUDO = "('process', 'thread')"

# Every sample row's stack, leaf to root: (profile, stack node, node, frame).
STACKS = """
WITH RECURSIVE up(profile_id, stack, node, frame, samples, depth) AS (
  SELECT s.profile_id, s.node_id, n.parent_id, n.frame_id, s.samples, n.depth
    FROM pyspy_samples s JOIN pyspy_nodes n ON n.node_id = s.node_id
   WHERE s.run_id = :run
  UNION ALL
  SELECT up.profile_id, up.stack, n.parent_id, n.frame_id, up.samples, n.depth
    FROM up JOIN pyspy_nodes n ON n.node_id = up.node
)"""


def frame_key(name, file, line):
    if line:
        return f"{name} ({file}:{line})"
    return f"{name} ({file})" if file else name


def tables(db, run):
    """by_frame and by_function {key: (self, total)} of run, by SQL."""
    con = sqlite3.connect(db)
    args = {"run": run}
    self_f = con.execute(f"""
        SELECT f.name, f.file, f.line, sum(s.samples) FROM pyspy_samples s
          JOIN pyspy_nodes n ON n.node_id = s.node_id
          JOIN pyspy_frames f ON f.frame_id = n.frame_id
         WHERE s.run_id = :run AND f.kind NOT IN {PSEUDO}
         GROUP BY f.frame_id""", args).fetchall()
    # total: once per sample row whatever the recursion (DISTINCT frame per stack)
    total_f = con.execute(STACKS + f"""
        SELECT f.name, f.file, f.line, sum(samples) FROM
          (SELECT DISTINCT profile_id, stack, frame, samples FROM up) u
          JOIN pyspy_frames f ON f.frame_id = u.frame
         WHERE f.kind NOT IN {PSEUDO} GROUP BY f.frame_id""", args).fetchall()
    self_fn = con.execute(f"""
        SELECT f.name, f.file, sum(s.samples) FROM pyspy_samples s
          JOIN pyspy_nodes n ON n.node_id = s.node_id
          JOIN pyspy_frames f ON f.frame_id = n.frame_id
         WHERE s.run_id = :run AND f.kind NOT IN {PSEUDO}
         GROUP BY f.name, f.file""", args).fetchall()
    total_fn = con.execute(STACKS + f"""
        SELECT name, file, sum(samples) FROM
          (SELECT DISTINCT u.profile_id, u.stack, f.name, f.file, u.samples FROM up u
             JOIN pyspy_frames f ON f.frame_id = u.frame WHERE f.kind NOT IN {PSEUDO})
         GROUP BY name, file""", args).fetchall()
    con.close()
    by_frame, by_func = {}, {}
    for n, f, ln, v in total_f:
        by_frame[frame_key(n, f, ln)] = [0, v]
    for n, f, ln, v in self_f:
        by_frame.setdefault(frame_key(n, f, ln), [0, 0])[0] = v
    for n, f, v in total_fn:
        by_func[frame_key(n, f, 0)] = [0, v]
    for n, f, v in self_fn:
        by_func.setdefault(frame_key(n, f, 0), [0, 0])[0] = v
    return ({k: tuple(v) for k, v in by_frame.items()}, {k: tuple(v) for k, v in by_func.items()})


def roots(db, run):
    """{root: (samples, distinct stacks)}: the leading pseudo-frame chain of
    each stack (raw, SVG), prefixed by the profile's name (speedscope)."""
    con = sqlite3.connect(db)
    rows = con.execute(STACKS + f""",
        chain AS (SELECT u.profile_id, u.stack, u.samples,
          group_concat(CASE WHEN f.kind IN {PSEUDO} THEN f.name END, ';') AS c
          FROM (SELECT * FROM up ORDER BY profile_id, stack, depth) u
          JOIN pyspy_frames f ON f.frame_id = u.frame GROUP BY u.profile_id, u.stack)
        SELECT p.name, c.c, sum(c.samples), count(*) FROM chain c
          JOIN pyspy_profiles p USING (profile_id) GROUP BY p.name, c.c""",
                       {"run": run}).fetchall()
    con.close()
    out = {}
    for pname, chain, samples, stacks in rows:
        key = ";".join(x for x in (pname, chain) if x) or "(no process/thread frame)"
        out[key] = (samples, stacks)
    return out


def one(db, query, *args):
    con = sqlite3.connect(db)
    row = con.execute(query, args).fetchone()
    con.close()
    return row[0] if row and len(row) == 1 else row


def run_of(db, name):
    return one(db, "SELECT run_id FROM runs WHERE name = ?", name)


def oracle_of(path):
    import json
    with open(path + ".oracle.json") as f:
        return json.load(f)


def check_tables(c, db, run, name, o, visible=False):
    by_frame, by_func = tables(db, run)
    s, t = ("self_visible", "total_visible") if visible else ("self", "total")
    # keys made again from the fields: a speedscope frame's line 0 is stored
    # as a frame without line (py-spy prints such a frame "name (file)" in
    # raw files), which the oracle keys "name (file:0)"
    def key(r):
        return frame_key(r["name"], r["file"], r.get("line"))
    want_f = {key(r): (r[s], r[t]) for r in o["functions_by_frame"]}
    want_fn = {key(r): (r[s], r[t]) for r in o["functions_by_function"]}
    c.eq(f"{name}: frames", len(by_frame), len(want_f))
    c.eq(f"{name}: functions", len(by_func), len(want_fn))
    bad = [(k, by_frame.get(k), v) for k, v in want_f.items() if by_frame.get(k) != v]
    c.true(f"{name}: by_frame self/total equal the oracle's", not bad, bad[:3])
    bad = [(k, by_func.get(k), v) for k, v in want_fn.items() if by_func.get(k) != v]
    c.true(f"{name}: by_function self/total equal the oracle's", not bad, bad[:3])
    for top, rows in (("top20_self_by_frame", by_frame), ("top20_total_by_frame", by_frame),
                      ("top20_self_by_function", by_func),
                      ("top20_total_by_function", by_func)):
        i = 0 if "self" in top else 1
        got = sorted(rows.items(), key=lambda kv: (-kv[1][i], kv[0]))[:20]
        c.eq(f"{name}: {top}", [k for k, _ in got], [key(r) for r in o[top]])


def check_raw(c, tmp):
    for name in RAW:
        path = need_corpus("pyspy", name)
        o = oracle_of(path)
        db = os.path.join(tmp, "raw.db")
        run("ingest", "-q", "--run", name, path, db=db)
        r = run_of(db, name)
        c.eq(f"{name}: format", one(db, "SELECT format FROM pyspy_profiles WHERE run_id = ?", r),
             "pyspy-raw")
        c.eq(f"{name}: records", one(db, "SELECT records FROM sources WHERE run_id = ?", r),
             o["records"])
        c.eq(f"{name}: total samples",
             one(db, "SELECT samples FROM pyspy_profiles WHERE run_id = ?", r), o["total_samples"])
        c.eq(f"{name}: samples stored",
             one(db, "SELECT sum(samples) FROM pyspy_samples WHERE run_id = ?", r),
             o["total_samples"])
        c.eq(f"{name}: distinct stacks",
             one(db, "SELECT count(*) FROM pyspy_samples WHERE run_id = ?", r),
             o["distinct_stacks"])
        c.eq(f"{name}: samples without python frames", one(db, f"""
            SELECT coalesce(sum(s.samples), 0) FROM pyspy_samples s
              JOIN pyspy_nodes n USING (node_id) JOIN pyspy_frames f USING (frame_id)
             WHERE s.run_id = ? AND f.kind IN {PSEUDO}""", r), o["samples_without_python_frames"])
        check_tables(c, db, r, name, o)
        got = roots(db, r)
        want = {x["root"]: (x["samples"], x["distinct_stacks"]) for x in o["roots"]}
        c.true(f"{name}: roots (process chains) equal the oracle's", got == want,
               sorted(set(got.items()) ^ set(want.items()))[:3])
        c.eq(f"{name}: frames without line", one(db, f"""
            SELECT count(*) FROM pyspy_frames WHERE run_id = ? AND line = 0
               AND kind NOT IN {PSEUDO}""", r), o["frames_without_line"])
        os.remove(db)


def check_speedscope(c, tmp):
    for name in SPEEDSCOPE:
        path = need_corpus("pyspy", name)
        o = oracle_of(path)
        db = os.path.join(tmp, "ss.db")
        run("ingest", "-q", "--run", name, path, db=db)
        r = run_of(db, name)
        c.eq(f"{name}: total samples", one(db, """SELECT sum(samples) FROM pyspy_profiles
            WHERE run_id = ? AND format = 'speedscope'""", r), o["total_samples"])
        con = sqlite3.connect(db)
        # a sample with an empty stack (py-spy writes [] for a thread seen
        # idle) has no node: it counts in its profile's samples only, and the
        # oracle counts the empty stack as one distinct stack
        got = sorted(con.execute("""
            SELECT p.name, p.samples, p.rate_hz, count(s.node_id)
                   + (p.samples > coalesce(sum(s.samples), 0)),
                   p.samples - coalesce(sum(s.samples), 0)
              FROM pyspy_profiles p LEFT JOIN pyspy_samples s USING (profile_id)
             WHERE p.run_id = ? GROUP BY p.profile_id""", (r,)).fetchall())
        con.close()
        want = sorted((p["name"], p["samples"], p["rate_hz"], p["distinct_stacks"])
                      for p in o["profiles"])
        c.eq(f"{name}: profiles (name, samples, rate, distinct stacks)",
             [g[:4] for g in got], want)
        c.eq(f"{name}: samples without frames", sum(g[4] for g in got),
             o["samples_without_python_frames"])
        c.eq(f"{name}: distinct frames", one(db, "SELECT count(*) FROM pyspy_frames WHERE "
                                                 "run_id = ?", r), o["distinct_frames"])
        check_tables(c, db, r, name, o)
        os.remove(db)


def check_svg(c, tmp):
    for name in SVG:
        path = need_corpus("pyspy", name)
        o = oracle_of(path)
        db = os.path.join(tmp, "svg.db")
        run("ingest", "-q", "--run", name, path, db=db)
        r = run_of(db, name)
        fmt, samples, exact, options, rate = one(db, """SELECT format, samples, exact, options,
            rate_hz FROM pyspy_profiles WHERE run_id = ?""", r)
        c.eq(f"{name}: profile", (fmt, samples, exact, options),
             ("pyspy-svg", o["total_samples"], 0, o["title"]))
        want_rate = float(o["title"].split("--rate ")[1].split()[0])
        c.eq(f"{name}: rate from the title's --rate", rate, want_rate)
        c.eq(f"{name}: boxes read", one(db, "SELECT records FROM sources WHERE run_id = ?", r),
             o["rects"])
        # samples that end in inferno's "all" box (no frame drawn below it)
        # have no node: the oracle counts that box as a visible stack
        stored, stacks = one(db, """SELECT sum(samples), count(*) FROM pyspy_samples
            WHERE run_id = ?""", r)
        in_all = o["visible_samples_at_depth0"] - stored
        c.true(f"{name}: stored samples within the visible ones", 0 <= in_all < 20, in_all)
        c.eq(f"{name}: visible stacks", stacks + (in_all > 0), o["distinct_stacks_visible"])
        check_tables(c, db, r, name, o, visible=True)
        os.remove(db)


def check_svg_pieces(c, tmp):
    """inferno splits frames on ';': a process frame whose command line holds
    ';' is drawn as pieces, joined again into one process frame; entities
    decoded; a flame graph (root at the bottom) reads like an icicle graph."""
    def g(title, n, x, y):
        return (f'<g><title>{title} ({n} samples, 1.00%)</title><rect x="0%" y="{y}" '
                f'width="1%" height="15" fg:x="{x}" fg:w="{n}"/><text x="0" y="0"></text></g>')
    for rows, what in (((0, 16, 32, 48, 64), "icicle"), ((64, 48, 32, 16, 0), "flame")):
        body = "".join([
            g("all", 10, 0, rows[0]),
            g('process 7:"python -c import a', 8, 0, rows[1]),
            g(' a.main()"', 8, 0, rows[2]),
            g("main (&lt;string&gt;:1)", 6, 0, rows[3]),
            g("f (a.py:3)", 4, 0, rows[4]),
            g("g (a.py:9)", 2, 8, rows[1])])
        doc = ('<?xml version="1.0" standalone="no"?><svg version="1.1" xmlns="http://www.w3.org'
               '/2000/svg" xmlns:fg="http://github.com/jonhoo/inferno"><!--Flame graph stack '
               'visualization <g> in a comment--><script><![CDATA[ var x = "<g>"; ]]></script>'
               '<text id="title" x="0" y="0">py-spy record -r 50 -o x.svg -- python -c '
               '&quot;import a; a.main()&quot;</text><svg id="frames" x="10" width="1180" '
               'total_samples="11">' + body + "</svg></svg>")
        path = os.path.join(tmp, f"pieces_{what}.svg")
        with open(path, "w") as f:
            f.write(doc)
        db = os.path.join(tmp, "pieces.db")
        code, _, err = run("ingest", "-q", path, db=db, check=False)
        c.true(f"svg pieces ({what}): read", code == 0, err)
        got, _ = canon(db)
        want = [("pyspy-svg", "", 50.0, 11, 0, p, n) for p, n in (
            ('process:process 7:"python -c import a; a.main()"||0', 2),
            ('process:process 7:"python -c import a; a.main()"||0\npython:main|<string>|1', 2),
            ('process:process 7:"python -c import a; a.main()"||0\npython:main|<string>|1\n'
             'python:f|a.py|3', 4),
            ("python:g|a.py|9", 2))]
        c.eq(f"svg pieces ({what}): stacks", got, {f"pieces_{what}.svg": sorted(want)})
        os.remove(db)


def check_speedscope_spec(c, tmp):
    """By the file-format spec, not py-spy's habits: shared.frames before the
    profiles, an evented profile beside sampled ones (skipped, counted), evented
    profiles alone (time-weighted), unit "none" whose weights
    are sample counts, a null line, unknown keys."""
    import json
    doc = {"exporter": "other", "shared": {"frames": [
        {"name": "main", "file": "m.py", "line": 1}, {"name": "work", "file": "m.py", "line": None},
        {"name": "work", "file": "m.py", "extra": [1, {"a": 2}]}]},
        "profiles": [
            {"type": "evented", "name": "ev", "unit": "milliseconds", "startValue": 0,
             "endValue": 2, "events": [{"type": "O", "frame": 0, "at": 0},
                                       {"type": "C", "frame": 0, "at": 2}]},
            {"type": "sampled", "name": "counts", "unit": "none", "startValue": 0,
             "endValue": 9, "samples": [[0, 1], [0, 2], [0]], "weights": [4, 3, 2]},
            {"type": "sampled", "name": "ms", "unit": "milliseconds", "startValue": 0,
             "endValue": 8, "samples": [[0, 1], [0, 1]], "weights": [4, 4]}]}
    path = os.path.join(tmp, "spec.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    db = os.path.join(tmp, "spec.db")
    code, _, err = run("ingest", path, db=db, check=False)
    c.eq("spec: exit", code, 0)
    c.true("spec: read as speedscope, evented profile skipped", "speedscope" in err
           and "1 skipped" in err, err)
    r = run_of(db, "spec")
    got = sorted(sqlite3.connect(db).execute(
        "SELECT name, samples, rate_hz FROM pyspy_profiles WHERE run_id = ?", (r,)).fetchall())
    c.eq("spec: profiles (weights as counts for unit none; 250 Hz from 4 ms)", got,
         [("counts", 9, None), ("ms", 2, 250.0)])
    by_frame, _ = tables(db, r)
    # work (m.py) with a null line and with none print alike: one frame
    c.eq("spec: by frame", by_frame, {"main (m.py:1)": (2, 11), "work (m.py)": (9, 9)})
    # only evented profiles: read as time-weighted samples (2 ms each, stored
    # in nanoseconds, rate 1e9 so that seconds = samples / rate)
    doc["profiles"] = [doc["profiles"][0], dict(doc["profiles"][0], name="ev2")]
    with open(path, "w") as f:
        json.dump(doc, f)
    code, _, err = run("ingest", "--run", "evented", path, db=db, check=False)
    c.eq("spec: evented only: exit", code, 0)
    r = run_of(db, "evented")
    got = sorted(sqlite3.connect(db).execute(
        "SELECT name, samples, rate_hz, weight_unit FROM pyspy_profiles WHERE run_id = ?",
        (r,)).fetchall())
    c.eq("spec: evented only: profiles (2 ms each, in ns)", got,
         [("ev", 2000000, 1e9, "nanoseconds"), ("ev2", 2000000, 1e9, "nanoseconds")])
    by_frame, _ = tables(db, r)
    c.eq("spec: evented only: by frame", by_frame, {"main (m.py:1)": (4000000, 4000000)})
    _, out, _ = run("report", "pyspy", "--run", "evented", "--format", "csv", db=db)
    c.true("spec: evented only: seconds in the report", ",0.004,0.004" in out, out)
    # one run cannot hold sample counts and evented profiles: the units differ
    raw = os.path.join(tmp, "spec.pyspy")
    with open(raw, "w") as f:
        f.write("main (m.py:1) 3\n")
    before = canon(db)
    code, _, err = run("ingest", "--run", "mixed", raw, path, db=db, check=False)
    c.eq("spec: evented into a sampled run: exit", code, 2)
    c.true("spec: evented into a sampled run: one line naming the units",
           len(err.strip().splitlines()) == 1 and "different units" in err, err)
    c.eq("spec: evented into a sampled run: database unchanged", canon(db), before)
    os.remove(db)


def check_sniffing(c, tmp):
    """The content decides: a raw file named .svg or .json reads as raw."""
    check_sniff_as(c, tmp, need_corpus("pyspy", "spaces_in_path_script.pyspy"),
                   ("x.svg", "x.json", "x.speedscope.json", "x.txt"), "pyspy-raw")
    check_sniff_as(c, tmp, need_corpus("pyspy", "deepdrr_pyspy0314.speedscope.json"),
                   ("y.svg", "y.pyspy", "y.txt"), "speedscope")
    check_sniff_as(c, tmp, need_corpus("pyspy", "tf_cnn_pretrain_function.svg"),
                   ("z.pyspy", "z.json", "z.txt"), "pyspy-svg")
    # a training log's line that ends in a number (maskrcnn-benchmark's "...
    # lr: 0.014347  max mem: 3508") is no collapsed stack: no frame before it
    log = os.path.join(SOURCE, "tests", "steplogs", "unseen",
                       "maskrcnn_benchmark_nvidia_dle_readme.log")
    check_sniff_as(c, tmp, log, ("m.log", "m.txt"), "steplog:text")


def check_sniff_as(c, tmp, src, fakes, fmt):
    for fake in fakes:
        path = os.path.join(tmp, fake)
        shutil.copy(src, path)
        db = os.path.join(tmp, "sniff.db")
        code, out, err = run("ingest", path, db=db, check=False)
        c.eq(f"sniff {fake}: exit", code, 0)
        c.true(f"sniff {fake}: read as {fmt}", f": {fmt} into" in err + out, err + out)
        os.remove(db)
        os.remove(path)


def check_refused(c, tmp, name, data, where):
    """Malformed input: one error line naming the file and where, exit 2,
    the database as it was."""
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    db = os.path.join(tmp, "bad.db")
    good = need_corpus("pyspy", "jupyter_ipykernel.pyspy")
    run("ingest", "-q", "--run", "before", good, db=db)
    before = one(db, "SELECT count(*) FROM pyspy_nodes")
    fmt = []
    if name.endswith(".raw"):
        fmt = ["--format", "pyspy-raw"]
    code, out, err = run("ingest", *fmt, path, db=db, check=False)
    lines = err.strip().splitlines()
    c.eq(f"{name}: exit", code, 2)
    c.eq(f"{name}: one error line", len(lines), 1)
    c.true(f"{name}: names the file and {where}", bool(lines) and path in lines[0]
           and where in lines[0], err)
    c.eq(f"{name}: database unchanged", (one(db, "SELECT count(*) FROM pyspy_nodes"),
                                         one(db, "SELECT count(*) FROM runs")), (before, 1))
    os.remove(db)
    os.remove(path)


def check_malformed(c, tmp):
    with open(need_corpus("pyspy", "iferadata_torch_run1.pyspy"), "rb") as f:
        data = f.read()
    cut = data.index(b'python -c \nimport torch')  # inside a multi-line process frame
    check_refused(c, tmp, "cut_in_process.raw", data[:cut + 20], "line ")
    with open(need_corpus("pyspy", "jupyter_ipykernel.pyspy"), "rb") as f:
        lines = f.read().split(b"\n")
    check_refused(c, tmp, "bad_count.raw", b"\n".join(lines[:3]) + b"\na (b.py:1);c (d.py:2) 1x\n",
                  "line 4")
    check_refused(c, tmp, "no_count.pyspy", b"a (b.py:1);c (d.py:2) 3\na (b.py:1);c (d.py:3)\n",
                  "line 2")
    check_refused(c, tmp, "huge_count.raw", b"a (b.py:1) 99999999999999999999999\n", "line 1")
    with open(need_corpus("pyspy", "cs336_bpe_threads.speedscope.json"), "rb") as f:
        ss = f.read()
    check_refused(c, tmp, "truncated.speedscope.json", ss[:len(ss) // 2], "byte ")
    check_refused(c, tmp, "bad_json.speedscope.json", ss.replace(b"]]", b"}]", 1), "byte ")
    check_refused(c, tmp, "bad_index.speedscope.json", ss.replace(b"[[6,5,4,", b"[[6,5,999,", 1),
                  "byte ")
    with open(need_corpus("pyspy", "tf_cnn_pretrain_function.svg"), "rb") as f:
        svg = f.read()
    check_refused(c, tmp, "no_total.svg", svg.replace(b' total_samples="520"', b""), "byte ")
    check_refused(c, tmp, "truncated.svg", svg[:svg.index(b"<g><title>") + 30], "byte ")
    check_refused(c, tmp, "bad_title.svg", svg.replace(b" (1 samples, 0.19%)</title>",
                                                       b" (1 samplez, 0.19%)</title>", 1), "byte ")
    check_refused(c, tmp, "orphan_box.svg", svg.replace(b'fg:x="0" fg:w="1"/>',
                                                        b'fg:x="9999" fg:w="1"/>', 1), "byte ")
    check_refused(c, tmp, "string_index.speedscope.json", ss.replace(b"[[6,5,4,", b'[["6",5,4,', 1),
                  "byte ")


def canon(db):
    """Every run's py-spy stacks, by value: {run: sorted (format, profile,
    rate, stack as root-first frames, samples)}, whatever the ids."""
    con = sqlite3.connect(db)
    rows = con.execute("""
        WITH RECURSIVE up(stack, node, depth, path) AS (
          SELECT n.node_id, n.parent_id, n.depth, f.kind || ':' || f.name || '|' || f.file
                 || '|' || f.line
            FROM pyspy_nodes n JOIN pyspy_frames f ON f.frame_id = n.frame_id
           WHERE n.node_id IN (SELECT node_id FROM pyspy_samples)
          UNION ALL
          SELECT up.stack, n.parent_id, n.depth, f.kind || ':' || f.name || '|' || f.file
                 || '|' || f.line || char(10) || up.path
            FROM up JOIN pyspy_nodes n ON n.node_id = up.node
            JOIN pyspy_frames f ON f.frame_id = n.frame_id)
        SELECT r.name, p.format, p.name, p.rate_hz, p.samples, p.exact, u.path, s.samples
          FROM up u JOIN pyspy_samples s ON s.node_id = u.stack
          JOIN pyspy_profiles p ON p.profile_id = s.profile_id
          JOIN runs r ON r.run_id = s.run_id WHERE u.node = 0""").fetchall()
    bad = con.execute("""SELECT count(*) FROM pyspy_nodes n LEFT JOIN pyspy_nodes p
        ON p.node_id = n.parent_id WHERE n.parent_id <> 0
        AND (p.node_id IS NULL OR p.run_id <> n.run_id OR p.depth <> n.depth - 1)""").fetchone()[0]
    con.close()
    out = {}
    for r in rows:
        out.setdefault(r[0], []).append(tuple("" if v is None else v for v in r[1:]))
    return {k: sorted(v) for k, v in out.items()}, bad


def check_together(c, tmp):
    """One run holds a trace, a pstats dump, a step log and a py-spy profile."""
    from common import SOURCE
    db = os.path.join(tmp, "together.db")
    trace = os.path.join(SOURCE, "samples", "traces", "train_rank0.pt.trace.json.gz")
    prof = os.path.join(SOURCE, "samples", "pstats", "sample.prof")
    log = os.path.join(SOURCE, "samples", "steplogs", "train.jsonl")
    raw = need_corpus("pyspy", "spaces_in_path_script.pyspy")
    code, _, err = run("ingest", "-q", "--run", "all", trace, prof, log, raw, db=db, check=False)
    c.eq("together: exit", code, 0)
    r = run_of(db, "all")
    c.eq("together: one run", one(db, "SELECT count(*) FROM runs"), 1)
    c.eq("together: its sources", one(db, "SELECT count(*) FROM sources WHERE run_id = ?", r), 4)
    c.true("together: trace, pstats and step log rows", all(one(db, q, r) > 0 for q in (
        "SELECT count(*) FROM traces WHERE run_id = ?",
        "SELECT count(*) FROM pstats_functions WHERE run_id = ?",
        "SELECT count(*) FROM steplog_series WHERE run_id = ?")), err)
    c.eq("together: py-spy samples", one(db, "SELECT samples FROM pyspy_profiles WHERE run_id = ?",
                                         r), oracle_of(raw)["total_samples"])
    os.remove(db)


def check_jobs_merge(c, tmp, files):
    """ingest --jobs 2 and merge give what one ingest gives."""
    one_db, jobs_db = os.path.join(tmp, "one.db"), os.path.join(tmp, "jobs.db")
    run("ingest", "-q", "--jobs", "1", *files, db=one_db)
    run("ingest", "-q", "--jobs", "2", *files, db=jobs_db)
    want, bad = canon(one_db)
    c.eq("jobs: parents well formed (one ingest)", bad, 0)
    got, bad = canon(jobs_db)
    c.eq("jobs: parents well formed (--jobs 2)", bad, 0)
    c.true("jobs: --jobs 2 stores what --jobs 1 does", got == want,
           sorted(set(got) ^ set(want)))
    parts = []
    for i, f in enumerate(files):
        parts.append(os.path.join(tmp, f"part{i}.db"))
        run("ingest", "-q", f, db=parts[-1])
    merged = os.path.join(tmp, "merged.db")
    run("merge", merged, *parts)
    got, bad = canon(merged)
    c.eq("merge: parents well formed", bad, 0)
    c.true("merge: equal to one ingest", got == want, sorted(set(got) ^ set(want)))
    # one run's py-spy profiles in two databases: refused, the target unchanged
    for i, f in enumerate(files[:2]):
        os.remove(parts[i])
        run("ingest", "-q", "--run", "job", f, db=parts[i])
    before = canon(merged)
    code, _, err = run("merge", merged, parts[0], parts[1], check=False)
    c.eq("merge: one run's py-spy profiles from two databases: exit", code, 2)
    c.true("merge: refused with one line naming the run", len(err.strip().splitlines()) == 1
           and "run 'job' has py-spy profiles" in err, err)
    c.eq("merge: target unchanged", canon(merged), before)
    for f in (one_db, jobs_db, merged, *parts):
        os.remove(f)


def measure(args):
    """Runs profdb; returns (exit code, CPU seconds, peak RSS in KiB of that
    child). CPU time, not wall time: the machine is shared."""
    p = subprocess.Popen([PROFDB] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    return (os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss)


def hostile(c, tmp):
    """Bounded memory and linear time: a long record (a recursive stack of n
    and 2n frames: peak RSS must not grow with it), a stack 10^5 frames deep,
    many distinct frames. bench/pyspy.sh runs the 100 MB record and 10^6
    distinct frames."""
    n = scaled(150000, 10000)
    res = {}
    for k in (n, 2 * n):
        path = os.path.join(tmp, f"long{k}.pyspy")
        with open(path, "w") as f:  # written in pieces: this process stays small
            for _ in range(k // 1000):
                f.write("rec (/a/r.py:5);" * 1000)
            f.write("rec (/a/r.py:5) 1\n")
        db = os.path.join(tmp, f"long{k}.db")
        code, secs, rss = measure(["--db", db, "ingest", "-q", "--no-analyze", path])
        c.eq(f"long record of {k} frames: exit", code, 0)
        res[k] = (secs, rss)
        print(f"record of {k} frames ({os.path.getsize(path) >> 10} KiB): {secs:.2f} s CPU, "
              f"peak {rss >> 10} MiB")
        c.eq(f"long record of {k} frames: depth", one(db, "SELECT max(depth) FROM pyspy_nodes"),
             k // 1000 * 1000)
        os.remove(db)
        os.remove(path)
    (t1, m1), (t2, m2) = res[n], res[2 * n]
    c.true("long record: twice the frames in less than 2.6 times the time", t2 < 2.6 * t1 + 0.2,
           (t1, t2))
    if not CHECKED:  # sanitizers' own bookkeeping grows with allocations
        c.true("long record: peak RSS does not grow with it (within 8 MiB)",
               m2 < m1 + 8 * 1024, (m1, m2))
    deep = scaled(100000, 10000)
    path = os.path.join(tmp, "deep.pyspy")
    with open(path, "w") as f:
        for i in range(deep - 1):
            f.write(f"f{i} (/a/m.py:{i});")
        f.write(f"f{deep - 1} (/a/m.py:{deep - 1}) 7\n")
    db = os.path.join(tmp, "deep.db")
    code, secs, rss = measure(["--db", db, "ingest", "-q", "--no-analyze", path])
    c.eq("deep stack: exit", code, 0)
    c.eq("deep stack: nodes, frames, depth", one(db, """SELECT count(*), count(DISTINCT frame_id),
        max(depth) FROM pyspy_nodes"""), (deep, deep, deep - 1))
    print(f"stack {deep} deep: {secs:.2f} s CPU, peak {rss >> 10} MiB")
    os.remove(db)
    many = scaled(200000, 10000)
    with open(path, "w") as f:
        for i in range(many // 4):
            f.write(f"<module> (/a/main.py:1);g{i} (/a/b{i % 97}.py:{i});h{i} (c.py:{i});"
                    f"k{i} (x.so) 3\n")
    code, secs, rss = measure(["--db", db, "ingest", "-q", "--no-analyze", path])
    c.eq("many frames: exit", code, 0)
    c.eq("many frames: distinct frames", one(db, "SELECT count(*) FROM pyspy_frames"),
         1 + 3 * (many // 4))
    print(f"{many} distinct frames: {secs:.2f} s CPU, peak {rss >> 10} MiB")
    if not CHECKED:
        c.true("many frames: peak RSS under 96 MiB", rss < 96 * 1024, rss)
    os.remove(db)


def main():
    c = Checker()
    need_corpus("pyspy")
    with tempdir() as tmp:
        # first: a child's peak RSS counts this process's pages up to its
        # exec, and the oracles read later take tens of MiB
        hostile(c, tmp)
        check_raw(c, tmp)
        check_speedscope(c, tmp)
        check_speedscope_spec(c, tmp)
        check_svg(c, tmp)
        check_svg_pieces(c, tmp)
        check_sniffing(c, tmp)
        check_malformed(c, tmp)
        check_together(c, tmp)
        # checked builds: every fourth file, one of each format (each is read
        # three times here; the readers' code, where the memory errors they
        # look for would be, runs on every file above)
        check_jobs_merge(c, tmp, checked_subset(
            [need_corpus("pyspy", n) for n in RAW[1:] + SPEEDSCOPE + SVG], 4,
            "py-spy files for --jobs and merge"))
    c.close()


if __name__ == "__main__":
    main()
