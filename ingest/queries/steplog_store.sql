-- steplog_store.sql: a step log's values as series, contexts and chunks
-- (ingest/steplog_store.c; the tables: schemas/40_steplog.sql). A query
-- starts at "-- name: NAME" and is known to C as steplog_store.NAME
-- (common/query.h). The store numbers its rows itself (ids continue from
-- the largest stored), and a writer thread steps the inserts
-- (common/rowq.c).

-- name: add_chunk
-- chunk_id, run_id, series_id, ctx, stride, pos, window, n, gaps, then
-- the 32 slots v1..v32 (PDB_SL_CHUNK, steplog_store.h).
INSERT INTO steplog_chunks VALUES
 (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)

-- name: add_context
-- One context; add_contexts is the statement of 8 (CTX_BATCH: one
-- statement a row cost a third more), made from this one by repeating its
-- row of values (pdb_query_rows).
INSERT INTO steplog_contexts VALUES (?,?,?,?,?,?)

-- name: add_series
INSERT INTO steplog_series (series_id, run_id, source_id, kind, rank, loader, split, metric,
 unit, agg, raw_name, ctx_base) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)

-- name: max_context
SELECT coalesce(max(ctx_id), 0) FROM steplog_contexts

-- name: max_series
SELECT coalesce(max(series_id), 0) FROM steplog_series

-- name: max_chunk
SELECT coalesce(max(chunk_id), 0) FROM steplog_chunks

-- name: create_summary
-- Per series row, what the passes after the file need of its values
-- (steplog_store.h): the first two values whose context has a step, the
-- count, the decreases, the first and last value and counter.
CREATE TEMP TABLE IF NOT EXISTS steplog_summary (series_id INTEGER PRIMARY KEY, f_record,
 f_pos, f_step, f_window, f_chunk, f_slot, s_record, s_pos, s_step, s_window, n, ndec, x1,
 c1, xn, cn, r1, p1);
DELETE FROM temp.steplog_summary

-- name: put_summary
INSERT OR REPLACE INTO temp.steplog_summary VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)

-- name: chunk
-- ?1 = a stored chunk, read back to set one slot's window.
SELECT * FROM steplog_chunks WHERE chunk_id = ?1

-- name: delete_chunk
DELETE FROM steplog_chunks WHERE chunk_id = ?1
