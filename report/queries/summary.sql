-- summary.sql: the query of the `summary` report (report/summary.c).
-- A query starts at "-- name: NAME" and is known to C as summary.NAME
-- (common/query.h). ?1 is the run_id.

-- name: sources
-- One row per ingested file of the run, with its skipped records.
SELECT s.path AS source, s.format, t.rank, s.records,
 (SELECT coalesce(sum(count), 0) FROM skips k WHERE k.source_id = s.source_id) AS skipped,
 (SELECT group_concat(reason || ': ' || count, '; ') FROM skips k
   WHERE k.source_id = s.source_id) AS skip_reasons
 FROM sources s LEFT JOIN traces t USING (source_id)
 WHERE s.run_id = ?1 ORDER BY s.source_id
