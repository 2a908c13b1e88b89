#!/bin/sh
# Installs the Debian packages profdb needs to build, test and draw charts,
# but only those that are missing (so it is quick when nothing is).
# usage: scripts/deps.sh [test]   test: also the checkers scripts/test.sh
# runs (valgrind; clang with its sanitizer and libFuzzer runtimes; Slurm and
# munge for tests/corpus/test_slurm.py, and headless Chromium for
# tests/corpus/test_pyspy_flamegraph.py, installed without their recommended
# extras).
set -eu
PKGS="build-essential cmake pkg-config libsqlite3-dev zlib1g-dev libyajl-dev libisal-dev gnuplot-nox python3 sqlite3"
if [ "${1:-}" = test ]; then
    PKGS="$PKGS valgrind clang libclang-rt-dev"
    BARE="slurm-wlm munge chromium"
fi
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
missing_bare=""
for p in ${BARE:-}; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
        missing_bare="$missing_bare $p"
done
if [ -n "$missing$missing_bare" ]; then
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
fi
if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    # shellcheck disable=SC2086 # a list of package names
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
if [ -n "$missing_bare" ]; then
    echo "installing (without recommended packages):$missing_bare" >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        $missing_bare >/dev/null
fi
