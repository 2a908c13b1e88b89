#!/bin/sh
# Merge scaling benchmark (issue 35): N shards made from copies of one real
# corpus trace, each copy given its own rank (distributedInfo.rank rewritten),
# each ingested into a shard database of its own as a Slurm array task would,
# then `profdb merge` of 8, 32 (and more when asked) of them into a new job
# database. Prints the merge time, the time per shard, and the merged
# database's size against the shards' total size. Set MERGE_ARGS to pass
# options to `profdb merge` (MERGE_ARGS=--full: today's full copy).
#
# usage: bench/merge_scale.sh [BUILD_DIR] [COUNT...]   (default: build 8 32)
#   TRACE=FILE.json.gz picks the trace (default: the corpus's nccl trace,
#   40,573 events; negative_queue_length_values_check_rank0.json.gz has 108,936);
#   TRACE=gen:STEPS makes each rank's trace with profdb-gentrace (STEPS
#   training steps, its own rank and seed: small, for 1,024 ranks).
# After each merge the cross-rank reports `ranks` and `gpu` are timed on the
# job database (the "reports s" column).
set -eu
build=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 8 32
corpus=${PROFDB_CORPUS:-$(cd "$(dirname "$0")/../.." && pwd)/shared/corpus}
trace=${TRACE:-$corpus/traces/nccl_parser_config_nccl_data.json.gz}
case $trace in
gen:*) ;;
*) [ -f "$trace" ] || { echo "merge_scale.sh: no trace $trace (set TRACE or PROFDB_CORPUS)" >&2; exit 2; } ;;
esac
key=$(basename "$trace")
case $trace in gen:*) key="gen-${trace#gen:}" ;; esac
# copies and shards of each trace in a folder of their own, kept between runs
out=$(cd "$(dirname "$0")" && pwd)/out/merge_scale/$key
mkdir -p "$out"
max=0
for n in "$@"; do [ "$n" -gt "$max" ] && max=$n; done

# Rank copies and their shards, made once per trace and kept between runs.
mkdir -p "$out/copies" "$out/shards"
if [ "${trace#gen:}" != "$trace" ]; then
    r=0
    while [ "$r" -lt "$max" ]; do
        [ -f "$out/copies/rank-$r.json.gz" ] || echo "$r"
        r=$((r + 1))
    done | xargs -r -P 2 -I R "$build/profdb-gentrace" --steps "${trace#gen:}" --rank R \
        --world "$max" --seed R --gzip "$out/copies/rank-R.json.gz" 2>/dev/null
else
python3 - "$trace" "$out/copies" "$max" <<'EOF'
import gzip, json, os, sys
src, folder, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
todo = [r for r in range(n) if not os.path.exists(os.path.join(folder, f"rank-{r}.json.gz"))]
if todo:
    with gzip.open(src, "rt") as f:
        d = json.load(f)
    for r in todo:
        info = dict(d.get("distributedInfo") or {})
        info["rank"] = r
        info["world_size"] = max(n, r + 1)
        d["distributedInfo"] = info
        tmp = os.path.join(folder, f".rank-{r}.json.gz")
        with gzip.open(tmp, "wt", compresslevel=1) as f:
            json.dump(d, f)
        os.rename(tmp, os.path.join(folder, f"rank-{r}.json.gz"))
EOF
fi
start=$(date +%s)
r=0
while [ "$r" -lt "$max" ]; do
    [ -f "$out/shards/shard-$r.db" ] || echo "$r"
    r=$((r + 1))
done | xargs -r -P 2 -I R "$build/profdb" --db "$out/shards/shard-R.db" ingest -q --run job \
    "$out/copies/rank-R.json.gz"
# shards of an older schema version (an earlier profdb made them) are upgraded
r=0
while [ "$r" -lt "$max" ]; do
    "$build/profdb" --db "$out/shards/shard-$r.db" migrate --no-vacuum >/dev/null 2>&1 || true
    r=$((r + 1))
done
echo "trace: $key, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "shards: $max made or reused in $(($(date +%s) - start)) s"
printf '%-7s %10s %10s %12s %12s %8s %10s\n' shards "merge s" "per shard" "shards MB" "merged MB" \
    "merged %" "reports s"
for n in "$@"; do
    set --
    r=0
    bytes=0
    while [ "$r" -lt "$n" ]; do
        set -- "$@" "$out/shards/shard-$r.db"
        bytes=$((bytes + $(stat -c %s "$out/shards/shard-$r.db")))
        r=$((r + 1))
    done
    rm -f "$out/job.db" "$out/job.db-wal" "$out/job.db-shm"
    # shellcheck disable=SC2086 # MERGE_ARGS: options, split at blanks
    /usr/bin/time -f "%e" -o "$out/time.txt" "$build/profdb" merge -q ${MERGE_ARGS:-} "$out/job.db" "$@"
    secs=$(cat "$out/time.txt")
    merged=$(stat -c %s "$out/job.db")
    # shellcheck disable=SC2016 # $1 and $2 are the inner shell's arguments
    /usr/bin/time -f "%e" -o "$out/time.txt" sh -c '"$1" --db "$2" report ranks gpu >/dev/null' \
        sh "$build/profdb" "$out/job.db"
    printf '%-7s %10s %10s %12s %12s %8s %10s\n' "$n" "$secs" "$(echo "scale=3; $secs / $n" | bc)" \
        "$(echo "scale=1; $bytes / 1048576" | bc)" "$(echo "scale=1; $merged / 1048576" | bc)" \
        "$(echo "scale=2; 100 * $merged / $bytes" | bc)" "$(cat "$out/time.txt")"
done
