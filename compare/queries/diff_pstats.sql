-- diff_pstats.sql: `profdb diff BASE TEST pstats` (compare/diff_pstats.c).
-- A query starts at "-- name: NAME" and is known to C as diff_pstats.NAME
-- (common/query.h). Both runs are in one schema: ?1 is the base run_id,
-- ?2 the test run_id.

-- name: totals
-- The dumps of both runs: the caller adds up each run's calls (checked:
-- SQLite's sum() fails with a bare "integer overflow") and sees whether
-- each run holds a dump at all.
SELECT run_id, total_calls FROM pstats_dumps WHERE run_id IN (?1, ?2)

-- name: functions
-- Functions joined on their (file, line, name) key, the largest change
-- first: ?4 = 'tottime', 'cumtime' or 'both' (the larger of the two), ?3 =
-- the number of rows (-1: all).
WITH b AS (SELECT * FROM pstats_functions WHERE run_id = ?1 AND in_stats),
 t AS (SELECT * FROM pstats_functions WHERE run_id = ?2 AND in_stats),
 k AS (SELECT file, line, name, std_name FROM b UNION
       SELECT file, line, name, std_name FROM t),
 d AS (SELECT k.std_name AS function,
  CASE WHEN b.func_id IS NULL THEN 'test' WHEN t.func_id IS NULL THEN 'base' ELSE '' END
   AS only_in,
  b.nc AS base_ncalls, t.nc AS test_ncalls,
  b.tt AS base_tottime, t.tt AS test_tottime,
  coalesce(t.tt, 0) - coalesce(b.tt, 0) AS tottime_change,
  CASE WHEN b.tt > 0 THEN 100.0 * (coalesce(t.tt, 0) - b.tt) / b.tt END AS tottime_change_pct,
  b.ct AS base_cumtime, t.ct AS test_cumtime,
  coalesce(t.ct, 0) - coalesce(b.ct, 0) AS cumtime_change,
  CASE WHEN b.ct > 0 THEN 100.0 * (coalesce(t.ct, 0) - b.ct) / b.ct END AS cumtime_change_pct
  FROM k LEFT JOIN b ON b.file = k.file AND b.line = k.line AND b.name = k.name
  LEFT JOIN t ON t.file = k.file AND t.line = k.line AND t.name = k.name)
 SELECT * FROM d ORDER BY CASE ?4 WHEN 'tottime' THEN abs(tottime_change)
   WHEN 'cumtime' THEN abs(cumtime_change)
   ELSE max(abs(tottime_change), abs(cumtime_change)) END DESC, function LIMIT ?3
