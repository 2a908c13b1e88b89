#!/bin/sh
# Runs one golden case, in the style of jq's tests: a folder holding
#   cmd        shell lines run in a scratch folder; $PROFDB is the binary,
#              $GENTRACE the trace generator, $CASE the case folder
#   expected   what the commands print on stdout (stderr is appended as
#              "stderr: ..." lines, and the last exit code as "exit: N")
# The case passes when the output equals expected byte for byte.
# Set PROFDB_GOLDEN_UPDATE=1 to write the output into expected instead.
# A golden file changes only with a stated reason: the commit says
# 'golden CASE: why' (scripts/golden-reasons.sh checks a branch), and numbers
# with an independent oracle are also checked against the expected file by
# tests/corpus/test_golden_oracles.py. See tests/golden/README.md.
set -u
CASE=$(cd "$1" && pwd)
PROFDB=$2
GENTRACE=$3
export CASE PROFDB GENTRACE
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
actual="$work/.actual"
sh -c ". \"$CASE/cmd\"" >"$actual.out" 2>"$actual.err"
echo "exit: $?" >>"$actual.out"
sed 's/^/stderr: /' "$actual.err" >>"$actual.out"
if [ "${PROFDB_GOLDEN_UPDATE:-}" = 1 ]; then
    cp "$actual.out" "$CASE/expected"
    echo "updated $CASE/expected: read the diff; the commit needs a line" \
         "'golden $(basename "$CASE"): why' (tests/golden/README.md)"
    exit 0
fi
if diff -u "$CASE/expected" "$actual.out"; then
    echo "1 passed, 0 failed"
else
    echo "0 passed, 1 failed"
    exit 1
fi
