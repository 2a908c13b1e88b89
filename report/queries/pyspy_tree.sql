-- pyspy_tree.sql: the run's stack tree as a temp table, for the reports that
-- print or draw the whole tree (report/pyspy_tree.c, pyspy_graph.c:
-- pyspy-tree, folded, flamegraph). The tree stays in SQLite, whose temp
-- tables and sorters spill to a file past their page cache, so profdb's own
-- memory holds one node (or one box, one frame) at a time whatever the
-- number, names or depth of the stacks. ?1 is the run_id.
--
-- Order of siblings: by their printed frame (flamegraph.pl's order), as a
-- rank (pyspy_tree_rank) so that no index holds the frame texts. Totals are
-- computed one depth at a time from the deepest up (walk_totals), flame
-- graph positions one depth at a time from the root down (walk_x): linear
-- in the nodes (each statement touches one depth through an index). No
-- window functions: SQLite buffers a window's partition (a parent's 10^5
-- children) in memory; its sorter (ORDER BY) spills to a file instead.

-- name: create_rank
-- A frame's place among the run's frames in the order of their printed text
-- (sib: rows are inserted in that order). Numbered by the insert, not by a
-- window function: SQLite's window buffers grow with their partition, its
-- sorter spills to a file.
CREATE TEMP TABLE pyspy_tree_rank (
    sib       INTEGER PRIMARY KEY,
    frame_id  INTEGER NOT NULL UNIQUE,
    pseudo    INTEGER NOT NULL  -- a process or thread frame
)

-- name: create_walk
-- One row per node: the samples that ended there (self, of the profiles
-- the report reads), the samples under it (total), its place among its
-- siblings in pyspy-tree's order (ord: consecutive numbers for the
-- children of one parent, the largest first) and its left edge in the flame
-- graph in samples (x).
CREATE TEMP TABLE pyspy_tree_walk (
    node_id    INTEGER PRIMARY KEY,
    parent_id  INTEGER NOT NULL,
    frame_id   INTEGER NOT NULL,
    depth      INTEGER NOT NULL,
    sib        INTEGER NOT NULL,
    self       INTEGER NOT NULL,
    total      INTEGER NOT NULL,
    ord        INTEGER NOT NULL DEFAULT 0,
    x          INTEGER NOT NULL DEFAULT 0,
    loose      INTEGER NOT NULL DEFAULT 0,  -- --thread: samples of unnamed profiles
    in_thread  INTEGER NOT NULL DEFAULT 0   -- --thread: the node is under the thread's frame
);
CREATE INDEX temp.pyspy_tree_level ON pyspy_tree_walk (depth, parent_id, sib);
CREATE INDEX temp.pyspy_tree_children ON pyspy_tree_walk (parent_id, sib)

-- name: drop
DROP TABLE IF EXISTS temp.pyspy_tree_walk;
DROP TABLE IF EXISTS temp.pyspy_tree_order;
DROP TABLE IF EXISTS temp.pyspy_tree_offset;
DROP TABLE IF EXISTS temp.pyspy_tree_rank

-- fragment: printed
-- A frame as py-spy prints it (f: pyspy_frames).
CASE WHEN f.kind IN ('process', 'thread') THEN f.name
     WHEN f.line > 0 THEN f.name || ' (' || f.file || ':' || f.line || ')'
     WHEN f.file <> '' THEN f.name || ' (' || f.file || ')'
     ELSE f.name END

-- name: fill_rank
-- Ties of the printed text (two kinds of frame that print alike) in id order.
INSERT INTO temp.pyspy_tree_rank (frame_id, pseudo)
SELECT f.frame_id, f.kind IN ('process', 'thread')
FROM pyspy_frames f WHERE f.run_id = ?1
ORDER BY
-- include: printed
       , f.frame_id

-- fragment: thread_profile
-- Profile p is thread ?2: its name is ?2, or py-spy's speedscope name
-- 'Thread ID "NAME"' has ?2 as its ID (hex digits in any case) or NAME.
(p.name = ?2 OR (p.name LIKE 'Thread %' AND (
   lower(?2) = lower(substr(p.name, 8, instr(substr(p.name, 8) || ' ', ' ') - 1))
   OR (instr(p.name, '"') > 0 AND ?2 = trim(substr(p.name, instr(p.name, '"')), '"')))))

-- fragment: thread_frame
-- Frame f is the pseudo-frame of thread ?2: 'thread (ID)' or
-- 'thread (ID): NAME' (py-spy raw --threads) with ?2 its ID or NAME.
(f.kind = 'thread' AND (
   f.name = ?2
   OR lower(?2) = lower(substr(f.name, 9, instr(f.name, ')') - 9))
   OR (instr(f.name, '): ') > 0 AND ?2 = substr(f.name, instr(f.name, '): ') + 3))))

-- name: fill_walk
-- Every node of the run with the samples that ended at it in every profile
-- (?2 NULL), or with --thread ?2 (pyspy_tree.c): in self those of the
-- named profiles (speedscope) of that thread, in loose those of unnamed
-- profiles (raw, SVG: their threads are pseudo-frames), kept only under
-- the thread's frame (in_thread, spread down by walk_thread).
INSERT INTO temp.pyspy_tree_walk (node_id, parent_id, frame_id, depth, sib, self, total, loose,
                                  in_thread)
SELECT node_id, parent_id, frame_id, depth, sib, n, n, loose, in_thread
FROM (SELECT n.node_id, n.parent_id, n.frame_id, n.depth, r.sib,
             (SELECT coalesce(sum(s.samples), 0) FROM pyspy_samples s
              JOIN pyspy_profiles p USING (profile_id)
              WHERE s.run_id = ?1 AND s.node_id = n.node_id
                AND (?2 IS NULL OR (p.name IS NOT NULL AND
-- include: thread_profile
                    ))) AS n,
             (SELECT coalesce(sum(s.samples), 0) FROM pyspy_samples s
              JOIN pyspy_profiles p USING (profile_id)
              WHERE ?2 IS NOT NULL AND s.run_id = ?1 AND s.node_id = n.node_id
                AND p.name IS NULL) AS loose,
             ?2 IS NOT NULL AND
-- include: thread_frame
               AS in_thread
      FROM pyspy_nodes n JOIN temp.pyspy_tree_rank r USING (frame_id)
      JOIN pyspy_frames f ON f.frame_id = n.frame_id
      WHERE n.run_id = ?1)

-- name: walk_thread
-- The nodes at depth ?1 under a node of the thread, their parents' being final.
UPDATE temp.pyspy_tree_walk SET in_thread = 1
WHERE depth = ?1 AND NOT in_thread
  AND (SELECT p.in_thread FROM temp.pyspy_tree_walk p WHERE p.node_id = pyspy_tree_walk.parent_id)

-- name: walk_thread_keep
-- The unnamed profiles' samples under the thread's frame count.
UPDATE temp.pyspy_tree_walk SET self = self + loose, total = total + loose WHERE in_thread

-- name: thread_samples
-- The samples of thread ?2: those at its nodes, and its speedscope
-- profiles' samples with an empty stack (counted, stored at no node).
SELECT (SELECT coalesce(sum(self), 0) FROM temp.pyspy_tree_walk)
       + (SELECT coalesce(sum(p.samples - (SELECT coalesce(sum(s.samples), 0)
                                           FROM pyspy_samples s
                                           WHERE s.profile_id = p.profile_id)), 0)
          FROM pyspy_profiles p WHERE p.run_id = ?1 AND p.name IS NOT NULL AND
-- include: thread_profile
         )

-- name: max_depth
SELECT coalesce(max(depth), -1) FROM temp.pyspy_tree_walk

-- name: walk_totals
-- The totals of the nodes at depth ?1, their children's being final.
UPDATE temp.pyspy_tree_walk
SET total = self + coalesce((SELECT sum(c.total) FROM temp.pyspy_tree_walk c
                             WHERE c.parent_id = pyspy_tree_walk.node_id), 0)
WHERE depth = ?1

-- name: create_order
-- pyspy-tree's order: the children of a parent next to each other, largest
-- first, ties in printed order, numbered by the insert (seq), so that the
-- next sibling is one lookup (an order by (total, sib) would scan past
-- equal totals, a window function would buffer a parent's children).
CREATE TEMP TABLE pyspy_tree_order (
    seq        INTEGER PRIMARY KEY,
    node_id    INTEGER NOT NULL UNIQUE,
    parent_id  INTEGER NOT NULL
)

-- name: walk_order
INSERT INTO temp.pyspy_tree_order (node_id, parent_id)
SELECT node_id, parent_id FROM temp.pyspy_tree_walk ORDER BY parent_id, total DESC, sib;
UPDATE temp.pyspy_tree_walk
SET ord = (SELECT o.seq FROM temp.pyspy_tree_order o WHERE o.node_id = pyspy_tree_walk.node_id);
DROP TABLE temp.pyspy_tree_order;
CREATE INDEX IF NOT EXISTS temp.pyspy_tree_largest ON pyspy_tree_walk (parent_id, ord)

-- name: create_offsets
-- A node's left edge relative to its parent's: the totals of the siblings
-- before it in printed order (pyspy_tree.c sums them as it reads
-- offset_rows; a window function would buffer a parent's children).
CREATE TEMP TABLE pyspy_tree_offset (
    node_id  INTEGER PRIMARY KEY,
    off      INTEGER NOT NULL
)

-- name: offset_rows
-- Siblings next to each other in printed order (read through the index).
SELECT node_id, parent_id, total FROM temp.pyspy_tree_walk ORDER BY parent_id, sib

-- name: offset_add
INSERT INTO temp.pyspy_tree_offset (node_id, off) VALUES (?1, ?2)

-- name: walk_x
-- The left edges of the nodes at depth ?1, their parents' being final.
UPDATE temp.pyspy_tree_walk
SET x = (SELECT o.off FROM temp.pyspy_tree_offset o WHERE o.node_id = pyspy_tree_walk.node_id)
        + coalesce((SELECT p.x FROM temp.pyspy_tree_walk p
                    WHERE p.node_id = pyspy_tree_walk.parent_id), 0)
WHERE depth = ?1

-- name: totals
-- Every sample of the run's profiles, whether it is exact (0: an SVG among
-- them), and the rate when every profile has the same.
SELECT coalesce(sum(samples), 0), coalesce(min(exact), 1),
       CASE WHEN count(DISTINCT rate_hz) = 1 AND count(rate_hz) = count(*) THEN max(rate_hz) END
FROM pyspy_profiles WHERE run_id = ?1

-- name: folded_ends
-- The stacks that samples ended in, in the order of the tree's levels
-- (depth, then parent, then printed frame: the order folded has always had).
SELECT node_id, self FROM temp.pyspy_tree_walk WHERE self > 0 ORDER BY depth, parent_id, sib

-- name: folded_stack
-- The printed frames of the stack ending at node ?1, root first.
WITH RECURSIVE up(node_id, parent_id, frame_id, depth) AS (
  SELECT node_id, parent_id, frame_id, depth FROM temp.pyspy_tree_walk WHERE node_id = ?1
  UNION ALL
  SELECT w.node_id, w.parent_id, w.frame_id, w.depth
  FROM up JOIN temp.pyspy_tree_walk w ON w.node_id = up.parent_id)
SELECT
-- include: printed
FROM up JOIN pyspy_frames f USING (frame_id) ORDER BY up.depth

-- name: tree_first
-- The largest child of node ?1 (0: the largest root), ties in printed order.
SELECT node_id FROM temp.pyspy_tree_walk WHERE parent_id = ?1 ORDER BY ord LIMIT 1

-- name: tree_next
-- The sibling after node ?1 in pyspy-tree's order (largest first).
SELECT w.node_id FROM temp.pyspy_tree_walk me, temp.pyspy_tree_walk w
WHERE me.node_id = ?1 AND w.parent_id = me.parent_id AND w.ord = me.ord + 1

-- name: tree_node
-- One node for pyspy-tree: its parent, depth, totals and printed frame.
SELECT w.parent_id, w.depth, w.total, w.self,
-- include: printed
FROM temp.pyspy_tree_walk w JOIN pyspy_frames f USING (frame_id) WHERE w.node_id = ?1

-- name: flame_rows
-- The rows of the flame graph: the root box, and a row per depth with a
-- box of at least ?1 samples; and the boxes left out.
SELECT 1 + coalesce(max(CASE WHEN total >= ?1 AND total > 0 THEN depth + 1 END), 0),
       count(*) - count(CASE WHEN total >= ?1 AND total > 0 THEN 1 END)
FROM temp.pyspy_tree_walk

-- name: flame_boxes
-- The boxes of at least ?1 samples (a box's parent then is one), a level
-- at a time as folded orders them.
SELECT
-- include: printed
       , w.x, w.total, w.depth, r.pseudo
FROM temp.pyspy_tree_walk w JOIN pyspy_frames f USING (frame_id)
JOIN temp.pyspy_tree_rank r USING (frame_id)
WHERE w.total >= ?1 AND w.total > 0
ORDER BY w.depth, w.parent_id, w.sib
