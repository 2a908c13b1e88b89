#!/bin/sh
# make_v9.sh PROFDB_V9 OUT: writes OUT.gz, the schema-version-9 database the
# test of migration 010 starts from (tests/corpus/test_migrate_v9.py).
# PROFDB_V9 is a profdb built at commit 0f0d289 (the last with schema
# version 9); run from the repository root:
# sh tests/migrate/make_v9.sh BUILD/profdb tests/migrate/v9.db
# Inputs: step logs of this repository read by the general reader, a flavor
# and JSON Lines, and a trace (a run without a step log).
set -eu
p=$1
out=$2
rm -f "$out" "$out-wal" "$out-shm"
s=tests/steplogs
$p --db "$out" ingest -q --run marian $s/marian_issue376_excerpt.log
$p --db "$out" ingest -q $s/olmo_issue692_excerpt.log $s/timm_vitae_monarch_excerpt.txt
$p --db "$out" ingest -q --run megatron tests/golden/steplog_megatron_new/train.log
$p --db "$out" ingest -q --run trace samples/traces/train_rank0.pt.trace.json.gz
$p --db "$out" sql --write "VACUUM" >/dev/null
$p --db "$out" sql --write "PRAGMA journal_mode = DELETE" >/dev/null
gzip -9 -n "$out"
