"""py-spy reports against the corpus oracles (../shared/corpus/pyspy).

Every corpus file is ingested (one run each) and `profdb report pyspy
--format csv` is compared with its NAME.oracle.json: the full tables by frame
(name, file, line) and by function (name, file), the top 20 by self and by
total both ways, shares and seconds, and per root (`--by-thread`: process
chain or speedscope profile) the samples and top 5 by self. pyspy-leaves
against the oracle's `itwinai_view` where itwinai can read the file; where it
cannot, profdb still answers (it reads Windows paths, line-less and native
frames, multi-line records): with --keep-module --aggregate-leaf-paths the
leaves are the self column of the oracle's by-frame table (frozen importlib
paths as itwinai shows them), and with itwinai's defaults the rows add up to
100%. `folded` is ingested again and must give the same tables.
pyspy-callers: the self row is the oracle's self by function, and every
stack with the function has a caller. A format whose reader is not in this
profdb (`ingest --format NAME` says it is unknown) is noted and left out."""

import csv
import glob
import io
import json
import os

from common import Checker, checked_subset, need_corpus, run, tempdir


def rows(db, run_name, *args):
    _, out, _ = run("report", "--run", run_name, "--format", "csv", *args, db=db)
    return list(csv.DictReader(io.StringIO(out)))


def oline(v):
    """The oracle's line as profdb prints it: none when printed without one
    (profdb stores line 0 as 'no line': a speedscope frame with line 0 too)."""
    return None if v in (None, 0) else int(v)


def pline(v):
    return int(v) if v not in ("", None) else None


def printed(name, file, line):
    if line is not None:
        return f"{name} ({file}:{line})"
    return f"{name} ({file})" if file else name


def counts(o):
    """(self, total) key names of the oracle rows: SVG values are 'visible'."""
    return ("self_visible", "total_visible") if o["format"] == "flamegraph_svg" else ("self", "total")


def table(o, which, keying):
    s, t = counts(o)
    out = {}
    for r in o[which]:
        line = oline(r.get("line")) if keying == "frame" else None
        out[(r["name"], r["file"], line)] = (r[s], r[t])
    return out


def got_table(rs):
    return {(r["name"], r["file"], pline(r["line"])): (int(r["self_samples"]), int(r["total_samples"]))
            for r in rs}


def check_top(c, name, o, got, which, keying, sort):
    """Top 20: the same counts in the same order; the same rows, apart from
    which of the rows tied at the cut are shown (ties go by printed key,
    and the oracle prints a speedscope line 0 as ':0')."""
    s, t = counts(o)
    col = s if sort == "self" else t
    want = [(r["name"], r["file"], oline(r.get("line")) if keying == "frame" else None, r[s], r[t])
            for r in o[which]]
    have = [(r["name"], r["file"], pline(r["line"]), int(r["self_samples"]), int(r["total_samples"]))
            for r in got]
    idx = 3 if col == s else 4
    c.eq(f"{name}: top 20 {sort} by {keying}: counts in order",
         [w[idx] for w in have], [w[idx] for w in want])
    cut = want[-1][idx] if want else None
    c.eq(f"{name}: top 20 {sort} by {keying}: rows above the cut",
         sorted(h for h in have if h[idx] != cut), sorted(w for w in want if w[idx] != cut))


def check_function_tables(c, name, db, o):
    total = o["total_samples"]
    for keying, which in (("frame", "functions_by_frame"), ("function", "functions_by_function")):
        rs = rows(db, name, "pyspy", "--by", keying)
        c.eq(f"{name}: every row by {keying} (self, total)", got_table(rs), table(o, which, keying))
        bad = [r for r in rs if abs(float(r["total_pct"]) - 100.0 * int(r["total_samples"]) / total) > 0.005001
               or abs(float(r["self_pct"]) - 100.0 * int(r["self_samples"]) / total) > 0.005001]
        c.true(f"{name}: shares by {keying} are of {total} samples", not bad, f"{bad[:1]}")
        if o["format"] == "speedscope":
            w = {(r["name"], r["file"], oline(r.get("line")) if keying == "frame" else None):
                 (r["self_weight"], r["total_weight"]) for r in o[which]}
            bad = [r for r in rs if abs(float(r["self_s"]) - w[(r["name"], r["file"], pline(r["line"]))][0]) > 1e-6
                   or abs(float(r["total_s"]) - w[(r["name"], r["file"], pline(r["line"]))][1]) > 1e-6]
            c.true(f"{name}: seconds by {keying} = the oracle's weights", not bad, f"{bad[:1]}")
        elif o["format"] == "raw":
            c.true(f"{name}: no seconds without a rate", all(r["self_s"] == "" for r in rs))
        for sort in ("self", "total"):
            got = rows(db, name, "pyspy", "--by", keying, "--sort", sort, "--top", "20")
            check_top(c, name, o, got, f"top20_{sort}_by_{keying}", keying, sort)


def check_roots(c, name, db, o):
    if o["format"] == "flamegraph_svg":
        return  # one root, 'all': the whole-run table is the root's
    got = {}
    for r in rows(db, name, "pyspy", "--by-thread", "--sort", "self", "--top", "5"):
        entry = got.setdefault(r["root"], [int(r["root_samples"]), []])
        if int(r["self_samples"]) > 0:  # the oracle lists leaves only
            entry[1].append((printed(r["name"], r["file"], pline(r["line"])), int(r["self_samples"])))
    want = {}
    for x in o["roots"]:
        keys = []
        for y in x["top5_self_by_frame"]:
            keys.append((y["key"][:-3] + ")" if y["key"].endswith(":0)") else y["key"], y["self"]))
        want[x["root"]] = [x["samples"], keys]
    c.eq(f"{name}: roots (process chain / profile): samples and top 5 by self", got, want)


def check_itwinai(c, name, db, o):
    view = o.get("itwinai_view")
    if view is None:
        return
    if not view["would_fail"]:
        def norm(rs, prop):
            return [(r["name"], r["path"], str(r["line"]), r["library_function_name"],
                     r["library_function_path"], str(r["library_function_line"]), int(r["samples"]),
                     "%.2f%% (%d)" % (float(r[prop]), int(r["samples"])) if prop == "proportion_pct"
                     else r[prop]) for r in rs]
        for args, key, top in (((), "top10_default", "10"),
                               (("--aggregate-leaf-paths",), "top20_aggregate_leaf_paths", "20")):
            got = norm(rows(db, name, "pyspy-leaves", "--top", top, *args), "proportion_pct")
            want = norm(view[key], "proportion (n)")
            c.eq(f"{name}: itwinai {key}: samples in order", [g[6] for g in got], [w[6] for w in want])
            cut = want[-1][6] if want else None
            c.eq(f"{name}: itwinai {key}: rows (ties at the cut aside)",
                 sorted(g for g in got if g[6] != cut), sorted(w for w in want if w[6] != cut))
        allrows = rows(db, name, "pyspy-leaves")
        c.eq(f"{name}: itwinai stacks kept", len(allrows), view["stacks_kept"])
        c.eq(f"{name}: itwinai total", sum(int(r["samples"]) for r in allrows), view["total_leaf_samples"])
        return
    # itwinai cannot read it: profdb's answer, checked against the oracle.
    got = {}
    for r in rows(db, name, "pyspy-leaves", "--keep-module", "--aggregate-leaf-paths"):
        k = (r["name"], r["path"], pline(r["line"]))
        got[k] = got.get(k, 0) + int(r["samples"])
    want = {}
    for r in o["functions_by_frame"]:
        if not r["self"]:
            continue
        path, line = r["file"], oline(r["line"])
        if "frozen importlib" in path:
            path, line = "built-in", -1
        want[(r["name"], path, line)] = want.get((r["name"], path, line), 0) + r["self"]
    c.eq(f"{name}: itwinai cannot read it ({view['reason'][:50]}...); profdb's leaves with "
         "--keep-module are the oracle's self by frame", got, want)
    dflt = rows(db, name, "pyspy-leaves")
    share = sum(float(r["proportion_pct"]) for r in dflt)
    c.true(f"{name}: itwinai's defaults: proportions add up to 100%", abs(share - 100) < 0.01 * len(dflt) + 0.01,
           f"{share}")
    c.true(f"{name}: no <module> leaf with itwinai's defaults",
           all("<module>" not in r["name"] for r in dflt))


def check_callers(c, name, db, o):
    top = next((r for r in o["functions_by_function"] if r[counts(o)[0]] > 0), None)
    if not top:
        return
    fn = printed(top["name"], top["file"], None)
    rs = rows(db, name, "pyspy-callers", "--function", fn)
    s, t = counts(o)
    c.true(f"{name}: callers of {top['name']}: the function's samples", rs and
           all(int(r["function_samples"]) == top[t] for r in rs), f"{rs[:1]}")
    self_rows = [int(r["samples"]) for r in rs if r["relation"] == "self"]
    c.eq(f"{name}: callers of {top['name']}: self row", self_rows, [top[s]])
    callers = sum(int(r["samples"]) for r in rs if r["relation"] == "caller")
    c.true(f"{name}: callers of {top['name']}: every stack has a caller", callers >= top[t],
           f"{callers} < {top[t]}")


def check_folded(c, name, db, o, tmp):
    _, out, _ = run("report", "--run", name, "folded", db=db)
    path = os.path.join(tmp, name + ".folded")
    with open(path, "w") as f:
        f.write(out)
    again = name + "-folded"
    run("ingest", "--run", again, "--format", "pyspy-raw", path, db=db)
    # by frame: the function table sums it (and costs another pass)
    a = got_table(rows(db, name, "pyspy"))
    b = got_table(rows(db, again, "pyspy"))
    c.eq(f"{name}: folded, ingested again: the same table by frame", b, a)


def format_then_name(oracle_path):
    """Files grouped by format, so that a checked build's every third file
    (checked_subset) still reads raw, speedscope and SVG files."""
    name = os.path.basename(oracle_path)
    kind = 2 if ".svg." in name else 1 if ".speedscope." in name else 0
    return (kind, name)


def main():
    corpus = need_corpus("pyspy")
    c = Checker()
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        for oracle_path in checked_subset(sorted(glob.glob(os.path.join(corpus, "*.oracle.json")),
                                                 key=format_then_name), 3, "py-spy files"):
            with open(oracle_path) as f:
                o = json.load(f)
            name = o["file"]
            rc, _, err = run("ingest", "--run", name, os.path.join(corpus, name), db=db,
                             check=False)
            c.eq(f"{name}: ingest exit ({err.strip()[:200]})", rc, 0)
            if rc:
                continue
            check_function_tables(c, name, db, o)
            check_roots(c, name, db, o)
            check_itwinai(c, name, db, o)
            check_callers(c, name, db, o)
            check_folded(c, name, db, o, tmp)
    c.close()


if __name__ == "__main__":
    main()
