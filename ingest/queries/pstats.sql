-- pstats.sql: storing a pstats dump (ingest/pstats.c). A query starts at
-- "-- name: NAME" and is known to C as pstats.NAME (common/query.h). The
-- dumps of one run add up as pstats' Stats.add() adds them: a function's
-- counts and times are summed (new value + old), a key new to the run is
-- appended to the dict order, callers' edges are summed or appended.

-- name: find_function
-- ?1 = the run, ?2 the file, ?3 the line, ?4 the function name.
SELECT func_id, in_stats FROM pstats_functions
 WHERE run_id = ?1 AND file = ?2 AND line = ?3 AND name = ?4

-- name: add_function
INSERT INTO pstats_functions (run_id, source_id, ord, in_stats, file, line, name,
 std_name, cc, nc, tt, ct, top_level) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,
 ?11, ?12, 0)

-- name: add_to_function
-- Whether the counts are still integers (SQLite turns a sum that
-- overflows into a float without a word).
UPDATE pstats_functions SET cc = cc + ?2, nc = nc + ?3, tt = ?4 + tt, ct = ?5 + ct
 WHERE func_id = ?1 RETURNING typeof(cc) = 'integer' AND typeof(nc) = 'integer'

-- name: promote_function
-- A function known only as a caller until now joins the dict at ?2.
UPDATE pstats_functions SET in_stats = 1, ord = ?2 WHERE func_id = ?1

-- name: find_edge
SELECT 1 FROM pstats_edges WHERE run_id = ?1 AND callee_id = ?2 AND caller_id = ?3

-- name: add_edge
INSERT INTO pstats_edges (run_id, callee_id, caller_id, ord, nc, cc, tt, ct)
 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)

-- name: add_to_edge
UPDATE pstats_edges SET nc = ?4 + nc, cc = ?5 + cc, tt = ?6 + tt, ct = ?7 + ct
 WHERE run_id = ?1 AND callee_id = ?2 AND caller_id = ?3
 RETURNING typeof(cc) = 'integer' AND typeof(nc) = 'integer'

-- name: top_level
-- ?1 = a function that cProfile's own profiler entry calls.
UPDATE pstats_functions SET top_level = 1 WHERE func_id = ?1

-- name: next_function_ord
-- ?1 = the run: where the functions of its next dump go in the dict order.
SELECT coalesce(max(ord), -1) + 1 FROM pstats_functions WHERE run_id = ?1

-- name: next_edge_ord
SELECT coalesce(max(ord), -1) + 1 FROM pstats_edges WHERE run_id = ?1

-- name: run_totals
-- ?1 = the run: the call totals of its dumps, added up in C.
SELECT total_calls, prim_calls FROM pstats_dumps WHERE run_id = ?1

-- name: add_dump
INSERT INTO pstats_dumps (source_id, run_id, path, mtime, files_line, functions, edges,
 total_calls, prim_calls, total_tt) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
