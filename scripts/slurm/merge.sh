#!/bin/sh
# merge.sh: the Slurm job that runs after every ingest-array.sh task has
# succeeded (--dependency=afterok): merges the shards into OUT.db in one
# transaction, writes a report next to it, and deletes the shards (with
# PROFDB_KEEP_SHARDS=1: merges without --full and keeps them).
#
#   sbatch --dependency=afterok:ARRAY_JOB merge.sh OUT.db SHARD_DIR [REPORT...]
#
# The report (default: the summary of the newest run, or of PROFDB_RUN) goes
# to SHARD_DIR/report.txt, beside the jobs' logs.
# A failed merge leaves OUT.db as it was and keeps the shards for a retry:
# `sbatch merge.sh OUT.db SHARD_DIR` again, or `profdb merge` by hand.
#SBATCH --job-name=profdb-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
set -euf
out=${1:?usage: merge.sh OUT.db SHARD_DIR [REPORT...]}
dir=${2:?usage: merge.sh OUT.db SHARD_DIR [REPORT...]}
shift 2
case $dir in -*) dir=./$dir ;; esac
profdb=${PROFDB:-profdb}
case $profdb in /*) ;; */*) profdb=$(pwd)/$profdb ;; esac
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
n=$(grep -c . "$dir/inputs.txt")
# shard names without blanks, relative to SHARD_DIR (which may have some)
cd "$dir"
shards=""
i=0
while [ "$i" -lt "$n" ]; do
    [ -f "shard-$i.db" ] || { echo "profdb: $dir/shard-$i.db is missing" >&2; exit 2; }
    shards="$shards shard-$i.db"
    i=$((i + 1))
done
# --full: every event is copied, since the shards are deleted below.
# PROFDB_KEEP_SHARDS=1: the events stay in the shards, which are kept where
# they are (the job database names them; a merge that does not grow with
# the events: README, profdb merge).
if [ "${PROFDB_KEEP_SHARDS:-0}" = 1 ]; then full=""; else full="--full"; fi
# shellcheck disable=SC2086 # the shard names are made above; $full one word or none
"$profdb" merge $full "$out" $shards
set -- --db "$out" report "$@"
[ -n "${PROFDB_RUN:-}" ] && set -- "$@" --run "$PROFDB_RUN"
"$profdb" "$@" > report.txt
echo "profdb: $out: report in $dir/report.txt" >&2
[ -z "$full" ] && exit 0
for s in $shards; do rm -f "$s" "$s-wal" "$s-shm"; done
