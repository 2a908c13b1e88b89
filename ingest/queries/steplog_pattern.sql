-- steplog_pattern.sql: the step-log rules users teach (--pattern, --rules),
-- kept in steplog_patterns so that later ingests and --replace read the
-- same format the same way (ingest/steplog/steplog_pattern.c). A query
-- starts at "-- name: NAME" and is known to C as steplog_pattern.NAME
-- (common/query.h).

-- name: store
-- The rules of an ingest (?1 the rules text, ?2 where they came from); a
-- text stored before is kept once.
INSERT OR IGNORE INTO steplog_patterns (rules, origin, created_at)
 VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))

-- name: stored
-- The stored rules, newest first (at most 100 are tried on a log).
SELECT rules, origin FROM steplog_patterns ORDER BY created_at DESC, rowid DESC LIMIT 100
