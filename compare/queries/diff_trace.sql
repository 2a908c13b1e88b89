-- diff_trace.sql: `profdb diff BASE TEST ops|kernels|kernel-types|gpu`
-- (compare/diff_trace.c).
-- A query starts at "-- name: NAME" and is known to C as diff_trace.NAME
-- (common/query.h); a fragment is SQL that queries below pull in with
-- "-- include: NAME". The base run is in schema main (?1), the test run in
-- "{schema}" (?2): "main" or "tdb" (compare/queries.h). ?3 = 1 matches
-- kernels on pdb_kernel_key(name) (--normalize-names), ?4 = the number of
-- rows (-1: all).
--
-- Each query totals one kind per name on each side (b, t), joins the names
-- of both (k) and sorts by the absolute change of the total. The fragments
-- keep the change columns and the order the same for every kind.

-- fragment: total_columns
 b.total_ns AS base_total_ns, t.total_ns AS test_total_ns,
 coalesce(t.total_ns, 0) - coalesce(b.total_ns, 0) AS change_ns,
 CASE WHEN b.total_ns > 0 THEN round(100.0 * (coalesce(t.total_ns, 0)
 - b.total_ns) / b.total_ns, 2) END AS change_pct

-- fragment: by_change
 FROM k LEFT JOIN b ON b.key = k.key LEFT JOIN t ON t.key = k.key
 ORDER BY abs(coalesce(t.total_ns, 0) - coalesce(b.total_ns, 0)) DESC,
 k.key LIMIT ?4

-- name: ops
-- CPU ops, all ranks and shapes.
WITH b AS (SELECT name AS key, sum(count) AS calls, sum(total_ns) AS total_ns,
   sum(self_ns) AS self_ns FROM main.analysis_ops WHERE run_id = ?1 GROUP BY name),
 t AS (SELECT name AS key, sum(count) AS calls, sum(total_ns) AS total_ns,
   sum(self_ns) AS self_ns FROM {schema}.analysis_ops WHERE run_id = ?2 GROUP BY name),
 k AS (SELECT key FROM b UNION SELECT key FROM t)
 SELECT k.key AS op, CASE WHEN b.key IS NULL THEN 'test'
 WHEN t.key IS NULL THEN 'base' ELSE '' END AS only_in,
 b.calls AS base_calls, t.calls AS test_calls,
-- include: total_columns
 , b.self_ns AS base_self_ns, t.self_ns AS test_self_ns,
 coalesce(t.self_ns, 0) - coalesce(b.self_ns, 0) AS self_change_ns
-- include: by_change

-- name: kernels
-- GPU kernels, all ranks.
WITH b AS (SELECT pdb_kernel_key(name, ?3) AS key, sum(count) AS calls,
   sum(total_ns) AS total_ns FROM main.analysis_kernels
   WHERE run_id = ?1 AND mode = 'exact' GROUP BY 1),
 t AS (SELECT pdb_kernel_key(name, ?3) AS key, sum(count) AS calls,
   sum(total_ns) AS total_ns FROM {schema}.analysis_kernels
   WHERE run_id = ?2 AND mode = 'exact' GROUP BY 1),
 k AS (SELECT key FROM b UNION SELECT key FROM t)
 SELECT k.key AS kernel, CASE WHEN b.key IS NULL THEN 'test'
 WHEN t.key IS NULL THEN 'base' ELSE '' END AS only_in,
 b.calls AS base_calls, t.calls AS test_calls,
-- include: total_columns
-- include: by_change

-- name: kernel_types
-- GPU time by kernel type, all ranks.
WITH b AS (SELECT kernel_type AS key, sum(time_ns) AS total_ns FROM main.analysis_kernel_types
   WHERE run_id = ?1 AND mode = 'exact' GROUP BY kernel_type),
 t AS (SELECT kernel_type AS key, sum(time_ns) AS total_ns FROM {schema}.analysis_kernel_types
   WHERE run_id = ?2 AND mode = 'exact' GROUP BY kernel_type),
 k AS (SELECT key FROM b UNION SELECT key FROM t)
 SELECT k.key AS kernel_type, CASE WHEN b.key IS NULL THEN 'test'
 WHEN t.key IS NULL THEN 'base' ELSE '' END AS only_in,
-- include: total_columns
-- include: by_change

-- name: gpu
-- The GPU time breakdown, all ranks: its columns as rows, so they join and
-- sort like names.
WITH b AS (SELECT column1 AS key, column2 AS total_ns FROM (VALUES
 ('kernel_time', (SELECT sum(kernel_time_ns) FROM main.analysis_gpu
   WHERE run_id = ?1 AND mode = 'exact')),
 ('busy', (SELECT sum(busy_ns) FROM main.analysis_gpu WHERE run_id = ?1 AND mode = 'exact')),
 ('idle', (SELECT sum(idle_ns) FROM main.analysis_gpu WHERE run_id = ?1 AND mode = 'exact')),
 ('compute', (SELECT sum(compute_ns) FROM main.analysis_gpu WHERE run_id = ?1 AND mode = 'exact')),
 ('non_compute', (SELECT sum(non_compute_ns) FROM main.analysis_gpu
   WHERE run_id = ?1 AND mode = 'exact')),
 ('communication', (SELECT sum(comm_ns) FROM main.analysis_gpu
   WHERE run_id = ?1 AND mode = 'exact')),
 ('comm_comp_overlap', (SELECT sum(comm_comp_overlap_ns) FROM main.analysis_gpu
   WHERE run_id = ?1 AND mode = 'exact'))) WHERE column2 IS NOT NULL),
 t AS (SELECT column1 AS key, column2 AS total_ns FROM (VALUES
 ('kernel_time', (SELECT sum(kernel_time_ns) FROM {schema}.analysis_gpu
   WHERE run_id = ?2 AND mode = 'exact')),
 ('busy', (SELECT sum(busy_ns) FROM {schema}.analysis_gpu WHERE run_id = ?2 AND mode = 'exact')),
 ('idle', (SELECT sum(idle_ns) FROM {schema}.analysis_gpu WHERE run_id = ?2 AND mode = 'exact')),
 ('compute', (SELECT sum(compute_ns) FROM {schema}.analysis_gpu WHERE run_id = ?2 AND mode = 'exact')),
 ('non_compute', (SELECT sum(non_compute_ns) FROM {schema}.analysis_gpu
   WHERE run_id = ?2 AND mode = 'exact')),
 ('communication', (SELECT sum(comm_ns) FROM {schema}.analysis_gpu
   WHERE run_id = ?2 AND mode = 'exact')),
 ('comm_comp_overlap', (SELECT sum(comm_comp_overlap_ns) FROM {schema}.analysis_gpu
   WHERE run_id = ?2 AND mode = 'exact'))) WHERE column2 IS NOT NULL),
 k AS (SELECT key FROM b UNION SELECT key FROM t)
 SELECT k.key AS metric, CASE WHEN b.key IS NULL THEN 'test'
 WHEN t.key IS NULL THEN 'base' ELSE '' END AS only_in,
-- include: total_columns
-- include: by_change
