-- queue_pass.sql: the launch queue of each stream: GPU work launched and
-- not yet finished (analyze/queue_pass.c). A query starts at "-- name:
-- NAME" and is known to C as queue_pass.NAME (common/query.h).

-- name: create_tables
-- The temporary tables of the streams past STREAMS_IN_MEMORY: their final
-- points in the order they were made final, and every histogram row
-- before it is written (sorted by SQLite, not in memory). Made before the
-- scan starts: a schema change during its query would abort it.
CREATE TEMP TABLE IF NOT EXISTS pdb_queue_points (seq INTEGER PRIMARY KEY, mode INTEGER,
 stream INTEGER, t INTEGER, delta INTEGER);
CREATE TEMP TABLE IF NOT EXISTS pdb_queue_hist (mode INTEGER, stream INTEGER,
 value INTEGER, points INTEGER, dur INTEGER, first INTEGER);
DELETE FROM temp.pdb_queue_points; DELETE FROM temp.pdb_queue_hist

-- name: add_point
INSERT INTO temp.pdb_queue_points VALUES (?,?,?,?,?)

-- name: points
SELECT mode, stream, seq, t, delta FROM temp.pdb_queue_points ORDER BY mode, stream, seq

-- name: add_hist
INSERT INTO temp.pdb_queue_hist VALUES (?,?,?,?,?,?)

-- fragment: rows_head
SELECT mode, stream, value, points, dur FROM

-- fragment: rows_tail
, (SELECT ?1 AS lo, ?2 AS hi) WHERE points <> 0 OR dur <> 0 OR value NOT BETWEEN lo AND hi
 ORDER BY mode, stream, value NOT BETWEEN lo AND hi,
 CASE WHEN value BETWEEN lo AND hi THEN value ELSE first END

-- name: rows
-- Every stream's rows in the order they always had: by mode and stream
-- number; in a stream, the values in [-64, 1024) (?1, ?2) ascending
-- (those with points or time), then the others in the order first seen.
-- include: rows_head
temp.pdb_queue_hist
-- include: rows_tail

-- name: rows_merged
-- The same when a stream's values came in parts.
-- include: rows_head
(SELECT mode, stream, value, sum(points) AS points, sum(dur) AS dur, min(first) AS first
 FROM temp.pdb_queue_hist GROUP BY mode, stream, value)
-- include: rows_tail

-- name: add_queue
INSERT INTO analysis_queue VALUES (?,?,?,?,?,?,?,?)

-- name: add_rank
INSERT INTO analysis_queue_ranks VALUES (?,?,?,?,?,?)

-- name: clear
-- The temporary tables' pages go back to the temp file's free list.
DELETE FROM temp.pdb_queue_points; DELETE FROM temp.pdb_queue_hist
