-- charts.sql: the data of each chart of a report folder (report/charts.c
-- says which charts there are; render/chart.c draws them). Times in ms.
-- A query starts at "-- name: NAME" and is known to C as charts.NAME
-- (common/query.h); a fragment is SQL that queries below pull in with
-- "-- include: NAME". ?1 is the run_id, ?2 the number of bars (--top N).
--
-- The first column is the label. Stacked and bar charts have one column
-- per series, named after it; long-form charts (kernel_types, phase_steps,
-- gpu_util) give label, series, value rows. Rank charts end with a
-- straggler flag.

-- name: steps
SELECT CASE WHEN (SELECT count(DISTINCT rank) FROM analysis_steps WHERE run_id = ?1) > 1
   THEN 'r' || rank || ' ' ELSE '' END || coalesce('#' || step_num, step) AS step,
 kernel_ns / 1e6 AS kernel, memcpy_ns / 1e6 AS memcpy, memset_ns / 1e6 AS memset,
 runtime_ns / 1e6 AS runtime, dataloader_ns / 1e6 AS dataloader,
 cpu_exec_ns / 1e6 AS cpu_exec, other_ns / 1e6 AS other
 FROM analysis_steps WHERE run_id = ?1 ORDER BY rank, ts

-- name: gpu
SELECT 'rank ' || rank AS rank, compute_ns / 1e6 AS compute,
 non_compute_ns / 1e6 AS "non-compute", idle_ns / 1e6 AS idle
 FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact' ORDER BY rank

-- name: kernel_types
SELECT 'rank ' || rank, kernel_type, time_ns / 1e6 FROM analysis_kernel_types
 WHERE run_id = ?1 AND mode = 'exact'
 ORDER BY rank, sum(time_ns) OVER (PARTITION BY kernel_type) DESC, kernel_type

-- name: top_kernels
SELECT name AS kernel, sum(total_ns) / 1e6 AS "total time" FROM analysis_kernels
 WHERE run_id = ?1 AND mode = 'exact' GROUP BY name ORDER BY 2 DESC, name LIMIT ?2

-- name: top_ops
SELECT name AS op, sum(self_ns) / 1e6 AS "self time" FROM analysis_ops
 WHERE run_id = ?1 AND name NOT GLOB 'ProfilerStep#*' GROUP BY name
 ORDER BY 2 DESC, name LIMIT ?2

-- name: rank_steps
-- Mean step per rank; red only for a straggler by the ranks report's rule
-- (trace_steps.ranks: one-sided Mann-Whitney p * ranks below ?3 and a mean
-- step ?4 percent above the other ranks'). Keep the two alike.
WITH s AS (SELECT rank, dur_ns FROM analysis_steps WHERE run_id = ?1),
 pooled AS (SELECT rank, dur_ns, rank() OVER (ORDER BY dur_ns)
   + (count(*) OVER (PARTITION BY dur_ns) - 1) / 2.0 AS r FROM s),
 tot AS (SELECT count(*) AS n, sum(dur_ns) AS sum_ns, count(DISTINCT rank) AS ranks,
   (SELECT coalesce(sum(t * t * t - t), 0) FROM (SELECT count(*) AS t FROM s GROUP BY dur_ns))
   AS ties FROM s),
 per AS (SELECT rank, count(*) AS n1, sum(r) - count(*) * (count(*) + 1) / 2.0 AS u,
   sum(dur_ns) AS sum_ns, avg(dur_ns) AS mean_ns FROM pooled GROUP BY rank)
 SELECT 'rank ' || per.rank, mean_ns / 1e6 AS "mean step",
 coalesce(tot.ranks > 1 AND mann_whitney_p(u, n1, tot.n - n1, tot.ties) * tot.ranks < ?3
   AND 100.0 * (mean_ns - 1.0 * (tot.sum_ns - per.sum_ns) / (tot.n - n1))
     / (1.0 * (tot.sum_ns - per.sum_ns) / (tot.n - n1)) >= ?4, 0) AS straggler
 FROM per, tot ORDER BY per.rank

-- name: step_hist
SELECT step, dur_ns / 1e6 AS "step time" FROM analysis_steps WHERE run_id = ?1
 ORDER BY rank, ts

-- name: top_functions
SELECT std_name, ct * 1e3 AS cumtime, tt * 1e3 AS tottime FROM pstats_functions
 WHERE run_id = ?1 AND in_stats ORDER BY ct DESC, ord LIMIT ?2

-- fragment: steplog_phases
-- p: per-step phase times in seconds of the train split. Summary-block
-- values (total, mean, ...) are not per-step numbers. a: the aggregation
-- most of them carry (point values, interval means, ...).
p AS (SELECT step, coalesce(loader, '') AS loader, rank, metric, value, agg
  FROM steplog_values WHERE run_id = ?1 AND step IS NOT NULL AND value IS NOT NULL
  AND unit = 's' AND coalesce(split, 'train') = 'train'
  AND agg NOT IN ('total', 'mean', 'min', 'max', 'share', 'cumulative', 'epoch_total')
  AND metric IN (SELECT metric FROM steplog_metric_rules WHERE is_phase)),
 a AS (SELECT agg FROM p GROUP BY agg ORDER BY count(*) DESC LIMIT 1)

-- name: phase_steps
WITH
-- include: steplog_phases
 SELECT step, metric, avg(value) * 1e3 FROM p WHERE agg = (SELECT agg FROM a)
 AND metric <> 'step_time' GROUP BY step, metric ORDER BY step, metric

-- name: phase_hist
-- A step's time is its step_time when the log has one, else the sum of its phases.
WITH
-- include: steplog_phases
 , m AS (SELECT step, metric, avg(value) AS v FROM p WHERE agg = (SELECT agg FROM a)
   GROUP BY step, metric)
 SELECT step, 1e3 * CASE WHEN EXISTS (SELECT 1 FROM m WHERE metric = 'step_time')
   THEN max(CASE WHEN metric = 'step_time' THEN v END)
   ELSE sum(v) END AS "step time"
 FROM m GROUP BY step HAVING "step time" IS NOT NULL ORDER BY step

-- name: phase_ranks
WITH
-- include: steplog_phases
 , m AS (SELECT rank, step, metric, avg(value) AS v FROM p WHERE agg = (SELECT agg FROM a)
   AND rank IS NOT NULL GROUP BY rank, step, metric),
 s AS (SELECT rank, step, CASE WHEN EXISTS (SELECT 1 FROM m WHERE metric = 'step_time')
   THEN max(CASE WHEN metric = 'step_time' THEN v END) ELSE sum(v) END AS t
   FROM m GROUP BY rank, step),
 r AS (SELECT rank, avg(t) * 1e3 AS ms FROM s WHERE t IS NOT NULL GROUP BY rank)
 SELECT 'rank ' || rank, ms AS "mean step", ms = max(ms) OVER () AS straggler
 FROM r ORDER BY rank

-- name: gpu_util
-- x is numeric (seconds since the first sample), written unquoted: gnuplot
-- reads no numbers from quoted fields.
WITH u AS (SELECT wall_time AS t, coalesce(rank, 0) AS gpu, value FROM steplog_values
   WHERE run_id = ?1 AND metric = 'gpu_util' AND wall_time IS NOT NULL)
 SELECT printf('%.3f', t - (SELECT min(t) FROM u)), 'GPU ' || gpu, value FROM u
 ORDER BY t, gpu

-- name: critical_path
-- The critical path of each iteration split by what bounds it (ms), from
-- temp.cp_bounds (report/trace_critical.c fills it first); dependency and
-- sync edges weigh nothing and are left out.
SELECT CASE WHEN (SELECT count(DISTINCT rank) FROM cp_bounds) > 1
   THEN 'rank ' || b.rank || ' ' ELSE '' END || coalesce(w.name, 'step ' || b.instance),
 b.name, b.duration_ns / 1e6 FROM cp_bounds b
 LEFT JOIN cp_windows w ON w.rank = b.rank AND w.instance = b.instance
 WHERE b.kind = 'bound' AND b.name <> '' ORDER BY b.rank, b.instance, b.name

-- name: queue_length
-- The CUDA launch queue of each stream over time (exact mode: every kernel,
-- copy and set with a launch): its largest value in each of 400 intervals.
WITH q AS (SELECT a.rank, g.pid, g.stream, l.ts AS t, 1 AS d, 0 AS k, a.slice_id AS id
   FROM analysis_gpu_attribution a JOIN slices g ON g.id = a.slice_id
   JOIN slices l ON l.id = a.launch_id
   WHERE a.run_id = ?1 AND coalesce(g.cat, 0) IN (SELECT id FROM strings WHERE value IN
     ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events') UNION ALL SELECT 0)),
 pts AS (SELECT * FROM q UNION ALL SELECT rank, pid, stream,
   (SELECT ts FROM slices WHERE id = q.id), -1, 1, id FROM q),
 v AS (SELECT rank, pid, stream, t, sum(d) OVER (PARTITION BY rank, pid, stream
   ORDER BY t, k, id ROWS UNBOUNDED PRECEDING) AS ql FROM pts),
 r AS (SELECT min(t) AS t0, max(max(t) - min(t), 1) AS span FROM v),
 b AS (SELECT rank, pid, stream, CAST((t - t0) * 400 / span AS INTEGER) AS bucket,
   max(ql) AS ql FROM v, r GROUP BY rank, pid, stream, bucket)
 SELECT printf('%.3f', bucket * span / 400.0 / 1e6),
 CASE WHEN (SELECT count(DISTINCT rank) FROM b) > 1 THEN 'rank ' || rank || ' ' ELSE '' END
   || 'stream ' || stream, ql FROM b, r ORDER BY bucket, rank, pid, stream

-- name: memory_bw
-- Memory bandwidth per kind over time (GB/s), from temp.memory_bw
-- (report/trace_series.c fills it first): the largest in each of 400
-- intervals.
WITH r AS (SELECT min(ts) AS t0, max(max(ts) - min(ts), 1) AS span FROM memory_bw),
 b AS (SELECT rank, name, CAST((ts - t0) * 400 / span AS INTEGER) AS bucket,
   max(bw_gbps) AS bw FROM memory_bw, r GROUP BY rank, name, bucket)
 SELECT printf('%.3f', bucket * span / 400.0 / 1e6),
 CASE WHEN (SELECT count(DISTINCT rank) FROM b) > 1 THEN 'rank ' || rank || ' ' ELSE '' END
   || name, bw FROM b, r ORDER BY bucket, rank, name

-- name: memory
-- Allocated and reserved memory per device over time (MB; the largest in
-- each of 400 intervals), from the [memory] events, and the peak of
-- allocated memory as a marked point (analysis_memory_peaks).
WITH m AS (SELECT t.rank, i.ts,
   json_extract(i.args, '$."Total Allocated"') AS a, json_extract(i.args, '$."Total Reserved"') AS r,
   CASE json_extract(i.args, '$."Device Type"') WHEN 0 THEN 'cpu'
     ELSE 'cuda:' || json_extract(i.args, '$."Device Id"') END AS dev
   FROM instants i JOIN traces t USING (trace_id) WHERE t.run_id = ?1
   AND i.name = (SELECT id FROM strings WHERE value = '[memory]')),
 r AS (SELECT min(ts) AS t0, max(max(ts) - min(ts), 1) AS span FROM m),
 b AS (SELECT rank, dev, CAST((ts - t0) * 400 / span AS INTEGER) AS bucket,
   max(a) AS a, max(r) AS r FROM m, r GROUP BY rank, dev, bucket),
 p AS (SELECT k.rank, CASE k.device_type WHEN 0 THEN 'cpu' ELSE 'cuda:' || k.device_id END AS dev,
   k.peak_ts, k.peak_allocated_bytes FROM analysis_memory_peaks k
   WHERE k.run_id = ?1 AND k.step IS NULL),
 rows AS (SELECT bucket * span / 400.0 AS x, rank, dev, 'allocated' AS what, a AS v FROM b, r
   UNION ALL SELECT bucket * span / 400.0, rank, dev, 'reserved', r FROM b, r WHERE r > 0
   UNION ALL SELECT p.peak_ts - r.t0, rank, dev, 'peak allocated', peak_allocated_bytes FROM p, r)
 SELECT printf('%.3f', x / 1e6), what || ' ' ||
 CASE WHEN (SELECT count(DISTINCT rank) FROM b) > 1 THEN 'rank ' || rank || ' ' ELSE '' END || dev,
 v / 1048576.0 FROM rows ORDER BY x, rank, dev, what

-- name: gpu_events
-- Whether the run has GPU events (the critical-path chart needs them).
SELECT coalesce(sum(gpu_events), 0) FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact'
