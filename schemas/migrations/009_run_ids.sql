-- 009_run_ids.sql: schema version 8 -> 9 (common/db.c applies it).
--
-- A run id is never used twice. runs.run_id was a plain INTEGER PRIMARY
-- KEY, which SQLite fills with max(run_id) + 1: deleting the newest run
-- (`ingest --replace`, `merge` with --replace) gave its id to the next run,
-- so the new run looked like the old one to anything that had kept the id
-- (an ingest's "runs before this one" bound dropped the main process's
-- share of a `--jobs` ingest). AUTOINCREMENT keeps the largest id ever
-- used in sqlite_sequence. The table is made again under its own name, so
-- the REFERENCES runs of every other table are left as they are
-- (legacy_alter_table: the rename does not rewrite them; foreign keys are
-- not enforced). The ids are copied as they are; an id deleted before this
-- migration cannot be known and may still be used once.

PRAGMA legacy_alter_table = ON;
ALTER TABLE runs RENAME TO runs_v8;
CREATE TABLE runs (
    run_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);
INSERT INTO runs (run_id, name, created_at)
SELECT run_id, name, created_at FROM runs_v8 ORDER BY run_id;
DROP TABLE runs_v8;
PRAGMA legacy_alter_table = OFF;
