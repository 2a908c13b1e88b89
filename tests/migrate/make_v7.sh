#!/bin/sh
# make_v7.sh PROFDB_V7 OUT: writes OUT.gz, the schema-version-7 database the
# test of migration 008 starts from (tests/corpus/test_migrate_v7.py).
# PROFDB_V7 is a profdb built at commit d8068c5 (the last with schema
# version 7), its profdb-gentrace beside it; run from the repository root:
# sh tests/migrate/make_v7.sh BUILD/profdb tests/migrate/v7.db
# Inputs: two generated ranks (ops, kernels, user annotations, steps) and
# a sample trace of this repository.
set -eu
p=$1
out=$2
g=$(dirname "$p")/profdb-gentrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$out" "$out-wal" "$out-shm"
"$g" --steps 3 --seed 7 "$tmp/rank0.json" 2>/dev/null
"$g" --steps 3 --seed 7 --rank 1 --world 2 "$tmp/rank1.json" 2>/dev/null
$p --db "$out" ingest -q --run gen "$tmp/rank0.json" "$tmp/rank1.json"
$p --db "$out" ingest -q --run sample samples/traces/train_rank0.pt.trace.json.gz
$p --db "$out" sql --write "VACUUM" >/dev/null
$p --db "$out" sql --write "PRAGMA journal_mode = DELETE" >/dev/null
gzip -9 -n "$out"
