#!/usr/bin/env python3
"""`profdb diff BASE TEST pyspy` (compare/diff_pyspy.c) on a real program's
py-spy profile (../shared/corpus/pyspy/iferadata_torch_run1.pyspy, run 1 of
a before/after pair) against copies derived from it here:

- an identical copy: every function's change is 0 and its p is 1;
- a copy whose stacks holding one function (the busiest function below half
  of the samples) have 1.5 times their samples: every row (base and test
  total samples, self and total shares, the change in points, only_in)
  equals a recount written here from the files with the corpus oracle's own
  raw parser (oracle.py, independent of profdb's reader); that function's
  change is the largest and significant, its p equal to the two-proportion
  formula computed here;
- the same comparison with the test run in a second database (--db-test)
  gives the same rows; without a KIND, pyspy is chosen (the only kind the
  runs share); a run without py-spy samples named with pyspy is an error;
- the gate `check -m pyspy:FUNCTION=PCT` (compare/check_share.c) on these
  and on a small profile (spaces_in_path_script, 133 samples) scaled the same
  way: each verdict equals the one the rule gives with the counts recounted
  here and the two-proportion formula (regression, inconclusive and pass all
  occur), exit 1 only for a regression; `trend pyspy:FUNCTION` follows the
  recounted share from run to run."""

import csv
import io
import math
import os
import sys

from common import Checker, need_corpus, run, tempdir

FACTOR = 1.5


def read_oracle_module(folder):
    sys.path.insert(0, folder)
    import oracle  # noqa: E402  (the corpus's oracle, standard library only)
    return oracle


def records(oracle, path):
    """(functions of the stack as a set of (name, file), leaf function or
    None, count) per record."""
    out = []
    for frames, count, _ in oracle.parse_raw(open(path, encoding="utf-8").read()):
        fns, leaf = set(), None
        for text in frames:
            if oracle.is_pseudo(text):
                continue
            name, file, _ = oracle.split_frame(text)
            fns.add((name, file))
            leaf = (name, file)
        out.append((fns, leaf, count))
    return out


def derive(src, dst, oracle, fn):
    """src with the count of every record whose stack holds fn times FACTOR
    (rounded half up); the text of each record kept byte for byte."""
    text = open(src, encoding="utf-8").read()
    recs = records(oracle, src)
    out, pos, i = [], 0, 0
    while pos < len(text):
        end = text.index("\n", pos)
        line = text[pos:end]
        head, _, count = line.rpartition(" ")
        if count.isdigit() and i < len(recs) and int(count) == recs[i][2]:
            if fn in recs[i][0]:
                line = f"{head} {int(int(count) * FACTOR + 0.5)}"
            i += 1
        out.append(line + "\n")
        pos = end + 1
    assert i == len(recs), (i, len(recs))
    with open(dst, "w", encoding="utf-8") as f:
        f.write("".join(out))


def shares(recs):
    n = sum(c for _, _, c in recs)
    total, self_ = {}, {}
    for fns, leaf, c in recs:
        for k in fns:
            total[k] = total.get(k, 0) + c
        if leaf:
            self_[leaf] = self_.get(leaf, 0) + c
    return n, total, self_


def share_p(kb, nb, kt, nt):
    b1, b0, t1, t0 = kb, nb - kb, kt, nt - kt
    u = t1 * b0 + 0.5 * (t1 * b1 + t0 * b0)
    N, ones, zeros = nb + nt, b1 + t1, b0 + t0
    var = nb * nt / 12 * ((N + 1) - (ones ** 3 - ones + zeros ** 3 - zeros) / (N * (N - 1)))
    if var == 0:
        return 1.0
    return min(1.0, math.erfc((abs(u - nb * nt / 2) - 0.5) / math.sqrt(var) / math.sqrt(2)))


def diff_rows(*args):
    _, out, _ = run("diff", *args, "--format", "csv")
    return list(csv.DictReader(io.StringIO(out)))


def check_rows(c, what, rows, base, test):
    nb, tb, sb = shares(base)
    nt, tt, st = shares(test)
    keys = set(tb) | set(tt)
    c.eq(f"{what}: one row per function of either run", len(rows), len(keys))
    bad = []
    for r in rows:
        k = (r["function"], r["file"])
        want = {
            "only_in": "test" if k not in tb else "base" if k not in tt else "",
            "base_total_samples": tb.get(k, 0), "test_total_samples": tt.get(k, 0),
            "base_total_pct": round(100.0 * tb.get(k, 0) / nb, 2),
            "test_total_pct": round(100.0 * tt.get(k, 0) / nt, 2),
            "base_self_pct": round(100.0 * sb.get(k, 0) / nb, 2),
            "test_self_pct": round(100.0 * st.get(k, 0) / nt, 2),
            "total_change_pp": round(100.0 * tt.get(k, 0) / nt - 100.0 * tb.get(k, 0) / nb, 2),
        }
        got = {"only_in": r["only_in"],
               "base_total_samples": int(r["base_total_samples"]),
               "test_total_samples": int(r["test_total_samples"])}
        for col in ("base_total_pct", "test_total_pct", "base_self_pct", "test_self_pct",
                    "total_change_pp"):
            got[col] = round(float(r[col]), 2)
        if got != want:
            bad.append((k, got, want))
    c.true(f"{what}: every row equals the recount from the files", not bad, bad[:2])
    changes = [abs(float(r["total_change_pp"])) for r in rows]
    c.true(f"{what}: rows sorted by the size of the change", changes == sorted(changes,
                                                                                reverse=True))


def main():
    c = Checker()
    folder = need_corpus("pyspy")
    oracle = read_oracle_module(folder)
    src = os.path.join(folder, "iferadata_torch_run1.pyspy")
    base = records(oracle, src)
    n, total, _ = shares(base)
    fn = max((k for k in total if total[k] < n / 2), key=lambda k: (total[k], k))
    with tempdir() as tmp:
        same, slower = os.path.join(tmp, "same.pyspy"), os.path.join(tmp, "slower.pyspy")
        with open(src, encoding="utf-8") as f, open(same, "w", encoding="utf-8") as g:
            g.write(f.read())
        derive(src, slower, oracle, fn)
        test = records(oracle, slower)
        db, db2 = os.path.join(tmp, "a.db"), os.path.join(tmp, "b.db")
        run("ingest", "--quiet", "--run", "base", src, db=db)
        run("ingest", "--quiet", "--run", "same", same, db=db)
        run("ingest", "--quiet", "--run", "slower", slower, db=db)
        run("ingest", "--quiet", "--run", "slower", slower, db=db2)

        rows = diff_rows("--db", db, "base", "same", "pyspy")
        check_rows(c, "identical copy", rows, base, base)
        c.true("identical copy: every change 0 and every p 1",
               all(float(r["total_change_pp"]) == 0 and float(r["p"]) == 1 for r in rows))

        rows = diff_rows("--db", db, "base", "slower", "pyspy")
        check_rows(c, "derived copy", rows, base, test)
        top = rows[0]
        c.eq("derived copy: the scaled function changed most", (top["function"], top["file"]), fn)
        nt, tt, _ = shares(test)
        want_p = share_p(total[fn], n, tt[fn], nt)
        c.true(f"derived copy: its change is significant (p {float(top['p']):.3g})",
               float(top["p"]) < 1e-6)
        c.true("derived copy: its p is the two-proportion formula's",
               math.isclose(float(top["p"]), want_p, rel_tol=1e-9, abs_tol=1e-300),
               (top["p"], want_p))

        other = diff_rows("--db", db, "--db-test", db2, "base", "slower", "pyspy")
        c.eq("--db-test: the same rows", other, rows)
        code, out, _ = run("diff", "--db", db, "base", "slower", check=False)
        c.true("without a KIND: the pyspy comparison", code == 0 and "pyspy: base" in out,
               out[:200])
        steplog = os.path.join(os.environ["PROFDB_SOURCE"], "samples", "steplogs")
        log = os.path.join(steplog, sorted(os.listdir(steplog))[0])
        run("ingest", "--quiet", "--run", "nopy", log, db=db)
        code, _, err = run("diff", "--db", db, "base", "nopy", "pyspy", check=False)
        c.true("a run without py-spy samples: exit 2, named",
               code == 2 and "'nopy' holds no py-spy samples" in err, (code, err))
        gate_cases(c, tmp, db, oracle, folder, src, base, fn)
    c.close()


def expected_verdict(kb, nb, kt, nt, limit, alpha=0.01):
    pb, pt = kb / nb, kt / nt
    change = 100 * (pt - pb) / pb
    moved = min(nb, kb * (1 + limit / 100))
    p = share_p(moved, nb, kt, nt)
    if change > limit and p < alpha and pt > moved / nb:
        return "REGRESSION"
    return "INCONCLUSIVE" if change > limit else "PASS"


def trend_case(c, db, base, test, fn):
    """base, slower and same (nopy has no samples; the small runs come later)."""
    _, out, _ = run("trend", "--db", db, "--runs", "[bs][al]*", f"pyspy:{fn[0]} ({fn[1]})",
                    "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    n, total, _ = shares(base)
    nt, tt, _ = shares(test)
    want = {"base": 100 * total[fn] / n, "slower": 100 * tt[fn] / nt, "same": 100 * total[fn] / n}
    got = {r["run"]: float(r["median"]) for r in rows}
    c.true("trend: each run's share", got.keys() == want.keys() and
           all(math.isclose(got[k], want[k], rel_tol=1e-9) for k in want), (got, want))


def gate_cases(c, tmp, db, oracle, folder, src, base, fn):
    test = records(oracle, os.path.join(tmp, "slower.pyspy"))
    trend_case(c, db, base, test, fn)
    small = os.path.join(folder, "spaces_in_path_script.pyspy")
    sbase = records(oracle, small)
    n, total, _ = shares(sbase)
    sfn = max((k for k in total if total[k] < n / 2), key=lambda k: (total[k], k))
    sslow = os.path.join(tmp, "small_slower.pyspy")
    derive(small, sslow, oracle, sfn)
    run("ingest", "--quiet", "--run", "small", small, db=db)
    run("ingest", "--quiet", "--run", "small_slower", sslow, db=db)
    cases = [("base", "slower", base, test, fn, 5), ("base", "same", base, base, fn, 5),
             ("base", "slower", base, test, fn, 200),
             ("small", "small_slower", sbase, records(oracle, sslow), sfn, 10)]
    seen = set()
    for b, t, brecs, trecs, key, limit in cases:
        nb, tb, _ = shares(brecs)
        nt, tt, _ = shares(trecs)
        want = expected_verdict(tb[key], nb, tt[key], nt, limit)
        seen.add(want)
        spec = f"pyspy:{key[0]} ({key[1]})={limit}"
        code, out, err = run("check", "--db", db, b, t, "-m", spec, check=False)
        c.true(f"check {b} {t} {spec[:40]}...: {want}", out.startswith(want + ":") and
               code == (1 if want == "REGRESSION" else 0), (code, out[:120], err[-300:]))
        c.true(f"check {b} {t}: the reason gives the shares",
               f"share {100 * tb[key] / nb:.2f}% -> {100 * tt[key] / nt:.2f}%" in err, err[-300:])
    c.eq("the gate's three verdicts occur", sorted(seen), ["INCONCLUSIVE", "PASS", "REGRESSION"])


if __name__ == "__main__":
    main()
