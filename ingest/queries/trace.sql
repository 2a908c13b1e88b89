-- trace.sql: storing a PyTorch trace (ingest/trace_store.c). A query
-- starts at "-- name: NAME" and is known to C as trace.NAME
-- (common/query.h). The inserts are prepared once per file; the first
-- value of each is the trace's id.

-- name: add_trace
-- ?1 = the run, ?2 the source, ?3 a unique placeholder rank until the
-- whole file has been read (set_rank), ?4 the format.
INSERT INTO traces (run_id, source_id, rank, rank_from, format)
 VALUES (?1, ?2, ?3, 'order', ?4)

-- name: add_slice
INSERT INTO slices (trace_id, ph, name, cat, pid, tid, ts, dur, stream, device, context,
 correlation, external_id, input_dims, bytes, coll_name, in_nelems, out_nelems,
 group_size, dtype, args) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)

-- name: add_instant
INSERT INTO instants (trace_id, name, cat, pid, tid, ts, scope, args)
 VALUES (?,?,?,?,?,?,?,?)

-- name: add_spelling
-- An older spelling the file used (?2 'cat' or 'arg'), today's, in how many
-- events (see trace_spellings).
INSERT INTO trace_spellings VALUES (?1, ?2, ?3, ?4, ?5)

-- name: add_counter
INSERT INTO counters (trace_id, name, pid, ts, series, value) VALUES (?,?,?,?,?,?)

-- name: add_flow
INSERT INTO flows (trace_id, ph, id, name, cat, pid, tid, ts, bp) VALUES (?,?,?,?,?,?,?,?,?)

-- name: add_metadata_event
INSERT INTO metadata_events (trace_id, name, pid, tid, args) VALUES (?,?,?,?,?)

-- name: set_meta
INSERT OR REPLACE INTO trace_meta (trace_id, key, value) VALUES (?,?,?)

-- name: rank_of
-- ?1 = the JSON of the trace's distributedInfo.
SELECT json_extract(?1, '$.rank')

-- name: add_step
INSERT INTO trace_steps (trace_id, slice_id, ph, name, cat, ts, dur, stream)
 VALUES (?,?,?,?,?,?,?,?)

-- name: set_rank
-- Once the file is read: its rank, where the rank came from, whether its
-- timestamps had fractions, its first event (?5, a slices.id or NULL). A
-- rank the run has already fails its UNIQUE.
UPDATE traces SET rank = ?1, rank_from = ?2, float_ts = ?3, first_slice = ?5 WHERE trace_id = ?4

-- name: add_count
-- Events per phase as the file has them (?2: the phase, 'gpu' or 'other').
INSERT INTO trace_counts VALUES (?1, ?2, ?3)

-- name: create_open_b
-- B events waiting for their E once more than common/bounds.h allows are
-- open: keyed by thread and depth, the event's encoding.
CREATE TEMP TABLE IF NOT EXISTS trace_open_b (thread BLOB, depth INTEGER, event BLOB,
 PRIMARY KEY (thread, depth)) WITHOUT ROWID;
DELETE FROM temp.trace_open_b

-- name: open_b_put
INSERT INTO temp.trace_open_b VALUES (?, ?, ?)

-- name: open_b_top
SELECT depth, event FROM temp.trace_open_b WHERE thread = ? ORDER BY depth DESC LIMIT 1

-- name: open_b_delete
DELETE FROM temp.trace_open_b WHERE thread = ? AND depth = ?

-- name: open_b_left
SELECT count(*) FROM temp.trace_open_b

-- name: open_b_clear
DELETE FROM temp.trace_open_b
