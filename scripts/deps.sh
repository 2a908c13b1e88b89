#!/bin/sh
# Installs the Debian packages profdb needs to build, test and draw charts,
# but only those that are missing (so it is quick when nothing is).
# usage: scripts/deps.sh [test]   test: also the checkers scripts/test.sh
# runs (valgrind; clang with its sanitizer and libFuzzer runtimes).
set -eu
PKGS="build-essential cmake pkg-config libsqlite3-dev zlib1g-dev libyajl-dev gnuplot-nox python3 sqlite3"
if [ "${1:-}" = test ]; then
    PKGS="$PKGS valgrind clang libclang-rt-dev"
fi
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
