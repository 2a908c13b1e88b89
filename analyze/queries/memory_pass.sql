-- memory_pass.sql: the memory of a profile_memory trace: allocations, the
-- peak of each step and the memory each op holds (analyze/memory_pass.c).
-- A query starts at "-- name: NAME" and is known to C as memory_pass.NAME
-- (common/query.h). ?1 is the trace.

-- name: steps
-- CPU-side ProfilerStep#N annotations, as steps_pass.windows reads them,
-- with their numbers. The categories are PDB_CPU_CATEGORIES (analyze.h).
SELECT ts, ts + dur, CAST(substr(name, 14) AS INTEGER) FROM trace_steps
 WHERE trace_id = ?1 AND name GLOB 'ProfilerStep#*'
 AND coalesce(cat, '') NOT LIKE 'gpu\_%' ESCAPE '\'
 AND (stream IS NULL OR coalesce(cat, '') IN
 ('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op', 'user_annotation', 'python_function'))
 ORDER BY ts

-- name: has_memory
-- Whether the trace has [memory] events at all.
SELECT EXISTS (SELECT 1 FROM instants WHERE trace_id = ?1
 AND name = (SELECT id FROM strings WHERE value = '[memory]'))

-- name: events
-- The [memory] events in time order.
SELECT ts, pid, tid, json_extract(args, '$.Bytes'),
 json_extract(args, '$."Total Allocated"'),
 json_extract(args, '$."Total Reserved"'),
 json_extract(args, '$."Device Type"'),
 json_extract(args, '$."Device Id"'), json_extract(args, '$.Addr')
 FROM instants WHERE trace_id = ?1
 AND name = (SELECT id FROM strings WHERE value = '[memory]')
 AND ts IS NOT NULL ORDER BY ts, rowid

-- name: add_alloc
INSERT INTO analysis_memory_allocs VALUES (?,?,?,?,?,?,?,?,?,?,?)

-- name: add_op
INSERT INTO analysis_memory_ops VALUES (?,?,?,?,?,?,?,?)

-- name: add_peak
INSERT INTO analysis_memory_peaks VALUES (?,?,?,?,?,?,?,?,?,?,?)
