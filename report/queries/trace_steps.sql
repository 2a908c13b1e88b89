-- trace_steps.sql: the per-step and per-rank reports over traces: steps,
-- idle and ranks (report/trace_steps.c).
-- A query starts at "-- name: NAME" and is known to C as trace_steps.NAME
-- (common/query.h). ?1 is the run_id, ?2 the analysis mode ('exact', or
-- 'hta' with --compat hta). The *_require queries count what the report
-- needs; zero means it does not apply.

-- name: steps_require
SELECT count(*) FROM analysis_steps WHERE run_id = ?1

-- name: steps
-- Each ProfilerStep split into categories; start is relative to the rank's first step
-- (a window over the rank, not a subquery per row: the key is (run, rank, step name),
-- so that subquery scanned the rank's steps once per step).
SELECT rank, step, ts - min(ts) OVER (PARTITION BY rank) AS start_ns, dur_ns, kernel_ns,
 memcpy_ns, memset_ns,
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
-- Step and GPU time per rank, and whether a rank is a straggler. The rule:
-- a rank is a straggler when its ProfilerStep times are longer than the
-- other ranks' steps by a one-sided Mann-Whitney U test at level ?6 (with a
-- Bonferroni correction: each rank is tested, so p * ranks < ?6) and its
-- mean step is at least ?7 percent above the other ranks' mean. With too
-- few steps the test cannot reach the level at all (mann_whitney_min_p, by
-- the test's own method: exact, or the normal approximation's floor):
-- the note says so instead of guessing. p_value is the test's one-sided
-- p-value, vs_others_pct the mean step against the other ranks' mean.
WITH s AS (SELECT rank, dur_ns FROM analysis_steps WHERE run_id = ?1),
 pooled AS (SELECT rank, dur_ns, rank() OVER (ORDER BY dur_ns)
   + (count(*) OVER (PARTITION BY dur_ns) - 1) / 2.0 AS r FROM s),
 tot AS (SELECT count(*) AS n, sum(dur_ns) AS sum_ns, count(DISTINCT rank) AS ranks,
   (SELECT coalesce(sum(t * t * t - t), 0) FROM (SELECT count(*) AS t FROM s GROUP BY dur_ns))
   AS ties FROM s),
 per AS (SELECT rank, count(*) AS n1, sum(r) - count(*) * (count(*) + 1) / 2.0 AS u,
   sum(dur_ns) AS sum_ns, avg(dur_ns) AS mean_ns FROM pooled GROUP BY rank),
 test AS (SELECT per.*, tot.n - n1 AS n2, tot.ranks,
   1.0 * (tot.sum_ns - per.sum_ns) / nullif(tot.n - n1, 0) AS others_ns,
   mann_whitney_p(u, n1, tot.n - n1, tot.ties) AS p,
   mann_whitney_min_p(n1, tot.n - n1, tot.ties) AS min_p FROM per, tot),
 r AS (SELECT t.rank,
   (SELECT n1 FROM test WHERE test.rank = t.rank) AS steps,
   (SELECT mean_ns FROM test WHERE test.rank = t.rank) AS mean_step_ns,
   (SELECT busy_ns FROM analysis_gpu g WHERE g.run_id = ?1 AND g.rank = t.rank
     AND g.mode = 'exact') AS gpu_busy_ns,
   (SELECT idle_ns FROM analysis_gpu g WHERE g.run_id = ?1 AND g.rank = t.rank
     AND g.mode = 'exact') AS gpu_idle_ns,
   (SELECT 100.0 * (mean_ns - others_ns) / others_ns FROM test WHERE test.rank = t.rank)
     AS vs_others_pct,
   (SELECT p FROM test WHERE test.rank = t.rank) AS p_value,
   (SELECT min_p * ranks FROM test WHERE test.rank = t.rank) AS min_p,
   (SELECT ranks FROM test WHERE test.rank = t.rank) AS ranks
   FROM traces t WHERE t.run_id = ?1)
 SELECT rank, steps, mean_step_ns, gpu_busy_ns, gpu_idle_ns, vs_others_pct, p_value,
 CASE WHEN ranks IS NULL OR ranks < 2 THEN ''
   WHEN p_value * ranks < ?6 AND vs_others_pct >= ?7 THEN 'straggler'
   WHEN min_p >= ?6 THEN 'too few steps to test'
   ELSE '' END AS note
 FROM r ORDER BY rank
