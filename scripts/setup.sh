#!/bin/sh
# One command from a fresh Debian 12 machine to a working profdb: installs what
# is missing, builds, and runs the main job (ingest + summary) on samples/.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2
rm -f samples.db
./build/profdb --db samples.db ingest --run sample samples/traces
./build/profdb --db samples.db report --run sample
