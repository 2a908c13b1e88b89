#!/bin/sh
# make_v1.sh PROFDB_V1 OUT: writes OUT.gz, the schema-version-1 database the
# migration test starts from (tests/corpus/test_migrate.py). PROFDB_V1 is a
# profdb built at commit 448a54e (the last with schema version 1); run from
# the repository root: sh tests/migrate/make_v1.sh PROFDB tests/migrate/v1.db
# Inputs are files of this repository.
set -eu
p=$1
out=$2
rm -f "$out" "$out-wal" "$out-shm"
g=tests/golden
$p --db "$out" ingest -q --run megatron $g/steplog_megatron_new/train.log
$p --db "$out" ingest -q --run variants $g/steplog_variants/modded.log \
    $g/steplog_variants/gpu_metrics.csv $g/steplog_variants/trainer_log.jsonl
$p --db "$out" ingest -q --run nan $g/steplog_golden_nan/golden_values.json
$p --db "$out" ingest -q --run ds tests/migrate/ds_chat_two_engines.log
$p --db "$out" ingest -q tests/steplogs/detectron2_mask2former_log.txt \
    tests/steplogs/fairseq_issue514_excerpt.log tests/steplogs/olmo_ai_on_aks_readme_excerpt.log \
    tests/steplogs/mmengine_openmmlab_camp_scalars.json samples/steplogs/rectflow.log
$p --db "$out" ingest -q --run trace samples/traces/train_rank0.pt.trace.json.gz samples/pstats/sample.prof
# a value deleted by hand, as profdb sql --write allows
$p --db "$out" sql --write "DELETE FROM steplog_values WHERE raw_name = 'lm loss' AND step = 2\
    AND run_id = (SELECT run_id FROM runs WHERE name = 'megatron')"
$p --db "$out" sql --write "VACUUM" >/dev/null
$p --db "$out" sql --write "PRAGMA journal_mode = DELETE" >/dev/null
gzip -9 -n "$out"
