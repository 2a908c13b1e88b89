-- steplog_phases.sql: the metrics, metric-rules, phases and loaders
-- reports over per-step training logs (report/steplog_phases.c).
-- A query starts at "-- name: NAME" and is known to C as steplog_phases.NAME
-- (common/query.h). ?1 is the run_id. phases and loaders read
-- temp.steplog_phase_stats (steplog_stats.sql), filled just before.

-- name: metrics
-- The long metric table, in log order: by record, then in the order the
-- values were read (pos: steplog_points is steplog_values with it).
-- ?2 = --metric NAME (NULL: all), ?3 = 1 for people (table, md): reals
-- are rounded to three decimals there, which would print 5e-05 as 0, so
-- small values get four significant digits.
SELECT step, epoch, rank, split, metric,
 CASE WHEN ?3 AND value <> 0 AND abs(value) < 0.1
 THEN printf('%.4g', value) ELSE value END AS value,
 unit, agg, window,
 raw_name FROM steplog_points WHERE run_id = ?1
 AND (?2 IS NULL OR metric = ?2 OR raw_name = ?2)
 ORDER BY source_id, record, pos

-- name: rules
-- The names this run used, with the metric each became.
SELECT raw_name, metric, unit, agg,
 (SELECT is_phase FROM steplog_metric_rules r WHERE r.metric = v.metric LIMIT 1)
   AS is_phase, count(*) AS n_values
 FROM steplog_values v WHERE run_id = ?1 GROUP BY raw_name, metric, unit, agg
 ORDER BY metric, raw_name

-- name: phases
SELECT nullif(split, '') AS split, nullif(loader, '') AS loader, metric AS phase, agg,
 window, count, round(total_s * 1e9) AS total_ns, round(mean_s * 1e9) AS mean_ns,
 round(std_s * 1e9) AS std_ns, round(min_s * 1e9) AS min_ns, round(p50_s * 1e9) AS p50_ns,
 round(p90_s * 1e9) AS p90_ns, round(p99_s * 1e9) AS p99_ns, round(max_s * 1e9) AS max_ns,
 share_pct FROM temp.steplog_phase_stats WHERE ?1 IS NOT NULL
 ORDER BY split, loader, agg, metric = 'other/overhead', metric <> 'step_time',
 total_s DESC

-- name: loaders
-- imbalance: this loader's mean over the fastest loader's mean, per phase.
SELECT nullif(s.split, '') AS split, s.loader, s.metric AS phase, s.agg, s.count,
 round(s.mean_s * 1e9) AS mean_ns, round(s.p50_s * 1e9) AS p50_ns, round(s.max_s * 1e9) AS max_ns,
 round(s.mean_s / (SELECT min(o.mean_s) FROM temp.steplog_phase_stats o
   WHERE o.split = s.split AND o.metric = s.metric AND o.agg = s.agg
   AND o.loader <> '' AND o.mean_s > 0), 3) AS imbalance
 FROM temp.steplog_phase_stats s WHERE s.loader <> '' AND ?1 IS NOT NULL
 ORDER BY s.split, s.metric, s.agg, s.mean_s DESC
