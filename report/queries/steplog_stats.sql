-- steplog_stats.sql: the per-step phase values that report/steplog_stats.c
-- turns into distributions, and the temp table it writes them to.
-- A query starts at "-- name: NAME" and is known to C as steplog_stats.NAME
-- (common/query.h). A query named create_* makes a temp table that other
-- queries read (tests/unit/test_queries.c runs those first).

-- name: create_phase_stats
DROP TABLE IF EXISTS temp.steplog_phase_stats;
CREATE TEMP TABLE steplog_phase_stats (split TEXT, loader TEXT,
 metric TEXT, agg TEXT, window INTEGER, count INTEGER, total_s REAL,
 mean_s REAL, std_s REAL, min_s REAL, p50_s REAL, p90_s REAL,
 p99_s REAL, max_s REAL, share_pct REAL)

-- name: phase_values
-- ?1 = run_id, ?2 = --skip-first N: values of the first N steps are left out.
SELECT coalesce(v.split, ''), coalesce(v.loader, ''), v.metric, v.agg,
 coalesce(v.window, 0), v.value FROM steplog_values v
 WHERE v.run_id = ?1 AND v.unit = 's' AND v.value IS NOT NULL
 AND v.agg NOT IN ('total', 'mean', 'min', 'max', 'share')
 AND v.metric IN (SELECT metric FROM steplog_metric_rules WHERE is_phase)
 AND (?2 <= 0 OR v.step IS NULL OR v.step > (SELECT step FROM (SELECT DISTINCT step
      FROM steplog_values WHERE run_id = ?1 AND step IS NOT NULL ORDER BY step
      LIMIT 1 OFFSET ?2 - 1)))
 ORDER BY v.source_id, v.record

-- name: phase_values_sorted
-- The same values, grouped and ascending within each group: percentiles
-- are read off the stream, so no group's values are held in memory.
SELECT coalesce(v.split, ''), coalesce(v.loader, ''), v.metric, v.agg,
 coalesce(v.window, 0), v.value FROM steplog_values v
 WHERE v.run_id = ?1 AND v.unit = 's' AND v.value IS NOT NULL
 AND v.agg NOT IN ('total', 'mean', 'min', 'max', 'share')
 AND v.metric IN (SELECT metric FROM steplog_metric_rules WHERE is_phase)
 AND (?2 <= 0 OR v.step IS NULL OR v.step > (SELECT step FROM (SELECT DISTINCT step
      FROM steplog_values WHERE run_id = ?1 AND step IS NOT NULL ORDER BY step
      LIMIT 1 OFFSET ?2 - 1)))
 ORDER BY 1, 2, 3, 4, 6

-- name: insert_phase_stat
INSERT INTO temp.steplog_phase_stats VALUES
 (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
