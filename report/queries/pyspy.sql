-- pyspy.sql: the py-spy reports: pyspy, pyspy-callers, pyspy-leaves
-- (report/pyspy.c). A query starts at "-- name: NAME" and is known to C as
-- pyspy.NAME (common/query.h). ?1 is the run_id.
--
-- Every query walks each distinct stack once, from the node where samples
-- ended up to its root (pyspy_nodes.parent_id): `walk` has one row per
-- (end node, node on its stack), as many rows as the stacks' frames the
-- profiler wrote, each stack once however many samples it has. A frame is
-- keyed by what py-spy prints (name, file, line), or with --by function by
-- (name, file); process and thread pseudo-frames are never functions. Total
-- counts a key once per stack (DISTINCT end, key), so recursion and
-- speedscope frames that print alike count once; self is the key of the end
-- node when that is not a pseudo-frame (a stack of pseudo-frames only has
-- no leaf: it counts in the root's samples, not for a function).

-- name: create_top
-- Fills temp.pyspy_top (dropped by pyspy.top_drop), read by top and top_by_root.
-- ?2 = 'frame' | 'function', ?3 = --top N (-1: all; per root with ?5),
-- ?4 = 'total' | 'self' (the order), ?5 = 1: one table per root (the leading
-- process/thread chain, or the speedscope profile, and both when both).
-- Shares are of the root's samples (?5) or of every sample of the run.
-- Seconds = samples / rate_hz, only where every profile involved knows its
-- rate. Ties in the order of the printed key ('name (file:line)'), as the
-- corpus oracle orders them. The walk carries what later steps need, so
-- that no step joins two computed tables (SQLite would scan them nested).
CREATE TEMP TABLE pyspy_top AS
WITH RECURSIVE
ends AS (
  SELECT s.node_id AS end_id, CASE WHEN ?5 THEN p.name END AS label, sum(s.samples) AS n,
         CASE WHEN count(p.rate_hz) = count(*) THEN sum(s.samples / p.rate_hz) END AS secs
  FROM pyspy_samples s JOIN pyspy_profiles p USING (profile_id)
  WHERE s.run_id = ?1 GROUP BY 1, 2),
walk(end_id, label, n, secs, node_id, parent_id, pseudo, name, file, line, chain) AS (
  SELECT e.end_id, e.label, e.n, e.secs, d.node_id, d.parent_id,
         f.kind IN ('process', 'thread'), f.name, f.file, f.line,
         CASE WHEN f.kind IN ('process', 'thread') THEN f.name END
  FROM ends e JOIN pyspy_nodes d ON d.node_id = e.end_id
  JOIN pyspy_frames f ON f.frame_id = d.frame_id
  UNION ALL
  SELECT w.end_id, w.label, w.n, w.secs, d.node_id, d.parent_id,
         f.kind IN ('process', 'thread'), f.name, f.file, f.line,
         CASE WHEN f.kind IN ('process', 'thread') THEN f.name || coalesce(';' || w.chain, '')
              ELSE w.chain END
  FROM walk w JOIN pyspy_nodes d ON d.node_id = w.parent_id
  JOIN pyspy_frames f ON f.frame_id = d.frame_id),
-- The root of each stack: the pseudo-frames at its top, root first.
rooted AS (
  SELECT w.*, CASE WHEN ?5 THEN coalesce(
           w.label || ';' || max(CASE WHEN w.parent_id = 0 THEN w.chain END)
                                 OVER (PARTITION BY w.end_id, w.label),
           w.label,
           max(CASE WHEN w.parent_id = 0 THEN w.chain END) OVER (PARTITION BY w.end_id, w.label),
           '(no process/thread frame)') END AS root,
         CASE WHEN ?2 = 'function' OR w.line = 0 THEN NULL ELSE w.line END AS kline
  FROM walk w),
-- A key once per stack for total, and the end's key for self.
contrib AS (
  SELECT DISTINCT end_id, label, root, n, secs, name, file, kline, 0 AS is_self
  FROM rooted WHERE NOT pseudo
  UNION ALL
  SELECT end_id, label, root, n, secs, name, file, kline, 1
  FROM rooted WHERE node_id = end_id AND NOT pseudo),
-- Samples of a root, with those of empty stacks (a speedscope sample can
-- have no frame: stored at node 0).
roots AS (
  SELECT root, CASE WHEN ?5 THEN sum(n)
                    ELSE (SELECT sum(samples) FROM pyspy_profiles WHERE run_id = ?1) END
           AS samples,
         count(secs) = count(*) AS timed
  FROM (SELECT root, n, secs FROM rooted WHERE node_id = end_id
        UNION ALL
        SELECT CASE WHEN ?5 THEN coalesce(label, '(no process/thread frame)') END, n, secs
        FROM ends e WHERE NOT EXISTS (SELECT 1 FROM pyspy_nodes d WHERE d.node_id = e.end_id))
  GROUP BY root),
agg AS (
  SELECT root, name, file, kline AS line,
         total(CASE WHEN is_self THEN n END) AS self, total(CASE WHEN NOT is_self THEN n END) AS total,
         total(CASE WHEN is_self THEN secs END) AS self_s,
         total(CASE WHEN NOT is_self THEN secs END) AS total_s,
         name || CASE WHEN kline IS NOT NULL THEN ' (' || file || ':' || kline || ')'
                      WHEN file <> '' THEN ' (' || file || ')' ELSE '' END AS printed
  FROM contrib GROUP BY root, name, file, kline),
ranked AS (
  SELECT a.*, row_number() OVER (
           PARTITION BY a.root
           ORDER BY CASE WHEN ?4 = 'self' THEN a.self ELSE a.total END DESC, a.printed)
           AS rank
  FROM agg a)
SELECT r.root, ro.samples AS root_samples, r.rank, r.name, r.file, r.line,
       CAST(r.self AS INTEGER) AS self_samples, CAST(r.total AS INTEGER) AS total_samples,
       round(100.0 * r.self / ro.samples, 2) AS self_pct,
       round(100.0 * r.total / ro.samples, 2) AS total_pct,
       CASE WHEN ro.timed THEN round(r.self_s, 6) END AS self_s,
       CASE WHEN ro.timed THEN round(r.total_s, 6) END AS total_s
FROM ranked r JOIN roots ro ON ro.root IS r.root
WHERE ?3 < 0 OR r.rank <= ?3

-- name: top
SELECT name, file, line, self_samples, total_samples, self_pct, total_pct, self_s, total_s
FROM temp.pyspy_top ORDER BY rank

-- name: top_by_root
-- One table per root, the biggest first.
SELECT root, root_samples, rank, name, file, line, self_samples, total_samples, self_pct,
       total_pct, self_s, total_s
FROM temp.pyspy_top ORDER BY root_samples DESC, root, rank

-- name: top_drop
DROP TABLE IF EXISTS temp.pyspy_top

-- name: count
-- Profiles of the run (the py-spy reports apply when there is one).
SELECT count(*) FROM pyspy_profiles WHERE run_id = ?1

-- name: inexact
-- Profiles read from a flame-graph SVG: their per-function values are lower bounds.
SELECT count(*) FROM pyspy_profiles WHERE run_id = ?1 AND NOT exact

-- name: tree_frames
-- The run's frames as py-spy prints them (report/pyspy_tree.c), by id.
SELECT frame_id, kind,
       CASE WHEN kind IN ('process', 'thread') THEN name
            WHEN line > 0 THEN name || ' (' || file || ':' || line || ')'
            WHEN file <> '' THEN name || ' (' || file || ')'
            ELSE name END AS printed
FROM pyspy_frames WHERE run_id = ?1 ORDER BY frame_id

-- name: tree_nodes
-- The run's stack tree, parents before children and the children of a node
-- next to each other in the order of their printed frame (flamegraph.pl's
-- order), each with the samples that ended at it in every profile.
SELECT n.node_id, n.parent_id, n.frame_id, n.depth,
       (SELECT total(s.samples) FROM pyspy_samples s
        WHERE s.run_id = ?1 AND s.node_id = n.node_id) AS samples
FROM pyspy_nodes n JOIN pyspy_frames f USING (frame_id)
WHERE n.run_id = ?1
ORDER BY n.depth, n.parent_id,
         CASE WHEN f.kind IN ('process', 'thread') THEN f.name
              WHEN f.line > 0 THEN f.name || ' (' || f.file || ':' || f.line || ')'
              WHEN f.file <> '' THEN f.name || ' (' || f.file || ')'
              ELSE f.name END

-- name: tree_totals
-- Every sample of the run's profiles, whether it exact (0: an SVG among
-- them), and the rate when every profile has the same.
SELECT coalesce(sum(samples), 0), coalesce(min(exact), 1),
       CASE WHEN count(DISTINCT rate_hz) = 1 AND count(rate_hz) = count(*) THEN max(rate_hz) END
FROM pyspy_profiles WHERE run_id = ?1
