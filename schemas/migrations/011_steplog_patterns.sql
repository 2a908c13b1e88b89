-- 011_steplog_patterns.sql: schema version 10 -> 11 (common/db.c applies it).
--
-- Users teach profdb a step-log format with --pattern or --rules (issue 32):
-- the rules are kept in steplog_patterns, so that later ingests of text logs
-- they read, and --replace, use them again; a source's reading names the
-- rules it was read with. Sources read before have none.

ALTER TABLE steplog_readings ADD COLUMN pattern TEXT;

CREATE TABLE steplog_patterns (
    rules       TEXT PRIMARY KEY,  -- lines 'step: PATTERN', 'val: PATTERN', 'summary: PATTERN'
    origin      TEXT NOT NULL,     -- '--pattern', or the rules file's path as given
    created_at  TEXT NOT NULL
);
