-- trace_gpu.sql: the GPU reports over the trace analysis tables: gpu,
-- kernel-types and kernels (report/trace_gpu.c).
-- A query starts at "-- name: NAME" and is known to C as trace_gpu.NAME
-- (common/query.h). ?1 is the run_id, ?2 the analysis mode ('exact', or
-- 'hta' with --compat hta), ?3 --top N (-1: every row).

-- name: require
-- Whether the run has GPU events at all (the GPU reports need them).
SELECT count(*) FROM analysis_gpu WHERE run_id = ?1 AND mode = ?2

-- name: gpu
SELECT rank, kernel_time_ns, idle_ns, compute_ns, non_compute_ns,
 100.0 * idle_ns / kernel_time_ns AS idle_pct,
 100.0 * compute_ns / kernel_time_ns AS compute_pct,
 100.0 * non_compute_ns / kernel_time_ns AS non_compute_pct,
 CASE WHEN comm_ns > 0 THEN 100.0 * comm_comp_overlap_ns / comm_ns END
   AS comm_comp_overlap_pct,
 gpu_events
 FROM analysis_gpu WHERE run_id = ?1 AND mode = ?2 ORDER BY rank

-- name: kernel_types
SELECT rank, kernel_type, time_ns,
 100.0 * time_ns / sum(time_ns) OVER (PARTITION BY rank) AS share_pct
 FROM analysis_kernel_types WHERE run_id = ?1 AND mode = ?2
 ORDER BY rank, time_ns DESC, kernel_type

-- name: kernels
-- The top ?3 kernels of each rank, then one 'others' row for the rest.
WITH k AS (SELECT rank, name, kernel_type, count, total_ns, mean_ns, min_ns, max_ns,
   std_ns, 100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank) AS share_pct,
   row_number() OVER (PARTITION BY rank ORDER BY total_ns DESC, name) AS n
   FROM analysis_kernels WHERE run_id = ?1 AND mode = ?2)
 SELECT rank, name, kernel_type, count, total_ns, mean_ns, min_ns, max_ns, std_ns,
   share_pct FROM (
   SELECT *, 0 AS others FROM k WHERE ?3 < 0 OR n <= ?3
   UNION ALL
   SELECT rank, 'others', NULL, sum(count), sum(total_ns),
     1.0 * sum(total_ns) / sum(count), min(min_ns), max(max_ns), NULL, sum(share_pct),
     NULL, 1 FROM k WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)
 ORDER BY rank, others, total_ns DESC, name
