#!/bin/bash
# Builds the fuzz targets with clang (ASan + UBSan + libFuzzer) and runs each,
# seeded from samples/, fuzz/seeds/ and generated traces.
#
# usage: fuzz/run.sh [--smoke] [SECONDS | --runs N] [TARGET...]
#   --smoke   CI's short run: every target except the per-flavor step-log
#             ones (steplog_FLAVOR, read from ingest/steplog/steplog_flavors.def),
#             which only force a flavor the steplog target sniffs; only
#             those targets are built
#   SECONDS   run each target that long (default 60)
#   --runs N  run each target for N executions instead (the long runs)
#   TARGET    sniff, trace, pstats, steplog, steplog_FLAVOR, steplog_pattern,
#             or a pattern
#             such as 'steplog*' (quoted; default: every target)
# Environment: FUZZ_JOBS targets at once (default: the number of cores),
# FUZZ_BUILD the build folder (default build-fuzz).
#
# First every file in fuzz/regressions/ (inputs that once crashed) runs
# through every target. A crash is written to fuzz/crashes/ and makes the
# script exit 1; keep it as a regression input (see fuzz/README.md).
# Each target's executions and peak RSS are printed and appended to
# $FUZZ_BUILD/summary.txt.
set -eu
smoke=0
if [ "${1:-}" = "--smoke" ]; then
    smoke=1; shift
fi
limit=(-max_total_time=60)
what="60 s"
if [ "${1:-}" = "--runs" ]; then
    limit=(-runs="$2"); what="$2 runs"; shift 2
elif [ $# -gt 0 ]; then
    limit=(-max_total_time="$1"); what="$1 s"; shift
fi
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}

CC=clang cmake -S . -B "$build" -DPROFDB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# The fuzz targets and the trace generator for the seeds, not the rest of
# the tree (profdb and the unit tests are built and tested elsewhere).
cmake --build "$build" -j"$jobs" --target profdb-gentrace >/dev/null
# Every target fuzz/CMakeLists.txt defines, from its build rules.
all=$(cmake --build "$build/fuzz" --target help | sed -n 's/^\.\.\. fuzz_\([a-z0-9_]*\)$/\1/p' | sort)
if [ $smoke = 1 ]; then
    flavors=$(sed -n 's/^FLAVOR([A-Z0-9_]*, "\([a-z0-9-]*\)".*/steplog_\1/p' \
        ingest/steplog/steplog_flavors.def | tr - _)
    all=$(printf '%s\n' $all | grep -vxF "$flavors")
fi

seeds=$build/seeds
mkdir -p fuzz/crashes "$seeds"
"$build/profdb-gentrace" --steps 1 "$seeds/gen_trace.json" 2>/dev/null
"$build/profdb-gentrace" --steps 1 --gzip "$seeds/gen_trace.json.gz" 2>/dev/null
head -c 4000 "$seeds/gen_trace.json" >"$seeds/gen_trace_cut.json"
cp samples/pstats/* samples/steplogs/* fuzz/seeds/* "$seeds/"

targets=""
set -f # patterns are matched against target names, not files
for want in ${*:-$all}; do
    found=$(printf '%s\n' $all | grep -x "$(printf '%s' "$want" | sed 's/\*/.*/g')" || true)
    [ -n "$found" ] || { echo "fuzz/run.sh: no target '$want' (have: $(echo $all))" >&2; exit 2; }
    targets="$targets $found"
done
set +f
cmake --build "$build/fuzz" -j"$jobs" $(printf ' --target fuzz_%s' $targets) >/dev/null

status=0
if [ -n "$(ls fuzz/regressions 2>/dev/null)" ]; then
    for t in $targets; do
        if ! "$build/fuzz/fuzz_$t" fuzz/regressions/* >"$build/regress_$t.log" 2>&1; then
            echo "fuzz_$t: a regression input crashes again, see $build/regress_$t.log"
            status=1
        fi
    done
fi

run_one() {
    local t=$1 dict=fuzz/json.dict log=$build/fuzz_$1.log
    [ "$t" = pstats ] && dict=fuzz/marshal.dict
    [ "$t" = steplog_pattern ] && dict=fuzz/pattern.dict
    mkdir -p "$build/corpus_$t"
    if "$build/fuzz/fuzz_$t" "$build/corpus_$t" "$seeds" -dict="$dict" "${limit[@]}" \
        -max_len=4096 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="fuzz/crashes/${t}_" \
        -print_final_stats=1 >"$log" 2>&1; then
        result=ok
    else
        result="FAILED (see $log and fuzz/crashes/)"
    fi
    local runs rss
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    printf '%s fuzz_%s %s: %s executions, peak RSS %s MB, %s\n' "$(date -u +%FT%TZ)" \
        "$t" "$what" "${runs:-?}" "${rss:-?}" "$result" | tee -a "$build/summary.txt"
    [ "$result" = ok ]
}

echo "fuzzing $(echo $targets | wc -w) targets, $what each, $jobs at a time"
running=0
for t in $targets; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || status=1
        running=$((running - 1))
    fi
    run_one "$t" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
done
exit $status
