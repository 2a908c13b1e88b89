-- trace_ops.sql: the `ops` report (report/trace_ops.c).
-- A query starts at "-- name: NAME" and is known to C as trace_ops.NAME
-- (common/query.h). ?1 is the run_id, ?3 --top N (-1: every row).
--
-- The two queries differ only in the input_dims column (--by-shape), which
-- a bound parameter cannot add or remove: they are written out twice on
-- purpose, and must stay alike.

-- name: ops
-- The top ?3 ops of each rank by self time, then one 'others' row.
WITH o AS (SELECT rank, name, cat, sum(count) AS count, sum(self_ns) AS self_ns,
   sum(total_ns) AS total_ns FROM analysis_ops WHERE run_id = ?1 GROUP BY rank, name, cat),
 r AS (SELECT *, row_number() OVER (PARTITION BY rank ORDER BY self_ns DESC, name) AS n,
   100.0 * self_ns / sum(self_ns) OVER (PARTITION BY rank) AS self_share_pct FROM o)
 SELECT rank, name, cat, count, self_ns, total_ns, self_share_pct FROM (
   SELECT *, 0 AS others FROM r WHERE ?3 < 0 OR n <= ?3
   UNION ALL
   SELECT rank, 'others', NULL, sum(count), sum(self_ns), sum(total_ns), NULL,
     sum(self_share_pct), 1 FROM r WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)
 ORDER BY rank, others, self_ns DESC, name

-- name: ops_by_shape
-- As ops, one row per input shape (input_dims).
WITH o AS (SELECT rank, name, cat, input_dims, sum(count) AS count, sum(self_ns) AS self_ns,
   sum(total_ns) AS total_ns FROM analysis_ops WHERE run_id = ?1
   GROUP BY rank, name, cat, input_dims),
 r AS (SELECT *, row_number() OVER (PARTITION BY rank ORDER BY self_ns DESC, name) AS n,
   100.0 * self_ns / sum(self_ns) OVER (PARTITION BY rank) AS self_share_pct FROM o)
 SELECT rank, name, cat, input_dims, count, self_ns, total_ns, self_share_pct FROM (
   SELECT *, 0 AS others FROM r WHERE ?3 < 0 OR n <= ?3
   UNION ALL
   SELECT rank, 'others', NULL, NULL, sum(count), sum(self_ns), sum(total_ns), NULL,
     sum(self_share_pct), 1 FROM r WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)
 ORDER BY rank, others, self_ns DESC, name
