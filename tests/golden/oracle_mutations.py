"""Shows that test_golden_oracles can fail: for each case it covers, changes
each digit of the expected file (one at a time, in a copy) and counts the
changes the oracle catches. Run from a build folder:
  PROFDB=$PWD/profdb PROFDB_GENTRACE=$PWD/profdb-gentrace python3 ../tests/golden/oracle_mutations.py"""
import os, re, sys, shutil, tempfile, random, io, contextlib
os.environ.setdefault("PROFDB_SOURCE", "/work/main")
sys.path.insert(0, "/work/main/tests/corpus")
import test_golden_oracles as t
from common import Checker
CASES = {"trace_launch_ties": t.check_trace_launch_ties, "trace_stream_values": t.check_trace_stream_values,
 "trace_long_keys": t.check_trace_long_keys, "trace_time_range": t.check_trace_time_range,
 "trace_phases": t.check_trace_phases, "steplog_unit_stems": t.check_steplog_unit_stems,
 "steplog_rules": t.check_steplog_rules, "steplog_transfer_names": t.check_steplog_transfer_names,
 "steplog_megatron_new": t.check_steplog_megatron_new, "steplog_titan": t.check_steplog_titan,
 "steplog_insights": t.check_steplog_insights, "steplog_golden_nan": t.check_steplog_golden_nan,
 "steplog_units": t.check_steplog_units, "steplog_gpu_join": t.check_steplog_gpu_join,
 "steplog_variants": t.check_steplog_variants, "steplog_mae_wandb": t.check_steplog_mae_wandb,
 "trend_basic": t.check_trend_basic,
 "pstats_limit_values": lambda c: t.check_pstats_limit_values(c, None),
 "ingest_stdin": lambda c: t.check_ingest_stdin(c, TMP)}
TMP = tempfile.mkdtemp()
src = "/work/main/tests/golden"
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
def run(case):
    c = Checker()
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            CASES[case](c)
        except Exception:
            return 1
    return c.failed
for case in CASES:
    dst = os.path.join(TMP, "g")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    t.GOLDEN = dst
    assert run(case) == 0, case
    exp = os.path.join(dst, case, "expected")
    orig = open(exp).read()
    # every digit of stdout lines (not stderr), one at a time: +1 mod 10
    spots = [m.start() for m in re.finditer(r"\d", orig)
             if not orig[orig.rfind("\n", 0, m.start()) + 1:].startswith(("stderr:", "exit:"))]
    caught = 0
    for i in spots:
        open(exp, "w").write(orig[:i] + str((int(orig[i]) + 1) % 10) + orig[i + 1:])
        caught += run(case) > 0
    open(exp, "w").write(orig)
    print(f"{case}: {caught} of {len(spots)} single-digit changes fail")
