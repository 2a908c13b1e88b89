#!/bin/sh
# submit.sh: ingest many rank traces on a Slurm cluster, one array task per
# file, then merge them into one database with a dependent job.
#
#   scripts/slurm/submit.sh [--run NAME] OUT.db SHARD_DIR INPUT... [-- REPORT...]
#
# SHARD_DIR must be on a file system that every node and the submitting host
# see (the inputs too); the jobs write their logs there (a name with a
# backslash is refused: sbatch cannot name per-task logs in it). Prints the
# two job ids. sbatch options go in the usual SBATCH_* variables
# (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT) or in
# PROFDB_SBATCH_ARGS (split at blanks, never glob-expanded); PROFDB names the
# profdb binary the jobs run (default: `profdb` on the nodes' PATH). Ranks
# come from each trace's distributedInfo or its file name: a task sees one
# file, so it cannot number traces by their order.
set -euf
here=$(cd "$(dirname "$0")" && pwd)
run=""
if [ "${1:-}" = "--run" ]; then
    run=${2:?--run needs a NAME}
    shift 2
fi
out=${1:?usage: submit.sh [--run NAME] OUT.db SHARD_DIR INPUT... [-- REPORT...]}
dir=${2:?usage: submit.sh [--run NAME] OUT.db SHARD_DIR INPUT... [-- REPORT...]}
shift 2
# Absolute paths: no name starts with '-'.
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
# sbatch reads --output as a pattern: '%' is written '%%'; a backslash turns
# every replacement off (the tasks' logs would be one file), so it is refused.
case $dir in
*\\*) echo "profdb: $dir: a shard folder with a backslash cannot name the tasks' logs" \
             "(sbatch --output then replaces no %a); choose another folder" >&2; exit 2 ;;
esac
logs=$(printf '%sx' "$dir" | sed 's/%/%%/g')
logs=${logs%x}
mkdir -p "$dir"
: > "$dir/inputs.txt"
n=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case $1 in /*) p=$1 ;; *) p=$(pwd)/$1 ;; esac
    # one line an input: \ as \\ and a newline as \n (ingest-array.sh decodes)
    printf '%s\n' "$p" | sed -e ':a' -e '$!{N;ba' -e '}' -e 's/\\/\\\\/g' -e 's/\n/\\n/g' \
        >> "$dir/inputs.txt"
    n=$((n + 1))
    shift
done
[ "${1:-}" = "--" ] && shift
[ "$n" -gt 0 ] || { echo "profdb: no INPUT given" >&2; exit 2; }
export PROFDB_RUN="$run"
# shellcheck disable=SC2086 # PROFDB_SBATCH_ARGS is a list of options (set -f: no globbing)
array=$(sbatch --parsable ${PROFDB_SBATCH_ARGS:-} --array=0-$((n - 1)) \
    --output="$logs/ingest-%a.log" "$here/ingest-array.sh" "$dir")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${PROFDB_SBATCH_ARGS:-} --dependency=afterok:"$array" \
    --kill-on-invalid-dep=yes --output="$logs/merge.log" "$here/merge.sh" "$out" "$dir" "$@")
merge=${merge%%;*}
echo "ingest array job $array ($n tasks), merge job $merge"
