-- compare.sql: opening two runs for a comparison (compare/compare.c).
-- A query starts at "-- name: NAME" and is known to C as compare.NAME
-- (common/query.h). "{schema}" is the schema that holds the run read:
-- "main", or "tdb" for the database given with --db-test (compare/queries.h
-- fills it in; schema names cannot be bound). The samples of each metric
-- are read by metrics.sql.

-- name: attach_test
-- ?1 = the file name of the test database.
ATTACH DATABASE ?1 AS tdb

-- name: facts
-- What a run holds, to choose the comparisons that apply to two runs.
SELECT (SELECT count(*) FROM {schema}.pstats_functions WHERE run_id = ?1) AS pstats,
 (SELECT count(*) FROM {schema}.analysis_steps WHERE run_id = ?1)
  + (SELECT count(*) FROM {schema}.steplog_values WHERE run_id = ?1) AS steps,
 (SELECT count(*) FROM {schema}.traces WHERE run_id = ?1) AS traces,
 (SELECT count(*) FROM {schema}.analysis_gpu WHERE run_id = ?1 AND mode = 'exact') AS gpu,
 (SELECT count(*) FROM {schema}.pyspy_profiles WHERE run_id = ?1) AS pyspy
