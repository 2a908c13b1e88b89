-- hta.sql: HTA's reading of a trace: whether it rounds times, where it
-- drops the last ProfilerStep (analyze/hta.c). A query starts at "-- name:
-- NAME" and is known to C as hta.NAME (common/query.h). ?1 is the trace.

-- name: float_ts
-- Whether the trace's timestamps had fractions (HTA then rounds).
SELECT float_ts FROM traces WHERE trace_id = ?1

-- name: first_event
-- The start of the file's first event when HTA keeps it (traces.first_slice):
-- HTA's row 0, the launch HTA joins a kernel whose launch is not in the
-- trace to.
SELECT s.ts FROM traces t JOIN slices s ON s.id = t.first_slice WHERE t.trace_id = ?1

-- name: last_step
-- HTA's profiler steps: kept (X, with a category other than 'Trace')
-- CPU-side events whose name contains "ProfilerStep", from the ingest-time
-- copy.
SELECT count(DISTINCT name), max(ts) FROM trace_steps WHERE trace_id = ?1
 AND ph = 'X' AND cat IS NOT NULL AND cat <> 'Trace' AND typeof(stream) <> 'integer'

-- name: probe_functions
-- Whether hta_start() and its kin are registered on the connection
-- already (replacing a function fails while statements run).
SELECT hta_start(0, 0)
