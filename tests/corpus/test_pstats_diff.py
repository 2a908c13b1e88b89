"""`profdb diff BASE TEST pstats`, and marshal versions 0-4.

Works from the repository's sample dump: the test run is the sample with some
functions' times scaled, one function dropped and one added, written with
the standard library's marshal in every version (0 and 1 write text floats,
2 has no back-references, 3 and 4 use FLAG_REF). Each version must ingest to
the same functions; the diff must list the changes Python computes from the
two dicts, largest first, with one-side functions marked. Also dict edge
cases: a duplicate key (the last value wins, at the first key's place) and a
caller that becomes a function only in a later dump (Stats.add order)."""

import csv
import io
import marshal
import os

from common import SOURCE, Checker, run, tempdir


def check_dict_cases(c, tmp):
    import pstats
    db = os.path.join(tmp, "cases.db")
    f, g, h = ("a.py", 1, "f"), ("b.py", 2, "g"), ("~", 0, "<built-in method len>")
    # A duplicate key written by hand: {f: v1, g: ..., f: v2}.
    v1 = (1, 1, 0.5, 0.5, {})
    v2 = (3, 4, 0.25, 0.75, {g: (4, 3, 0.25, 0.75)})
    vg = (1, 1, 0.125, 0.125, {})
    body = b"".join(marshal.dumps(x, 2) for x in (f, v1, g, vg, f, v2))
    p = os.path.join(tmp, "dup.prof")
    with open(p, "wb") as fh:
        fh.write(b"{" + body + b"0")
    with open(p, "rb") as fh:
        want = marshal.load(fh)
    run("ingest", "-q", "--run", "dup", p, db=db)
    _, out, _ = run("sql", "--format", "csv", "SELECT file, line, name, cc, nc, tt, ct FROM"
                    " pstats_functions WHERE in_stats AND run_id = (SELECT run_id FROM runs"
                    " WHERE name = 'dup') ORDER BY ord", db=db)
    got = [(r["file"], int(r["line"]), r["name"], int(r["cc"]), int(r["nc"]), float(r["tt"]),
            float(r["ct"])) for r in csv.DictReader(io.StringIO(out))]
    c.eq("duplicate key: like a Python dict", got, [k + v[:4] for k, v in want.items()])
    # h only calls f in dump A; h is a function of its own in dump B.
    pa, pb = os.path.join(tmp, "a.prof"), os.path.join(tmp, "b.prof")
    with open(pa, "wb") as fh:
        marshal.dump({f: (2, 2, 0.5, 1.0, {h: (2, 2, 0.5, 1.0)})}, fh)
    with open(pb, "wb") as fh:
        marshal.dump({g: (1, 1, 0.5, 0.5, {}), h: (1, 1, 0.25, 1.25, {}),
                      f: (1, 1, 0.125, 0.25, {h: (1, 1, 0.125, 0.25)})}, fh)
    run("ingest", "-q", "--run", "ab", pa, pb, db=db)
    st = pstats.Stats(pa)
    st.add(pb)
    s = io.StringIO()
    st.stream = s
    st.print_stats()
    _, out, _ = run("report", "--run", "ab", "pstats", db=db)
    c.eq("caller-only function joined by a later dump: report like Stats.add",
         out.split("\n")[2:], s.getvalue().split("\n")[2:])
    s = io.StringIO()
    st.stream = s
    st.sort_stats("name").print_callers()
    _, out, _ = run("report", "--run", "ab", "callers", "--sort", "name", db=db)
    c.eq("merged callers like Stats.add", out, s.getvalue())


def std(k):
    f, line, name = k
    if f == "~" and line == 0:
        return "{%s}" % name[1:-1] if name.startswith("<") and name.endswith(">") else name
    return "%s:%d(%s)" % k


def main():
    c = Checker()
    sample = os.path.join(SOURCE, "samples", "pstats", "sample.prof")
    with open(sample, "rb") as f:
        base = marshal.load(f)
    keys = list(base)
    test = {}
    for i, k in enumerate(keys):
        cc, nc, tt, ct, callers = base[k]
        if i == 3:
            continue  # dropped
        if i % 2 == 0:
            tt, ct = tt * 3 + 0.001 * i, ct * 2 + 0.002 * i
        test[k] = (cc, nc, tt, ct, callers)
    test[("new.py", 7, "added")] = (2, 2, 0.25, 0.5, {})
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        run("ingest", "-q", "--run", "base", sample, db=db)
        for version in range(5):
            p = os.path.join(tmp, f"test_v{version}.prof")
            with open(p, "wb") as f:
                marshal.dump(test, f, version)
            run("ingest", "-q", "--run", f"v{version}", p, db=db)
            _, out, _ = run("sql", "--format", "csv",
                            "SELECT f.file, f.line, f.name, f.cc, f.nc, f.tt, f.ct FROM"
                            " pstats_functions f JOIN runs r USING (run_id) WHERE"
                            f" r.name = 'v{version}' AND in_stats ORDER BY ord", db=db)
            got = [(r["file"], int(r["line"]), r["name"], int(r["cc"]), int(r["nc"]),
                    float(r["tt"]), float(r["ct"])) for r in csv.DictReader(io.StringIO(out))]
            want = [k + v[:4] for k, v in test.items()]
            c.eq(f"marshal version {version}: functions", got, want)

        _, out, _ = run("diff", "base", "v4", "pstats", "--format", "csv", db=db)
        rows = list(csv.DictReader(io.StringIO(out)))
        every = set(base) | set(test)

        def change(k, i):
            return (test[k][i] if k in test else 0) - (base[k][i] if k in base else 0)

        want = sorted(every, key=lambda k: (-max(abs(change(k, 2)), abs(change(k, 3))), std(k)))
        c.eq("diff: one row per function of either run", len(rows), len(every))
        c.eq("diff: ordered by largest tottime/cumtime change",
             [r["function"] for r in rows], [std(k) for k in want])
        by_name = {r["function"]: r for r in rows}
        bad = []
        for k in every:
            r = by_name.get(std(k), {})
            only = "" if k in base and k in test else ("base" if k in base else "test")
            tt_pct = (100.0 * change(k, 2) / base[k][2]) if k in base and base[k][2] > 0 else None
            if (r.get("only_in") != only or abs(float(r["tottime_change"]) - change(k, 2)) > 1e-12
                    or abs(float(r["cumtime_change"]) - change(k, 3)) > 1e-12
                    or (tt_pct is None) != (r["tottime_change_pct"] == "")
                    or (tt_pct is not None and abs(float(r["tottime_change_pct"]) - tt_pct) > 0.0051)):
                bad.append((std(k), r))
        # (the renderer prints *_pct columns with two decimals)
        c.true("diff: changes, percentages and only_in marks", not bad, bad[:2])
        _, out, _ = run("diff", "base", "v4", "--top", "3", "--sort", "cumtime", "--format",
                        "json", db=db)
        c.true("diff: --top 3 --sort cumtime", out.count('"function"') == 3 and
               std(max(every, key=lambda k: (abs(change(k, 3)), ))) in out, out)
        check_dict_cases(c, tmp)
        rc, _, err = run("diff", "base", "nope", db=db, check=False)
        c.true("diff: unknown run refused", rc == 2 and "no run named 'nope'" in err, err)
    c.close()


if __name__ == "__main__":
    main()
