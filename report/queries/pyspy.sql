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

-- The top functions (pyspy, report/pyspy.c) in bounded memory: the run's
-- stack tree is summed into temp tables (SQLite's temp storage spills to a
-- file past its page cache) one depth at a time, never walked once per
-- stack, and no window function buffers a partition. Parameters of every
-- top_* statement: ?1 run, ?2 = 'frame' | 'function', ?3 = --top N (-1:
-- all; per root with ?5), ?4 = 'total' | 'self' (the order), ?5 = 1: one
-- table per root (the leading process/thread chain, or the speedscope
-- profile, and both when both), ?6 = 'include' | 'exclude' | 'only'
-- (--idle: the samples whose leaf waits, idle_leaf, counted, left out or
-- alone), ?7 the depth of a per-depth statement.
--
-- How "total" counts a key once per stack without walking the stacks: each
-- node of the tree (per profile label, with ?5) is an interval of the
-- samples under it, [x, x + total), children side by side inside their
-- parent's (as in a flame graph). The intervals nest exactly as the nodes
-- do, so the samples of the stacks that hold a key at least once are the
-- length of the union of its nodes' intervals: an ordered sweep over the
-- nodes of each key (report/pyspy.c, top_sweep) adds a node only when it is
-- not inside the last interval counted. Recursion counts once, as before.

-- name: create_top
-- pyspy_top_key: a key (name, file, line; line 0 when it is not part of the
-- key or was not printed) per distinct printed function; pyspy_top_fkey maps
-- the run's frames to keys (0: a process or thread pseudo-frame);
-- pyspy_top_label: a speedscope profile name (?5) per label g; pyspy_top_walk:
-- one row per (label, node) on a stack that samples ended in, with the
-- samples that ended there (self), under it (total), its seconds where
-- every profile has a rate, its left edge x and its root node (the deepest
-- of its leading pseudo-frames, rnode: ?5 only).
CREATE TEMP TABLE pyspy_top_key (
    key_id  INTEGER PRIMARY KEY,
    name    TEXT NOT NULL,
    file    TEXT NOT NULL,
    line    INTEGER NOT NULL,
    UNIQUE (name, file, line));
CREATE TEMP TABLE pyspy_top_fkey (
    frame_id  INTEGER PRIMARY KEY,
    key_id    INTEGER NOT NULL);
CREATE TEMP TABLE pyspy_top_label (
    g      INTEGER PRIMARY KEY,
    label  TEXT NOT NULL UNIQUE);
CREATE TEMP TABLE pyspy_top_walk (
    wid        INTEGER PRIMARY KEY,
    g          INTEGER NOT NULL,
    node_id    INTEGER NOT NULL,
    parent_id  INTEGER NOT NULL,
    depth      INTEGER NOT NULL,
    key_id     INTEGER NOT NULL,
    is_end     INTEGER NOT NULL,
    self       INTEGER NOT NULL,
    self_s     REAL NOT NULL,
    untimed    INTEGER NOT NULL,  -- samples rows of profiles without a rate (ends)
    total      INTEGER NOT NULL,
    total_s    REAL NOT NULL,
    x          INTEGER NOT NULL DEFAULT 0,
    rnode      INTEGER NOT NULL DEFAULT 0,
    UNIQUE (g, node_id));
CREATE INDEX temp.pyspy_top_level ON pyspy_top_walk (depth, g, parent_id);
CREATE INDEX temp.pyspy_top_children ON pyspy_top_walk (g, parent_id);
CREATE TEMP TABLE pyspy_top_offset (
    wid  INTEGER PRIMARY KEY,
    off  INTEGER NOT NULL);
CREATE TEMP TABLE pyspy_top_group (
    g        INTEGER NOT NULL,
    rnode    INTEGER NOT NULL,
    root     TEXT,
    root_id  INTEGER,
    PRIMARY KEY (g, rnode));
CREATE TEMP TABLE pyspy_top_root (
    root_id  INTEGER PRIMARY KEY,
    root     TEXT UNIQUE,
    samples  INTEGER,
    timed    INTEGER);
CREATE TEMP TABLE pyspy_top_agg (
    root_id  INTEGER NOT NULL,
    key_id   INTEGER NOT NULL,
    self     INTEGER NOT NULL,
    total    INTEGER NOT NULL,
    self_s   REAL NOT NULL,
    total_s  REAL NOT NULL);
CREATE TEMP TABLE pyspy_top (
    root TEXT, root_samples INTEGER, rank INTEGER, name TEXT, file TEXT, line INTEGER,
    self_samples INTEGER, total_samples INTEGER, self_pct REAL, total_pct REAL,
    self_s REAL, total_s REAL)

-- name: top_keys
INSERT OR IGNORE INTO temp.pyspy_top_key (name, file, line)
SELECT name, file, CASE WHEN ?2 = 'function' THEN 0 ELSE line END
FROM pyspy_frames WHERE run_id = ?1 AND kind NOT IN ('process', 'thread');
INSERT INTO temp.pyspy_top_fkey (frame_id, key_id)
SELECT f.frame_id, coalesce(k.key_id, 0)
FROM pyspy_frames f LEFT JOIN temp.pyspy_top_key k
  ON f.kind NOT IN ('process', 'thread') AND k.name = f.name AND k.file = f.file
     AND k.line = CASE WHEN ?2 = 'function' THEN 0 ELSE f.line END
WHERE f.run_id = ?1;
INSERT OR IGNORE INTO temp.pyspy_top_label (label)
SELECT name FROM pyspy_profiles WHERE ?5 AND run_id = ?1 AND name IS NOT NULL

-- name: top_ends
-- The nodes where (the kept) samples ended, per label.
INSERT INTO temp.pyspy_top_walk (g, node_id, parent_id, depth, key_id, is_end, self, self_s,
                                 untimed, total, total_s)
SELECT g, node_id, parent_id, depth, key_id, 1, n, secs, untimed, n, secs
FROM (SELECT coalesce(l.g, 0) AS g, s.node_id, en.parent_id, en.depth, k.key_id,
             sum(s.samples) AS n, total(s.samples / p.rate_hz) AS secs,
             count(*) - count(p.rate_hz) AS untimed
      FROM pyspy_samples s JOIN pyspy_profiles p USING (profile_id)
      JOIN pyspy_nodes en ON en.node_id = s.node_id
      JOIN pyspy_frames f ON f.frame_id = en.frame_id
      JOIN temp.pyspy_top_fkey k ON k.frame_id = en.frame_id
      LEFT JOIN temp.pyspy_top_label l ON ?5 AND l.label = p.name
      WHERE s.run_id = ?1 AND (?6 = 'include' OR
-- include: idle_leaf
                                 = (?6 = 'only'))
      GROUP BY 1, 2)

-- name: top_max_depth
SELECT coalesce(max(depth), -1) FROM temp.pyspy_top_walk

-- name: top_up
-- The parents of the nodes at depth ?7 (whose totals are final) get their
-- samples: one depth at a time from the deepest.
INSERT INTO temp.pyspy_top_walk (g, node_id, parent_id, depth, key_id, is_end, self, self_s,
                                 untimed, total, total_s)
SELECT c.g, c.parent_id, n.parent_id, n.depth, k.key_id, 0, 0, 0, 0, sum(c.total),
       total(c.total_s)
FROM temp.pyspy_top_walk c JOIN pyspy_nodes n ON n.node_id = c.parent_id
JOIN temp.pyspy_top_fkey k ON k.frame_id = n.frame_id
WHERE c.depth = ?7 AND c.parent_id <> 0
GROUP BY c.g, c.parent_id
ON CONFLICT (g, node_id) DO UPDATE SET total = total + excluded.total,
                                       total_s = total_s + excluded.total_s

-- name: top_offset_rows
-- Siblings next to each other (read through an index).
SELECT wid, g, parent_id, total FROM temp.pyspy_top_walk ORDER BY g, parent_id

-- name: top_offset_add
INSERT INTO temp.pyspy_top_offset (wid, off) VALUES (?1, ?2)

-- name: top_down
-- Left edges and root nodes of the nodes at depth ?7, their parents' being final.
UPDATE temp.pyspy_top_walk
SET x = (SELECT o.off FROM temp.pyspy_top_offset o WHERE o.wid = pyspy_top_walk.wid)
        + coalesce((SELECT p.x FROM temp.pyspy_top_walk p
                    WHERE p.g = pyspy_top_walk.g AND p.node_id = pyspy_top_walk.parent_id), 0),
    rnode = CASE WHEN NOT ?5 THEN 0
                 WHEN key_id = 0 THEN node_id
                 ELSE coalesce((SELECT p.rnode FROM temp.pyspy_top_walk p
                                WHERE p.g = pyspy_top_walk.g
                                  AND p.node_id = pyspy_top_walk.parent_id), 0) END
WHERE depth = ?7

-- name: top_roots
-- Each root: the speedscope profile's name and the pseudo-frames at the top
-- of the stacks, root first (a root node's chain, walked up once per root
-- node); its samples, and whether every profile involved knows its rate.
-- Samples a profile counts but stores at no node (a speedscope sample with
-- an empty stack, which py-spy's fallback calls busy; an SVG's undrawn
-- boxes at depth 0) count in the root's.
INSERT INTO temp.pyspy_top_group (g, rnode, root)
WITH RECURSIVE
rn AS (SELECT DISTINCT g, rnode FROM temp.pyspy_top_walk),
up(g, rnode, at, chain) AS (
  SELECT rn.g, rn.rnode, n.parent_id, f.name
  FROM rn JOIN pyspy_nodes n ON n.node_id = rn.rnode JOIN pyspy_frames f USING (frame_id)
  UNION ALL
  SELECT up.g, up.rnode, n.parent_id, f.name || ';' || up.chain
  FROM up JOIN pyspy_nodes n ON n.node_id = up.at JOIN pyspy_frames f USING (frame_id))
SELECT rn.g, rn.rnode,
       CASE WHEN ?5 THEN coalesce(l.label || ';' || up.chain, l.label, up.chain,
                                  '(no process/thread frame)') END
FROM rn LEFT JOIN up ON up.g = rn.g AND up.rnode = rn.rnode AND up.at = 0
LEFT JOIN temp.pyspy_top_label l ON l.g = rn.g;
INSERT OR IGNORE INTO temp.pyspy_top_root (root) SELECT DISTINCT root FROM temp.pyspy_top_group;
UPDATE temp.pyspy_top_group
SET root_id = (SELECT r.root_id FROM temp.pyspy_top_root r WHERE r.root IS pyspy_top_group.root);
UPDATE temp.pyspy_top_root
SET (samples, timed) = (
  SELECT CASE WHEN ?5 OR ?6 <> 'include' THEN sum(n)
              ELSE (SELECT sum(samples) FROM pyspy_profiles WHERE run_id = ?1) END,
         sum(untimed) = 0
  FROM (SELECT w.self AS n, w.untimed
        FROM temp.pyspy_top_group gr JOIN temp.pyspy_top_walk w
          ON w.g = gr.g AND w.rnode = gr.rnode AND w.is_end
        WHERE gr.root_id = pyspy_top_root.root_id AND (w.self <> 0 OR w.untimed = 0)
        UNION ALL
        SELECT n, rate_hz IS NULL FROM (
          SELECT CASE WHEN ?5 THEN coalesce(p.name, '(no process/thread frame)') END AS root,
                 p.samples - coalesce((SELECT sum(s.samples) FROM pyspy_samples s
                                       WHERE s.profile_id = p.profile_id), 0) AS n, p.rate_hz
          FROM pyspy_profiles p WHERE p.run_id = ?1 AND ?6 <> 'only')
        WHERE root IS pyspy_top_root.root AND (n <> 0 OR rate_hz IS NOT NULL)))

-- name: top_sweep_rows
-- Every node of a key, per root and label, left to right, the outer of two
-- nodes at the same left edge first (report/pyspy.c sweeps them).
SELECT gr.root_id, w.key_id, w.g, w.x, w.total, w.total_s, w.self, w.self_s
FROM temp.pyspy_top_walk w JOIN temp.pyspy_top_group gr ON gr.g = w.g AND gr.rnode = w.rnode
WHERE w.key_id <> 0
ORDER BY gr.root_id, w.key_id, w.g, w.x, w.total DESC

-- name: top_agg_add
INSERT INTO temp.pyspy_top_agg (root_id, key_id, self, total, self_s, total_s)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)

-- name: top_order
-- The keys of each root in the report's order: by total (or self), ties in
-- the order of the printed key ('name (file:line)'), as the corpus oracle
-- orders them. report/pyspy.c keeps the first --top N of each root.
SELECT a.rowid, a.root_id
FROM temp.pyspy_top_agg a JOIN temp.pyspy_top_key k USING (key_id)
ORDER BY a.root_id, CASE WHEN ?4 = 'self' THEN a.self ELSE a.total END DESC,
         k.name || CASE WHEN k.line <> 0 THEN ' (' || k.file || ':' || k.line || ')'
                        WHEN k.file <> '' THEN ' (' || k.file || ')' ELSE '' END

-- name: top_keep
-- Row ?1 of pyspy_top_agg, ranked ?2 in its root. Shares are of the root's
-- samples (?5) or of every sample of the run; seconds = samples / rate_hz,
-- only where every profile involved knows its rate.
INSERT INTO temp.pyspy_top
SELECT r.root, r.samples, ?2, k.name, k.file, nullif(k.line, 0), a.self, a.total,
       round(100.0 * a.self / r.samples, 2), round(100.0 * a.total / r.samples, 2),
       CASE WHEN r.timed THEN round(a.self_s, 6) END,
       CASE WHEN r.timed THEN round(a.total_s, 6) END
FROM temp.pyspy_top_agg a JOIN temp.pyspy_top_key k USING (key_id)
JOIN temp.pyspy_top_root r USING (root_id)
WHERE a.rowid = ?1

-- name: top
SELECT name, file, line, self_samples, total_samples, self_pct, total_pct, self_s, total_s
FROM temp.pyspy_top ORDER BY rank

-- name: top_by_root
-- One table per root, the biggest first.
SELECT root, root_samples, rank, name, file, line, self_samples, total_samples, self_pct,
       total_pct, self_s, total_s
FROM temp.pyspy_top ORDER BY root_samples DESC, root, rank

-- name: top_drop
DROP TABLE IF EXISTS temp.pyspy_top;
DROP TABLE IF EXISTS temp.pyspy_top_agg;
DROP TABLE IF EXISTS temp.pyspy_top_root;
DROP TABLE IF EXISTS temp.pyspy_top_group;
DROP TABLE IF EXISTS temp.pyspy_top_offset;
DROP TABLE IF EXISTS temp.pyspy_top_walk;
DROP TABLE IF EXISTS temp.pyspy_top_label;
DROP TABLE IF EXISTS temp.pyspy_top_fkey;
DROP TABLE IF EXISTS temp.pyspy_top_key

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

-- name: weighted
-- What a stored sample is where the run's profiles are time-weighted
-- (speedscope evented: pyspy_profiles.weight_unit); NULL: sample counts.
SELECT max(weight_unit) FROM pyspy_profiles WHERE run_id = ?1

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
