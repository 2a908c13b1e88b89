-- metrics.sql: the samples behind each metric of `profdb check` and the
-- step distributions of `profdb diff steps` (compare/metrics.c).
-- A query starts at "-- name: NAME" and is known to C as metrics.NAME
-- (common/query.h). "{schema}" is the schema that holds the run read
-- ("main" or "tdb"; compare/queries.h). ?1 is the run_id, ?2 the name of
-- what is sampled.

-- name: steplog_values
-- One step-log metric of the training records (not validation records, not
-- end-of-epoch or end-of-run summaries), in log order, with what each value
-- aggregates (agg, window) and the step and epoch it belongs to.
SELECT source_id, step, epoch, value, agg, window, unit FROM {schema}.steplog_values
 WHERE run_id = ?1 AND metric = ?2 AND value IS NOT NULL
 AND coalesce(split, 'train') NOT IN ('val', 'summary')
 AND agg IN ('point', 'derived', 'interval_mean', 'window_median', 'running_mean',
  'moving_avg')
 ORDER BY source_id, record

-- name: trace_steps
-- Every per-step column of the trace steps; the caller reads the one it
-- needs by its column name.
SELECT dur_ns, kernel_ns, memcpy_ns, memset_ns, runtime_ns, dataloader_ns, cpu_exec_ns,
 other_ns FROM {schema}.analysis_steps WHERE run_id = ?1 ORDER BY rank, ts

-- fragment: steps
-- The ProfilerStep windows of the run's traces (those analysis_steps holds).
st AS (SELECT t.trace_id, s.ts, s.ts + s.dur_ns AS te FROM {schema}.analysis_steps s
  JOIN {schema}.traces t ON t.run_id = s.run_id AND t.rank = s.rank WHERE s.run_id = ?1)

-- name: kernel_steps
-- Per ProfilerStep: the time and launches of GPU kernel ?2 whose launching
-- runtime call (same correlation, on the CPU side) started in the step.
-- Steps that launched none give 0.
WITH
-- include: steps
, k AS (SELECT g.trace_id, g.dur, (SELECT min(r.ts + 0) FROM {schema}.slices r
    WHERE r.trace_id = g.trace_id AND r.correlation = g.correlation
    AND typeof(r.stream) <> 'integer' AND r.id <> g.id) AS launched
  FROM {schema}.gpu_events g WHERE g.run_id = ?1 AND g.name = ?2 AND g.correlation IS NOT NULL)
SELECT coalesce(sum(k.dur), 0) AS time_ns, count(k.dur) AS calls
 FROM st LEFT JOIN k ON k.trace_id = st.trace_id AND k.launched >= st.ts AND k.launched < st.te
 GROUP BY st.trace_id, st.ts ORDER BY st.trace_id, st.ts

-- name: kernel_type_steps
-- Per ProfilerStep: GPU time of the kernels of type ?2 (analysis_kernels'
-- kernel_type of each name) launched in the step, as kernel_steps.
WITH
-- include: steps
, names AS (SELECT DISTINCT name FROM {schema}.analysis_kernels WHERE run_id = ?1
    AND mode = 'exact' AND kernel_type = upper(?2))
, k AS (SELECT g.trace_id, g.dur, (SELECT min(r.ts + 0) FROM {schema}.slices r
    WHERE r.trace_id = g.trace_id AND r.correlation = g.correlation
    AND typeof(r.stream) <> 'integer' AND r.id <> g.id) AS launched
  FROM {schema}.gpu_events g WHERE g.run_id = ?1 AND g.name IN (SELECT name FROM names)
  AND g.correlation IS NOT NULL)
SELECT coalesce(sum(k.dur), 0) AS time_ns, count(k.dur) AS calls
 FROM st LEFT JOIN k ON k.trace_id = st.trace_id AND k.launched >= st.ts AND k.launched < st.te
 GROUP BY st.trace_id, st.ts ORDER BY st.trace_id, st.ts

-- name: op_steps
-- Per ProfilerStep: the calls of CPU op ?2 that started in the step and
-- their total (inclusive) time.
WITH
-- include: steps
, o AS (SELECT trace_id, ts, dur FROM {schema}.slice_view WHERE run_id = ?1 AND name = ?2
  AND stream IS NULL)
SELECT coalesce(sum(o.dur), 0) AS time_ns, count(o.dur) AS calls
 FROM st LEFT JOIN o ON o.trace_id = st.trace_id AND o.ts >= st.ts AND o.ts < st.te
 GROUP BY st.trace_id, st.ts ORDER BY st.trace_id, st.ts

-- name: available
-- What a run can be gated on, for the message when a metric has no samples:
-- step-log metrics with values per step or per window (class 'steps'),
-- those only in summaries or validation records (class 'summary'), and
-- 'step_time' when the run's traces have ProfilerSteps. (Not "kind": that
-- is a column of steplog_values.)
SELECT metric, CASE WHEN coalesce(split, 'train') IN ('val', 'summary')
   OR agg NOT IN ('point', 'derived', 'interval_mean', 'window_median', 'running_mean',
   'moving_avg') THEN 'summary' ELSE 'steps' END AS class, count(*) AS n
 FROM {schema}.steplog_values WHERE run_id = ?1 AND value IS NOT NULL
 GROUP BY metric, class
 UNION ALL SELECT 'step_time', 'steps', count(*) FROM {schema}.analysis_steps
  WHERE run_id = ?1 HAVING count(*) > 0
 ORDER BY class, n DESC, metric
