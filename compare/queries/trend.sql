-- trend.sql: `profdb trend METRIC...`: a metric over many runs
-- (compare/trend.c). A query starts at "-- name: NAME" and is known to C as
-- trend.NAME (common/query.h). The runs are in schema main; the summaries
-- of each run are in run_summaries (schemas/60_trend.sql), and one trend's
-- rows are collected in temp tables so they render like every result set.

-- name: runs
-- Every run with its ingest time, the value of label ?1 (NULL: no --by,
-- or the run lacks it) and its summary of metric ?2 computed by method ?3
-- (NULL when there is none yet). ?4 = a GLOB on run names (NULL: all).
-- Each join is a primary-key lookup; trend.c orders the rows.
SELECT r.run_id, r.name, r.created_at, l.value AS label, s.samples, s.median, s.q1, s.q3,
 s.mean, s.min, s.max, s.unit, s.source, s.what, s.absent
 FROM runs r
 LEFT JOIN run_labels l ON l.run_id = r.run_id AND l.key = ?1
 LEFT JOIN run_summaries s ON s.run_id = r.run_id AND s.metric = ?2 AND s.method = ?3
 WHERE ?4 IS NULL OR r.name GLOB ?4

-- name: store
-- One run's summary of one metric (a row with samples = 0 records that the
-- run has none, so it is not read again).
INSERT OR REPLACE INTO run_summaries (run_id, metric, method, samples, median, q1, q3, mean,
 min, max, unit, source, what, absent)
 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)

-- name: create_tables
-- One trend: its runs in order, and its change points. p_value has no type:
-- tables for people get it as text ("0.00216", "< 1e-16"), others a number.
CREATE TEMP TABLE IF NOT EXISTS pdb_trend_runs (idx INTEGER PRIMARY KEY, run TEXT,
 ordered_by TEXT, samples INTEGER, median REAL, q1 REAL, q3 REAL, spread_pct REAL,
 level REAL, change_point TEXT, p_value, chart_label TEXT, change INTEGER);
DELETE FROM temp.pdb_trend_runs;
CREATE TEMP TABLE IF NOT EXISTS pdb_trend_changes (idx INTEGER PRIMARY KEY, run TEXT,
 ordered_by TEXT, previous_run TEXT, runs_before INTEGER, runs_after INTEGER, before REAL,
 after REAL, change_pct REAL, direction TEXT, p_value, test TEXT);
DELETE FROM temp.pdb_trend_changes

-- name: add_run
INSERT INTO temp.pdb_trend_runs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)

-- name: add_change
INSERT INTO temp.pdb_trend_changes VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)

-- name: runs_time
-- The runs of a time metric: values in ns, which the renderer shows in
-- --unit (and renames: median_ns -> median_us). index is 1 for the oldest.
SELECT idx AS "index", run, ordered_by, samples, median * 1e9 AS median_ns, q1 * 1e9 AS q1_ns,
 q3 * 1e9 AS q3_ns, spread_pct, level * 1e9 AS level_ns, change_point, p_value
 FROM temp.pdb_trend_runs ORDER BY idx

-- name: runs_value
-- The runs of any other metric: values in the unit named by ?1.
SELECT idx AS "index", run, ordered_by, samples, median, q1, q3, ?1 AS unit, spread_pct, level,
 change_point, p_value FROM temp.pdb_trend_runs ORDER BY idx

-- name: changes_time
SELECT run, ordered_by, previous_run, runs_before, runs_after, before * 1e9 AS before_ns,
 after * 1e9 AS after_ns, change_pct, direction, p_value, test
 FROM temp.pdb_trend_changes ORDER BY idx

-- name: changes_value
SELECT run, ordered_by, previous_run, runs_before, runs_after, before, after, ?1 AS unit,
 change_pct, direction, p_value, test FROM temp.pdb_trend_changes ORDER BY idx

-- name: chart
-- The chart (render/chart.c, kind PDB_CHART_TREND): x labels, then the
-- median, quartiles, segment level and change-point mark of each run, times
-- ?1 (1000 for seconds shown as milliseconds). The quartiles only where they
-- mean a spread: ?2 is 1 when the samples of a run scatter around one value
-- (trend_output.c: spread_is_noise), and a run whose quartiles are equal
-- has none; elsewhere they are missing and no band is drawn (the CSV has
-- them all).
SELECT chart_label, median * ?1 AS median, CASE WHEN ?2 AND q3 > q1 THEN q1 * ?1 END AS q1,
 CASE WHEN ?2 AND q3 > q1 THEN q3 * ?1 END AS q3, level * ?1 AS level, change
 FROM temp.pdb_trend_runs ORDER BY idx
