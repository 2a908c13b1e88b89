#!/bin/sh
# Builds the fuzz targets with clang (ASan + UBSan + libFuzzer) and runs each
# for SECONDS (default 60), seeded from samples/ and generated inputs.
# Crashes are written to fuzz/crashes/ and make the script exit 1.
# usage: fuzz/run.sh [SECONDS] [TARGET...]      targets: sniff trace pstats steplog
set -eu
secs=${1:-60}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.."
root=$(pwd)
CC=clang cmake -S . -B build-fuzz -DPROFDB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j2 >/dev/null
mkdir -p fuzz/crashes build-fuzz/seeds
seeds=build-fuzz/seeds
build-fuzz/profdb-gentrace --steps 1 "$seeds/trace.json" 2>/dev/null
head -c 4000 "$seeds/trace.json" > "$seeds/trace_cut.json"
cp samples/pstats/*.prof "$seeds/" 2>/dev/null || true
cp samples/steplogs/* "$seeds/" 2>/dev/null || true
targets=${*:-sniff trace pstats steplog}
status=0
for t in $targets; do
    dict=""
    case $t in
        pstats) dict=-dict=fuzz/marshal.dict ;;
        *) dict=-dict=fuzz/json.dict ;;
    esac
    mkdir -p "build-fuzz/corpus_$t"
    echo "fuzz_$t: $secs s"
    if ! "build-fuzz/fuzz/fuzz_$t" "build-fuzz/corpus_$t" "$seeds" $dict -max_total_time="$secs" \
        -max_len=65536 -timeout=10 -rss_limit_mb=1024 -artifact_prefix="fuzz/crashes/${t}_" \
        -print_final_stats=1 2>"build-fuzz/fuzz_$t.log"; then
        status=1
        echo "fuzz_$t: FAILED, see build-fuzz/fuzz_$t.log and fuzz/crashes/"
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/fuzz_$t.log" || true
done
exit $status
