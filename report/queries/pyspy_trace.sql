-- pyspy_trace.sql: `report pyspy-trace` (report/pyspy_trace.c): the top
-- py-spy functions of a run beside what its PyTorch trace says about the
-- same functions. A query starts at "-- name: NAME" and is known to C as
-- pyspy_trace.NAME (common/query.h). ?1 is the run_id.
--
-- The join is by name: a trace recorded with with_stack=True has a
-- python_function event per Python call, named 'FILE(LINE): FUNC' (LINE the
-- function's first line); a py-spy frame has name, file and the line that
-- was running. So a py-spy function (name and file: --by function) meets
-- the python_function events of the same FUNC and FILE, never by line.
-- The kernels a function launched are the GPU events whose launch (the
-- runtime call of analysis_gpu_attribution, exact mode) starts inside one
-- of its events on the same thread; the op is the attribution's innermost
-- op around the launch. A function's events that lie inside another of its
-- events on the same thread (recursion) are left out (pyspy_trace.c keeps
-- the outermost), so nothing counts twice.

-- name: count
-- python_function events of the run's traces (the report applies when
-- there are some).
SELECT count(*) FROM slices s JOIN traces t USING (trace_id)
WHERE t.run_id = ?1 AND s.cat = (SELECT id FROM strings WHERE value = 'python_function')

-- name: create_tables
-- fn: the top py-spy functions (from temp.pyspy_top, report/pyspy.c), by
-- rank; names: the string ids of python_function names that are one of
-- them; ev: their events; outer: the outermost ones; launch: every
-- attributed GPU event by its launch's thread and start; ops: GPU time per
-- function and op.
CREATE TEMP TABLE pyspy_trace_fn (
    fn INTEGER PRIMARY KEY, name TEXT NOT NULL, file TEXT NOT NULL, samples INTEGER,
    pct REAL, secs REAL);
CREATE TEMP TABLE pyspy_trace_names (
    name_id INTEGER PRIMARY KEY, fn INTEGER NOT NULL);
CREATE TEMP TABLE pyspy_trace_ev (
    fn INTEGER NOT NULL, trace_id INTEGER NOT NULL, lane TEXT NOT NULL, ts INTEGER NOT NULL,
    end_ts INTEGER NOT NULL);
CREATE TEMP TABLE pyspy_trace_outer (
    fn INTEGER NOT NULL, trace_id INTEGER NOT NULL, lane TEXT NOT NULL, ts INTEGER NOT NULL,
    end_ts INTEGER NOT NULL);
CREATE TEMP TABLE pyspy_trace_launch (
    trace_id INTEGER NOT NULL, lane TEXT NOT NULL, ts INTEGER NOT NULL, op INTEGER,
    dur INTEGER NOT NULL);
CREATE TEMP TABLE pyspy_trace_ops (
    fn INTEGER NOT NULL, op INTEGER, events INTEGER NOT NULL, gpu_ns INTEGER NOT NULL)

-- name: drop
DROP TABLE IF EXISTS temp.pyspy_trace_fn;
DROP TABLE IF EXISTS temp.pyspy_trace_names;
DROP TABLE IF EXISTS temp.pyspy_trace_ev;
DROP TABLE IF EXISTS temp.pyspy_trace_outer;
DROP TABLE IF EXISTS temp.pyspy_trace_launch;
DROP TABLE IF EXISTS temp.pyspy_trace_ops

-- name: fill
-- A thread is its (pid, tid) as the trace wrote them ('lane'); times in ns.
INSERT INTO temp.pyspy_trace_fn (fn, name, file, samples, pct, secs)
SELECT rank, name, file, total_samples, total_pct, total_s FROM temp.pyspy_top;
INSERT INTO temp.pyspy_trace_names (name_id, fn)
SELECT p.id, min(f.fn)
FROM (SELECT id, substr(value, instr(value, '): ') + 3) AS func,
             rtrim(substr(value, 1, instr(value, '): ') - 1), '0123456789') AS head
      FROM strings WHERE instr(value, '): ') > 1) p
JOIN temp.pyspy_trace_fn f ON f.name = p.func AND f.file || '(' = p.head
GROUP BY p.id;
INSERT INTO temp.pyspy_trace_ev (fn, trace_id, lane, ts, end_ts)
SELECT m.fn, s.trace_id, quote(s.pid) || ' ' || quote(s.tid), s.ts, s.ts + s.dur
FROM slices s JOIN traces t USING (trace_id)
JOIN temp.pyspy_trace_names m ON m.name_id = s.name
WHERE t.run_id = ?1 AND s.cat = (SELECT id FROM strings WHERE value = 'python_function');
INSERT INTO temp.pyspy_trace_launch (trace_id, lane, ts, op, dur)
SELECT l.trace_id, quote(l.pid) || ' ' || quote(l.tid), l.ts, a.op, a.dur_ns
FROM analysis_gpu_attribution a JOIN slices l ON l.id = a.launch_id
WHERE a.run_id = ?1 AND EXISTS (SELECT 1 FROM temp.pyspy_trace_ev);
CREATE INDEX temp.pyspy_trace_launch_at ON pyspy_trace_launch (trace_id, lane, ts)

-- name: events
-- A function's events per thread, an outer one before those it holds.
SELECT fn, trace_id, lane, ts, end_ts FROM temp.pyspy_trace_ev
ORDER BY fn, trace_id, lane, ts, end_ts DESC

-- name: outer_add
INSERT INTO temp.pyspy_trace_outer (fn, trace_id, lane, ts, end_ts) VALUES (?1, ?2, ?3, ?4, ?5)

-- name: sum_ops
INSERT INTO temp.pyspy_trace_ops (fn, op, events, gpu_ns)
SELECT o.fn, l.op, count(*), sum(l.dur)
FROM temp.pyspy_trace_outer o JOIN temp.pyspy_trace_launch l
  ON l.trace_id = o.trace_id AND l.lane = o.lane AND l.ts >= o.ts AND l.ts < o.end_ts
GROUP BY o.fn, l.op;
CREATE INDEX temp.pyspy_trace_ops_fn ON pyspy_trace_ops (fn, gpu_ns)

-- name: report
-- Per function, in py-spy's order: a row '(all)' with its py-spy samples,
-- its calls and time in the trace and the GPU time it launched, then its
-- ?2 ops with the most GPU time (ties by name; '(no op)': launched outside
-- every op).
WITH
calls AS (SELECT fn, count(*) AS calls, sum(end_ts - ts) AS ns
          FROM temp.pyspy_trace_outer GROUP BY fn),
opnamed AS (SELECT o.fn, coalesce(s.value, '(no op)') AS op, o.events, o.gpu_ns
            FROM temp.pyspy_trace_ops o LEFT JOIN strings s ON s.id = o.op),
ranked AS (SELECT o.*, (SELECT count(*) FROM opnamed x WHERE x.fn = o.fn
                          AND (x.gpu_ns > o.gpu_ns OR (x.gpu_ns = o.gpu_ns AND x.op < o.op)))
                       AS above
           FROM opnamed o),
rows AS (
  SELECT f.fn, 0 AS ord, '(all)' AS op, coalesce(sum(o.events), 0) AS events,
         coalesce(sum(o.gpu_ns), 0) AS gpu_ns
  FROM temp.pyspy_trace_fn f LEFT JOIN temp.pyspy_trace_ops o USING (fn) GROUP BY f.fn
  UNION ALL
  SELECT fn, 1 + above, op, events, gpu_ns FROM ranked WHERE above < ?2)
SELECT f.name AS function, f.file, f.samples AS pyspy_samples, f.pct AS pyspy_pct,
       f.secs AS pyspy_s, coalesce(c.calls, 0) AS trace_calls,
       round(coalesce(c.ns, 0) / 1e6, 3) AS trace_ms, r.op, r.events AS gpu_events,
       round(r.gpu_ns / 1e6, 3) AS gpu_ms
FROM rows r JOIN temp.pyspy_trace_fn f USING (fn) LEFT JOIN calls c USING (fn)
ORDER BY f.fn, r.ord
