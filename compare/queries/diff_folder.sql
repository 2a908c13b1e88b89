-- diff_folder.sql: `profdb diff BASE TEST --out DIR`: the summary and the
-- before/after charts of the folder (compare/diff_folder.c).
-- A query starts at "-- name: NAME" and is known to C as diff_folder.NAME
-- (common/query.h); a fragment is SQL that queries below pull in with
-- "-- include: NAME". The base run is in schema main (?1), the test run in
-- "{schema}" (?2): "main" or "tdb" (compare/queries.h). ?3 = rows to show.
-- Chart queries return a label column and one column per series (base,
-- test), in milliseconds, as render/chart.c expects.

-- name: create_dist
-- Step-time samples of both runs, for the distribution chart.
CREATE TEMP TABLE IF NOT EXISTS pdb_diff_dist (i INTEGER, series TEXT, v REAL);
DELETE FROM temp.pdb_diff_dist

-- name: add_dist
INSERT INTO temp.pdb_diff_dist VALUES (?1, ?2, ?3)

-- name: dist_chart
SELECT i, series, v FROM temp.pdb_diff_dist ORDER BY i, series

-- name: phases_chart
-- Median per-step time of each phase (the steps comparison's rows; it
-- must have run), both runs side by side.
SELECT metric, base_median_ns / 1e6 AS base, test_median_ns / 1e6 AS test
 FROM temp.pdb_diff_steps WHERE metric <> 'step_time' ORDER BY metric

-- fragment: kernels
b AS (SELECT name, sum(count) AS calls, sum(total_ns) AS ns FROM main.analysis_kernels
   WHERE run_id = ?1 AND mode = 'exact' GROUP BY name),
 t AS (SELECT name, sum(count) AS calls, sum(total_ns) AS ns FROM {schema}.analysis_kernels
   WHERE run_id = ?2 AND mode = 'exact' GROUP BY name),
 k AS (SELECT name FROM b UNION SELECT name FROM t),
 d AS (SELECT k.name, coalesce(b.calls, 0) AS base_calls, coalesce(t.calls, 0) AS test_calls,
   coalesce(b.ns, 0) AS base_ns, coalesce(t.ns, 0) AS test_ns
   FROM k LEFT JOIN b USING (name) LEFT JOIN t USING (name))

-- fragment: ops
b AS (SELECT name, sum(count) AS calls, sum(self_ns) AS ns FROM main.analysis_ops
   WHERE run_id = ?1 GROUP BY name),
 t AS (SELECT name, sum(count) AS calls, sum(self_ns) AS ns FROM {schema}.analysis_ops
   WHERE run_id = ?2 GROUP BY name),
 k AS (SELECT name FROM b UNION SELECT name FROM t),
 d AS (SELECT k.name, coalesce(b.calls, 0) AS base_calls, coalesce(t.calls, 0) AS test_calls,
   coalesce(b.ns, 0) AS base_ns, coalesce(t.ns, 0) AS test_ns
   FROM k LEFT JOIN b USING (name) LEFT JOIN t USING (name))

-- name: kernels_chart
-- The kernels whose total GPU time changed most, either way.
WITH
-- include: kernels
SELECT name AS kernel, base_ns / 1e6 AS base, test_ns / 1e6 AS test FROM d
 WHERE test_ns <> base_ns ORDER BY abs(test_ns - base_ns) DESC, name LIMIT ?3

-- name: kernels_top
-- The same kernels with their launches, for the summary.
WITH
-- include: kernels
SELECT name, base_calls, test_calls, base_ns, test_ns FROM d
 WHERE test_ns <> base_ns ORDER BY abs(test_ns - base_ns) DESC, name LIMIT ?3

-- name: ops_chart
-- The CPU ops whose self time changed most (self times add up; totals of
-- nested ops would count a child inside its parent again).
WITH
-- include: ops
SELECT name AS op, base_ns / 1e6 AS base, test_ns / 1e6 AS test FROM d
 WHERE test_ns <> base_ns ORDER BY abs(test_ns - base_ns) DESC, name LIMIT ?3

-- name: ops_top
WITH
-- include: ops
SELECT name, base_calls, test_calls, base_ns, test_ns FROM d
 WHERE test_ns <> base_ns ORDER BY abs(test_ns - base_ns) DESC, name LIMIT ?3

-- fragment: gpu
b AS (SELECT sum(compute_ns) AS compute, sum(non_compute_ns) AS non_compute,
   sum(idle_ns) AS idle, sum(busy_ns) AS busy FROM main.analysis_gpu
   WHERE run_id = ?1 AND mode = 'exact'),
 t AS (SELECT sum(compute_ns) AS compute, sum(non_compute_ns) AS non_compute,
   sum(idle_ns) AS idle, sum(busy_ns) AS busy FROM {schema}.analysis_gpu
   WHERE run_id = ?2 AND mode = 'exact')

-- name: gpu_chart
-- GPU time of all ranks by what it was spent on.
WITH
-- include: gpu
SELECT 'compute' AS part, b.compute / 1e6 AS base, t.compute / 1e6 AS test FROM b, t
 UNION ALL SELECT 'non-compute', b.non_compute / 1e6, t.non_compute / 1e6 FROM b, t
 UNION ALL SELECT 'idle', b.idle / 1e6, t.idle / 1e6 FROM b, t

-- name: gpu_top
WITH
-- include: gpu
SELECT b.busy, t.busy, b.idle, t.idle FROM b, t WHERE b.busy IS NOT NULL
 AND t.busy IS NOT NULL
