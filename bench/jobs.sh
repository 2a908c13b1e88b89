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

# Interleaved rounds (--jobs 1, --jobs 2, --jobs 1, ...) so that both see
# the same machine; best wall time of three each, with that run's CPU time
# (user + sys of all processes) and peak RSS.
inputs="$out/jobs_rank0.json.gz $out/jobs_rank1.json.gz"
run_once() { # jobs -> "wall cpu rss_kb"
    rm -f "$out/jobs.db" "$out/jobs.db-wal" "$out/jobs.db-shm"
    # shellcheck disable=SC2086 # two paths without blanks
    /usr/bin/time -f "%e %U %S %M" -o "$out/time.txt" \
        "$build/profdb" --db "$out/jobs.db" ingest -q --jobs "$1" --run r $inputs
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$out/time.txt"
}
best1=""; best2=""
for _ in 1 2 3; do
    for j in 1 2; do
        r=$(run_once $j)
        eval "b=\$best$j"
        if [ -z "$b" ] || [ "$(echo "${r%% *} < ${b%% *}" | bc)" = 1 ]; then eval "best$j=\$r"; fi
    done
done
events=$("$build/profdb" --db "$out/jobs.db" sql "SELECT sum(records) FROM sources" --format tsv | tail -1)
# shellcheck disable=SC2086 # split "wall cpu rss" into its three words
set -- $best1; t1=$1; c1=$2; m1=$3
# shellcheck disable=SC2086
set -- $best2; t2=$1; c2=$2; m2=$3
echo "inputs: 2 traces, $events events in all; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "--jobs 1: ${t1} s, CPU ${c1} s, peak RSS $(echo "$m1 / 1024" | bc) MB"
echo "--jobs 2: ${t2} s, CPU ${c2} s, peak RSS $(echo "$m2 / 1024" | bc) MB (largest process)"
echo "speed-up --jobs 2 / --jobs 1: $(echo "scale=2; $t1 / $t2" | bc) (goal >= 1.8)"
echo "CPU --jobs 2 / --jobs 1: $(echo "scale=2; $c2 / $c1" | bc) (the cost of the shard and its merge)"
