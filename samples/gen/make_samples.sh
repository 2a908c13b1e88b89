#!/bin/sh
# Regenerates samples/traces/ with the project's own trace generator:
# a two-rank run, four training steps per rank. Usage: make_samples.sh BUILD_DIR
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$here/traces"
for rank in 0 1; do
    "$build/profdb-gentrace" --steps 4 --rank "$rank" --world 2 --seed 7 --gzip \
        "$here/traces/train_rank$rank.pt.trace.json.gz"
done
