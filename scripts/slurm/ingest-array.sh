#!/bin/sh
# ingest-array.sh: one Slurm array task = one input file into its own shard.
#
# Submitted by submit.sh (or by hand) as
#   sbatch --array=0-$((N - 1)) ingest-array.sh SHARD_DIR
# SHARD_DIR (on a file system every node sees) holds inputs.txt, one input
# path a line, with a backslash written \\ and a newline \n (so any file
# name fits on one line); task i ingests line i + 1 into
# SHARD_DIR/shard-i.db with `profdb ingest` (analysis included), so all
# ranks of a job are read at once, one per task. Settings come from the
# environment (sbatch passes it on): PROFDB (the binary, default `profdb`
# on PATH), PROFDB_RUN (put every input into this run; merged, the run has
# all the ranks), PROFDB_INGEST_ARGS (more ingest options split at blanks,
# never glob-expanded, e.g. "--label gpus=64").
#SBATCH --job-name=profdb-ingest
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
set -euf
dir=${1:?usage: sbatch --array=0-N ingest-array.sh SHARD_DIR}
case $dir in -*) dir=./$dir ;; esac
task=${SLURM_ARRAY_TASK_ID:?not a Slurm array task}
line=$(sed -n "$((task + 1))p" "$dir/inputs.txt")
[ -n "$line" ] || { echo "profdb: $dir/inputs.txt has no line $((task + 1))" >&2; exit 2; }
# \\ and \n back to \ and a newline (printf %b); x keeps a trailing newline
input=$(printf '%bx' "$line")
input=${input%x}
shard="$dir/shard-$task.db"
# A task that Slurm runs again (requeue, node failure) starts from scratch.
rm -f "$shard" "$shard-wal" "$shard-shm"
set -- --db "$shard" ingest --jobs 1 --quiet
[ -n "${PROFDB_RUN:-}" ] && set -- "$@" --run "$PROFDB_RUN"
# shellcheck disable=SC2086 # PROFDB_INGEST_ARGS is a list of options (set -f: no globbing)
exec "${PROFDB:-profdb}" "$@" ${PROFDB_INGEST_ARGS:-} -- "$input"
