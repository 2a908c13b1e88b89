-- pyspy.sql: storing py-spy profiles (ingest/pyspy/pyspy_store.c, the
-- writer the raw, speedscope and SVG readers share). A query starts at
-- "-- name: NAME" and is known to C as pyspy.NAME (common/query.h).
-- Frames and nodes are found through their UNIQUE indexes; the writer keeps
-- a bounded cache in front of these lookups.

-- name: add_profile
-- ?1 = the run, ?2 the source, ?3 the format, ?4 the name (or NULL), ?5 exact.
-- samples, rate and options are set once the profile is read (finish_profile).
INSERT INTO pyspy_profiles (run_id, source_id, format, name, rate_hz, samples, exact, options)
 VALUES (?1, ?2, ?3, ?4, NULL, 0, ?5, NULL)

-- name: finish_profile
-- ?1 = the profile, ?2 its samples, ?3 the rate (NULL: not known), ?4 options,
-- ?5 its name (NULL: as it was).
UPDATE pyspy_profiles SET samples = ?2, rate_hz = ?3, options = ?4, name = coalesce(?5, name)
 WHERE profile_id = ?1

-- name: drop_profile
-- A speedscope profile of an unknown type.
DELETE FROM pyspy_profiles WHERE profile_id = ?1

-- name: find_frame
-- ?1 = the run, ?2 kind, ?3 name, ?4 file, ?5 line.
SELECT frame_id FROM pyspy_frames
 WHERE run_id = ?1 AND kind = ?2 AND name = ?3 AND file = ?4 AND line = ?5

-- name: add_frame
-- Tried first: a frame new to the run costs one statement; one the run has
-- (no row changed) is then found with find_frame.
INSERT INTO pyspy_frames (run_id, kind, name, file, line) VALUES (?1, ?2, ?3, ?4, ?5)
 ON CONFLICT DO NOTHING

-- name: find_node
-- ?1 = the run, ?2 the parent node (0 at a root), ?3 the frame.
SELECT node_id FROM pyspy_nodes WHERE run_id = ?1 AND parent_id = ?2 AND frame_id = ?3

-- name: add_node
-- ?4 = the depth (0 at a root). Tried first, as add_frame.
INSERT INTO pyspy_nodes (run_id, parent_id, frame_id, depth) VALUES (?1, ?2, ?3, ?4)
 ON CONFLICT DO NOTHING

-- name: add_samples
-- ?1 = the profile, ?2 the node, ?3 the run, ?4 samples: a stack met twice
-- in one profile (two records of a raw file) adds up.
INSERT INTO pyspy_samples (profile_id, node_id, run_id, samples) VALUES (?1, ?2, ?3, ?4)
 ON CONFLICT (profile_id, node_id) DO UPDATE SET samples = samples + excluded.samples

-- A speedscope file may give shared.frames after its profiles (py-spy
-- writes them last): each sample's stack is staged as a prefix tree over
-- frame INDEXES, and resolved to frames and nodes once the file is read
-- (pyspy_speedscope.c).

-- name: create_stage
CREATE TEMP TABLE IF NOT EXISTS pyspy_stage_nodes (id INTEGER PRIMARY KEY,
 parent INTEGER NOT NULL, idx INTEGER NOT NULL, depth INTEGER NOT NULL, real INTEGER,
 UNIQUE (parent, idx));
CREATE TEMP TABLE IF NOT EXISTS pyspy_stage_frames (idx INTEGER PRIMARY KEY,
 frame_id INTEGER NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS pyspy_stage_samples (profile_id INTEGER NOT NULL,
 seq INTEGER NOT NULL, node INTEGER NOT NULL, PRIMARY KEY (profile_id, seq));
CREATE TEMP TABLE IF NOT EXISTS pyspy_stage_weights (profile_id INTEGER NOT NULL,
 seq INTEGER NOT NULL, weight REAL, PRIMARY KEY (profile_id, seq));
CREATE TEMP TABLE IF NOT EXISTS pyspy_stage_profiles (profile_id INTEGER PRIMARY KEY,
 counts INTEGER NOT NULL, scale REAL NOT NULL DEFAULT 1, unit TEXT)

-- name: clear_stage
DELETE FROM temp.pyspy_stage_nodes; DELETE FROM temp.pyspy_stage_frames;
DELETE FROM temp.pyspy_stage_samples; DELETE FROM temp.pyspy_stage_weights;
DELETE FROM temp.pyspy_stage_profiles

-- name: stage_find_node
-- ?1 = the staged parent (0 at a root), ?2 the frame index.
SELECT id FROM temp.pyspy_stage_nodes WHERE parent = ?1 AND idx = ?2

-- name: stage_add_node
INSERT INTO temp.pyspy_stage_nodes (parent, idx, depth) VALUES (?1, ?2, ?3)

-- name: stage_add_frame
-- ?1 = the index in shared.frames, ?2 its frame.
INSERT OR REPLACE INTO temp.pyspy_stage_frames (idx, frame_id) VALUES (?1, ?2)

-- name: stage_add_sample
-- ?1 = the profile, ?2 the sample's position, ?3 its staged node.
INSERT INTO temp.pyspy_stage_samples (profile_id, seq, node) VALUES (?1, ?2, ?3)

-- name: stage_add_weight
INSERT OR REPLACE INTO temp.pyspy_stage_weights (profile_id, seq, weight) VALUES (?1, ?2, ?3)

-- name: stage_nodes
-- Parents before children (a child is staged after its parent).
SELECT id, parent, idx, depth FROM temp.pyspy_stage_nodes ORDER BY id

-- name: stage_real
SELECT real FROM temp.pyspy_stage_nodes WHERE id = ?1

-- name: stage_frame
SELECT frame_id FROM temp.pyspy_stage_frames WHERE idx = ?1

-- name: stage_set_real
UPDATE temp.pyspy_stage_nodes SET real = ?2 WHERE id = ?1

-- name: stage_add_profile
-- ?1 = a profile, ?2 = 0: each sample counts 1; 1: its weights are sample
-- counts (unit "none", integers); 2: an evented profile, whose weights are
-- the times its stacks were open, ?3 the stored units per unit of the file,
-- ?4 what the stored units are (pyspy_profiles.weight_unit).
INSERT INTO temp.pyspy_stage_profiles (profile_id, counts, scale, unit) VALUES (?1, ?2, ?3, ?4)

-- name: stage_drop_evented
-- A file that holds sampled profiles keeps its sample counts: its evented
-- profiles are left out (time and counts do not add up).
DELETE FROM pyspy_profiles
 WHERE profile_id IN (SELECT profile_id FROM temp.pyspy_stage_profiles WHERE counts = 2);
DELETE FROM temp.pyspy_stage_profiles WHERE counts = 2

-- name: stage_parent
-- The staged parent of node ?1 and its frame index (an evented profile's close).
SELECT parent, idx FROM temp.pyspy_stage_nodes WHERE id = ?1

-- name: stage_samples
-- ?1 = the run. Each sample counts 1, or its weight where the weights are
-- counts, or the sum of its weights times the profile's scale, rounded,
-- where they are times (evented). Two staged stacks whose frame indexes
-- print alike end at one node, and add up.
INSERT INTO pyspy_samples (profile_id, node_id, run_id, samples)
 SELECT s.profile_id, n.real, ?1,
 CASE WHEN p.counts = 2 THEN CAST(round(total(w.weight) * p.scale) AS INTEGER)
      ELSE sum(CASE WHEN p.counts THEN coalesce(CAST(w.weight AS INTEGER), 0) ELSE 1 END) END
 FROM temp.pyspy_stage_samples s JOIN temp.pyspy_stage_profiles p ON p.profile_id = s.profile_id
 JOIN temp.pyspy_stage_nodes n ON n.id = s.node
 LEFT JOIN temp.pyspy_stage_weights w ON w.profile_id = s.profile_id AND w.seq = s.seq
 WHERE true GROUP BY s.profile_id, n.real ORDER BY s.profile_id, n.real
 ON CONFLICT (profile_id, node_id) DO UPDATE SET samples = samples + excluded.samples

-- name: stage_weighted_totals
-- An evented profile's samples: the time some frame was open, in stored
-- units (the sum of its stacks'), and what those units are.
UPDATE pyspy_profiles
 SET samples = (SELECT coalesce(sum(s.samples), 0) FROM pyspy_samples s
                WHERE s.profile_id = pyspy_profiles.profile_id),
     weight_unit = (SELECT sp.unit FROM temp.pyspy_stage_profiles sp
                    WHERE sp.profile_id = pyspy_profiles.profile_id)
 WHERE profile_id IN (SELECT profile_id FROM temp.pyspy_stage_profiles WHERE counts = 2)

-- name: stage_units
-- What a sample is in the run's profiles: more than one kind (sample
-- counts beside time-weighted profiles) is refused.
SELECT count(DISTINCT coalesce(weight_unit, '')), group_concat(DISTINCT coalesce(weight_unit, 'samples'))
 FROM pyspy_profiles WHERE run_id = ?1

-- A flame-graph SVG's boxes are staged as they are read (any order), then
-- resolved row by row from the root: a box's parent is the box one row up
-- whose [x, x + w) holds it (pyspy_svg.c).

-- name: create_svg
CREATE TEMP TABLE IF NOT EXISTS pyspy_svg_boxes (id INTEGER PRIMARY KEY, y REAL NOT NULL,
 x INTEGER NOT NULL, w INTEGER NOT NULL, at INTEGER NOT NULL, text TEXT NOT NULL,
 depth INTEGER, parent INTEGER, real INTEGER, ndepth INTEGER, open_text TEXT, base INTEGER);
CREATE INDEX IF NOT EXISTS temp.pyspy_svg_row ON pyspy_svg_boxes (depth, x);
CREATE INDEX IF NOT EXISTS temp.pyspy_svg_children ON pyspy_svg_boxes (parent)

-- name: clear_svg
DELETE FROM temp.pyspy_svg_boxes

-- name: svg_add_box
-- ?1 = y, ?2 fg:x, ?3 fg:w, ?4 the byte offset of the box, ?5 its frame text.
INSERT INTO temp.pyspy_svg_boxes (y, x, w, at, text) VALUES (?1, ?2, ?3, ?4, ?5)

-- name: svg_root_y
-- The row of the widest box (inferno's "all"): depth 0.
SELECT y FROM temp.pyspy_svg_boxes ORDER BY w DESC, y LIMIT 1

-- name: svg_depths
-- ?1 = the root row's y: rows are numbered away from it (an icicle graph
-- grows down, a flame graph up).
UPDATE temp.pyspy_svg_boxes SET depth = r.d FROM (SELECT y, dense_rank() OVER
 (ORDER BY abs(y - ?1)) - 1 AS d FROM (SELECT DISTINCT y FROM temp.pyspy_svg_boxes)) r
 WHERE r.y = temp.pyspy_svg_boxes.y

-- name: svg_wrong_side
-- A box on the other side of the root row than the rest: no flame graph.
SELECT at FROM temp.pyspy_svg_boxes WHERE (y - ?1) * (SELECT y - ?1 FROM
 temp.pyspy_svg_boxes WHERE y <> ?1 LIMIT 1) < 0 LIMIT 1

-- name: svg_boxes
-- Row by row from the root, left to right.
SELECT id, depth, x, w, at, text FROM temp.pyspy_svg_boxes ORDER BY depth, x

-- name: svg_parent
-- ?1 = a row, ?2 an x: the box of that row that starts at or before x.
SELECT id, x, w, real, ndepth, open_text, base FROM temp.pyspy_svg_boxes
 WHERE depth = ?1 AND x <= ?2 ORDER BY x DESC LIMIT 1

-- name: svg_set
-- ?1 = the box, ?2 its parent box, ?3 its node (NULL: none yet), ?4 the
-- node's depth, ?5 the text of a process frame drawn in pieces so far, ?6
-- the node such a frame hangs from.
UPDATE temp.pyspy_svg_boxes SET parent = ?2, real = ?3, ndepth = ?4, open_text = ?5, base = ?6
 WHERE id = ?1

-- name: svg_negative_self
-- A box narrower than its children: no flame graph.
SELECT b.at FROM temp.pyspy_svg_boxes b JOIN temp.pyspy_svg_boxes c ON c.parent = b.id
 GROUP BY b.id HAVING b.w < sum(c.w) LIMIT 1

-- name: svg_lost
-- Samples that end in a box with no node (a process frame whose pieces never
-- close).
SELECT coalesce(sum(b.w - coalesce((SELECT sum(c.w) FROM temp.pyspy_svg_boxes c
 WHERE c.parent = b.id), 0)), 0) FROM temp.pyspy_svg_boxes b
 WHERE b.real IS NULL

-- name: svg_samples
-- ?1 = the profile, ?2 the run: each box's self (its width less its
-- children's), summed per node.
INSERT INTO pyspy_samples (profile_id, node_id, run_id, samples)
 SELECT ?1, real, ?2, sum(self) FROM (SELECT b.real, b.w - coalesce((SELECT sum(c.w)
 FROM temp.pyspy_svg_boxes c WHERE c.parent = b.id), 0) AS self
 FROM temp.pyspy_svg_boxes b WHERE b.real > 0) WHERE self > 0 GROUP BY real ORDER BY real
 ON CONFLICT (profile_id, node_id) DO UPDATE SET samples = samples + excluded.samples

-- name: svg_visible
-- The samples the drawn boxes hold (the roots' widths).
SELECT coalesce(sum(w), 0) FROM temp.pyspy_svg_boxes WHERE depth = 0
