#!/bin/sh
# Parallel ingest benchmark (issue 16): two generated rank traces of one run,
# `profdb ingest --jobs 1` (one after the other, one process) against
# `profdb ingest --jobs 2` (the parent reads one, a worker the other into a
# shard that is merged before the commit), in the same run; prints both
# times, the speed-up and peak RSS. The speed-up depends on free cores: the
# script prints the load average next to it.
#
# usage: bench/jobs.sh [BUILD_DIR] [STEPS]   (default build, 1000 steps ~ 60 MB of JSON each)
set -eu
build=$(cd "${1:-build}" && pwd)
steps=${2:-1000}
out=$(cd "$(dirname "$0")" && pwd)/out
mkdir -p "$out"
for r in 0 1; do
    t="$out/jobs_rank$r.json.gz"
    if [ ! -f "$t.$steps" ]; then
        rm -f "$t" "$t".*
        "$build/profdb-gentrace" --steps "$steps" --rank "$r" --world 2 --seed $((r + 1)) \
            --gzip "$t" 2>/dev/null
        touch "$t.$steps"
    fi
done

. "$(dirname "$0")/measure.sh"
fresh="$out/jobs.db $out/jobs.db-wal $out/jobs.db-shm"
inputs="$out/jobs_rank0.json.gz $out/jobs_rank1.json.gz"
# shellcheck disable=SC2086 # two paths without blanks
one=$(MEASURE_FRESH=$fresh measure "$build/profdb" --db "$out/jobs.db" ingest -q --jobs 1 --run r $inputs)
# shellcheck disable=SC2086
two=$(MEASURE_FRESH=$fresh measure "$build/profdb" --db "$out/jobs.db" ingest -q --jobs 2 --run r $inputs)
events=$("$build/profdb" --db "$out/jobs.db" sql "SELECT sum(records) FROM sources" --format tsv | tail -1)
t1=${one% *}; t2=${two% *}
echo "inputs: 2 traces, $events events in all; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "--jobs 1: ${t1} s, peak RSS $(echo "${one#* } / 1024" | bc) MB"
echo "--jobs 2: ${t2} s, peak RSS $(echo "${two#* } / 1024" | bc) MB (largest process)"
echo "speed-up --jobs 2 / --jobs 1: $(echo "scale=2; $t1 / $t2" | bc) (goal >= 1.8)"
