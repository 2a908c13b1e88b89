#!/bin/sh
# Hostile shapes: peak RSS and wall time of ingest, analyze and every trace
# report on traces of about EVENTS events shaped to stress one dimension
# (see samples/gen/gentrace.c --shape), against a typical trace of the same
# size made by the same generator. Inputs are streamed from the generator
# into `profdb ingest -`, never written to disk. Prints a Markdown table:
# shape, command, seconds, peak RSS in MB (one run each: the shapes take
# minutes; rerun a line by hand for a best of three).
#
# usage: bench/shapes.sh [BUILD_DIR] [EVENTS] [SHAPE...]
#   shapes: typical names names400 tids streams steps steplog sql (default all)
#   EVENTS defaults to 2000000; steps makes 100000 ProfilerSteps, streams
#   100000 streams, steplog 10000000 lines, sql 10000000 rows (the sizes of
#   issue 13's acceptance). STEPS, STREAMS, LINES and ROWS in the environment
#   change them, for a smaller run or for a build that is quadratic in them.
set -eu
build=$(cd "${1:-build}" && pwd)
events=${2:-2000000}
shift 2 2>/dev/null || shift $#
shapes=${*:-typical names names400 tids streams steps steplog sql}
out=$(cd "$(dirname "$0")" && pwd)/out
mkdir -p "$out"
db="$out/shapes.db"
gen="$build/profdb-gentrace"
profdb="$build/profdb"
steps=${STEPS:-100000}
streams=${STREAMS:-100000}
lines=${LINES:-10000000}
rows=${ROWS:-10000000}
reports="summary gpu kernel-types kernels ops annotations steps idle launch comm ranks insights"

# measure LABEL CMD...: runs CMD once (stdout to /dev/null) and prints a row.
measure() {
    label=$1
    shift
    if ! /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/stderr.txt"; then
        echo "| $shape | $label | failed: $(tail -1 "$out/stderr.txt") | |"
        return
    fi
    t=$(tail -1 "$out/time.txt" | cut -d' ' -f1)
    kb=$(tail -1 "$out/time.txt" | cut -d' ' -f2)
    echo "| $shape | $label | $t | $((kb / 1024)) |"
}

fresh() {
    rm -f "$db" "$db-wal" "$db-shm"
}

# ingest_shape GENERATOR-ARGS...: streams the trace into a fresh database.
ingest_shape() {
    fresh
    "$gen" "$@" - 2>/dev/null >"$out/fifo" &
    measure "ingest --no-analyze" "$profdb" --db "$db" ingest --quiet --no-analyze --run a \
        "$out/fifo"
    wait
    measure "analyze" "$profdb" --db "$db" analyze
    for r in $reports; do
        measure "report $r" "$profdb" --db "$db" report "$r"
    done
    measure "report kernels --by op" "$profdb" --db "$db" report kernels --by op
    measure "report ops --by-shape" "$profdb" --db "$db" report ops --by-shape
    measure "report (overview)" "$profdb" --db "$db" report
    measure "runs" "$profdb" --db "$db" runs
}

rm -f "$out/fifo"
mkfifo "$out/fifo"
echo "| shape | command | seconds | peak RSS (MB) |"
echo "| --- | --- | --- | --- |"
for shape in $shapes; do
    case $shape in
    typical) ingest_shape --steps $((events / 271)) ;;
    names) ingest_shape --shape names --events "$events" ;;
    names400) ingest_shape --shape names --events "$events" --name-len 400 ;;
    tids) ingest_shape --shape tids --events "$events" ;;
    streams) ingest_shape --shape streams --events "$events" --streams "$streams" ;;
    steps)
        ingest_shape --shape steps --events "$events" --steps "$steps"
        "$gen" --shape steps --events "$events" --steps "$steps" --seed 2 - 2>/dev/null >"$out/fifo" &
        "$profdb" --db "$db" ingest --quiet --run b "$out/fifo"
        wait
        measure "diff a b steps" "$profdb" --db "$db" diff a b steps
        measure "check a b" "$profdb" --db "$db" check a b
        ;;
    steplog)
        fresh
        awk 'BEGIN { for (i = 1; i <= '"$lines"'; i++)
                printf "{\"step\": %d, \"loss\": %.5f, \"step_time_ms\": %.3f}\n",
                       i, 4 / (1 + i / 5000), 100 + (i % 17) }' >"$out/fifo" &
        measure "ingest ($lines lines)" "$profdb" --db "$db" ingest --quiet --run a "$out/fifo"
        wait
        for r in metrics phases throughput step-insights; do
            measure "report $r" "$profdb" --db "$db" report "$r"
        done
        ;;
    sql)
        fresh
        echo '{"step": 1, "loss": 1}' >"$out/one.jsonl"
        "$profdb" --db "$db" ingest --quiet "$out/one.jsonl"
        for f in table csv md json; do
            measure "sql $rows rows --format $f" "$profdb" --db "$db" sql --format "$f" \
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $rows)
                 SELECT x, 'name ' || x AS name FROM c"
        done
        ;;
    *) echo "unknown shape $shape" >&2; exit 2 ;;
    esac
done
rm -f "$out/fifo"
