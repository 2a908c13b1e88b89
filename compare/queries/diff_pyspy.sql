-- diff_pyspy.sql: `profdb diff BASE TEST pyspy` (compare/diff_pyspy.c).
-- A query starts at "-- name: NAME" and is known to C as diff_pyspy.NAME
-- (common/query.h). The base run is in schema main (?1), the test run in
-- "{schema}" (?2): "main" or "tdb" (compare/queries.h).
--
-- A function is a (name, file) pair of python or native frames. Its share
-- of a run is its samples over the run's samples (every profile of the run:
-- threads, processes, files), as `report pyspy` counts them: "self" =
-- samples whose stack ends in it, "total" = samples whose stack holds it at
-- least once (recursion counted once). Process and thread pseudo-frames
-- are not functions.

-- name: totals
-- ?1 = a run: its py-spy samples and whether every stack is present (0:
-- a flame-graph SVG, whose boxes below 0.1% are not drawn), and whether its
-- samples are time-weighted (speedscope evented: no p then).
SELECT coalesce(sum(samples), 0), count(*), coalesce(min(exact), 1), count(weight_unit) > 0
 FROM {schema}.pyspy_profiles WHERE run_id = ?1

-- name: functions
-- Functions of both runs joined on (name, file), the largest change of
-- total share first; ?3 = the number of rows (-1: all). p: the two-sided
-- Mann-Whitney p of the test run's samples against the base run's, each
-- sample 1 when its stack holds the function and 0 when not
-- (pdb_share_p(k_base, n_base, k_test, n_test), compare/diff_pyspy.c).
-- Each side walks up from every node that has samples (one row per
-- sampled node and ancestor: linear in the stored tree) and keeps each
-- function once per stack before adding up.
WITH RECURSIVE
 bn AS (SELECT (SELECT coalesce(sum(samples), 0) FROM main.pyspy_profiles WHERE run_id = ?1)
   AS n),
 tn AS (SELECT (SELECT coalesce(sum(samples), 0) FROM {schema}.pyspy_profiles
   WHERE run_id = ?2) AS n),
 bleaf AS (SELECT node_id, sum(samples) AS samples FROM main.pyspy_samples
   WHERE run_id = ?1 GROUP BY node_id),
 tleaf AS (SELECT node_id, sum(samples) AS samples FROM {schema}.pyspy_samples
   WHERE run_id = ?2 GROUP BY node_id),
 bup(origin, node_id, samples) AS (SELECT node_id, node_id, samples FROM bleaf
   UNION ALL SELECT u.origin, n.parent_id, u.samples FROM bup u
   JOIN main.pyspy_nodes n ON n.node_id = u.node_id WHERE n.parent_id <> 0),
 tup(origin, node_id, samples) AS (SELECT node_id, node_id, samples FROM tleaf
   UNION ALL SELECT u.origin, n.parent_id, u.samples FROM tup u
   JOIN {schema}.pyspy_nodes n ON n.node_id = u.node_id WHERE n.parent_id <> 0),
 bfn AS (SELECT DISTINCT u.origin, f.name, f.file, u.samples FROM bup u
   JOIN main.pyspy_nodes n ON n.node_id = u.node_id
   JOIN main.pyspy_frames f ON f.frame_id = n.frame_id WHERE f.kind IN ('python', 'native')),
 tfn AS (SELECT DISTINCT u.origin, f.name, f.file, u.samples FROM tup u
   JOIN {schema}.pyspy_nodes n ON n.node_id = u.node_id
   JOIN {schema}.pyspy_frames f ON f.frame_id = n.frame_id
   WHERE f.kind IN ('python', 'native')),
 bself AS (SELECT f.name, f.file, sum(l.samples) AS samples FROM bleaf l
   JOIN main.pyspy_nodes n ON n.node_id = l.node_id
   JOIN main.pyspy_frames f ON f.frame_id = n.frame_id
   WHERE f.kind IN ('python', 'native') GROUP BY f.name, f.file),
 tself AS (SELECT f.name, f.file, sum(l.samples) AS samples FROM tleaf l
   JOIN {schema}.pyspy_nodes n ON n.node_id = l.node_id
   JOIN {schema}.pyspy_frames f ON f.frame_id = n.frame_id
   WHERE f.kind IN ('python', 'native') GROUP BY f.name, f.file),
 b AS (SELECT name, file, sum(samples) AS total FROM bfn GROUP BY name, file),
 t AS (SELECT name, file, sum(samples) AS total FROM tfn GROUP BY name, file),
 k AS (SELECT name, file FROM b UNION SELECT name, file FROM t),
 d AS (SELECT k.name AS function, k.file AS file,
  CASE WHEN b.name IS NULL THEN 'test' WHEN t.name IS NULL THEN 'base' ELSE '' END AS only_in,
  round(100.0 * coalesce(bs.samples, 0) / bn.n, 2) AS base_self_pct,
  round(100.0 * coalesce(ts.samples, 0) / tn.n, 2) AS test_self_pct,
  round(100.0 * coalesce(b.total, 0) / bn.n, 2) AS base_total_pct,
  round(100.0 * coalesce(t.total, 0) / tn.n, 2) AS test_total_pct,
  100.0 * coalesce(t.total, 0) / tn.n - 100.0 * coalesce(b.total, 0) / bn.n AS change,
  coalesce(b.total, 0) AS base_total_samples, coalesce(t.total, 0) AS test_total_samples,
  CASE WHEN NOT ?4 THEN pdb_share_p(coalesce(b.total, 0), bn.n, coalesce(t.total, 0), tn.n)
  END AS p
  FROM k CROSS JOIN bn CROSS JOIN tn
  LEFT JOIN b ON b.name = k.name AND b.file = k.file
  LEFT JOIN t ON t.name = k.name AND t.file = k.file
  LEFT JOIN bself bs ON bs.name = k.name AND bs.file = k.file
  LEFT JOIN tself ts ON ts.name = k.name AND ts.file = k.file)
 SELECT function, file, only_in, base_self_pct, test_self_pct, base_total_pct, test_total_pct,
  round(change, 2) AS total_change_pp, base_total_samples, test_total_samples, p
 FROM d ORDER BY abs(change) DESC, function, file LIMIT ?3
