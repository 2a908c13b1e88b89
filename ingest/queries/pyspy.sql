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
-- ?1 = the profile, ?2 its samples, ?3 the rate (NULL: not known), ?4 options.
UPDATE pyspy_profiles SET samples = ?2, rate_hz = ?3, options = ?4 WHERE profile_id = ?1

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
