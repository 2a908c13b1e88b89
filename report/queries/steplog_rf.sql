-- steplog_rf.sql: the `rf-report` report: rectified-flow profiler blocks
-- (report/steplog_rf.c).
-- A query starts at "-- name: NAME" and is known to C as steplog_rf.NAME
-- (common/query.h). ?1 is the run_id.

-- name: rows
-- Breakdown rows of every rectified-flow block, with shares recomputed, in
-- the order the log prints them (pos, in steplog_points).
WITH b AS (SELECT k.source_id, k.record, k.title, k.line FROM steplog_blocks k
   WHERE k.run_id = ?1 AND (k.title LIKE 'Profiling Report%'
   OR k.title LIKE 'Final Profiling Summary%')),
 v AS (SELECT b.source_id, b.record, b.title, b.line AS bline, x.raw_name, x.metric,
   max(x.window) AS window, min(x.pos) AS first_row,
   max(CASE x.agg WHEN 'total' THEN x.value END) AS total_s,
   max(CASE x.agg WHEN 'mean' THEN x.value END) AS avg_s,
   max(CASE x.agg WHEN 'min' THEN x.value END) AS min_s,
   max(CASE x.agg WHEN 'max' THEN x.value END) AS max_s,
   max(CASE x.agg WHEN 'share' THEN x.value END) AS printed_pct
   FROM b JOIN steplog_points x ON x.run_id = ?1 AND x.source_id = b.source_id
   AND x.record = b.record GROUP BY b.source_id, b.record, x.raw_name)
 SELECT title AS block, raw_name AS section, metric, window AS count,
  round(total_s * 1e9) AS total_ns, round(avg_s * 1e9) AS avg_ns, round(min_s * 1e9) AS min_ns,
  round(max_s * 1e9) AS max_ns,
  100.0 * total_s / sum(total_s) OVER (PARTITION BY source_id, record) AS share_pct,
  printed_pct AS printed_share_pct
 FROM v ORDER BY source_id, record, first_row
