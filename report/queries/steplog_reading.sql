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
 round(100.0 * g.lines_used / g.lines, 1) AS lines_used_pct, g.warnings
 FROM sources s JOIN runs r ON r.run_id = s.run_id
 LEFT JOIN steplog_readings g ON g.source_id = s.source_id
 WHERE s.format LIKE 'steplog:%'
 AND (?1 IS NULL OR s.run_id IN (SELECT value FROM json_each(?1)))
 ORDER BY s.source_id
