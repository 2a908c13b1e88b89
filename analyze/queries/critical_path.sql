-- critical_path.sql: the graph of a trace's critical path, on demand (HTA's
-- CPGraph; analyze/critical_path.c). A query starts at "-- name: NAME" and
-- is known to C as critical_path.NAME (common/query.h). ?1 is the trace.

-- fragment: ev_columns
-- The columns of an event as the graph reads it (critical_path.c read_ev).
id, name, cat, ph, pid, tid, ts, dur, stream, correlation,
 json_extract(args, '$.wait_on_stream'), json_extract(args, '$.wait_on_cuda_event_record_corr_id')

-- name: create_queue
-- The queue length at every launch and launched GPU event of the trace.
CREATE TEMP TABLE IF NOT EXISTS cp_queue (id INTEGER PRIMARY KEY, q INTEGER);
DELETE FROM temp.cp_queue

-- name: queue
-- HTA's get_queue_length_time_series over the whole trace (stable order),
-- into temp.cp_queue. The launches are read through the correlation index
-- (a first table of every event of the trace took a tenth of the report).
-- ?2 = the string id of 'Trace', ?3 whether HTA rounds times, ?4 whether it
-- drops the last step, ?5 where.
INSERT OR REPLACE INTO temp.cp_queue
WITH l AS (SELECT id, name, cat, ts, stream, correlation FROM slices WHERE trace_id = ?1
   AND correlation IS NOT NULL AND ph = 'X' AND cat IS NOT NULL AND cat <> ?2
   AND name IN (SELECT id FROM strings
   WHERE value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel',
   'cuLaunchKernelEx', 'cudaMemcpyAsync', 'cudaMemsetAsync',
   'runFunction - job_prep_and_submit_for_execution', 'hipLaunchKernel',
   'hipExtModuleLaunchKernel', 'hipMemsetAsync', 'hipMemcpyAsync', 'hipMemcpyWithStream'))
   AND (NOT ?4 OR hta_start(ts, ?3) < ?5)),
 g AS (SELECT s.* FROM slices s WHERE s.trace_id = ?1 AND s.correlation IN
   (SELECT correlation FROM l) AND s.ph = 'X' AND s.cat IS NOT NULL AND s.cat <> ?2
   AND hta_stream(s.stream) <> -1),
 pts AS (SELECT l.id, hta_stream(g.stream) AS s, hta_start(l.ts, ?3) AS t, 0 AS k, 1 AS d
   FROM l JOIN slices g ON g.trace_id = ?1 AND g.correlation = l.correlation
   AND g.ph = 'X' AND g.cat IS NOT NULL AND g.cat <> ?2 AND hta_stream(g.stream) <> -1
   UNION ALL SELECT g.id, hta_stream(g.stream), hta_start(g.ts, ?3), 1, -1 FROM g)
 SELECT id, sum(d) OVER (PARTITION BY s ORDER BY t, k, id ROWS UNBOUNDED PRECEDING)
 FROM pts

-- name: queue_until
-- The queue query for the points at or before ?6 (HTA's time, ns) alone:
-- the same running sums at every point with t <= ?6 (each sums only points
-- before it in its stream, all kept), for a report that reads a few
-- windows (the summary's first 50 iterations). Launches and GPU events are
-- read by the (trace, ts) index up to ?6 (hta_start(ts) >= ts); a GPU
-- event is kept when a launch of any time has its correlation, as in queue.
INSERT OR REPLACE INTO temp.cp_queue
WITH l AS (SELECT id, name, cat, ts, stream, correlation FROM slices WHERE trace_id = ?1
   AND ts <= ?6 AND hta_start(ts, ?3) <= ?6
   AND +correlation IS NOT NULL AND ph = 'X' AND cat IS NOT NULL AND cat <> ?2
   AND name IN (SELECT id FROM strings
   WHERE value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel',
   'cuLaunchKernelEx', 'cudaMemcpyAsync', 'cudaMemsetAsync',
   'runFunction - job_prep_and_submit_for_execution', 'hipLaunchKernel',
   'hipExtModuleLaunchKernel', 'hipMemsetAsync', 'hipMemcpyAsync', 'hipMemcpyWithStream'))
   AND (NOT ?4 OR hta_start(ts, ?3) < ?5)),
 g AS (SELECT s.* FROM slices s WHERE s.trace_id = ?1 AND s.ts <= ?6
   AND hta_start(s.ts, ?3) <= ?6 AND +s.correlation IS NOT NULL AND s.ph = 'X'
   AND s.cat IS NOT NULL AND s.cat <> ?2 AND hta_stream(s.stream) <> -1
   AND EXISTS (SELECT 1 FROM slices o WHERE o.trace_id = ?1 AND o.correlation = s.correlation
   AND o.ph = 'X' AND o.cat IS NOT NULL AND o.cat <> ?2
   AND o.name IN (SELECT id FROM strings
   WHERE value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cuLaunchKernel',
   'cuLaunchKernelEx', 'cudaMemcpyAsync', 'cudaMemsetAsync',
   'runFunction - job_prep_and_submit_for_execution', 'hipLaunchKernel',
   'hipExtModuleLaunchKernel', 'hipMemsetAsync', 'hipMemcpyAsync', 'hipMemcpyWithStream'))
   AND (NOT ?4 OR hta_start(o.ts, ?3) < ?5))),
 pts AS (SELECT l.id, hta_stream(g.stream) AS s, hta_start(l.ts, ?3) AS t, 0 AS k, 1 AS d
   FROM l JOIN slices g ON g.trace_id = ?1 AND g.correlation = l.correlation
   AND g.ph = 'X' AND g.cat IS NOT NULL AND g.cat <> ?2 AND hta_stream(g.stream) <> -1
   UNION ALL SELECT g.id, hta_stream(g.stream), hta_start(g.ts, ?3), 1, -1 FROM g)
 SELECT id, sum(d) OVER (PARTITION BY s ORDER BY t, k, id ROWS UNBOUNDED PRECEDING)
 FROM pts

-- name: clear_queue
DELETE FROM temp.cp_queue

-- name: queue_at
SELECT q FROM temp.cp_queue WHERE id = ?

-- name: range
-- The events that start in [?2, ?3].
SELECT
-- include: ev_columns
 FROM slices WHERE trace_id = ?1 AND ts >= ?2 AND ts <= ?3 ORDER BY id

-- name: by_correlation
SELECT
-- include: ev_columns
 FROM slices WHERE trace_id = ?1 AND correlation = ?2 ORDER BY id

-- name: prev_launch
SELECT id, ts, pid, tid, correlation, name FROM slices
 WHERE trace_id = ?1 AND ts <= ?2 ORDER BY ts DESC, id DESC

-- name: next_launch
SELECT id, ts, pid, tid, correlation, name FROM slices
 WHERE trace_id = ?1 AND ts >= ?2 ORDER BY ts, id

-- name: stream_waits
-- The trace's stream waits (every window has them, as in HTA) and whether
-- it writes the event-record args at all. ?2 = the string id of 'Stream
-- Wait Event', ?3 that of 'Trace'.
SELECT id, name = ?2 FROM slices WHERE trace_id = ?1 AND ph = 'X'
 AND cat IS NOT NULL AND cat <> ?3 AND (name = ?2 OR args LIKE
 '%wait_on_cuda_event_record_corr_id%') ORDER BY id

-- name: correlation_of
SELECT correlation FROM slices WHERE id = ?

-- name: place_of
SELECT ts, pid, tid FROM slices WHERE id = ?
