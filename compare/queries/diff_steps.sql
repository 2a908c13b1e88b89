-- diff_steps.sql: `profdb diff BASE TEST steps` (compare/diff_steps.c).
-- A query starts at "-- name: NAME" and is known to C as diff_steps.NAME
-- (common/query.h). "{schema}" is the schema that holds the run read
-- ("main" or "tdb"; compare/queries.h). A query named create_* makes temp
-- tables that other queries read (tests/unit/test_queries.c runs those
-- first).

-- name: metrics
-- ?1 = run_id: step-log metrics with per-step (or per-window) values that
-- are times (the kinds metrics.c reads, training records only), and the
-- trace step columns (metrics.trace_steps) when the run has
-- ProfilerSteps.
SELECT DISTINCT metric FROM {schema}.steplog_values v WHERE run_id = ?1
 AND agg IN ('point', 'derived', 'interval_mean', 'window_median', 'running_mean', 'moving_avg')
 AND coalesce(split, 'train') NOT IN ('val', 'summary')
 AND metric NOT GLOB 'eta*' -- time left, not time spent
 AND (unit = 's' OR EXISTS (SELECT 1 FROM {schema}.steplog_metric_rules r
  WHERE r.metric = v.metric AND r.is_phase))
 UNION SELECT column1 FROM (VALUES ('step_time'), ('kernel'), ('memcpy'), ('memset'),
  ('runtime'), ('dataloader'), ('cpu_exec'), ('other'))
  WHERE EXISTS (SELECT 1 FROM {schema}.analysis_steps WHERE run_id = ?1)

-- name: create_tables
-- The metric names of both runs, and one result row per metric.
CREATE TEMP TABLE IF NOT EXISTS pdb_diff_names (name TEXT
 PRIMARY KEY); DELETE FROM temp.pdb_diff_names;
CREATE TEMP TABLE IF NOT EXISTS pdb_diff_steps (metric TEXT, source TEXT, only_in TEXT,
 n_base INTEGER, n_test INTEGER, base_median_ns REAL, test_median_ns REAL,
 change_ns REAL, change_pct REAL, median_ratio REAL, ratio_ci_low REAL,
 ratio_ci_high REAL, p_value, significant TEXT, outliers_base INTEGER,
 outliers_test INTEGER); DELETE FROM temp.pdb_diff_steps

-- name: add_name
INSERT OR IGNORE INTO temp.pdb_diff_names VALUES (?1)

-- name: names
SELECT name FROM temp.pdb_diff_names ORDER BY name

-- name: add_row
INSERT INTO temp.pdb_diff_steps VALUES (?1, ?2, ?3, ?4, ?5,
 ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)

-- name: row_count
SELECT count(*) FROM temp.pdb_diff_steps

-- name: rows
-- ?1 = the number of rows (-1: all), the largest change of the median first.
SELECT * FROM temp.pdb_diff_steps
 ORDER BY abs(coalesce(change_ns, 0)) DESC, metric LIMIT ?1
