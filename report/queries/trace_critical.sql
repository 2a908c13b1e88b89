-- trace_critical.sql: the critical-path report (report/trace_critical.c).
-- The analysis runs on demand (analyze/ondemand/critical_path.c) and fills the temp
-- tables made here; the queries below read them. ?1 is the run_id.

-- name: create_critical
-- One row per instance (an iteration, or the whole trace) and rank; per
-- instance the time on the path by bound type and by edge type; the path.
-- Times are ns (hta mode: HTA's rounded microseconds).
CREATE TEMP TABLE IF NOT EXISTS cp_windows (rank INTEGER, instance INTEGER, annotation TEXT,
  name TEXT,
  start_ts INTEGER, end_ts INTEGER, ok INTEGER, why TEXT, nodes INTEGER, graph_nodes INTEGER,
  edges INTEGER, clipped INTEGER, path_ns INTEGER, object_path_ns INTEGER, path_nodes INTEGER,
  critical_events INTEGER, first_ts INTEGER, last_ts INTEGER, launches INTEGER);
CREATE TEMP TABLE IF NOT EXISTS cp_bounds (rank INTEGER, instance INTEGER, kind TEXT, name TEXT,
  duration_ns INTEGER, edges INTEGER);
CREATE TEMP TABLE IF NOT EXISTS cp_path (rank INTEGER, instance INTEGER, seq INTEGER,
  node INTEGER, slice_id INTEGER, ts INTEGER, is_start INTEGER, edge_type TEXT,
  weight_ns INTEGER, edge_slice_id INTEGER, bound TEXT);
CREATE TEMP TABLE IF NOT EXISTS cp_filled (run_id INTEGER);
DELETE FROM cp_windows;
DELETE FROM cp_bounds;
DELETE FROM cp_path;
DELETE FROM cp_filled

-- name: insert_window
-- One instance of one rank; ?18 its annotation event's name.
INSERT INTO temp.cp_windows (rank, instance, annotation, start_ts, end_ts, ok, why, nodes,
 graph_nodes, edges, clipped, path_ns, object_path_ns, path_nodes, critical_events, first_ts,
 last_ts, name)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)

-- name: window_launches
-- The summary fill's count for the insights (trace_insights.sql's cpl): the
-- launches (CPU-side events with a correlation) of the run's traces of rank
-- ?2 that start in [?3, ?4). Counted once per window as the fill stores it,
-- not by every reading of the insights (a report folder reads them five
-- times: on the largest corpus trace, 36 ms a reading).
SELECT count(*) FROM traces t JOIN slices l ON l.trace_id = t.trace_id
 WHERE t.run_id = ?1 AND t.rank = ?2 AND l.ts >= ?3 AND l.ts < ?4
 AND l.correlation IS NOT NULL AND l.stream IS NULL

-- name: set_launches
UPDATE temp.cp_windows SET launches = ?2 WHERE rowid = ?1

-- name: insert_bound
INSERT INTO temp.cp_bounds VALUES (?,?,?,?,?,?)

-- name: insert_path
INSERT INTO temp.cp_path VALUES (?,?,?,?,?,?,?,?,?,?,?)

-- name: create_filled
-- The run whose summary fill the tables hold (pdb_critical_summary): read
-- before create_critical has run.
CREATE TEMP TABLE IF NOT EXISTS cp_filled (run_id INTEGER)

-- name: insert_filled
INSERT INTO temp.cp_filled VALUES (?)

-- name: summary
-- Per instance: the path's length, the span from its first node to its last,
-- and the share of the path each bound takes (HTA's summary(): a bound's
-- edges' weights over all edges' weights); why when there is no path.
WITH b AS (SELECT rank, instance, name, duration_ns FROM cp_bounds WHERE kind = 'bound'),
 t AS (SELECT rank, instance, sum(duration_ns) AS total FROM b GROUP BY rank, instance)
 SELECT w.rank, w.annotation, w.instance, w.name AS window, w.path_ns, w.last_ts - w.first_ts AS span_ns,
 100.0 * (SELECT duration_ns FROM b WHERE b.rank = w.rank AND b.instance = w.instance
   AND name = 'cpu_bound') / t.total AS cpu_pct,
 100.0 * (SELECT duration_ns FROM b WHERE b.rank = w.rank AND b.instance = w.instance
   AND name = 'gpu_compute_bound') / t.total AS gpu_compute_pct,
 100.0 * (SELECT duration_ns FROM b WHERE b.rank = w.rank AND b.instance = w.instance
   AND name = 'gpu_communication_bound') / t.total AS gpu_comm_pct,
 100.0 * (SELECT duration_ns FROM b WHERE b.rank = w.rank AND b.instance = w.instance
   AND name = 'gpu_kernel_launch_overhead') / t.total AS launch_pct,
 100.0 * (SELECT duration_ns FROM b WHERE b.rank = w.rank AND b.instance = w.instance
   AND name = 'gpu_kernel_kernel_overhead') / t.total AS kernel_gap_pct,
 w.path_nodes, w.graph_nodes AS nodes, w.edges, w.why
 FROM cp_windows w LEFT JOIN t USING (rank, instance) ORDER BY w.rank, w.instance

-- name: bounds
-- --by bound: per instance, each bound type's time on the path, edges and
-- share (HTA's get_critical_path_breakdown summed by bound_by; '' is
-- dependency and sync edges).
SELECT rank, instance, name AS bound, duration_ns, edges,
 100.0 * duration_ns / sum(duration_ns) OVER (PARTITION BY rank, instance) AS pct
 FROM cp_bounds WHERE kind = 'bound' ORDER BY rank, instance, name

-- name: edge_types
-- --by edge-type: per instance, each edge type's time on the path and edges.
SELECT rank, instance, name AS edge_type, duration_ns, edges FROM cp_bounds
 WHERE kind = 'type' ORDER BY rank, instance, name

-- name: path
-- --by node: the path, node by node, with the edge to the next node: its
-- type, weight, the event it is attributed to and what bounds it.
SELECT p.rank, p.instance, p.node, (SELECT value FROM strings WHERE id = s.name) AS event,
 p.is_start, p.ts AS ts_ns, p.edge_type, p.weight_ns,
 (SELECT value FROM strings WHERE id = a.name) AS attributed_to, p.bound
 FROM cp_path p JOIN slices s ON s.id = p.slice_id LEFT JOIN slices a ON a.id = p.edge_slice_id
 ORDER BY p.rank, p.instance, p.seq

-- name: windows_exact
-- The windows of exact mode: CPU-side events whose name contains ?2 (not
-- GPU events or their gpu_* annotation copies), in start order.
SELECT s.ts, s.ts + s.dur, (SELECT value FROM strings WHERE id = s.name) FROM slices s
 WHERE s.trace_id = ?1 AND s.name IN (SELECT id FROM strings WHERE instr(value, ?2) > 0)
 AND (s.stream IS NULL OR coalesce(s.cat, 0) IN (SELECT id FROM strings WHERE value IN
   ('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op', 'user_annotation', 'python_function')))
 AND coalesce(s.cat, 0) NOT IN (SELECT id FROM strings WHERE value GLOB 'gpu_*')
 ORDER BY s.ts, s.id

-- name: windows_hta
-- The windows of hta mode: HTA's rows whose name contains ?2 (any category,
-- gpu_user_annotation included), in trace order, with HTA's rounded times
-- (?3 round, ?4 drop the last step, ?5 its start).
SELECT hta_start(s.ts, ?3), hta_end(s.ts, s.dur, ?3), (SELECT value FROM strings WHERE id = s.name)
 FROM slices s
 WHERE s.trace_id = ?1 AND s.name IN (SELECT id FROM strings WHERE instr(value, ?2) > 0)
 AND s.ph = 'X' AND s.cat IS NOT NULL AND s.cat NOT IN (SELECT id FROM strings WHERE value = 'Trace')
 AND (NOT ?4 OR hta_start(s.ts, ?3) < ?5)
 ORDER BY s.id

-- name: filled
-- Whether temp.cp_filled says the tables hold run ?1's summary fill.
SELECT count(*) FROM cp_filled WHERE run_id = ?1

-- name: gpu_events
-- Whether the run has GPU events (the critical path needs them).
SELECT coalesce(sum(gpu_events), 0) FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact'
