-- merge_pstats.sql: a shard's pstats statistics added to a run that has
-- some (ingest/merge_pstats.c), as pstats' Stats.add() adds a dump. A query
-- starts at "-- name: NAME" and is known to C as merge_pstats.NAME
-- (common/query.h). {schema} is the attached shard; :func_offset and
-- :source_offset the offsets of its function and source ids (bound). The
-- runs are those of temp.merge_pstats_runs (old: the shard's id, new: the
-- target's).

-- name: add
-- The statements, in order.
DELETE FROM temp.merge_funcs;
-- the shard's functions, and the target's row of each, if any
INSERT INTO temp.merge_funcs (old, new, was_stats)
 SELECT f.func_id, t.func_id, t.in_stats FROM {schema}.pstats_functions f
 JOIN temp.merge_pstats_runs p ON p.old = f.run_id
 LEFT JOIN main.pstats_functions t ON t.run_id = p.new AND t.file = f.file
 AND t.line = f.line AND t.name = f.name;
-- keys that join the dict (new, or callers until now), in the shard's order
UPDATE temp.merge_funcs SET new_ord = o.n FROM (SELECT m.old,
 (SELECT coalesce(max(ord), -1) + 1 FROM main.pstats_functions WHERE run_id = p.new)
 + row_number() OVER (PARTITION BY f.run_id ORDER BY f.ord) - 1 AS n
 FROM temp.merge_funcs m JOIN {schema}.pstats_functions f ON f.func_id = m.old
 JOIN temp.merge_pstats_runs p ON p.old = f.run_id
 WHERE f.in_stats AND (m.new IS NULL OR NOT m.was_stats)) o
 WHERE o.old = temp.merge_funcs.old;
-- functions new to the run
INSERT INTO main.pstats_functions (func_id, run_id, source_id, ord, in_stats, file, line,
 name, std_name, cc, nc, tt, ct, top_level)
 SELECT f.func_id + :func_offset, p.new, f.source_id + :source_offset, coalesce(m.new_ord, -1),
 f.in_stats, f.file, f.line, f.name, f.std_name, f.cc, f.nc, f.tt, f.ct, f.top_level
 FROM temp.merge_funcs m JOIN {schema}.pstats_functions f ON f.func_id = m.old
 JOIN temp.merge_pstats_runs p ON p.old = f.run_id WHERE m.new IS NULL
 ORDER BY f.func_id;
UPDATE temp.merge_funcs SET new = old + :func_offset WHERE new IS NULL;
-- functions the run has: Stats.add (new value + old, as pstats.c adds)
UPDATE main.pstats_functions AS t SET cc = t.cc + f.cc, nc = t.nc + f.nc,
 tt = f.tt + t.tt, ct = f.ct + t.ct, in_stats = 1, ord = coalesce(m.new_ord, t.ord),
 top_level = max(t.top_level, f.top_level)
 FROM temp.merge_funcs m JOIN {schema}.pstats_functions f ON f.func_id = m.old
 WHERE t.func_id = m.new AND m.was_stats IS NOT NULL AND f.in_stats;
-- edges the run has: summed; then the new ones, in the shard's order
UPDATE main.pstats_edges AS t SET nc = e.nc + t.nc, cc = e.cc + t.cc,
 tt = e.tt + t.tt, ct = e.ct + t.ct
 FROM {schema}.pstats_edges e JOIN temp.merge_pstats_runs p ON p.old = e.run_id
 JOIN temp.merge_funcs a ON a.old = e.callee_id
 JOIN temp.merge_funcs b ON b.old = e.caller_id
 WHERE t.run_id = p.new AND t.callee_id = a.new AND t.caller_id = b.new;
INSERT INTO main.pstats_edges (run_id, callee_id, caller_id, ord, nc, cc, tt, ct)
 SELECT p.new, a.new, b.new,
 (SELECT coalesce(max(ord), -1) + 1 FROM main.pstats_edges WHERE run_id = p.new)
 + row_number() OVER (PARTITION BY e.run_id ORDER BY e.ord) - 1,
 e.nc, e.cc, e.tt, e.ct
 FROM {schema}.pstats_edges e JOIN temp.merge_pstats_runs p ON p.old = e.run_id
 JOIN temp.merge_funcs a ON a.old = e.callee_id
 JOIN temp.merge_funcs b ON b.old = e.caller_id
 WHERE NOT EXISTS (SELECT 1 FROM main.pstats_edges t WHERE t.run_id = p.new
 AND t.callee_id = a.new AND t.caller_id = b.new)

-- name: run_totals
-- The call totals of the dumps of each run, to add up in C: SQLite's sum()
-- of a run beyond 64-bit integers fails with a bare "integer overflow".
SELECT p.new, r.name, d.total_calls, d.prim_calls
 FROM temp.merge_pstats_runs p JOIN main.runs r ON r.run_id = p.new
 JOIN main.pstats_dumps d ON d.run_id = p.new ORDER BY p.new

-- name: counts_overflow
-- SQLite turns an integer sum that overflows into a float without a word.
SELECT EXISTS (SELECT 1 FROM temp.merge_pstats_runs p
 JOIN main.pstats_functions t ON t.run_id = p.new
 WHERE typeof(t.cc) <> 'integer' OR typeof(t.nc) <> 'integer')
 OR EXISTS (SELECT 1 FROM temp.merge_pstats_runs p
 JOIN main.pstats_edges t ON t.run_id = p.new
 WHERE typeof(t.cc) <> 'integer' OR typeof(t.nc) <> 'integer')
