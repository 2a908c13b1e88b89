#!/bin/sh
# Ingest and analysis benchmark: generates a large trace with the project's
# own generator, then times `zcat` of it (the floor: just decompressing),
# `profdb ingest --no-analyze` of it, `profdb analyze` (all passes, both
# modes) on the result, and a plain `profdb ingest` (loading and analysis in
# one command, as users run it), in the same run; prints the ratios,
# events/s and peak RSS of each, and the CPU seconds (user + system, which a
# busy machine moves less than wall time) of each per MB of JSON with the
# ingests' ratios to zcat's CPU seconds, all from the same run.
# PROFDB_TRACE_PARSER=yajl in the environment measures the yajl reader.
#
# usage: bench/ingest.sh [BUILD_DIR] [STEPS]   (default build, 8500 steps ~ 520 MB)
set -eu
build=$(cd "${1:-build}" && pwd)
steps=${2:-8500}
out=$(cd "$(dirname "$0")" && pwd)/out
mkdir -p "$out"
trace="$out/big_rank0.json.gz"
if [ ! -f "$trace.$steps" ]; then
    rm -f "$out"/big_rank0.json.gz*
    "$build/profdb-gentrace" --steps "$steps" --gzip "$trace"
    touch "$trace.$steps"
fi
bytes=$(zcat "$trace" | wc -c)

. "$(dirname "$0")/measure.sh"
fresh="$out/bench.db $out/bench.db-wal $out/bench.db-shm"

zc=$(measure sh -c "zcat '$trace' > /dev/null")
zcpu=$(cat "$out/measure_cpu.txt")
ing=$(MEASURE_FRESH=$fresh measure "$build/profdb" --db "$out/bench.db" ingest --quiet --no-analyze "$trace")
icpu=$(cat "$out/measure_cpu.txt")
ana=$(measure "$build/profdb" --db "$out/bench.db" analyze)
acpu=$(cat "$out/measure_cpu.txt")
both=$(MEASURE_FRESH=$fresh measure "$build/profdb" --db "$out/bench.db" ingest --quiet "$trace")
bcpu=$(cat "$out/measure_cpu.txt")
events=$("$build/profdb" --db "$out/bench.db" sql "SELECT records FROM sources" --format tsv | tail -1)
zt=${zc% *}; it=${ing% *}; rss=${ing#* }; at=${ana% *}; arss=${ana#* }; bt=${both% *}
echo "trace: $(echo "scale=1; $bytes / 1000000" | bc) MB uncompressed, $events events"
echo "zcat:   ${zt} s"
echo "ingest: ${it} s  (ratio ingest/zcat $(echo "scale=2; $it / $zt" | bc))"
# CPU seconds (user + system of the best run) per MB of JSON, and the
# ratios to zcat's CPU in this run: a busy machine stretches wall times but
# moves CPU seconds much less.
permb() { echo "scale=4; $1 * 1000000 / $bytes" | bc; }
ratio() { if [ "$(echo "$zcpu > 0" | bc)" = 1 ]; then echo "scale=2; $1 / $zcpu" | bc; else echo "n/a"; fi; }
echo "CPU s per MB of JSON: zcat $(permb "$zcpu"), ingest --no-analyze $(permb "$icpu") ($(ratio "$icpu")x zcat's CPU), analyze $(permb "$acpu"), ingest with analysis $(permb "$bcpu") ($(ratio "$bcpu")x zcat's CPU)"
echo "CPU s: zcat ${zcpu}, ingest --no-analyze ${icpu}, analyze ${acpu}, ingest with analysis ${bcpu}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "events/s: $(echo "$events / $it" | bc)"
echo "peak RSS: $(echo "$rss / 1024" | bc) MB"
echo "analyze: ${at} s  (ratio analyze/ingest $(echo "scale=2; $at / $it" | bc)), peak RSS $(echo "$arss / 1024" | bc) MB"
echo "ingest with analysis: ${bt} s  (its analysis, (${bt} - ${it}) / ingest: $(echo "scale=2; ($bt - $it) / $it" | bc))"
