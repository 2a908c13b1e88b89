-- compare.sql: opening two runs for a comparison and reading one metric's
-- samples from a run (compare/compare.c).
-- A query starts at "-- name: NAME" and is known to C as compare.NAME
-- (common/query.h). "{schema}" is the schema that holds the run read:
-- "main", or "tdb" for the database given with --db-test (compare/queries.h
-- fills it in; schema names cannot be bound). ?1 is the run_id, ?2 the name
-- of what is sampled.

-- name: attach_test
-- ?1 = the file name of the test database.
ATTACH DATABASE ?1 AS tdb

-- name: run_by_name
-- ?1 = the run name.
SELECT run_id FROM {schema}.runs WHERE name = ?1

-- name: newest_run
SELECT run_id, name FROM {schema}.runs ORDER BY run_id DESC LIMIT 1

-- name: steplog_samples
-- Step-log point values of one metric: training records, in log order.
SELECT value FROM {schema}.steplog_values WHERE run_id = ?1 AND metric = ?2
 AND agg = 'point' AND coalesce(split, '') <> 'val' ORDER BY source_id, record

-- name: trace_step_samples
-- Every per-step column of the trace steps; the caller reads the one it
-- needs by its column name.
SELECT dur_ns, kernel_ns, memcpy_ns, memset_ns, runtime_ns, dataloader_ns, cpu_exec_ns,
 other_ns FROM {schema}.analysis_steps WHERE run_id = ?1 ORDER BY rank, ts

-- name: op_samples
SELECT dur FROM {schema}.slice_view WHERE run_id = ?1 AND name = ?2
 AND stream IS NULL

-- name: kernel_samples
SELECT dur FROM {schema}.gpu_events WHERE run_id = ?1 AND name = ?2
