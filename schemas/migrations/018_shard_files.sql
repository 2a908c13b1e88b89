-- 018_shard_files.sql: schema version 17 -> 18 (common/db.c applies it).
--
-- The table of shard files a merge without --full leaves a run's events in
-- (schemas/90_shards.sql). Nothing stored changes.

CREATE TABLE shard_files (
    trace_id        INTEGER PRIMARY KEY REFERENCES traces,
    run_id          INTEGER NOT NULL REFERENCES runs,
    rank            INTEGER NOT NULL,   -- traces.rank, for the drill-down's lookup
    path            TEXT NOT NULL,      -- the shard's absolute path when merged
    size            INTEGER NOT NULL,   -- bytes
    mtime_ns        INTEGER NOT NULL,   -- modification time, ns since the epoch
    change_counter  INTEGER NOT NULL,   -- SQLite header bytes 24-27 (file change counter)
    page_count      INTEGER NOT NULL,   -- SQLite header bytes 28-31 (database size in pages)
    schema_version  INTEGER NOT NULL    -- the shard's profdb schema version
);
CREATE INDEX shard_files_rank ON shard_files (run_id, rank);
