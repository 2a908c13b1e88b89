-- steplog_gpu.sql: the `gpu-util` report over nvidia-smi logs
-- (report/steplog_gpu.c).
-- A query starts at "-- name: NAME" and is known to C as steplog_gpu.NAME
-- (common/query.h). ?1 is the run_id.

-- name: per_gpu
-- Energy: each power sample held until the next sample of the same GPU.
WITH s AS (SELECT coalesce(rank, 0) AS gpu, wall_time AS t, metric, value
   FROM steplog_values WHERE run_id = ?1 AND wall_time IS NOT NULL
   AND metric IN ('gpu_util', 'gpu_mem_util', 'gpu_mem_used', 'power')),
 p AS (SELECT gpu, t, value AS w,
   lead(t) OVER (PARTITION BY gpu ORDER BY t) AS t_next FROM s
   WHERE metric = 'power' AND value IS NOT NULL),
 e AS (SELECT gpu, sum(w * (t_next - t)) AS ws FROM p WHERE t_next IS NOT NULL
   GROUP BY gpu)
 SELECT s.gpu, count(DISTINCT s.t) AS samples,
  (max(s.t) - min(s.t)) * 1e9 AS duration_ns,
  avg(CASE WHEN s.metric = 'gpu_util' THEN s.value END) AS util_mean_pct,
  max(CASE WHEN s.metric = 'gpu_util' THEN s.value END) AS util_max_pct,
  avg(CASE WHEN s.metric = 'gpu_util' THEN (s.value = 0) END) * 100 AS idle_samples_pct,
  avg(CASE WHEN s.metric = 'gpu_mem_util' THEN s.value END) AS mem_util_mean_pct,
  max(CASE WHEN s.metric = 'gpu_mem_used' THEN s.value END) / 1048576.0
   AS mem_used_max_mib,
  avg(CASE WHEN s.metric = 'power' THEN s.value END) AS power_mean_w,
  e.ws AS energy_ws, e.ws / 3.6e6 AS energy_kwh
 FROM s LEFT JOIN e USING (gpu) GROUP BY s.gpu ORDER BY s.gpu

-- name: has_step_times
-- 1 when the run holds both utilisation samples and timed step records.
SELECT EXISTS (SELECT 1 FROM steplog_values WHERE run_id = ?1
 AND metric = 'gpu_util' AND wall_time IS NOT NULL)
 AND EXISTS (SELECT 1 FROM steplog_values WHERE run_id = ?1
 AND step IS NOT NULL AND wall_time IS NOT NULL AND metric <> 'gpu_util')

-- name: per_step
-- Steps and samples merged in time order; a running count of steps puts
-- each sample in the interval that ends at the next step (a sort, no
-- quadratic join).
WITH steps AS (SELECT step, min(wall_time) AS t FROM steplog_values
   WHERE run_id = ?1 AND step IS NOT NULL AND wall_time IS NOT NULL
   AND metric NOT IN ('gpu_util', 'gpu_mem_util', 'gpu_mem_used', 'power') GROUP BY step),
 g AS (SELECT wall_time AS t, value FROM steplog_values WHERE run_id = ?1
   AND metric = 'gpu_util' AND wall_time IS NOT NULL AND value IS NOT NULL),
 merged AS (SELECT t, 1 AS is_step, NULL AS u FROM steps
   UNION ALL SELECT t, 0, value FROM g),
 counted AS (SELECT u, is_step, sum(is_step) OVER (ORDER BY t, is_step
   ROWS UNBOUNDED PRECEDING) AS k FROM merged),
 numbered AS (SELECT step, t, row_number() OVER (ORDER BY t) AS k FROM steps)
 SELECT cur.step, (cur.t - prev.t) * 1e9 AS duration_ns, count(*) AS samples,
  avg(c.u) AS util_mean_pct, min(c.u) AS util_min_pct
 FROM counted c JOIN numbered cur ON cur.k = c.k + 1 JOIN numbered prev ON prev.k = c.k
 WHERE c.is_step = 0 GROUP BY cur.step ORDER BY cur.t
