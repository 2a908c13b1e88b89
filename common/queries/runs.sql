-- runs.sql: finding, deleting and forgetting runs (common/runs.c).
-- A query starts at "-- name: NAME" and is known to C as runs.NAME
-- (common/query.h). {schema} is the database that holds the run: "main",
-- or the name of an attached one (compare's "tdb"; schema names cannot be
-- bound).

-- name: by_name
-- ?1 = the run's name.
SELECT run_id FROM {schema}.runs WHERE name = ?1

-- name: names
-- Every run's name, oldest first: "did you mean" looks among them.
SELECT name FROM {schema}.runs ORDER BY run_id

-- name: newest
-- The run ingested last: the largest id (ids are never reused).
SELECT run_id, name FROM {schema}.runs ORDER BY run_id DESC LIMIT 1

-- name: name
-- ?1 = the run.
SELECT name FROM {schema}.runs WHERE run_id = ?1

-- name: create
-- ?1 = the new run's name; created now (UTC).
INSERT INTO runs (name, created_at) VALUES (?1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))

-- name: last_id
-- The largest run id (0: none): runs above it were created after.
SELECT coalesce(max(run_id), 0) FROM runs

-- name: count
SELECT count(*) FROM runs

-- name: all
-- Every run, oldest first.
SELECT run_id FROM runs ORDER BY run_id

-- name: trace_tables
-- Tables whose rows belong to a run through a trace_id only: deleted
-- first, while traces still maps them. Found in the schema, so a table a
-- later schema file adds is covered without a change here.
SELECT m.name FROM sqlite_schema m WHERE m.type = 'table' AND m.name <> 'traces'
 AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'trace_id')
 AND NOT EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id')

-- name: run_tables
-- Tables with a run_id column (run_summaries, the trend cache, among them).
SELECT m.name FROM sqlite_schema m WHERE m.type = 'table' AND m.name <> 'runs'
 AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id')

-- name: delete_by_trace
-- {table}: a table of trace_tables; ?1 = the run.
-- test: table = slices
DELETE FROM "{table}" WHERE trace_id IN (SELECT trace_id FROM traces WHERE run_id = ?1)

-- name: delete_by_run
-- {table}: a table of run_tables; ?1 = the run.
-- test: table = sources
DELETE FROM "{table}" WHERE run_id = ?1

-- name: delete
-- ?1 = the run, once the rows that belong to it are gone.
DELETE FROM runs WHERE run_id = ?1

-- name: forget_caches
-- What profdb keeps about a run that is derived from its rows: the trend
-- summaries (schemas/60_trend.sql), computed again when next needed.
-- ?1 = the run.
DELETE FROM run_summaries WHERE run_id = ?1

-- name: forget_diff_rows
-- Saved diffs (schemas/80_diffs.sql) with the run on either side: derived
-- from its rows, so deleted with them and when it is analysed again.
-- ?1 = the run.
DELETE FROM diff_rows WHERE run_id = ?1 OR test_run_id = ?1

-- name: forget_diffs
-- ?1 = the run (as forget_diff_rows).
DELETE FROM diffs WHERE run_id = ?1 OR test_run_id = ?1

-- name: shard_files
-- ?1 = the run: the shard files a merge without --full left its ranks'
-- events in (schemas/90_shards.sql).
SELECT count(DISTINCT path) FROM {schema}.shard_files WHERE run_id = ?1

-- name: any_shard_files
-- Whether a run of the database keeps its events in shard files.
SELECT EXISTS (SELECT 1 FROM shard_files)
