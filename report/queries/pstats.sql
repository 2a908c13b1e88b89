-- pstats.sql: the pstats reports: pstats, callers, callees, pstats-dot
-- (report/pstats_model.c, pstats_print.c, pstats_graph.c).
-- A query starts at "-- name: NAME" and is known to C as pstats.NAME
-- (common/query.h). ?1 is the run_id, or where said a function id or the
-- selected functions as a JSON array of func_ids (read with json_each, in
-- the selection's order).

-- name: functions
SELECT func_id, ord, file, line, name, std_name, cc, nc, tt, ct,
 top_level FROM pstats_functions WHERE run_id = ?1 AND in_stats
 ORDER BY ord

-- name: dumps
-- Totals are added dump by dump in ingest order, as Stats.add() does.
SELECT files_line, total_calls, prim_calls, total_tt,
 (SELECT name FROM runs WHERE run_id = ?1) AS run
 FROM pstats_dumps WHERE run_id = ?1 ORDER BY source_id

-- name: edge_count
SELECT count(*) FROM pstats_edges WHERE run_id = ?1

-- name: callers_of
-- ?1 = func_id; the other side sorted by its (file, line, name) key.
SELECT o.std_name, e.nc, e.cc, e.tt, e.ct FROM pstats_edges e
 JOIN pstats_functions o ON o.func_id = e.caller_id WHERE e.callee_id = ?1
 ORDER BY o.file, o.line, o.name

-- name: callees_of
-- ?1 = func_id.
SELECT o.std_name, e.nc, e.cc, e.tt, e.ct FROM pstats_edges e
 JOIN pstats_functions o ON o.func_id = e.callee_id WHERE e.caller_id = ?1
 ORDER BY o.file, o.line, o.name

-- name: stats_rows
-- ?1 = the selection (JSON array of func_ids).
SELECT f.nc AS ncalls, f.cc AS pcalls, f.tt AS tottime,
 CASE WHEN f.nc = 0 THEN NULL ELSE f.tt / f.nc END AS tottime_percall,
 f.ct AS cumtime,
 CASE WHEN f.cc = 0 THEN NULL ELSE f.ct / f.cc END AS cumtime_percall,
 f.file AS filename, f.line AS lineno, f.name AS function, f.std_name AS std_name
 FROM json_each(?1) j JOIN pstats_functions f ON f.func_id = j.value ORDER BY j.key

-- name: caller_rows
-- ?1 = the selection (JSON array of func_ids).
SELECT f.std_name AS function, o.std_name AS caller, e.nc AS ncalls, e.cc AS pcalls,
 e.tt AS tottime, e.ct AS cumtime
 FROM json_each(?1) j JOIN pstats_functions f ON f.func_id = j.value
 JOIN pstats_edges e ON e.callee_id = f.func_id
 JOIN pstats_functions o ON o.func_id = e.caller_id
 ORDER BY j.key, o.file, o.line, o.name

-- name: callee_rows
-- ?1 = the selection (JSON array of func_ids).
SELECT f.std_name AS function, o.std_name AS callee, e.nc AS ncalls, e.cc AS pcalls,
 e.tt AS tottime, e.ct AS cumtime
 FROM json_each(?1) j JOIN pstats_functions f ON f.func_id = j.value
 JOIN pstats_edges e ON e.caller_id = f.func_id
 JOIN pstats_functions o ON o.func_id = e.callee_id
 ORDER BY j.key, o.file, o.line, o.name

-- name: dot_edges
SELECT caller_id, callee_id, nc, ct FROM pstats_edges
 WHERE run_id = ?1 ORDER BY ord
