-- launchers.sql: the CPU-side events that launch GPU work, and how many
-- GPU events each launches (analyze/launchers.c). A query starts at
-- "-- name: NAME" and is known to C as launchers.NAME (common/query.h).

-- name: cpu_categories
-- The string ids of the CPU-side categories, PDB_CPU_CATEGORIES
-- (analyze.h): at most one id each (strings.value is unique).
SELECT id FROM strings WHERE value IN
 ('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op', 'user_annotation', 'python_function')

-- name: create_launchers
-- Launchers past common/bounds.h's bound, in start order, found by key
-- when starts tie. Made before any query runs, even if it stays empty: a
-- schema change during the read (or the scan) would abort it.
CREATE TEMP TABLE IF NOT EXISTS scan_launchers (ts INTEGER NOT NULL, id INTEGER NOT NULL,
 gpu INTEGER NOT NULL, PRIMARY KEY (ts, id)) WITHOUT ROWID;
DELETE FROM temp.scan_launchers

-- name: correlated
-- ?1 = the trace: its events with a correlation, grouped by it.
SELECT correlation, ts, id, cat, stream FROM slices
 WHERE trace_id = ?1 AND correlation IS NOT NULL ORDER BY correlation

-- name: add_launcher
-- One row; a batch of them goes in one statement (analyze/batch.h).
INSERT OR FAIL INTO temp.scan_launchers VALUES (?,?,?)

-- name: ordered
SELECT ts, id, gpu FROM temp.scan_launchers ORDER BY ts, id

-- name: by_id
SELECT gpu FROM temp.scan_launchers WHERE ts = ? AND id = ?
