-- session.sql: one `profdb ingest` (ingest/session.c): its runs' labels,
-- its sources and their skips, and the bulk indexes it drops for a large
-- load (strings are interned with common/queries/strings.sql). A query starts at "-- name: NAME" and
-- is known to C as session.NAME (common/query.h). Runs themselves are
-- created and found by common/runs.c.

-- name: add_label
-- ?1 = the run, ?2 the key, ?3 the value (--label KEY=VALUE).
INSERT OR REPLACE INTO run_labels VALUES (?1, ?2, ?3)

-- name: add_source
-- ?1 = the run, ?2 the path as given; the rest is known at its end.
INSERT INTO sources (run_id, path, format, compressed, bytes, records, ingested_at)
 VALUES (?1, ?2, '', 0, 0, 0, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))

-- name: finish_source
-- ?6 = the source.
UPDATE sources SET format = ?1, compressed = ?2, bytes = ?3, records = ?4, ingest_ms = ?5
 WHERE source_id = ?6

-- name: add_skip
-- ?1 = the run, ?2 the source, ?3 the reason, ?4 how many records.
INSERT INTO skips VALUES (?1, ?2, ?3, ?4)

-- name: bulk_indexes
-- The indexes that a large load drops and creates again afterwards
-- (schemas/20_trace.sql: named bulk_*), with the SQL that creates them.
SELECT name, sql FROM sqlite_schema WHERE type = 'index'
 AND name LIKE 'bulk\_%' ESCAPE '\' AND sql IS NOT NULL

-- name: drop_index
-- {index}: one of bulk_indexes.
-- test: index = bulk_slices_trace_ts
DROP INDEX "{index}"

-- name: rows_held
-- About how much the indexed tables hold: their largest row ids (slices
-- and step-log contexts), to tell whether an input is large next to them.
SELECT coalesce((SELECT max(rowid) FROM slices), 0)
 + coalesce((SELECT max(ctx_id) FROM steplog_contexts), 0)
