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
-- The ProfilerSteps of the run, each of which gives one sample (0 when the
-- kernel or op did not run in it).
st AS (SELECT rank, step_num, ts FROM {schema}.analysis_steps WHERE run_id = ?1)

-- name: kernel_steps
-- Per ProfilerStep: the time and launches of GPU kernel ?2 launched in the
-- step (analysis_gpu_attribution.step: the step holding the launching
-- runtime call).
WITH
-- include: steps
, k AS (SELECT a.rank, a.step, sum(a.dur_ns) AS t, count(*) AS c
  FROM {schema}.analysis_gpu_attribution a WHERE a.run_id = ?1
  AND a.name = (SELECT id FROM {schema}.strings WHERE value = ?2) GROUP BY a.rank, a.step)
SELECT coalesce(k.t, 0) AS time_ns, coalesce(k.c, 0) AS calls
 FROM st LEFT JOIN k ON k.rank = st.rank AND k.step = st.step_num ORDER BY st.rank, st.ts

-- name: kernel_names
-- The distinct kernel names of run ?1, which kernel:NAME is looked up in
-- (by full name, short form or pattern: compare/metrics.c).
SELECT DISTINCT name FROM {schema}.analysis_kernels WHERE run_id = ?1 AND mode = 'exact'
 ORDER BY name

-- name: kernel_type_steps
-- Per ProfilerStep: GPU time of the kernels of type ?2 (analysis_kernels'
-- kernel_type of each name, exact mode) launched in the step.
WITH
-- include: steps
, names AS (SELECT DISTINCT s.id FROM {schema}.analysis_kernels x
    JOIN {schema}.strings s ON s.value = x.name
    WHERE x.run_id = ?1 AND x.mode = 'exact' AND x.kernel_type = upper(?2))
, k AS (SELECT a.rank, a.step, sum(a.dur_ns) AS t, count(*) AS c
  FROM {schema}.analysis_gpu_attribution a WHERE a.run_id = ?1
  AND a.name IN (SELECT id FROM names) GROUP BY a.rank, a.step)
SELECT coalesce(k.t, 0) AS time_ns, coalesce(k.c, 0) AS calls
 FROM st LEFT JOIN k ON k.rank = st.rank AND k.step = st.step_num ORDER BY st.rank, st.ts

-- name: op_steps
-- Per ProfilerStep: the calls of CPU op ?2 in the step and their total
-- (inclusive) time (analysis_op_steps, written by the analysis pass).
WITH
-- include: steps
, o AS (SELECT rank, step, sum(total_ns) AS t, sum(calls) AS c
  FROM {schema}.analysis_op_steps WHERE run_id = ?1 AND name = ?2 GROUP BY rank, step)
SELECT coalesce(o.t, 0) AS time_ns, coalesce(o.c, 0) AS calls
 FROM st LEFT JOIN o ON o.rank = st.rank AND o.step = st.step_num ORDER BY st.rank, st.ts

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

-- name: pyspy_share
-- A py-spy function's share of a run (pyspy:FUNCTION): ?2 = the function's
-- name, ?3 = its file (NULL: any file). The run's samples (every profile),
-- the samples whose stack holds such a frame (once per stack, recursion
-- once), how many files hold a python or native frame of that name, and
-- whether the run's samples are time-weighted (speedscope evented).
-- Walks up from the sampled nodes: linear in the stored tree.
WITH RECURSIVE
 leaf AS (SELECT node_id, sum(samples) AS samples FROM {schema}.pyspy_samples
   WHERE run_id = ?1 GROUP BY node_id),
 up(origin, node_id, samples) AS (SELECT node_id, node_id, samples FROM leaf
   UNION ALL SELECT u.origin, n.parent_id, u.samples FROM up u
   JOIN {schema}.pyspy_nodes n ON n.node_id = u.node_id WHERE n.parent_id <> 0),
 holding AS (SELECT DISTINCT u.origin, u.samples FROM up u
   JOIN {schema}.pyspy_nodes n ON n.node_id = u.node_id
   JOIN {schema}.pyspy_frames f ON f.frame_id = n.frame_id
   WHERE f.name = ?2 AND (?3 IS NULL OR f.file = ?3) AND f.kind IN ('python', 'native'))
SELECT (SELECT coalesce(sum(samples), 0) FROM {schema}.pyspy_profiles WHERE run_id = ?1),
 (SELECT coalesce(sum(samples), 0) FROM holding),
 (SELECT count(DISTINCT file) FROM {schema}.pyspy_frames WHERE run_id = ?1 AND name = ?2
   AND (?3 IS NULL OR file = ?3) AND kind IN ('python', 'native')),
 (SELECT count(weight_unit) > 0 FROM {schema}.pyspy_profiles WHERE run_id = ?1)
