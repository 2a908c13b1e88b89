-- trace_steps.sql: the per-step and per-rank reports over traces: steps,
-- idle and ranks (report/trace_steps.c).
-- A query starts at "-- name: NAME" and is known to C as trace_steps.NAME
-- (common/query.h). ?1 is the run_id, ?2 the analysis mode ('exact', or
-- 'hta' with --compat hta). The *_require queries count what the report
-- needs; zero means it does not apply.

-- name: steps_require
SELECT count(*) FROM analysis_steps WHERE run_id = ?1

-- name: steps
-- Each ProfilerStep split into categories; start is relative to the rank's first step.
SELECT rank, step, ts - (SELECT min(ts) FROM analysis_steps a WHERE a.run_id = ?1
   AND a.rank = s.rank) AS start_ns, dur_ns, kernel_ns, memcpy_ns, memset_ns,
 runtime_ns, dataloader_ns, cpu_exec_ns, other_ns
 FROM analysis_steps s WHERE run_id = ?1 ORDER BY rank, ts

-- name: idle_require
SELECT count(*) FROM analysis_idle WHERE run_id = ?1

-- name: idle
SELECT rank, stream, events, host_wait_ns + kernel_wait_ns + other_ns AS idle_ns,
 host_wait_ns, kernel_wait_ns, other_ns,
 100.0 * host_wait_ns / nullif(host_wait_ns + kernel_wait_ns + other_ns, 0)
   AS host_wait_pct
 FROM analysis_idle WHERE run_id = ?1 AND mode = ?2 ORDER BY rank, stream

-- name: ranks_require
SELECT count(*) FROM traces WHERE run_id = ?1

-- name: ranks
-- Step and GPU time per rank; the slowest mean step is the straggler.
WITH r AS (SELECT t.rank,
   (SELECT count(*) FROM analysis_steps s WHERE s.run_id = ?1 AND s.rank = t.rank) AS steps,
   (SELECT avg(dur_ns) FROM analysis_steps s WHERE s.run_id = ?1 AND s.rank = t.rank)
     AS mean_step_ns,
   (SELECT busy_ns FROM analysis_gpu g WHERE g.run_id = ?1 AND g.rank = t.rank
     AND g.mode = 'exact') AS gpu_busy_ns,
   (SELECT idle_ns FROM analysis_gpu g WHERE g.run_id = ?1 AND g.rank = t.rank
     AND g.mode = 'exact') AS gpu_idle_ns
   FROM traces t WHERE t.run_id = ?1)
 SELECT rank, steps, mean_step_ns, gpu_busy_ns, gpu_idle_ns,
 100.0 * (mean_step_ns - min(mean_step_ns) OVER ()) / min(mean_step_ns) OVER ()
   AS vs_fastest_pct,
 CASE WHEN count(*) OVER () > 1 AND mean_step_ns = max(mean_step_ns) OVER ()
   THEN 'straggler' ELSE '' END AS note
 FROM r ORDER BY rank
