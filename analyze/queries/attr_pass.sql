-- attr_pass.sql: which launch, op, annotation, module and step each GPU
-- event belongs to, and the annotation ranges (analyze/attr_pass.c). A
-- query starts at "-- name: NAME" and is known to C as attr_pass.NAME
-- (common/query.h).

-- name: probe
-- The launcher of a correlation (?1 = the trace, ?2 = the correlation),
-- from the covering correlation index ("+ 0" keeps SQLite from walking the
-- (trace, ts) index for the order). The categories are PDB_CPU_CATEGORIES
-- (analyze.h).
SELECT r.id, r.ts FROM slices r WHERE r.trace_id = ?1 AND r.correlation = ?2
 AND typeof(r.stream) <> 'integer' AND (r.stream IS NULL OR r.cat IN
 (SELECT id FROM strings WHERE value IN
 ('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op', 'user_annotation', 'python_function')))
 ORDER BY r.ts + 0, r.id LIMIT 1

-- name: add_attribution
-- One row; a batch of them goes in one statement (analyze/batch.h),
-- flushed before the table is updated or read.
INSERT OR FAIL INTO analysis_gpu_attribution (run_id, rank, slice_id, name, dur_ns, step,
 launch_id, op_id, op, top_op, annotation, gpu_annotation, module)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)

-- name: has_gpu_ranges
-- Without the category in the string table no trace has such ranges, and
-- the lanes (a lookup per GPU event) are not needed.
SELECT count(*) FROM strings WHERE value = 'gpu_user_annotation'

-- name: create_spill
-- The rare cases (attr_pass.c): launchers past the map's bound, and GPU
-- events scanned before their launcher. Made before the scan starts: a
-- schema change would abort its running query.
CREATE TEMP TABLE IF NOT EXISTS attr_spill (corr INTEGER PRIMARY KEY,
 launch_id, launch_ts, step, op_id, node);
CREATE TEMP TABLE IF NOT EXISTS attr_deferred (slice_id, corr, dur);
DELETE FROM temp.attr_spill; DELETE FROM temp.attr_deferred

-- name: spill_put
INSERT OR IGNORE INTO temp.attr_spill VALUES (?,?,?,?,?,?)

-- name: spill_get
SELECT launch_id, launch_ts, step, op_id, node FROM temp.attr_spill WHERE corr = ?

-- name: defer_put
INSERT INTO temp.attr_deferred VALUES (?,?,?)

-- name: set_gpu_range
UPDATE analysis_gpu_attribution SET gpu_annotation = ?
 WHERE slice_id = ? AND run_id = ? AND rank = ?

-- name: deferred
-- The GPU events scanned before their launcher, with the launcher's
-- context.
SELECT d.slice_id, d.dur, s.step, s.op_id, s.node FROM temp.attr_deferred d
 JOIN temp.attr_spill s ON s.corr = d.corr

-- name: set_deferred
UPDATE analysis_gpu_attribution SET step = ?, op_id = ?, op = ?, top_op = ?, annotation = ?,
 module = ? WHERE run_id = ? AND rank = ? AND slice_id = ?

-- name: add_range
INSERT OR FAIL INTO analysis_annotations_by_id VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)

-- name: range_gpu_time
-- Found as each row is made (an UPDATE afterwards rewrote 200,000 rows of
-- a trace with as many annotation names in 0.65 s).
SELECT sum(gpu_total_ns), sum(gpu_self_ns) FROM analysis_ops_by_id
 WHERE run_id = ?1 AND rank = ?2 AND name_id = ?3
 AND cat_id = (SELECT id FROM strings WHERE value = 'user_annotation')
