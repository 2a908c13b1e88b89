#!/bin/sh
# Regenerates the charts the README shows, from the samples in samples/:
#   docs/img/sample_gpu.png    GPU time breakdown per rank (samples/traces)
#   docs/img/sample_steps.png  per-step time stacked by category
# usage: scripts/make_readme_charts.sh [PROFDB]   (default: build/profdb)
# Needs gnuplot (scripts/deps.sh installs gnuplot-nox).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
profdb=${1:-$root/build/profdb}
command -v gnuplot >/dev/null || { echo "gnuplot is not on PATH (scripts/deps.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One-shot: the two rank traces go into an in-memory database as run 'sample'.
"$profdb" report --run sample --out "$tmp/report" "$root/samples/traces"
mkdir -p "$root/docs/img"
for chart in gpu steps; do
    cp "$tmp/report/$chart.png" "$root/docs/img/sample_$chart.png"
done
ls -l "$root"/docs/img/sample_*.png
