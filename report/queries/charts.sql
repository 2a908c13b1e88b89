-- charts.sql: the data of each chart of a report folder (report/charts.c
-- says which charts there are; render/chart.c draws them). Times in ms.
-- A query starts at "-- name: NAME" and is known to C as charts.NAME
-- (common/query.h); a fragment is SQL that queries below pull in with
-- "-- include: NAME". ?1 is the run_id, ?2 the number of bars (--top N).
--
-- The first column is the label. Stacked and bar charts have one column
-- per series, named after it, and may end with share_pct and class
-- (render/chart.h); long-form charts (kernel_types, phase_steps, gpu_util)
-- give label, series, value rows. Rank charts end with a straggler flag;
-- ?3 and ?4 are the straggler test's level and minimum effect; per-rank
-- charts draw every rank up to ?5 ranks, else the ranks rank_pick picks by
-- ?6 and ?7 (rank-spread's outlier rule). Kernel and
-- op names are short (short_name(), name_tag(): report/trace_sql.h); the
-- CSV tables keep the full names.

-- fragment: rank_pick
-- The ranks a per-rank chart draws, over val(rank, value): every rank when
-- there are at most ?5; more (a job of 1,024 ranks is not 1,024 readable
-- bars), the ranks at the minimum, 10th percentile, median, 90th percentile
-- and maximum of value (nearest rank) and the ranks above the others as
-- rank-spread names them (more than ?6 median absolute deviations and at
-- least ?7 percent above the median; the ten highest), each labelled with
-- what it is ("rank 617 (max, outlier)"). picked(rank, label, o): o orders
-- them, by rank when all are drawn, else by value.
 po AS (SELECT rank, value, row_number() OVER (ORDER BY value, rank) AS i,
   count(*) OVER () AS n FROM val),
 pm AS (SELECT max(CASE WHEN i = (n + 1) / 2 THEN value END) AS med, max(n) AS n FROM po),
 pd AS (SELECT abs(po.value - pm.med) AS dev,
   row_number() OVER (ORDER BY abs(po.value - pm.med), po.rank) AS j FROM po, pm),
 pmad AS (SELECT max(CASE WHEN pd.j = (pm.n + 1) / 2 THEN pd.dev END) AS mad FROM pd, pm),
 ptag AS (SELECT po.rank, po.i, pm.n AS n_all, CASE WHEN po.i = 1 THEN 'min'
   WHEN po.i = po.n THEN 'max' WHEN po.i = (po.n + 9) / 10 THEN 'p10'
   WHEN po.i = (po.n + 1) / 2 THEN 'median' WHEN po.i = (9 * po.n + 9) / 10 THEN 'p90' END AS q,
   po.value > pm.med + ?6 * pmad.mad AND po.value >= pm.med * (1 + ?7 / 100.0)
   AND po.value > pm.med AND po.n - po.i < 10 AS high
   FROM po, pm, pmad),
 picked AS (SELECT rank, CASE WHEN n_all <= ?5 THEN 'rank ' || rank ELSE 'rank ' || rank || ' ('
   || CASE WHEN q IS NULL THEN 'outlier' WHEN high THEN q || ', outlier' ELSE q END || ')' END
   AS label, CASE WHEN n_all <= ?5 THEN rank ELSE i END AS o
   FROM ptag WHERE n_all <= ?5 OR q IS NOT NULL OR high)

-- name: steps
-- One column per rank and step; with more than 40 of them and several
-- ranks, one per step, the mean over the ranks (rank-steps shows ranks).
WITH s AS (SELECT * FROM analysis_steps WHERE run_id = ?1),
 n AS (SELECT count(DISTINCT rank) AS ranks, count(*) AS cols FROM s)
SELECT step, kernel, memcpy, memset, runtime, dataloader, cpu_exec, other FROM (
 SELECT CASE WHEN ranks > 1 THEN 'r' || rank || ' ' ELSE '' END
   || coalesce('#' || step_num, step) AS step, rank AS r, ts AS k,
  kernel_ns / 1e6 AS kernel, memcpy_ns / 1e6 AS memcpy, memset_ns / 1e6 AS memset,
  runtime_ns / 1e6 AS runtime, dataloader_ns / 1e6 AS dataloader,
  cpu_exec_ns / 1e6 AS cpu_exec, other_ns / 1e6 AS other
  FROM s, n WHERE ranks = 1 OR cols <= 40
 UNION ALL
 SELECT coalesce('#' || step_num, step), 0, coalesce(step_num, min(ts)),
  avg(kernel_ns) / 1e6, avg(memcpy_ns) / 1e6, avg(memset_ns) / 1e6, avg(runtime_ns) / 1e6,
  avg(dataloader_ns) / 1e6, avg(cpu_exec_ns) / 1e6, avg(other_ns) / 1e6
  FROM s, n WHERE ranks > 1 AND cols > 40 GROUP BY coalesce(step_num, step))
 ORDER BY r, k

-- name: gpu
-- Parts of each rank's span: compute, non-compute and idle add up to it.
-- (The label is not called rank: ORDER BY rank would sort it as text.)
-- More than ?5 ranks: the ranks rank_pick picks by busy time (compute and
-- non-compute).
WITH g AS (SELECT * FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact'),
 val AS (SELECT rank, compute_ns + non_compute_ns AS value FROM g),
-- include: rank_pick
SELECT picked.label, compute_ns / 1e6 AS compute,
 non_compute_ns / 1e6 AS "non-compute", idle_ns / 1e6 AS idle
 FROM g JOIN picked USING (rank) ORDER BY picked.o

-- name: kernel_types
-- HTA's kernel types in words: compute, communication, memory, and the
-- time two or three overlap ("compute + communication"); in that order.
-- More than ?5 ranks: the ranks rank_pick picks by busy time (the sum of
-- the rank's rows), as the gpu chart does.
WITH val AS (SELECT rank, sum(time_ns) AS value FROM analysis_kernel_types
   WHERE run_id = ?1 AND mode = 'exact' GROUP BY rank),
-- include: rank_pick
SELECT picked.label, replace(replace(replace(replace(kernel_type,
   'COMPUTATION', 'compute'), 'COMMUNICATION', 'communication'), 'MEMORY', 'memory'),
   ' overlapping ', ' + '), time_ns / 1e6 FROM analysis_kernel_types JOIN picked USING (rank)
 WHERE run_id = ?1 AND mode = 'exact'
 ORDER BY picked.o, CASE kernel_type WHEN 'COMPUTATION' THEN 1 WHEN 'COMMUNICATION' THEN 2
   WHEN 'MEMORY' THEN 3 ELSE 4 END,
   sum(time_ns) OVER (PARTITION BY kernel_type) DESC, kernel_type

-- name: top_kernels
-- Short names, tagged where two kernels share one (as the kernels report
-- does); the share is of all kernel time; the class colours the bar.
WITH k AS (SELECT name, max(kernel_type) AS kernel_type, sum(total_ns) AS ns
   FROM analysis_kernels WHERE run_id = ?1 AND mode = 'exact' GROUP BY name),
 s AS (SELECT *, short_name(name) AS sname, 100.0 * ns / sum(ns) OVER () AS share FROM k)
SELECT sname || CASE WHEN count(*) OVER (PARTITION BY sname) > 1
   THEN ' [' || name_tag(name) || ']' ELSE '' END AS kernel,
 ns / 1e6 AS "total time", share AS share_pct,
 CASE kernel_type WHEN 'COMPUTATION' THEN 'compute' WHEN 'COMMUNICATION' THEN 'communication'
   WHEN 'MEMORY' THEN 'memory' ELSE lower(kernel_type) END AS class
 FROM s ORDER BY ns DESC, name LIMIT ?2

-- name: top_ops
-- As top_kernels; the class says what the op is: a CUDA (or other device)
-- runtime or driver call, a Python frame or an operator. Annotations
-- (record_function ranges, ProfilerStep#N) are left out: their self time
-- is the time nothing under them ran, mostly waiting, not CPU work (the
-- annotations report has them).
WITH o AS (SELECT name, max(cat) AS cat, sum(self_ns) AS ns FROM analysis_ops
   WHERE run_id = ?1 AND name NOT GLOB 'ProfilerStep#*' GROUP BY name
   HAVING coalesce(max(cat), '') NOT GLOB '*user_annotation'),
 s AS (SELECT *, short_name(name) AS sname, 100.0 * ns / sum(ns) OVER () AS share FROM o)
SELECT sname || CASE WHEN count(*) OVER (PARTITION BY sname) > 1
   THEN ' [' || name_tag(name) || ']' ELSE '' END AS op,
 ns / 1e6 AS "self time", share AS share_pct,
 CASE WHEN cat GLOB '*_runtime' OR cat GLOB '*_driver' THEN 'runtime'
   WHEN cat = 'python_function' THEN 'python' ELSE 'CPU op' END AS class
 FROM s ORDER BY ns DESC, name LIMIT ?2

-- fragment: straggler
-- The ranks report's straggler rule (trace_steps.ranks: one-sided
-- Mann-Whitney p * ranks below ?3 and a mean step ?4 percent above the
-- other ranks'), over s(rank, dur_ns). Keep the two alike. val: each
-- rank's mean step, for rank_pick.
 pooled AS (SELECT rank, dur_ns, rank() OVER (ORDER BY dur_ns)
   + (count(*) OVER (PARTITION BY dur_ns) - 1) / 2.0 AS r FROM s),
 tot AS (SELECT count(*) AS n, sum(dur_ns) AS sum_ns, count(DISTINCT rank) AS ranks,
   (SELECT coalesce(sum(t * t * t - t), 0) FROM (SELECT count(*) AS t FROM s GROUP BY dur_ns))
   AS ties FROM s),
 per AS (SELECT rank, count(*) AS n1, sum(r) - count(*) * (count(*) + 1) / 2.0 AS u,
   sum(dur_ns) AS sum_ns, avg(dur_ns) AS mean_ns FROM pooled GROUP BY rank),
 val AS (SELECT rank, mean_ns AS value FROM per),

-- fragment: straggler_rows
-- The rows of a rank chart: after straggler and rank_pick.
 SELECT picked.label, mean_ns / 1e6 AS "mean step",
 coalesce(tot.ranks > 1 AND mann_whitney_p(u, n1, tot.n - n1, tot.ties) * tot.ranks < ?3
   AND 100.0 * (mean_ns - 1.0 * (tot.sum_ns - per.sum_ns) / (tot.n - n1))
     / (1.0 * (tot.sum_ns - per.sum_ns) / (tot.n - n1)) >= ?4, 0) AS straggler
 FROM per JOIN picked USING (rank), tot ORDER BY picked.o

-- name: rank_steps
-- Mean step per rank; red only for a straggler by the ranks report's rule.
WITH s AS (SELECT rank, dur_ns FROM analysis_steps WHERE run_id = ?1),
-- include: straggler
-- include: rank_pick
-- include: straggler_rows

-- name: rank_hist
-- The ranks' mean step times as a distribution, for a job of more than ?5
-- ranks (rank-steps then draws only some of them).
SELECT 'mean step per rank', avg(dur_ns) / 1e6 AS "mean step per rank" FROM analysis_steps
 WHERE run_id = ?1 AND (SELECT count(DISTINCT rank) FROM analysis_steps WHERE run_id = ?1) > ?5
 GROUP BY rank ORDER BY rank

-- name: step_hist
SELECT step, dur_ns / 1e6 AS "step time" FROM analysis_steps WHERE run_id = ?1
 ORDER BY rank, ts

-- name: top_functions
-- By own time (tottime): by cumulative time a call chain fills the chart
-- with one entry per caller. Names as file:line(function) without the
-- directories, the full name where two would read the same.
WITH f AS (SELECT std_name, file, line, name, tt, ct, ord FROM pstats_functions
   WHERE run_id = ?1 AND in_stats ORDER BY tt DESC, ord LIMIT ?2),
 s AS (SELECT *, CASE WHEN file = '~' THEN std_name
   ELSE substr(file, length(rtrim(file, replace(replace(file, '/', ''), '\', ''))) + 1)
     || ':' || line || '(' || name || ')' END AS short FROM f)
SELECT CASE WHEN count(*) OVER (PARTITION BY short) > 1 THEN std_name ELSE short END
   AS function, ct * 1e3 AS cumtime, tt * 1e3 AS tottime
 FROM s ORDER BY tt DESC, ord

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
-- Phases stacked in the order a step runs them: data, forward, backward,
-- communication, optimizer, then the others by name.
WITH
-- include: steplog_phases
 SELECT step, metric, avg(value) * 1e3 FROM p WHERE agg = (SELECT agg FROM a)
 AND metric <> 'step_time' GROUP BY step, metric
 ORDER BY step, CASE metric WHEN 'data' THEN 1 WHEN 'data_generation' THEN 1
   WHEN 'batch_wait' THEN 2 WHEN 'transfer' THEN 3 WHEN 'forward' THEN 4
   WHEN 'forward_backward' THEN 4 WHEN 'backward' THEN 5 WHEN 'backward_inner' THEN 5
   WHEN 'sync' THEN 6 WHEN 'gather' THEN 6 WHEN 'optimizer' THEN 7 WHEN 'ema' THEN 8
   ELSE 9 END, metric

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
-- Mean step per rank; red only for a straggler by the ranks report's rule
-- over the per-step times.
WITH
-- include: steplog_phases
 , m AS (SELECT rank, step, metric, avg(value) AS v FROM p WHERE agg = (SELECT agg FROM a)
   AND rank IS NOT NULL GROUP BY rank, step, metric),
 st AS (SELECT rank, step, CASE WHEN EXISTS (SELECT 1 FROM m WHERE metric = 'step_time')
   THEN max(CASE WHEN metric = 'step_time' THEN v END) ELSE sum(v) END AS t
   FROM m GROUP BY rank, step),
 s AS (SELECT rank, t * 1e9 AS dur_ns FROM st WHERE t IS NOT NULL),
-- include: straggler
-- include: rank_pick
-- include: straggler_rows

-- name: gpu_util
-- x is numeric (seconds since the first sample), written unquoted: gnuplot
-- reads no numbers from quoted fields.
WITH u AS (SELECT wall_time AS t, coalesce(rank, 0) AS gpu, value FROM steplog_values
   WHERE run_id = ?1 AND metric = 'gpu_util' AND wall_time IS NOT NULL)
 SELECT printf('%.3f', t - (SELECT min(t) FROM u)), 'GPU ' || gpu, value FROM u
 ORDER BY t, gpu

-- name: critical_path
-- The critical path of each iteration (of the first 50 per rank) split by
-- what bounds it (ms), from temp.cp_windows and cp_bounds (report/
-- trace_critical.c fills them first): HTA's bound types in words, CPU-bound,
-- GPU-bound (compute, communication) and waiting (from a launch to its
-- kernel; between kernels). Dependency and sync edges weigh nothing. Every
-- bound on every column (0 where absent), so the stack keeps its order.
WITH k(bound, series, o) AS (VALUES ('cpu_bound', 'CPU-bound', 1),
   ('gpu_compute_bound', 'GPU compute', 2), ('gpu_communication_bound', 'GPU communication', 3),
   ('gpu_kernel_launch_overhead', 'waiting: launch', 4),
   ('gpu_kernel_kernel_overhead', 'waiting: kernel gap', 5)),
 w AS (SELECT rank, instance, name FROM cp_windows w WHERE EXISTS (SELECT 1 FROM cp_bounds b
   WHERE b.rank = w.rank AND b.instance = w.instance AND b.kind = 'bound' AND b.duration_ns > 0))
SELECT CASE WHEN (SELECT count(DISTINCT rank) FROM w) > 1 THEN 'r' || w.rank || ' ' ELSE '' END
   || CASE WHEN w.name GLOB '*#[0-9]*' THEN substr(w.name, instr(w.name, '#'))
     ELSE '#' || w.instance END,
 k.series, coalesce((SELECT duration_ns FROM cp_bounds b WHERE b.rank = w.rank
   AND b.instance = w.instance AND b.kind = 'bound' AND b.name = k.bound), 0) / 1e6
 FROM w, k ORDER BY w.rank, w.instance, k.o

-- fragment: timeline
-- A timeline chart's rows from s(series, o, t, v, n): series takes the
-- value v at time t (ns) and keeps it until its next point, n numbers its
-- points in order, o is its place in the legend. The span is cut into 400
-- intervals; of the points of a series in one, the chart keeps the largest
-- value, from the first point's time, and the last value, from the last
-- point's time: a spike shorter than an interval stays visible and ends
-- where it ended. tl: x in ms from the first point of all, series, o, v.
 tr AS (SELECT min(t) AS t0, max(max(t) - min(t), 1) AS span FROM s),
 bk AS (SELECT series, o, CAST((t - t0) * 400 / span AS INTEGER) AS bucket, t - t0 AS t, v, n
   FROM s, tr),
 hi AS (SELECT series, o, min(t) AS t, max(v) AS v FROM bk GROUP BY series, o, bucket),
 lo AS (SELECT series, o, max(n) AS n, t, v FROM bk GROUP BY series, o, bucket),
 tl AS (SELECT t / 1e6 AS x, series, o, v, 1 AS p FROM hi
   UNION ALL SELECT t / 1e6, series, o, v, 2 FROM lo)

-- name: queue_length
-- The CUDA launch queue of each stream over time, as the queue-length
-- report's exact mode counts it (analysis_queue): each kernel, copy and set
-- with a launch adds 1 at its launch's start and takes it away at its own,
-- launches first at equal times. Every stream is 0 from the first point
-- of all to its own first. Streams are named "stream S", with the rank
-- when there are several and the device when a rank has several.
WITH q AS (SELECT a.rank, g.pid, g.stream, l.ts AS t, 1 AS d, 0 AS k, a.slice_id AS id
   FROM analysis_gpu_attribution a JOIN slices g ON g.id = a.slice_id
   JOIN slices l ON l.id = a.launch_id
   WHERE a.run_id = ?1 AND coalesce(g.cat, 0) IN (SELECT id FROM strings WHERE value IN
     ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events') UNION ALL SELECT 0)),
 pts AS (SELECT * FROM q UNION ALL SELECT rank, pid, stream,
   (SELECT ts FROM slices WHERE id = q.id), -1, 1, id FROM q),
 v AS (SELECT rank, pid, stream, t, sum(d) OVER w AS ql, row_number() OVER w AS n FROM pts
   WINDOW w AS (PARTITION BY rank, pid, stream ORDER BY t, k, id ROWS UNBOUNDED PRECEDING)),
 ss AS (SELECT DISTINCT rank, pid, stream FROM q),
 names AS (SELECT rank, pid, stream, row_number() OVER (ORDER BY rank, pid, stream) AS o,
   CASE WHEN (SELECT count(DISTINCT rank) FROM ss) > 1 THEN 'rank ' || rank || ' ' ELSE '' END
   || CASE WHEN (SELECT count(DISTINCT pid) FROM ss x WHERE x.rank = ss.rank) > 1
     THEN 'device ' || pid || ' ' ELSE '' END || 'stream ' || stream AS series FROM ss),
 s AS (SELECT series, o, t, ql AS v, n FROM v JOIN names USING (rank, pid, stream)),
-- include: timeline
 SELECT printf('%.6f', x), series, v FROM (SELECT 0 AS x, series, o, 0 AS v, 0 AS p FROM names
   UNION ALL SELECT * FROM tl) ORDER BY x, o, p

-- name: memory_bw
-- Memory bandwidth per kind over time (GB/s), from temp.memory_bw
-- (report/trace_series.c fills it first, exact mode); every kind starts at
-- 0 from the first point. Each kind is drawn in a panel of its own (the
-- fourth column), the ranks' lines together: a device-to-device copy at
-- 1000 GB/s would flatten host-to-device copies at 10 on one axis.
WITH names AS (SELECT rank, name, row_number() OVER (ORDER BY name, rank) AS o,
   CASE WHEN (SELECT count(DISTINCT rank) FROM memory_bw) > 1 THEN 'rank ' || rank || ' '
     ELSE '' END || name AS series FROM (SELECT DISTINCT rank, name FROM memory_bw)),
 s AS (SELECT series, o, ts AS t, bw_gbps AS v, seq AS n FROM memory_bw
   JOIN names USING (rank, name)),
-- include: timeline
 SELECT printf('%.6f', t.x), t.series, t.v, k.name FROM (SELECT 0 AS x, series, o, 0 AS v,
   0 AS p FROM names UNION ALL SELECT * FROM tl) t JOIN names k ON k.series = t.series
 ORDER BY t.x, t.o, t.p

-- name: memory
-- Allocated and reserved memory per device over time (MiB), from the
-- [memory] events (the Total Allocated and Total Reserved after each), and
-- the peak of allocated memory of each device (analysis_memory_peaks) as a
-- marked point. Reserved only for devices that report it (CUDA's caching
-- allocator; the CPU's is 0).
WITH m AS (SELECT t.rank, i.ts, i.rowid AS id,
   json_extract(i.args, '$."Total Allocated"') AS a, json_extract(i.args, '$."Total Reserved"') AS r,
   json_extract(i.args, '$."Device Type"') AS dt, json_extract(i.args, '$."Device Id"') AS di
   FROM instants i JOIN traces t USING (trace_id) WHERE t.run_id = ?1
   AND i.name = (SELECT id FROM strings WHERE value = '[memory]')),
 devs AS (SELECT rank, dt, di, max(r) > 0 AS has_r FROM m GROUP BY rank, dt, di),
 names AS (SELECT rank, dt, di, has_r, row_number() OVER (ORDER BY rank, dt, di) AS o,
   CASE WHEN (SELECT count(DISTINCT rank) FROM devs) > 1 THEN ' rank ' || rank ELSE '' END
   || CASE dt WHEN 0 THEN ' CPU' WHEN 1 THEN ' GPU ' || di
     ELSE ' device type ' || dt || ':' || di END AS dev FROM devs),
 s AS (SELECT 'allocated' || dev AS series, 3 * o AS o, ts AS t, a / 1048576.0 AS v,
   row_number() OVER (PARTITION BY m.rank, m.dt, m.di ORDER BY ts, id) AS n
   FROM m JOIN names USING (rank, dt, di)
   UNION ALL SELECT 'reserved' || dev, 3 * o + 1, ts, r / 1048576.0,
   row_number() OVER (PARTITION BY m.rank, m.dt, m.di ORDER BY ts, id)
   FROM m JOIN names USING (rank, dt, di) WHERE has_r),
-- include: timeline
 , pk AS (SELECT (k.peak_ts - tr.t0) / 1e6 AS x, 'peak allocated' || n.dev AS series,
   3 * n.o + 2 AS o, k.peak_allocated_bytes / 1048576.0 AS v, 3 AS p
   FROM analysis_memory_peaks k JOIN names n ON n.rank = k.rank AND n.dt = k.device_type
   AND (n.dt = 0 OR n.di = k.device_id), tr WHERE k.run_id = ?1 AND k.step IS NULL)
 SELECT printf('%.6f', x), series, v FROM (SELECT * FROM tl UNION ALL SELECT * FROM pk)
 ORDER BY x, o, p
