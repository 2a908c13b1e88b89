-- steplog_insights.sql: the throughput, scaling and step-insights reports
-- over per-step training logs (report/steplog_insights.c).
-- A query starts at "-- name: NAME" and is known to C as
-- steplog_insights.NAME (common/query.h). ?1 is the run_id. The rule_*
-- queries return one row (value, detail) or none; their thresholds are in
-- report/thresholds.h. A query named create_* makes a temp table that other
-- queries read (tests/unit/test_queries.c runs those first).

-- name: throughput
-- Rates overall and per epoch: from step_time (the best aggregation the
-- log has: point values first), else from logged rates or counters.
WITH st AS (SELECT agg, step, CAST(epoch AS INTEGER) AS ep, coalesce(window, 1) AS w, value
   FROM steplog_values WHERE run_id = ?1 AND metric = 'step_time' AND unit = 's'
   AND value > 0 AND coalesce(split, 'train') = 'train'
   AND agg IN ('point', 'derived', 'interval_mean', 'window_median', 'moving_avg')),
 best AS (SELECT agg FROM st GROUP BY agg ORDER BY CASE agg WHEN 'point' THEN 0
   WHEN 'derived' THEN 1 WHEN 'interval_mean' THEN 2 WHEN 'window_median' THEN 3
   ELSE 4 END LIMIT 1),
 sb AS (SELECT * FROM st WHERE agg = (SELECT agg FROM best)),
 m AS (SELECT metric, step, CAST(epoch AS INTEGER) AS ep, value FROM steplog_values
   WHERE run_id = ?1 AND value IS NOT NULL AND coalesce(split, 'train') = 'train'),
 src AS (SELECT 'step_time (' || (SELECT agg FROM best) || ')' AS s)
 SELECT * FROM (
 SELECT 'overall' AS scope, NULL AS epoch, 'steps_per_s' AS metric,
   sum(w) / sum(value * w) AS value, (SELECT s FROM src) AS derived_from
   FROM sb HAVING count(*) > 0
 UNION ALL SELECT 'overall', NULL, 'steps_per_s', avg(value), 'steps_per_s values'
   FROM m WHERE metric = 'steps_per_s' AND NOT EXISTS (SELECT 1 FROM sb)
   HAVING count(*) > 0
 UNION ALL SELECT 'overall', NULL, 'samples_per_s', avg(value), 'samples_per_s values'
   FROM m WHERE metric = 'samples_per_s' HAVING count(*) > 0
 UNION ALL SELECT 'overall', NULL, 'samples_per_s',
   (SELECT avg(value) FROM m WHERE metric = 'batch_size') * sum(w) / sum(value * w),
   'batch_size x steps_per_s' FROM sb
   WHERE NOT EXISTS (SELECT 1 FROM m WHERE metric IN ('samples_per_s', 'consumed_samples'))
   AND EXISTS (SELECT 1 FROM m WHERE metric = 'batch_size') HAVING count(*) > 0
 UNION ALL SELECT 'overall', NULL, 'tokens_per_s', avg(value), 'tokens_per_s values'
   FROM m WHERE metric = 'tokens_per_s' HAVING count(*) > 0
 -- counters: what was consumed after the first record, over the time it took
 UNION ALL SELECT 'overall', NULL, 'tokens_per_s', (SELECT max(value) - min(value) FROM m
   WHERE metric = 'consumed_tokens') / sum(value * w), 'consumed_tokens / step time'
   FROM sb WHERE step > (SELECT min(step) FROM m WHERE metric = 'consumed_tokens')
   AND NOT EXISTS (SELECT 1 FROM m WHERE metric = 'tokens_per_s') HAVING count(*) > 0
 UNION ALL SELECT 'overall', NULL, 'samples_per_s', (SELECT max(value) - min(value) FROM m
   WHERE metric = 'consumed_samples') / sum(value * w), 'consumed_samples / step time'
   FROM sb WHERE step > (SELECT min(step) FROM m WHERE metric = 'consumed_samples')
   AND NOT EXISTS (SELECT 1 FROM m WHERE metric = 'samples_per_s') HAVING count(*) > 0
 UNION ALL SELECT 'overall', NULL, 'epoch_time_s', avg(value), 'epoch_time values (mean)'
   FROM m WHERE metric = 'epoch_time' HAVING count(*) > 0
 UNION ALL SELECT 'epoch', ep, 'steps_per_s', sum(w) / sum(value * w),
   (SELECT s FROM src) FROM sb WHERE ep IS NOT NULL GROUP BY ep
 UNION ALL SELECT 'epoch', ep, 'samples_per_s', avg(value), 'samples_per_s values'
   FROM m WHERE metric = 'samples_per_s' AND ep IS NOT NULL GROUP BY ep
 UNION ALL SELECT 'epoch', ep, 'tokens_per_s', avg(value), 'tokens_per_s values'
   FROM m WHERE metric = 'tokens_per_s' AND ep IS NOT NULL GROUP BY ep
 UNION ALL SELECT 'epoch', ep, 'epoch_time_s', sum(value), 'epoch_time values'
   FROM m WHERE metric = 'epoch_time' AND ep IS NOT NULL GROUP BY ep
 ) ORDER BY scope = 'epoch', epoch, metric

-- name: scaling
-- Runs labelled gpus=N: each run's rate (1 / epoch time, else samples/s,
-- else steps/s) against the run with the fewest GPUs; efficiency = speedup
-- / (gpus / base gpus). Runs are compared only on the same basis. ?1 is
-- only checked for NULL: the report is about all labelled runs.
WITH r AS (SELECT l.run_id, runs.name, CAST(l.value AS INTEGER) AS gpus
   FROM run_labels l JOIN runs USING (run_id) WHERE l.key = 'gpus' AND ?1 IS NOT NULL),
 st AS (SELECT run_id, agg, coalesce(window, 1) AS w, value FROM steplog_values
   WHERE metric = 'step_time' AND unit = 's' AND value > 0
   AND coalesce(split, 'train') = 'train' AND run_id IN (SELECT run_id FROM r)
   AND agg IN ('point', 'derived', 'interval_mean', 'window_median', 'moving_avg')),
 rank_agg AS (SELECT run_id, agg, row_number() OVER (PARTITION BY run_id ORDER BY
   CASE agg WHEN 'point' THEN 0 WHEN 'derived' THEN 1 WHEN 'interval_mean' THEN 2
   WHEN 'window_median' THEN 3 ELSE 4 END) AS k FROM (SELECT DISTINCT run_id, agg FROM st)),
 sps AS (SELECT st.run_id, sum(w) / sum(value * w) AS steps_per_s FROM st
   JOIN rank_agg a ON a.run_id = st.run_id AND a.agg = st.agg AND a.k = 1
   GROUP BY st.run_id),
 smp AS (SELECT run_id, avg(value) AS samples_per_s FROM steplog_values
   WHERE metric = 'samples_per_s' AND value IS NOT NULL GROUP BY run_id),
 ep AS (SELECT run_id, avg(value) AS epoch_time_s FROM steplog_values
   WHERE metric = 'epoch_time' AND value IS NOT NULL GROUP BY run_id),
 m AS (SELECT r.name, r.gpus, sps.steps_per_s, smp.samples_per_s, ep.epoch_time_s,
   CASE WHEN ep.epoch_time_s > 0 THEN 1.0 / ep.epoch_time_s
   WHEN smp.samples_per_s IS NOT NULL THEN smp.samples_per_s ELSE sps.steps_per_s END AS rate,
   CASE WHEN ep.epoch_time_s > 0 THEN 'epoch_time'
   WHEN smp.samples_per_s IS NOT NULL THEN 'samples_per_s'
   WHEN sps.steps_per_s IS NOT NULL THEN 'steps_per_s' END AS basis
   FROM r LEFT JOIN sps USING (run_id) LEFT JOIN smp USING (run_id)
   LEFT JOIN ep USING (run_id)),
 base AS (SELECT gpus, rate, basis FROM m WHERE rate > 0 AND gpus > 0
   ORDER BY gpus, name LIMIT 1)
 SELECT m.name AS run, m.gpus, m.steps_per_s, m.samples_per_s, m.epoch_time_s, m.basis,
  CASE WHEN m.basis = b.basis THEN m.rate / b.rate END AS speedup,
  CASE WHEN m.basis = b.basis THEN 100.0 * (m.rate / b.rate) / (1.0 * m.gpus / b.gpus)
  END AS efficiency_pct
 FROM m LEFT JOIN base b ORDER BY m.gpus, m.name

-- name: rule_slowest_phase
-- Per-step distributions first; else the latest summary block's means.
SELECT v, d FROM (
 SELECT mean_s AS v, metric || ' (mean ' || printf('%.4g', mean_s) || ' s, ' || agg || ')'
   AS d, 0 AS pref FROM temp.steplog_phase_stats
   WHERE metric NOT IN ('step_time', 'other/overhead', 'other') AND split IN ('', 'train')
 UNION ALL SELECT value, raw_name || ' (' || printf('%.4g', value) || ' s avg, ' ||
   (SELECT title FROM steplog_blocks b WHERE b.source_id = x.source_id
    AND b.record = x.record) || ')', 1
   FROM steplog_values x WHERE run_id = ?1 AND agg = 'mean' AND unit = 's'
   AND metric IN (SELECT metric FROM steplog_metric_rules WHERE is_phase)
   AND metric <> 'step_time' AND record = (SELECT max(record) FROM steplog_values
   WHERE run_id = ?1 AND agg = 'mean' AND unit = 's'))
 ORDER BY pref, v DESC LIMIT 1

-- name: rule_share
-- A phase's share of step time, ?2 = the phase, ?3 = the metric of its
-- logged percentage: the profiler's own logged percentage (peak), else the
-- share in the phase distributions, else the latest summary block's share.
SELECT v, d FROM (
 SELECT max(value) AS v, 'peak of logged ' || ?3 AS d, 0 AS pref
   FROM steplog_values WHERE run_id = ?1 AND metric = ?3
   AND value IS NOT NULL HAVING count(*) > 0
 UNION ALL SELECT max(share_pct), ?2 || ' share of step time (phases report)', 1
   FROM temp.steplog_phase_stats WHERE metric = ?2 AND split IN ('', 'train')
   HAVING count(*) > 0
 UNION ALL SELECT value, ?2 || ' share in the last summary block', 2 FROM
   (SELECT value FROM steplog_values WHERE run_id = ?1 AND metric = ?2
   AND agg = 'share' ORDER BY source_id DESC, record DESC LIMIT 1)
) ORDER BY pref LIMIT 1

-- name: rule_ram
SELECT coalesce((SELECT max(value) FROM steplog_values WHERE run_id = ?1
   AND metric = 'ram_pct'),
 (SELECT 100 * max(value) FROM steplog_values WHERE run_id = ?1
   AND metric = 'ram_pressure')) AS v, 'peak RAM usage' WHERE v IS NOT NULL

-- name: rule_gpu_memory
SELECT coalesce((SELECT max(value) FROM steplog_values WHERE run_id = ?1
   AND metric IN ('gpu_mem_pct', 'mem_used_pct')),
 (SELECT 100 * max(value) FROM steplog_values WHERE run_id = ?1
   AND metric = 'gpu_mem_pressure')) AS v, 'peak GPU memory usage' WHERE v IS NOT NULL

-- name: create_insights
DROP TABLE IF EXISTS temp.steplog_insights;
CREATE TEMP TABLE steplog_insights (rule TEXT, status TEXT,
 value REAL, threshold REAL, unit TEXT, detail TEXT, advice TEXT)

-- name: insert_insight
INSERT INTO temp.steplog_insights VALUES (?,?,?,?,?,?,?)

-- name: insights
SELECT rule, status, round(value, 4) AS value, threshold, unit,
 detail, advice FROM temp.steplog_insights WHERE ?1 IS NOT NULL
