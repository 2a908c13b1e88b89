-- fwd_bwd.sql: backward ops linked to their forward ops, on demand
-- (analyze/ondemand/fwd_bwd.c). A query starts at "-- name: NAME" and is
-- known to C as fwd_bwd.NAME (common/query.h). ?1 is the run.

-- name: create_tables
-- The links and what the sweep finds, kept for the connection (temp):
--   fb_links: a backward op (slices.id) and the forward op it belongs to,
--     found by a fwdbwd flow ('flow') or by the sequence number ('seq');
--   fb_fwd: each linked forward op's context on its own thread: its name,
--     the outermost op around it (itself if none), the innermost
--     user_annotation (ProfilerStep excepted) and the nn.Module path;
--   fb_launch: each launch (analysis_gpu_attribution.launch_id) that lies
--     in a linked backward op, and the innermost such op;
--   fb_threads, fb_launchers, fb_seq: the sweep's inputs.
CREATE TEMP TABLE IF NOT EXISTS fb_links (bwd_id INTEGER PRIMARY KEY, fwd_id INTEGER NOT NULL,
 via TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS temp.fb_links_fwd ON fb_links (fwd_id);
CREATE TEMP TABLE IF NOT EXISTS fb_fwd (fwd_id INTEGER PRIMARY KEY, op INTEGER,
 top_op INTEGER, annotation INTEGER, module TEXT);
CREATE TEMP TABLE IF NOT EXISTS fb_launch (launch_id INTEGER PRIMARY KEY,
 bwd_id INTEGER NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS fb_threads (trace_id INTEGER NOT NULL, pid, tid);
CREATE INDEX IF NOT EXISTS temp.fb_threads_key ON fb_threads (trace_id, pid, tid);
CREATE TEMP TABLE IF NOT EXISTS fb_launchers (id INTEGER PRIMARY KEY);
CREATE TEMP TABLE IF NOT EXISTS fb_seq (trace_id INTEGER NOT NULL, seq INTEGER NOT NULL,
 backward INTEGER NOT NULL, id INTEGER NOT NULL, pid, tid, ts INTEGER, dur INTEGER);
CREATE INDEX IF NOT EXISTS temp.fb_seq_key ON fb_seq (trace_id, seq, backward, ts DESC,
 dur, id);
CREATE TEMP TABLE IF NOT EXISTS fb_flow_ends (trace_id INTEGER NOT NULL, ph TEXT NOT NULL,
 id, slice INTEGER);
CREATE INDEX IF NOT EXISTS temp.fb_flow_ends_key ON fb_flow_ends (trace_id, id, ph);
DELETE FROM fb_links;
DELETE FROM fb_fwd;
DELETE FROM fb_launch;
DELETE FROM fb_threads;
DELETE FROM fb_launchers;
DELETE FROM fb_seq;
DELETE FROM fb_flow_ends

-- name: flow_ends
-- The ends of the run's fwdbwd flows (ph 's' on the forward op, 'f' on the
-- backward op, as PyTorch writes them), each bound to the slice it marks:
-- the innermost one of its thread starting at the flow event's time
-- (PyTorch puts the event at its op's start). Each flow event is looked up
-- once in the (trace, ts) index.
INSERT INTO temp.fb_flow_ends
SELECT f.trace_id, f.ph, f.id,
 (SELECT s.id FROM slices s WHERE s.trace_id = f.trace_id AND s.ts = f.ts AND s.pid IS f.pid
  AND s.tid IS f.tid AND s.stream IS NULL ORDER BY s.dur, s.id LIMIT 1)
 FROM flows f JOIN traces t ON t.trace_id = f.trace_id
 WHERE t.run_id = ?1 AND f.ph IN ('s', 'f')
 AND f.cat = (SELECT id FROM strings WHERE value = 'fwdbwd')

-- name: flow_links
-- A flow's finish (backward op) linked to its start (forward op) by id.
INSERT OR IGNORE INTO temp.fb_links
SELECT e.slice, (SELECT s.slice FROM temp.fb_flow_ends s WHERE s.trace_id = e.trace_id
  AND s.id IS e.id AND s.ph = 's' AND s.slice IS NOT NULL ORDER BY s.slice LIMIT 1), 'flow'
 FROM temp.fb_flow_ends e WHERE e.ph = 'f' AND e.slice IS NOT NULL
 AND EXISTS (SELECT 1 FROM temp.fb_flow_ends s WHERE s.trace_id = e.trace_id AND s.id IS e.id
  AND s.ph = 's' AND s.slice IS NOT NULL)

-- name: seq_ops
-- The run's CPU ops that carry a sequence number (args "Sequence number";
-- "Fwd thread id" > 0 marks a backward op, 0 or none a forward op).
INSERT INTO temp.fb_seq
SELECT trace_id, seq, coalesce(fwd, 0) > 0, id, pid, tid, ts, dur FROM (
 SELECT s.trace_id, s.id, s.pid, s.tid, s.ts, s.dur,
  json_extract(s.args, '$."Sequence number"') AS seq,
  json_extract(s.args, '$."Fwd thread id"') AS fwd
  FROM slices s JOIN traces t ON t.trace_id = s.trace_id
  WHERE t.run_id = ?1 AND s.stream IS NULL AND s.args LIKE '%Sequence number%'
  AND json_valid(s.args))
 WHERE typeof(seq) = 'integer' AND seq >= 0

-- name: seq_links
-- A backward op not linked by a flow is linked to the forward op of its
-- sequence number: PyTorch's own rule for its fwdbwd flows (the op of that
-- number that starts last, the innermost). Only where the forward ops of
-- the number are on one thread: the backward op's "Fwd thread id" is
-- PyTorch's thread number, which the trace does not map to a tid.
INSERT OR IGNORE INTO temp.fb_links
SELECT b.id, (SELECT f.id FROM temp.fb_seq f WHERE f.trace_id = b.trace_id AND f.seq = b.seq
  AND f.backward = 0 ORDER BY f.ts DESC, f.dur, f.id LIMIT 1), 'seq'
 FROM temp.fb_seq b WHERE b.backward = 1
 AND (SELECT count(*) FROM (SELECT DISTINCT pid, tid FROM temp.fb_seq f
   WHERE f.trace_id = b.trace_id AND f.seq = b.seq AND f.backward = 0)) = 1

-- name: threads
-- The threads the sweep reads: those of a linked forward or backward op.
INSERT INTO temp.fb_threads
SELECT DISTINCT s.trace_id, s.pid, s.tid FROM temp.fb_links k
 JOIN slices s ON s.id IN (k.bwd_id, k.fwd_id)

-- name: launchers
-- The launches of the run's attributed GPU events.
INSERT OR IGNORE INTO temp.fb_launchers
SELECT launch_id FROM analysis_gpu_attribution WHERE run_id = ?1 AND launch_id IS NOT NULL

-- name: sweep
-- The ops, annotations, nn.Module frames and launches of those threads,
-- one thread after the other, each in start order (longest first on
-- ties): kind 0 an op (cpu_op; no category, as legacy traces write ops;
-- not ProfilerStep), 1 a user_annotation (not ProfilerStep), 2 an nn.Module frame (its name
-- without the prefix in the last column), 3 a launch only. Then whether
-- the slice is a linked backward op, a linked forward op, a launch.
SELECT s.trace_id, s.pid, s.tid, s.id, s.ts, s.dur, s.name,
 CASE WHEN (c.value IS NULL OR c.value = 'cpu_op') AND n.value NOT GLOB 'ProfilerStep#*' THEN 0
  WHEN c.value = 'user_annotation' AND n.value NOT GLOB 'ProfilerStep#*' THEN 1
  WHEN c.value = 'python_function' AND n.value GLOB 'nn.Module: *' THEN 2 ELSE 3 END AS kind,
 EXISTS (SELECT 1 FROM temp.fb_links k WHERE k.bwd_id = s.id),
 EXISTS (SELECT 1 FROM temp.fb_links k WHERE k.fwd_id = s.id),
 EXISTS (SELECT 1 FROM temp.fb_launchers l WHERE l.id = s.id),
 CASE WHEN c.value = 'python_function' THEN substr(n.value, 12) END
 FROM slices s JOIN traces t ON t.trace_id = s.trace_id
 LEFT JOIN strings c ON c.id = s.cat LEFT JOIN strings n ON n.id = s.name
 WHERE t.run_id = ?1 AND EXISTS (SELECT 1 FROM temp.fb_threads h WHERE h.trace_id = s.trace_id
  AND h.pid IS s.pid AND h.tid IS s.tid)
 AND ((s.stream IS NULL AND (c.value IS NULL OR c.value IN ('cpu_op', 'user_annotation')
   OR (c.value = 'python_function' AND n.value GLOB 'nn.Module: *')))
  OR EXISTS (SELECT 1 FROM temp.fb_launchers l WHERE l.id = s.id))
 ORDER BY s.trace_id, s.pid, s.tid, s.ts, s.dur DESC, s.id

-- name: add_fwd
INSERT OR REPLACE INTO temp.fb_fwd VALUES (?1, ?2, ?3, ?4, ?5)

-- name: add_launch
INSERT OR REPLACE INTO temp.fb_launch VALUES (?1, ?2)
