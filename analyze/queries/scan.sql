-- scan.sql: the one start-ordered scan of a trace's slices that feeds the
-- passes (analyze/scan.c, scan_rows.c, scan_reader.c). A query starts at
-- "-- name: NAME" and is known to C as scan.NAME (common/query.h).

-- name: slices
-- ?1 = the trace: its slices in start order (longer first on ties).
SELECT s.ts, s.dur, s.name, s.cat, s.stream, s.ph = 'X', s.pid, s.tid,
 coalesce(s.input_dims, ''), s.id, s.correlation
 FROM slices s WHERE s.trace_id = ?1 ORDER BY s.ts, s.dur DESC, s.id

-- name: trace_path
-- ?1 = the trace: its file, for a message.
SELECT s.path FROM traces t JOIN sources s USING (source_id) WHERE t.trace_id = ?1

-- name: journal_mode
-- A reader thread with a connection of its own needs WAL (readers never
-- block the writer).
PRAGMA main.journal_mode
