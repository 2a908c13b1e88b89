-- profdb schema, part 9: ranks whose events stay in their shard files.
--
-- `profdb merge` (without --full) copies a shard's runs, sources, traces,
-- their counts and step windows, and the per-rank analysis tables into the
-- job database, but not its events (slices, instants, counters, flows,
-- metadata events, the per-kernel GPU attribution, the memory allocations):
-- they stay in the shard. Each trace merged so has a row here naming the
-- shard and what the file looked like when it was merged; a report that
-- needs a rank's events (`profdb report --rank N`) opens the shard and
-- refuses it, naming the file, when it is missing or differs. The identity
-- is the file's size and modification time and two fields of its SQLite
-- header, all read with one stat(2) and 100 bytes: any write to the shard
-- changes its mtime (a WAL write the -wal file's, and a checkpoint then the
-- shard's), and a rollback-journal commit also its change counter. A trace
-- without a row here has its events in this database.
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
