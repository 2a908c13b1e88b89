#!/bin/sh
# Regenerates the charts the README shows (docs/img/sample_gpu.png and
# docs/img/sample_steps.png, from samples/traces), with the whole chart
# gallery of docs/reports.md: see scripts/make_gallery.sh.
# usage: scripts/make_readme_charts.sh [PROFDB]   (default: build/profdb)
exec "$(dirname "$0")/make_gallery.sh" "$@"
