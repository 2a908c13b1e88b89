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
-- A speedscope profile that holds no samples (evented).
DELETE FROM pyspy_profiles WHERE profile_id = ?1

-- name: find_frame
-- ?1 = the run, ?2 kind, ?3 name, ?4 file, ?5 line.
SELECT frame_id FROM pyspy_frames
 WHERE run_id = ?1 AND kind = ?2 AND name = ?3 AND file = ?4 AND line = ?5

-- name: add_frame
INSERT INTO pyspy_frames (run_id, kind, name, file, line) VALUES (?1, ?2, ?3, ?4, ?5)

-- name: find_node
-- ?1 = the run, ?2 the parent node (0 at a root), ?3 the frame.
SELECT node_id FROM pyspy_nodes WHERE run_id = ?1 AND parent_id = ?2 AND frame_id = ?3

-- name: add_node
-- ?4 = the depth (0 at a root).
INSERT INTO pyspy_nodes (run_id, parent_id, frame_id, depth) VALUES (?1, ?2, ?3, ?4)

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
 counts INTEGER NOT NULL)

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
-- ?1 = a sampled profile, ?2 = 1 when its weights are sample counts (unit
-- "none", integers).
INSERT INTO temp.pyspy_stage_profiles (profile_id, counts) VALUES (?1, ?2)

-- name: stage_samples
-- ?1 = the run. Each sample counts 1, or its weight where the weights are
-- counts. Two staged stacks whose frame indexes print alike end at one
-- node, and add up.
INSERT INTO pyspy_samples (profile_id, node_id, run_id, samples)
 SELECT s.profile_id, n.real, ?1,
 sum(CASE WHEN p.counts THEN coalesce(CAST(w.weight AS INTEGER), 0) ELSE 1 END)
 FROM temp.pyspy_stage_samples s JOIN temp.pyspy_stage_profiles p ON p.profile_id = s.profile_id
 JOIN temp.pyspy_stage_nodes n ON n.id = s.node
 LEFT JOIN temp.pyspy_stage_weights w ON w.profile_id = s.profile_id AND w.seq = s.seq
 WHERE true GROUP BY s.profile_id, n.real ORDER BY s.profile_id, n.real
 ON CONFLICT (profile_id, node_id) DO UPDATE SET samples = samples + excluded.samples
