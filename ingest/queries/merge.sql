-- merge.sql: copying shard databases into one (ingest/merge.c).
-- A query starts at "-- name: NAME" and is known to C as merge.NAME
-- (common/query.h).

-- name: create_tables
-- The maps of one batch of shards: their run ids, string ids and pstats
-- functions to the target's, and the runs whose pstats statistics are
-- added (merge_pstats.c).
CREATE TEMP TABLE IF NOT EXISTS merge_runs
 (old INTEGER PRIMARY KEY, new INTEGER NOT NULL, fresh INTEGER);
CREATE TEMP TABLE IF NOT EXISTS merge_strings (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS merge_pstats_runs
 (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS merge_funcs
 (old INTEGER PRIMARY KEY, new INTEGER, was_stats INTEGER, new_ord INTEGER)

-- name: drop_tables
DROP TABLE temp.merge_runs; DROP TABLE temp.merge_strings; DROP TABLE temp.merge_pstats_runs;
DROP TABLE temp.merge_funcs

-- name: runs_gaining
-- Runs of the target that the shard being merged adds rows to (temp.merge_runs
-- maps its runs to the target's; fresh: created by this shard).
SELECT new FROM temp.merge_runs WHERE NOT fresh ORDER BY new
