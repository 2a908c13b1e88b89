-- steplog_reading.sql: how each step log was read (steplog_readings,
-- written by ingest/steplog/steplog_reading.c), for `profdb runs --reading`
-- (cli/runs_reading.c). A query starts at "-- name: NAME" and is known to C
-- as steplog_reading.NAME (common/query.h). ?1 is a JSON array of run ids,
-- or NULL for every run.

-- name: sources
-- One row per step-log source, its reading; sources ingested before schema
-- version 10 have none, and say so.
SELECT r.name AS run, s.path,
 coalesce(g.reader, '(not recorded: ingested by an older profdb; ingest again with --replace)')
   AS reader,
 g.counter, g.counter_line, g.step_records, g.first_step, g.last_step, g.step_time,
 g.step_time_agg,
 g.resolution AS resolution_s, g.throughput, g.epochs, g.lines, g.lines_used,
 round(100.0 * g.lines_used / g.lines, 1) AS lines_used_pct, g.warnings, g.pattern
 FROM sources s JOIN runs r ON r.run_id = s.run_id
 LEFT JOIN steplog_readings g ON g.source_id = s.source_id
 WHERE s.format LIKE 'steplog:%'
 AND (?1 IS NULL OR s.run_id IN (SELECT value FROM json_each(?1)))
 ORDER BY s.source_id

-- name: patterns
-- The step-log rules users taught (steplog_patterns), with the sources read
-- with them and their runs; id is the row's rowid (`profdb patterns --forget ID`).
SELECT p.rowid AS id, p.rules, p.origin, p.created_at,
 (SELECT count(*) FROM steplog_readings g WHERE g.pattern = p.rules) AS sources,
 (SELECT group_concat(name, ', ') FROM (SELECT DISTINCT r.name FROM steplog_readings g
   JOIN runs r ON r.run_id = g.run_id WHERE g.pattern = p.rules ORDER BY r.name)) AS runs
 FROM steplog_patterns p ORDER BY p.rowid

-- name: forget_pattern
-- Forgets the rules of id ?1 (later ingests no longer try them; runs read
-- with them keep their values and reading).
DELETE FROM steplog_patterns WHERE rowid = ?1
