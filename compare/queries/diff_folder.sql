-- diff_folder.sql: `profdb diff BASE TEST --out DIR`: the summary and the
-- before/after charts of the folder (compare/diff_folder.c).
-- A query starts at "-- name: NAME" and is known to C as diff_folder.NAME
-- (common/query.h); a fragment is SQL that queries below pull in with
-- "-- include: NAME". The base run is in schema main (?1), the test run in
-- "{schema}" (?2): "main" or "tdb" (compare/queries.h). ?3 = rows to show.
-- Chart queries return a label column and one column per series (base,
-- test), in milliseconds, and a class that colours the row, as
-- render/chart.h expects. Kernel and op names are short (short_name(),
-- name_tag(): report/trace_sql.h), tagged where two share one; the CSV
-- tables keep the full names.

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
-- must have run), both runs side by side, the largest change first; a
-- phase neither run spends time in is left out.
SELECT metric, base_median_ns / 1e6 AS base, test_median_ns / 1e6 AS test, metric AS class
 FROM temp.pdb_diff_steps WHERE metric <> 'step_time'
 AND (coalesce(base_median_ns, 0) <> 0 OR coalesce(test_median_ns, 0) <> 0)
 ORDER BY abs(coalesce(test_median_ns, 0) - coalesce(base_median_ns, 0)) DESC, metric

-- fragment: kernels
b AS (SELECT name, sum(count) AS calls, sum(total_ns) AS ns, max(kernel_type) AS type
   FROM main.analysis_kernels WHERE run_id = ?1 AND mode = 'exact' GROUP BY name),
 t AS (SELECT name, sum(count) AS calls, sum(total_ns) AS ns, max(kernel_type) AS type
   FROM {schema}.analysis_kernels WHERE run_id = ?2 AND mode = 'exact' GROUP BY name),
 k AS (SELECT name FROM b UNION SELECT name FROM t),
 d AS (SELECT k.name, coalesce(b.calls, 0) AS base_calls, coalesce(t.calls, 0) AS test_calls,
   coalesce(b.ns, 0) AS base_ns, coalesce(t.ns, 0) AS test_ns,
   CASE coalesce(t.type, b.type) WHEN 'COMPUTATION' THEN 'compute'
     WHEN 'COMMUNICATION' THEN 'communication' WHEN 'MEMORY' THEN 'memory'
     ELSE lower(coalesce(t.type, b.type)) END AS class
   FROM k LEFT JOIN b USING (name) LEFT JOIN t USING (name))

-- fragment: ops
-- ProfilerStep#N ranges are steps, not ops (the steps comparison has them).
b AS (SELECT name, sum(count) AS calls, sum(self_ns) AS ns, max(cat) AS cat
   FROM main.analysis_ops WHERE run_id = ?1 AND name NOT GLOB 'ProfilerStep#*' GROUP BY name),
 t AS (SELECT name, sum(count) AS calls, sum(self_ns) AS ns, max(cat) AS cat
   FROM {schema}.analysis_ops WHERE run_id = ?2 AND name NOT GLOB 'ProfilerStep#*'
   GROUP BY name),
 k AS (SELECT name FROM b UNION SELECT name FROM t),
 d AS (SELECT k.name, coalesce(b.calls, 0) AS base_calls, coalesce(t.calls, 0) AS test_calls,
   coalesce(b.ns, 0) AS base_ns, coalesce(t.ns, 0) AS test_ns,
   CASE WHEN coalesce(t.cat, b.cat) GLOB '*_runtime' OR coalesce(t.cat, b.cat) GLOB '*_driver'
     THEN 'runtime' WHEN coalesce(t.cat, b.cat) = 'user_annotation' THEN 'annotation'
     WHEN coalesce(t.cat, b.cat) = 'python_function' THEN 'python' ELSE 'CPU op' END AS class
   FROM k LEFT JOIN b USING (name) LEFT JOIN t USING (name))

-- fragment: kernel_pairs
-- m: the kernels of d with renames paired. A kernel only the base ran and
-- one only the test ran that differ in nothing but template arguments and
-- addresses (name_shape(): report/trace_sql.h) are one kernel renamed, when
-- no other kernel gone or new has that shape: one row, named as in the
-- test, old its name in the base (NULL for the others). Two or more of one
-- shape are left apart (which is which cannot be told).
 , gone AS (SELECT name_shape(name) AS shape, min(name) AS name FROM d
   WHERE test_calls = 0 AND base_calls > 0 GROUP BY 1 HAVING count(*) = 1),
 new AS (SELECT name_shape(name) AS shape, min(name) AS name FROM d
   WHERE base_calls = 0 AND test_calls > 0 GROUP BY 1 HAVING count(*) = 1),
 pair AS (SELECT gone.name AS old, new.name AS new FROM gone JOIN new USING (shape)),
 m AS (SELECT name, base_calls, test_calls, base_ns, test_ns, class, NULL AS old FROM d
   WHERE name NOT IN (SELECT old FROM pair UNION ALL SELECT new FROM pair)
   UNION ALL SELECT p.new, o.base_calls, w.test_calls, o.base_ns, w.test_ns, w.class, p.old
   FROM pair p JOIN d o ON o.name = p.old JOIN d w ON w.name = p.new)

-- name: kernels_chart
-- The kernels whose total GPU time changed most, either way; a rename one
-- pair of bars, labelled as renamed, not "gone" and "new".
WITH
-- include: kernels
-- include: kernel_pairs
 , s AS (SELECT *, short_name(name) AS sname, short_name(old) AS sold FROM m),
 -- tagged among all names of both runs (a window after WHERE would see
 -- only the changed ones)
 n AS (SELECT *, sname || CASE WHEN count(*) OVER (PARTITION BY sname) > 1
   THEN ' [' || name_tag(name) || ']' ELSE '' END
   || CASE WHEN old IS NULL THEN ''
     WHEN sold = sname THEN ' (renamed: template arguments or addresses changed)'
     ELSE ' (renamed from ' || sold || ')' END AS shown FROM s)
SELECT shown AS kernel, base_ns / 1e6 AS base, test_ns / 1e6 AS test, class FROM n
 WHERE test_ns <> base_ns ORDER BY abs(test_ns - base_ns) DESC, name LIMIT ?3

-- name: kernels_top
-- The same kernels with their launches, for the summary (full names).
WITH
-- include: kernels
-- include: kernel_pairs
SELECT name || coalesce(' (renamed from ' || old || ')', ''), base_calls, test_calls, base_ns,
 test_ns FROM m WHERE test_ns <> base_ns ORDER BY abs(test_ns - base_ns) DESC, name LIMIT ?3

-- name: ops_chart
-- The CPU ops whose self time changed most (self times add up; totals of
-- nested ops would count a child inside its parent again). Annotations
-- are left out, as in the report's top-ops chart: their self time is the
-- time nothing under them ran, mostly waiting (the CSV has them).
WITH
-- include: ops
 , s AS (SELECT *, short_name(name) AS sname FROM d WHERE class <> 'annotation'),
 -- tagged among all names of both runs (a window after WHERE would see
 -- only the changed ones)
 n AS (SELECT *, sname || CASE WHEN count(*) OVER (PARTITION BY sname) > 1
   THEN ' [' || name_tag(name) || ']' ELSE '' END AS shown FROM s)
SELECT shown AS op, base_ns / 1e6 AS base, test_ns / 1e6 AS test, class FROM n
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
-- GPU time of all ranks by what it was spent on (the class colours it).
WITH
-- include: gpu
SELECT 'compute' AS part, b.compute / 1e6 AS base, t.compute / 1e6 AS test,
 'compute' AS class FROM b, t
 UNION ALL SELECT 'non-compute', b.non_compute / 1e6, t.non_compute / 1e6, 'non-compute'
 FROM b, t
 UNION ALL SELECT 'idle', b.idle / 1e6, t.idle / 1e6, 'idle' FROM b, t

-- name: gpu_top
WITH
-- include: gpu
SELECT b.busy, t.busy, b.idle, t.idle FROM b, t WHERE b.busy IS NOT NULL
 AND t.busy IS NOT NULL
