-- steps_pass.sql: the time of each ProfilerStep by kind (analyze/steps_pass.c).
-- A query starts at "-- name: NAME" and is known to C as steps_pass.NAME
-- (common/query.h).

-- name: create_steps
-- The steps of the trace being scanned, in start order (idx).
CREATE TEMP TABLE IF NOT EXISTS pdb_steps_out (idx INTEGER PRIMARY KEY, name, num, ts, dur,
 kernel, memcpy, memset, runtime, dataloader, cpu_exec, other, copy, sync);
DELETE FROM temp.pdb_steps_out

-- name: windows
-- CPU-side ProfilerStep#N annotations (not the GPU-side copies Kineto
-- adds) of trace ?1. The categories are PDB_CPU_CATEGORIES (analyze.h).
SELECT name, ts, dur FROM trace_steps WHERE trace_id = ?1
 AND name GLOB 'ProfilerStep#*' AND coalesce(cat, '') NOT LIKE 'gpu\_%' ESCAPE '\'
 AND (stream IS NULL OR coalesce(cat, '') IN
 ('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op', 'user_annotation', 'python_function'))
 ORDER BY ts

-- name: put_step
INSERT INTO temp.pdb_steps_out VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)

-- name: add_family
-- ?1 = the step, ?2 the time, ?3 the family (1 copy, 2 sync).
UPDATE temp.pdb_steps_out SET copy = copy + ?2 * (?3 = 1), sync = sync + ?2 * (?3 = 2)
 WHERE idx = ?1

-- name: write
-- ?1 = the run, ?2 the rank.
INSERT OR REPLACE INTO analysis_steps SELECT ?1, ?2, name, num, ts, dur, kernel, memcpy,
 memset, runtime, dataloader, cpu_exec, other, copy, sync FROM temp.pdb_steps_out ORDER BY idx
