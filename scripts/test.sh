#!/bin/sh
# Runs the whole test suite: installs what is missing, builds warning-free
# (-Werror), then ctest. Tests that need ../shared/corpus say so when skipped.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROFDB_WERROR=ON >/dev/null
cmake --build build -j2
if [ ! -d ../shared/corpus ]; then
    echo "note: ../shared/corpus is absent, so the corpus tests report Skipped" \
         "(they compare against real traces and oracle answers; CI has the corpus)"
fi
cd build && ctest --output-on-failure -j2 "$@"
