#!/bin/sh
# Checks that every commit in a range that changes a golden file says why.
# A golden file (tests/golden/CASE/expected) is profdb's own output, written
# by PROFDB_GOLDEN_UPDATE=1; it may change only with a stated reason (see
# tests/golden/README.md): the commit message needs a line
#     golden CASE[, CASE...]: why the output changed
# naming every case whose expected file the commit modifies ('golden *: why'
# covers all). New cases and deleted ones need no line.
# usage: scripts/golden-reasons.sh RANGE     e.g. main..tests, or HEAD~5..
# Exit 1 and one line per missing reason; 0 when every change says why.
set -eu
[ $# -eq 1 ] || { echo "usage: scripts/golden-reasons.sh RANGE (e.g. main..HEAD)" >&2; exit 2; }
cd "$(dirname "$0")/.."
status=0
for c in $(git rev-list --no-merges "$1" -- 'tests/golden/*/expected'); do
    cases=$(git diff-tree --no-commit-id -r --diff-filter=M --name-only "$c" -- \
        'tests/golden/*/expected' | sed 's|^tests/golden/||; s|/expected$||')
    named=$(git log -1 --format=%B "$c" |
        sed -n 's/^[Gg]olden \([A-Za-z0-9_*][A-Za-z0-9_, *]*\): *[^ ].*/\1/p' | tr ', ' '\n\n')
    for k in $cases; do
        if ! printf '%s\n' "$named" | grep -qx -e "$k" -e '\*'; then
            echo "$(git log -1 --format='%h %s' "$c" | cut -c1-72): changes golden $k" \
                 "without a 'golden $k: why' line"
            status=1
        fi
    done
done
exit $status
