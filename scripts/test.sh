#!/bin/sh
# Runs the test suite, as CI does. Installs what is missing, then runs these
# stages:
#   suite          warning-free optimised build (-O3 -g, -Werror) and
#                  every ctest test                                      build/
#   asan           the suite under AddressSanitizer + UBSan, but the
#                  slowest corpus tests that repeat what others run
#                  under it (ASAN_SMOKE_OUT: gates, trends, spills,
#                  memory bounds, ...; the rest on a spread of their
#                  inputs; test_slurm left out, see run_stage)         build-asan/
#   valgrind       memcheck smoke: the unit tests, the fuzz regression
#                  inputs and one golden case per reader and command,
#                  every profdb and unit executable under valgrind
#                  memcheck, on the suite's binaries                     build/
#   fuzz           fuzz smoke: the regression inputs through the
#                  libFuzzer targets, then each for FUZZ_SECONDS (default
#                  3), two at a time; every target but the per-flavor
#                  step-log ones (fuzz_steplog sniffs the flavors)       build-fuzz/
# and, only when named (long: 12 to 30 minutes and about 50; run them on purpose):
#   asan-full      every ctest test under ASan + UBSan (but test_slurm)  build-asan/
#   valgrind-full  every ctest test under valgrind memcheck              build-valgrind/
#   fuzz-long      every target, FUZZ_SECONDS defaulting to 300          build-fuzz/
# usage: scripts/test.sh [STAGE...]  (default: suite asan valgrind fuzz, which is CI)
# A failing stage does not stop the others; the summary lists each stage's
# result and time, and the exit status is 1 if any failed.
#
# Prerequisites are required: the tests that compare against ../shared/corpus
# (and use gnuplot) fail, not skip, when it is missing (PROFDB_REQUIRE_PREREQS,
# tests/CMakeLists.txt). In a clone without ../shared, run
#   PROFDB_REQUIRE_PREREQS=OFF sh scripts/test.sh
# to have those tests reported as Skipped, with the reason, instead.
set -u
cd "$(dirname "$0")/.."
stages=${*:-suite asan valgrind fuzz}
for s in $stages; do
    case $s in
        suite | asan | valgrind | fuzz | asan-full | valgrind-full | fuzz-long) ;;
        *) echo "scripts/test.sh: unknown stage '$s'" \
                "(suite, asan, valgrind, fuzz, asan-full, valgrind-full, fuzz-long)" >&2
           exit 2 ;;
    esac
done
require=${PROFDB_REQUIRE_PREREQS:-ON}
case $require in
    ON | 1) require=ON ;;
    OFF | 0) require=OFF ;;
    *) echo "scripts/test.sh: PROFDB_REQUIRE_PREREQS is ON or OFF, not '$require'" >&2; exit 2 ;;
esac
if [ ! -d ../shared/corpus ]; then
    if [ $require = ON ]; then
        echo "scripts/test.sh: ../shared/corpus is absent: the corpus tests (real traces and" \
             "oracle answers) cannot run. CI has it. To run without it, with those tests" \
             "reported as Skipped: PROFDB_REQUIRE_PREREQS=OFF sh scripts/test.sh" >&2
        exit 2
    fi
    echo "note: ../shared/corpus is absent, so the corpus tests report Skipped" \
         "(they compare against real traces and oracle answers; CI has the corpus)"
fi
sh scripts/deps.sh test || exit 1

# The memcheck smoke of CI: every unit executable (each new one included),
# the fuzz regression inputs, and one golden case per reader and per command
# (traces and their reports, pstats, the step-log flavors, diff, check).
# Merge (merge_jobs), charts (chart_forms) and trend (trend_basic, 85 s of
# the smoke's 121 s on an idle machine) are left to the ASan stage: they
# run the same readers and reports many times over. valgrind-full runs
# every test.
MEMCHECK_GOLDEN='trace_reports|pstats_sample|steplog_variants|steplog_megatron_new|steplog_hf'
MEMCHECK_GOLDEN="$MEMCHECK_GOLDEN|diff_out|check_steplog"
MEMCHECK_GOLDEN="$MEMCHECK_GOLDEN|ingest_errors|report_overview"
MEMCHECK_TESTS="^unit\\.|^golden\\.($MEMCHECK_GOLDEN)\$|^corpus\\.test_fuzz_regressions\$"

# The corpus tests CI's ASan stage leaves to asan-full: the slowest ones
# whose code the stage's other tests run under ASan too, on other inputs
# (gates and trends: compare/ in test_check and the golden check cases;
# spills and pipelines: test_merge, test_limits; memory bounds, which
# sanitizers cannot measure; the step-log families, whose reader runs on
# the unseen logs; charts: test_hostile_names and golden chart_forms). Each
# passed under ASan on a clean clone of d13b6aa (the full stage); 460 of the
# stage's 920 test-seconds, so that CI stays under 15 minutes. Also the
# trace tokenizer's differential test (40 s under ASan): the tokenizer
# reads every trace of the stage's other trace tests under ASan, and is
# compared with yajl in the suite and in the fuzz smoke. And test_merge
# (52 s under ASan; the merge of every shard kind, --full or not, runs under
# it in test_merge_hostile and test_merge_shards) and test_pyspy_ingest (30
# s; the py-spy readers run under it in test_pyspy_reports, every format,
# and in the fuzz smoke's three py-spy targets): a clean clone of 8d75e92
# took 14 min 51 s, 9 s under CI's limit.
ASAN_SMOKE_OUT='gate_traces|gate_steplogs|gate_honesty|pipeline|trace_critical|pyspy_diff'
ASAN_SMOKE_OUT="$ASAN_SMOKE_OUT|trend|pyspy_tree_memory|pyspy_top_memory|steplog_patterns"
ASAN_SMOKE_OUT="$ASAN_SMOKE_OUT|spill_exact_corpus|spill_exact|steplog_pipeline|report_applies"
ASAN_SMOKE_OUT="$ASAN_SMOKE_OUT|trace_eras|trace_findings|analysis_reader|pyspy_flamegraph"
ASAN_SMOKE_OUT="$ASAN_SMOKE_OUT|steplog_launcher|steplog_store|text_fidelity|terminal_fit"
ASAN_SMOKE_OUT="$ASAN_SMOKE_OUT|replace_jobs|steplog_families|report_charts|slurm|trace_parser"
ASAN_SMOKE_OUT="$ASAN_SMOKE_OUT|merge|pyspy_ingest"

# The suite's build in build/: optimised as users build it, -O3 so that
# gcc's -O3 warnings fail it too, -g for valgrind's stack traces.
suite_in_build() { # cmake options...
    ctest_in build -DPROFDB_SANITIZE=OFF "$@" -DCMAKE_BUILD_TYPE=Release \
        "-DCMAKE_C_FLAGS_RELEASE=-O3 -g"
}

ctest_in() { # build folder, cmake options...; runs the ctest tests matching $only (all if empty)
    dir=$1
    shift
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROFDB_WERROR=ON \
        -DPROFDB_REQUIRE_PREREQS=$require "$@" >/dev/null &&
        cmake --build "$dir" -j2 || return 1
    (cd "$dir" && ctest --output-on-failure -j2 --timeout 1800 ${only:+-R "$only"} \
        ${exclude:+-E "$exclude"})
    rc=$?
    if [ -n "$exclude" ]; then
        echo "  left out of this stage: $exclude (why: scripts/test.sh)"
    fi
    # ctest shows no output of a skipped test: print why each was skipped or
    # left a part out.
    awk '/^[0-9]+\/[0-9]+ Testing: / { t = $3 }
         /^SKIPPED: |^note: .*left out/ { print "  " t ": " $0 }' \
        "$dir/Testing/Temporary/LastTest.log"
    return $rc
}

run_stage() {
    echo "=== stage $1 ==="
    only=
    exclude=
    case $1 in
        suite) suite_in_build -DPROFDB_VALGRIND=OFF ;;
        # test_slurm runs ingest workers under real Slurm daemons (17 s,
        # mostly daemon start-up and job scheduling): the shard and merge
        # code it drives is the one test_merge runs under ASan, so ASan
        # skips it.
        asan) exclude="^corpus\\.test_($ASAN_SMOKE_OUT)\$"
            ctest_in build-asan -DPROFDB_SANITIZE=ON ;;
        asan-full) exclude='^corpus\.test_slurm$'
            ctest_in build-asan -DPROFDB_SANITIZE=ON ;;
        # The suite's binaries (PROFDB_VALGRIND only wraps the tests'
        # commands, so nothing is compiled again); build/ is set back to
        # plain tests afterwards.
        valgrind) only=$MEMCHECK_TESTS
            suite_in_build -DPROFDB_VALGRIND=ON
            rc=$?
            cmake -S . -B build -DPROFDB_VALGRIND=OFF >/dev/null
            return $rc ;;
        valgrind-full) ctest_in build-valgrind -DPROFDB_VALGRIND=ON ;;
        fuzz) FUZZ_BUILD=build-fuzz FUZZ_JOBS=2 bash fuzz/run.sh --smoke "${FUZZ_SECONDS:-3}" ;;
        fuzz-long) FUZZ_BUILD=build-fuzz FUZZ_JOBS=2 bash fuzz/run.sh "${FUZZ_SECONDS:-300}" ;;
    esac
}

summary=""
status=0
for s in $stages; do
    t0=$(date +%s)
    if run_stage "$s"; then result=passed; else result=FAILED; status=1; fi
    summary="$summary
  $s: $result ($(($(date +%s) - t0)) s)"
done
echo "=== summary ===$summary"
exit $status
