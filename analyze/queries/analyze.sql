-- analyze.sql: running the analysis passes for a run (analyze/analyze.c).
-- A query starts at "-- name: NAME" and is known to C as analyze.NAME
-- (common/query.h). ?1 is the run. {table} is one of the analysis tables
-- analyze.c lists (schema names cannot be bound).

-- name: traces
-- The run's traces, analysed one after the other.
SELECT trace_id, rank FROM traces WHERE run_id = ?1 ORDER BY rank

-- name: other_runs
-- Whether the table holds another run's rows (the test stops at the first).
-- test: table = analysis_gpu
SELECT EXISTS (SELECT 1 FROM "{table}" WHERE run_id IS NOT ?1)

-- name: clear_run
-- test: table = analysis_gpu
DELETE FROM "{table}" WHERE run_id = ?1

-- name: clear_table
-- A table holding no other run is emptied whole: SQLite then frees its
-- pages at once instead of deleting row by row, index entries included
-- (re-analysing a database of one run took a tenth of the analysis).
-- test: table = analysis_gpu
DELETE FROM "{table}"
