-- trace_ops.sql: the ops and annotations reports (report/trace_ops.c).
-- A query starts at "-- name: NAME" and is known to C as trace_ops.NAME
-- (common/query.h). ?1 is the run_id, ?2 the mode, ?3 --top N (-1: every
-- row), ?4 1 for short names (report/trace_sql.h).
--
-- CPU self times add up (each instant of a thread is one slice's self
-- time), so do GPU self times (each GPU event has at most one innermost op);
-- total times do not (a parent's total holds its children's). The 'others'
-- row therefore sums counts and self times, and leaves totals empty.
--
-- The two ops queries differ only in the input_dims column (--by-shape),
-- which a bound parameter cannot add or remove: they are written out twice
-- on purpose, and must stay alike.

-- name: ops
-- The top ?3 ops of each rank by CPU self time, then one 'others' row.
-- gpu_self: GPU time of events whose innermost op is this one; gpu_total:
-- with this one anywhere around the launch. Shown for ops (cpu_op, or no
-- category in legacy traces) only: annotations and modules hold the same
-- GPU time again (the annotations report and kernels --by show theirs).
WITH o AS (SELECT rank, name, cat, sum(count) AS count, sum(self_ns) AS cpu_self_ns,
   sum(total_ns) AS cpu_total_ns,
   CASE WHEN cat IS NULL OR cat = 'cpu_op' OR lower(cat) = 'operator' THEN sum(gpu_self_ns) END
     AS gpu_self_ns,
   CASE WHEN cat IS NULL OR cat = 'cpu_op' OR lower(cat) = 'operator' THEN sum(gpu_total_ns) END
     AS gpu_total_ns FROM analysis_ops WHERE run_id = ?1 GROUP BY rank, name, cat),
 g AS (SELECT rank, sum(total_ns) AS gpu_ns FROM analysis_kernels WHERE run_id = ?1
   AND mode = 'exact' GROUP BY rank),
 r AS (SELECT o.*, row_number() OVER (PARTITION BY o.rank ORDER BY cpu_self_ns DESC, name) AS n,
   100.0 * cpu_self_ns / sum(cpu_self_ns) OVER (PARTITION BY o.rank) AS cpu_self_pct,
   100.0 * gpu_self_ns / g.gpu_ns AS gpu_self_pct
   FROM o LEFT JOIN g ON g.rank = o.rank)
 SELECT rank, CASE WHEN ?4 THEN short_name(name) ELSE name END AS name, cat, count, cpu_self_ns,
   cpu_total_ns, cpu_self_pct, gpu_self_ns, gpu_total_ns, gpu_self_pct FROM (
   SELECT *, 0 AS others FROM r WHERE ?3 < 0 OR n <= ?3
   UNION ALL
   SELECT rank, 'others', NULL, sum(count), sum(cpu_self_ns), NULL, sum(gpu_self_ns), NULL, NULL,
     sum(cpu_self_pct), sum(gpu_self_pct), 1 FROM r WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)
 ORDER BY rank, others, cpu_self_ns DESC, name

-- name: ops_by_shape
-- As ops, one row per input shape (input_dims).
WITH o AS (SELECT rank, name, cat, input_dims, sum(count) AS count, sum(self_ns) AS cpu_self_ns,
   sum(total_ns) AS cpu_total_ns,
   CASE WHEN cat IS NULL OR cat = 'cpu_op' OR lower(cat) = 'operator' THEN sum(gpu_self_ns) END
     AS gpu_self_ns,
   CASE WHEN cat IS NULL OR cat = 'cpu_op' OR lower(cat) = 'operator' THEN sum(gpu_total_ns) END
     AS gpu_total_ns FROM analysis_ops WHERE run_id = ?1
   GROUP BY rank, name, cat, input_dims),
 g AS (SELECT rank, sum(total_ns) AS gpu_ns FROM analysis_kernels WHERE run_id = ?1
   AND mode = 'exact' GROUP BY rank),
 r AS (SELECT o.*, row_number() OVER (PARTITION BY o.rank ORDER BY cpu_self_ns DESC, name) AS n,
   100.0 * cpu_self_ns / sum(cpu_self_ns) OVER (PARTITION BY o.rank) AS cpu_self_pct,
   100.0 * gpu_self_ns / g.gpu_ns AS gpu_self_pct
   FROM o LEFT JOIN g ON g.rank = o.rank)
 SELECT rank, CASE WHEN ?4 THEN short_name(name) ELSE name END AS name, cat, input_dims, count,
   cpu_self_ns, cpu_total_ns, cpu_self_pct, gpu_self_ns, gpu_total_ns, gpu_self_pct FROM (
   SELECT *, 0 AS others FROM r WHERE ?3 < 0 OR n <= ?3
   UNION ALL
   SELECT rank, 'others', NULL, NULL, sum(count), sum(cpu_self_ns), NULL, sum(gpu_self_ns), NULL,
     NULL, sum(cpu_self_pct), sum(gpu_self_pct), 1 FROM r WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)
 ORDER BY rank, others, cpu_self_ns DESC, name

-- name: annotations_require
SELECT count(*) FROM analysis_annotations WHERE run_id = ?1 AND mode = ?2

-- name: annotations
-- record_function ranges per rank and name: how often, how long on the CPU,
-- what share of the ProfilerStep time they cover, the GPU time launched
-- inside them (kernel_self: where they are the innermost range), and the
-- same ranges as the GPU ran them (gpu_user_annotation) with the GPU time
-- they hold. The ProfilerStep#N ranges make one row, 'ProfilerStep#*',
-- whose GPU time is what was launched inside steps (self: in no other
-- range). Ranges nest, so the shares do not add up.
WITH steps AS (SELECT rank, sum(dur_ns) AS step_ns FROM analysis_steps WHERE run_id = ?1 GROUP BY rank),
 gpu AS (SELECT rank, sum(total_ns) AS gpu_ns FROM analysis_kernels WHERE run_id = ?1
   AND mode = 'exact' GROUP BY rank),
 a AS (SELECT rank, kind, CASE WHEN name GLOB 'ProfilerStep#*' THEN 'ProfilerStep#*' ELSE name END
   AS name, count, total_ns, kernel_ns, kernel_self_ns FROM analysis_annotations
   WHERE run_id = ?1 AND mode = 'exact'),
 st AS (SELECT rank, sum(dur_ns) AS kernel_ns, sum(CASE WHEN annotation IS NULL THEN dur_ns END)
   AS kernel_self_ns FROM analysis_gpu_attribution WHERE run_id = ?1 AND step IS NOT NULL
   GROUP BY rank),
 c AS (SELECT rank, name, sum(count) AS count, sum(total_ns) AS total_ns,
   sum(kernel_ns) AS kernel_ns, sum(kernel_self_ns) AS kernel_self_ns FROM a WHERE kind = 'cpu'
   GROUP BY rank, name),
 g AS (SELECT rank, name, sum(count) AS count, sum(total_ns) AS total_ns,
   sum(kernel_ns) AS kernel_ns FROM a WHERE kind = 'gpu' GROUP BY rank, name),
 names AS (SELECT rank, name FROM c UNION SELECT rank, name FROM g),
 r AS (SELECT n.rank, n.name, c.count, c.total_ns AS cpu_total_ns,
   1.0 * c.total_ns / c.count AS cpu_mean_ns, 100.0 * c.total_ns / s.step_ns AS step_pct,
   CASE WHEN n.name = 'ProfilerStep#*' THEN coalesce(st.kernel_ns, 0) ELSE c.kernel_ns END
     AS kernel_ns,
   CASE WHEN n.name = 'ProfilerStep#*' THEN coalesce(st.kernel_self_ns, 0) ELSE c.kernel_self_ns
     END AS kernel_self_ns,
   g.count AS gpu_ranges, g.total_ns AS gpu_range_ns, g.kernel_ns AS gpu_range_kernel_ns
   FROM names n LEFT JOIN c ON c.rank = n.rank AND c.name = n.name
   LEFT JOIN g ON g.rank = n.rank AND g.name = n.name
   LEFT JOIN steps s ON s.rank = n.rank LEFT JOIN st ON st.rank = n.rank),
 o AS (SELECT r.*, 100.0 * kernel_ns / u.gpu_ns AS kernel_pct,
   row_number() OVER (PARTITION BY r.rank ORDER BY coalesce(cpu_total_ns, 0) DESC,
     coalesce(gpu_range_ns, 0) DESC, name) AS i FROM r LEFT JOIN gpu u ON u.rank = r.rank)
 SELECT rank, name, count, cpu_total_ns, cpu_mean_ns, step_pct, kernel_ns, kernel_self_ns,
   kernel_pct, gpu_ranges, gpu_range_ns, gpu_range_kernel_ns
 FROM o WHERE ?3 < 0 OR i <= ?3 ORDER BY rank, i

-- name: annotations_hta
-- --compat hta: HTA's get_gpu_user_annotation_breakdown, CPU ranges
-- (use_gpu_annotation=False) and GPU ranges (True), on HTA's kept and
-- rounded events; for GPU ranges, the kernels get_gpu_kernels_with_
-- user_annotations gives them (count, time).
SELECT rank, kind, name, count, total_ns AS sum_ns, max_ns, min_ns, mean_ns, std_ns,
 kernels, kernel_ns
 FROM analysis_annotations WHERE run_id = ?1 AND mode = 'hta'
 ORDER BY rank, kind, name
