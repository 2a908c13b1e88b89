"""CPU operator self and total times equal PyTorch's own key_averages().

The legacy-profiler trace in the corpus comes with the key_averages() table
PyTorch computed for the same run; every op's count, self CPU time and total
CPU time must match exactly (microseconds). key_averages() groups the
ProfilerStep#N annotations under 'ProfilerStep*'; so does this test."""

import json
import os
import re

from common import Checker, need_corpus, run, run_json, tempdir


def main():
    c = Checker()
    trace = need_corpus("torch_legacy", "mlp.trace.json")
    oracle = json.load(open(need_corpus("torch_legacy", "mlp.oracle.json")))
    with tempdir() as tmp:
        db = os.path.join(tmp, "t.db")
        run("ingest", "--quiet", trace, db=db)
        rows = run_json("report", "ops", db=db)
        got = {}
        for r in rows:
            name = re.sub(r"^ProfilerStep#\d+$", "ProfilerStep*", r["name"])
            g = got.setdefault(name, [0, 0.0, 0.0])
            g[0] += r["count"]
            g[1] += r["cpu_self_us"]
            g[2] += r["cpu_total_us"]
        want = {k["name"]: [k["count"], k["self_cpu_time_total"], k["cpu_time_total"]]
                for k in oracle["key_averages"]}
        c.eq("op names", sorted(got), sorted(want))
        for name, (count, self_us, total_us) in sorted(want.items()):
            g = got.get(name, [None, None, None])
            c.eq(f"{name} count", g[0], count)
            c.eq(f"{name} self_us", g[1], self_us)
            c.eq(f"{name} total_us", g[2], total_us)
        c.eq("self time of all ops", sum(g[1] for g in got.values()),
             oracle["self_cpu_time_total_all_ops"])
    c.close()


if __name__ == "__main__":
    main()
