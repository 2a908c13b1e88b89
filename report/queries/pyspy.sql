-- pyspy.sql: the py-spy reports: pyspy, pyspy-callers, pyspy-leaves
-- (report/pyspy.c; the stack tree that pyspy-tree, folded and flamegraph
-- read is pyspy_tree.sql). A query starts at "-- name: NAME" and is known
-- to C as pyspy.NAME (common/query.h). ?1 is the run_id.
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

-- fragment: idle_leaf
-- 1 when frame f, the leaf of a stack, is a call that waits: py-spy's files
-- do not say which samples were idle (py-spy asks the OS whether the
-- thread runs, and with --idle keeps those that do not), so profdb infers
-- it from the leaf: with --native, the C calls that block (sleep, poll,
-- select, epoll, futex and condition waits, joins, waitpid, accept; macOS
-- and Windows equivalents); without, py-spy's own fallback list (wait in
-- threading.py, select in selectors.py, poll in asyncore, zmq, gevent or
-- tornado). A Python leaf that called time.sleep without --native looks
-- busy: the call is not in the stack.
(f.kind = 'native' AND f.name IN (
   'clock_nanosleep', '__clock_nanosleep', 'nanosleep', '__nanosleep', 'usleep', 'sleep',
   'poll', '__poll', 'ppoll', 'select', '__select', 'pselect', 'pselect6', 'epoll_wait',
   'epoll_pwait', 'epoll_pwait2', 'kevent', 'pthread_cond_wait', 'pthread_cond_timedwait',
   '__pthread_cond_wait', '___pthread_cond_wait', '__pthread_cond_timedwait',
   '___pthread_cond_timedwait', 'pthread_cond_clockwait', 'sem_wait', 'sem_timedwait',
   'sem_clockwait', '__new_sem_wait_slow', '__futex_abstimed_wait_common',
   '__futex_abstimed_wait_common64', 'futex_wait', '__lll_lock_wait', 'syscall',
   'pthread_join', '__pthread_clockjoin_ex', 'waitpid', '__waitpid', 'wait4', '__wait4',
   'waitid', 'sigwait', 'sigtimedwait', 'sigwaitinfo', 'pause', 'accept', 'accept4',
   '__psynch_cvwait', '__semwait_signal', '__select_nocancel', 'mach_msg_trap',
   'mach_msg2_trap', 'WaitForSingleObject', 'WaitForSingleObjectEx',
   'WaitForMultipleObjects', 'WaitForMultipleObjectsEx', 'NtWaitForSingleObject',
   'NtWaitForMultipleObjects', 'NtDelayExecution', 'SleepEx', 'Sleep')
 OR (f.kind = 'python' AND (
   (f.name = 'wait' AND substr(f.file, -12) = 'threading.py')
   OR (f.name = 'select' AND substr(f.file, -12) = 'selectors.py')
   OR (f.name = 'poll' AND (substr(f.file, -11) = 'asyncore.py' OR instr(f.file, 'zmq') > 0
                            OR instr(f.file, 'gevent') > 0 OR instr(f.file, 'tornado') > 0)))))

-- name: create_top
-- Fills temp.pyspy_top (dropped by pyspy.top_drop), read by top and top_by_root.
-- ?2 = 'frame' | 'function', ?3 = --top N (-1: all; per root with ?5),
-- ?4 = 'total' | 'self' (the order), ?5 = 1: one table per root (the leading
-- process/thread chain, or the speedscope profile, and both when both).
-- Shares are of the root's samples (?5) or of every sample of the run.
-- ?6 = 'include' | 'exclude' | 'only' (--idle): the samples whose leaf waits
-- (idle_leaf) counted, left out, or alone (then shares are of them).
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
  JOIN pyspy_nodes en ON en.node_id = s.node_id JOIN pyspy_frames f ON f.frame_id = en.frame_id
  WHERE s.run_id = ?1 AND (?6 = 'include' OR
-- include: idle_leaf
                           = (?6 = 'only'))
  GROUP BY 1, 2),
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
-- Samples of a root, with those a profile counts but stores at no node (a
-- speedscope sample with an empty stack, which py-spy's fallback calls busy;
-- an SVG's undrawn boxes at depth 0).
roots AS (
  SELECT root, CASE WHEN ?5 OR ?6 <> 'include' THEN sum(n)
                    ELSE (SELECT sum(samples) FROM pyspy_profiles WHERE run_id = ?1) END
           AS samples,
         count(secs) = count(*) AS timed
  FROM (SELECT root, n, secs FROM rooted WHERE node_id = end_id
        UNION ALL
        SELECT CASE WHEN ?5 THEN coalesce(p.name, '(no process/thread frame)') END,
               p.samples - coalesce((SELECT sum(s.samples) FROM pyspy_samples s
                                     WHERE s.profile_id = p.profile_id), 0) AS n,
               (p.samples - coalesce((SELECT sum(s.samples) FROM pyspy_samples s
                                      WHERE s.profile_id = p.profile_id), 0)) / p.rate_hz
        FROM pyspy_profiles p WHERE p.run_id = ?1 AND ?6 <> 'only')
  WHERE n <> 0 OR secs IS NOT NULL
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

-- name: idle
-- Samples of the run whose leaf waits (idle_leaf), and every sample.
SELECT coalesce(sum(s.samples), 0),
       (SELECT coalesce(sum(samples), 0) FROM pyspy_profiles WHERE run_id = ?1)
FROM pyspy_samples s JOIN pyspy_nodes en ON en.node_id = s.node_id
JOIN pyspy_frames f ON f.frame_id = en.frame_id
WHERE s.run_id = ?1 AND
-- include: idle_leaf

-- name: inexact
-- Profiles read from a flame-graph SVG: their per-function values are lower bounds.
SELECT count(*) FROM pyspy_profiles WHERE run_id = ?1 AND NOT exact

-- name: callers
-- pyspy-callers: who calls the functions named ?2 (a name, or 'name (file)'),
-- whom they call, and their self samples. ?3 = 'frame' | 'function': the
-- keying of callers and callees. A caller (callee) counts once per stack
-- that holds the call, however often it recurs; "share" is of the
-- function's total. The walk carries the frame below each node (the callee).
WITH RECURSIVE
ends AS (
  SELECT node_id AS end_id, sum(samples) AS n FROM pyspy_samples WHERE run_id = ?1
  GROUP BY node_id),
walk(end_id, n, node_id, parent_id, frame_id, below) AS (
  SELECT e.end_id, e.n, d.node_id, d.parent_id, d.frame_id, NULL
  FROM ends e JOIN pyspy_nodes d ON d.node_id = e.end_id
  UNION ALL
  SELECT w.end_id, w.n, d.node_id, d.parent_id, d.frame_id, w.frame_id
  FROM walk w JOIN pyspy_nodes d ON d.node_id = w.parent_id),
target AS (
  SELECT frame_id FROM pyspy_frames
  WHERE run_id = ?1 AND kind NOT IN ('process', 'thread')
    AND (name = ?2 OR name || ' (' || file || ')' = ?2)),
hits AS (
  SELECT w.end_id, w.n, w.below, p.frame_id AS above,
         f.name || CASE WHEN f.file <> '' THEN ' (' || f.file || ')' ELSE '' END AS fn
  FROM walk w JOIN pyspy_frames f ON f.frame_id = w.frame_id
  LEFT JOIN pyspy_nodes p ON p.node_id = w.parent_id
  WHERE w.frame_id IN (SELECT frame_id FROM target)),
rel AS (
  SELECT end_id, n, fn, 'caller' AS rel, 1 AS ord, above AS other FROM hits
  UNION ALL
  SELECT end_id, n, fn, 'self', 2, NULL FROM hits WHERE below IS NULL
  UNION ALL
  SELECT end_id, n, fn, 'callee', 3, below FROM hits WHERE below IS NOT NULL),
named AS (
  SELECT DISTINCT r.end_id, r.n, r.fn, r.rel, r.ord,
         CASE WHEN r.rel = 'self' THEN '(self: the stack ends here)'
              WHEN o.frame_id IS NULL THEN '(stack root)'
              WHEN o.kind IN ('process', 'thread') THEN o.name
              WHEN o.line > 0 AND ?3 <> 'function' THEN
                o.name || ' (' || o.file || ':' || o.line || ')'
              WHEN o.file <> '' THEN o.name || ' (' || o.file || ')'
              ELSE o.name END AS frame
  FROM rel r LEFT JOIN pyspy_frames o ON o.frame_id = r.other),
totals AS (
  SELECT fn, sum(n) AS total FROM (SELECT DISTINCT end_id, n, fn FROM hits) GROUP BY fn)
SELECT d.fn AS function, t.total AS function_samples, d.rel AS relation, d.frame,
       sum(d.n) AS samples, round(100.0 * sum(d.n) / t.total, 2) AS share_pct
FROM named d JOIN totals t USING (fn)
GROUP BY d.fn, d.rel, d.frame
ORDER BY t.total DESC, d.fn, min(d.ord), samples DESC, d.frame

-- name: leaves
-- pyspy-leaves: itwinai's py-spy report (generate-py-spy-report) from the
-- stored stacks. Its choices, as it makes them: process and thread frames
-- are dropped, and every frame whose text holds '<module>' (?3 = 1 keeps
-- them: --keep-module); the leaf is the deepest frame left, a stack with
-- none is left out of the rows and of the total; paths holding 'frozen
-- importlib' show as 'built-in', line -1; the library columns hold the
-- deepest frame left whose path holds ?2 (--library, 'itwinai'), else
-- 'Not Found'; one row per stack and profile (a raw file's record), or with
-- ?4 = 1 (--aggregate-leaf-paths) one per leaf and library frame. ?5 = --top
-- N. Frames printed without a line show line NULL (itwinai cannot read them).
WITH RECURSIVE
ends AS (
  SELECT node_id AS end_id, CASE WHEN ?4 THEN 0 ELSE profile_id END AS prof,
         sum(samples) AS n
  FROM pyspy_samples WHERE run_id = ?1 GROUP BY 1, 2),
walk(end_id, prof, n, parent_id, frame_id, depth) AS (
  SELECT e.end_id, e.prof, e.n, d.parent_id, d.frame_id, d.depth
  FROM ends e JOIN pyspy_nodes d ON d.node_id = e.end_id
  UNION ALL
  SELECT w.end_id, w.prof, w.n, d.parent_id, d.frame_id, d.depth
  FROM walk w JOIN pyspy_nodes d ON d.node_id = w.parent_id),
kept AS (
  SELECT w.end_id, w.prof, w.n, w.depth, f.name,
         CASE WHEN instr(f.file, 'frozen importlib') THEN 'built-in' ELSE f.file END AS path,
         CASE WHEN instr(f.file, 'frozen importlib') THEN -1 WHEN f.line > 0 THEN f.line END
           AS line
  FROM walk w JOIN pyspy_frames f ON f.frame_id = w.frame_id
  WHERE f.kind NOT IN ('process', 'thread')
    AND (?3 OR (instr(f.name, '<module>') = 0 AND instr(f.file, '<module>') = 0))),
picked AS (
  SELECT k.*, row_number() OVER leafw AS rn,
         first_value(instr(k.path, ?2) > 0) OVER libw AS has_lib,
         first_value(k.name) OVER libw AS lib_name,
         first_value(k.path) OVER libw AS lib_path,
         first_value(k.line) OVER libw AS lib_line
  FROM kept k
  WINDOW leafw AS (PARTITION BY k.end_id, k.prof ORDER BY k.depth DESC),
         libw AS (PARTITION BY k.end_id, k.prof ORDER BY instr(k.path, ?2) > 0 DESC, k.depth DESC
                  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
stacks AS (
  SELECT name, path, line,
         CASE WHEN has_lib THEN lib_name ELSE 'Not Found' END AS lib_name,
         CASE WHEN has_lib THEN lib_path ELSE 'Not Found' END AS lib_path,
         CASE WHEN has_lib THEN CAST(lib_line AS TEXT) ELSE 'Not Found' END AS lib_line,
         n, end_id, prof
  FROM picked WHERE rn = 1),
rows AS (
  SELECT name, path, line, lib_name, lib_path, lib_line, sum(n) AS n
  FROM stacks
  GROUP BY CASE WHEN ?4 THEN 0 ELSE end_id END, CASE WHEN ?4 THEN 0 ELSE prof END,
           name, path, line, lib_name, lib_path, lib_line),
total AS (SELECT sum(n) AS n FROM stacks)
SELECT r.name, r.path, r.line, r.lib_name AS library_function_name,
       r.lib_path AS library_function_path, r.lib_line AS library_function_line,
       r.n AS samples, round(100.0 * r.n / t.n, 2) AS proportion_pct
FROM rows r, total t
ORDER BY r.n DESC, r.name, r.path, r.line
LIMIT CASE WHEN ?5 < 0 THEN -1 ELSE ?5 END
