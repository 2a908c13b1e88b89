-- idle_pass.sql: the idle time of each GPU stream (analyze/idle_pass.c).
-- A query starts at "-- name: NAME" and is known to C as idle_pass.NAME
-- (common/query.h).

-- name: add_stream
INSERT INTO analysis_idle VALUES (?,?,?,?,?,?,?,?)
