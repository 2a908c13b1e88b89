-- shard_file.sql: finding and checking the shard that holds a rank's
-- events (ingest/shards/shard_file.c; schemas/90_shards.sql). A query
-- starts at "-- name: NAME" and is known to C as shard_file.NAME.

-- name: find_rank
-- In the job database: ?1 = the run, ?2 = the rank: the shard file and its
-- identity when it was merged.
SELECT path, size, mtime_ns, change_counter, page_count, schema_version FROM shard_files
 WHERE run_id = ?1 AND rank = ?2

-- name: shard_run
-- In the shard: ?1 = the run's name, ?2 = the rank: the run's id there, its
-- number of traces, whether the rank is one of them.
SELECT r.run_id, (SELECT count(*) FROM traces t WHERE t.run_id = r.run_id),
 EXISTS (SELECT 1 FROM traces t WHERE t.run_id = r.run_id AND t.rank = ?2)
 FROM runs r WHERE r.name = ?1
