-- merge.sql: copying shard databases into one (ingest/merge.c,
-- merge_check.c, merge_pstats.c). A query starts at "-- name: NAME" and is
-- known to C as merge.NAME (common/query.h).
--
-- {schema} is the attached shard being merged (shard0, shard1, ...; "shard"
-- in the scratch connection that checks ranks across shards). A table is
-- copied with one INSERT ... SELECT (copy*) whose column list merge.c builds
-- from the schema: {columns} the target's columns, {values} one expression
-- per column, each the expression of a value_* query below (the text
-- between its SELECT and its FROM) with {column} that column. Ids are
-- shifted by bound offsets (:offset_source, ...), never spliced.

-- name: create_tables
-- The maps of one batch of shards: their run ids, string ids and pstats
-- functions to the target's, and the runs whose pstats statistics are
-- added (merge_pstats.sql).
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

-- name: shape
-- A database's schema, one line per table, view and trigger: "table NAME
-- (col TYPE NOTNULL PK, ...)" or "view NAME", sorted (merge_check.c: a
-- shard must have the target's).
SELECT m.type || ' ' || m.name || CASE WHEN m.type = 'table' THEN ' (' ||
 (SELECT group_concat(c, ', ') FROM (SELECT c.name || ' ' || c.type ||
 CASE WHEN c."notnull" THEN ' NOT NULL' ELSE '' END ||
 CASE WHEN c.pk THEN ' PK' ELSE '' END AS c
 FROM pragma_table_xinfo(m.name) c ORDER BY c.cid)) || ')' ELSE '' END
 FROM sqlite_schema m WHERE m.type IN ('table', 'view', 'trigger')
 AND m.name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY 1

-- name: attach
-- ?1 = the shard's file.
ATTACH ?1 AS {schema}

-- name: detach
DETACH {schema}

-- name: user_version
-- Checked again once attached: the file may have changed since.
PRAGMA {schema}.user_version

-- name: application_id
PRAGMA {schema}.application_id

-- name: max_source
-- The target's largest id of each kind that shifts: the shard's ids are
-- moved past it, keeping their order.
SELECT max(source_id) FROM main.sources

-- name: max_trace
SELECT max(trace_id) FROM main.traces

-- name: max_slice
SELECT max(id) FROM main.slices

-- name: max_func
SELECT max(func_id) FROM main.pstats_functions

-- name: max_series
SELECT max(series_id) FROM main.steplog_series

-- name: max_ctx
-- A source's contexts start above its series' ctx_base.
SELECT max(coalesce((SELECT max(ctx_id) FROM main.steplog_contexts), 0),
 coalesce((SELECT max(ctx_base) FROM main.steplog_series), 0))

-- name: max_chunk
SELECT max(chunk_id) FROM main.steplog_chunks

-- name: max_pyprofile
SELECT max(profile_id) FROM main.pyspy_profiles

-- name: max_pyframe
SELECT max(frame_id) FROM main.pyspy_frames

-- name: max_pynode
SELECT max(node_id) FROM main.pyspy_nodes

-- name: settle_run
-- A run of the shard whose name a run of the target had before the merge
-- began (run id <= ?1): refused, or deleted with --replace; runs an earlier
-- shard of this merge created are joined.
SELECT m.run_id, m.name FROM {schema}.runs r JOIN main.runs m ON m.name = r.name
 WHERE m.run_id <= ?1 ORDER BY r.run_id LIMIT 1

-- name: add_runs
-- The shard's runs the target lacks, in the shard's order.
INSERT INTO main.runs (name, created_at)
 SELECT name, created_at FROM {schema}.runs r
 WHERE NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.name = r.name) ORDER BY run_id

-- name: add_runs_as_ingest
-- The same for a worker's shard of one ingest, whose runs are created in
-- input order: `profdb trend` puts runs created in the same second in run
-- id order, so a worker's run is not older than the runs this ingest
-- created before it (run id > ?1).
INSERT INTO main.runs (name, created_at)
 SELECT name, max(created_at, coalesce((SELECT max(created_at) FROM main.runs
 WHERE run_id > ?1), '')) FROM {schema}.runs r
 WHERE NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.name = r.name) ORDER BY run_id

-- name: clear_runs
DELETE FROM temp.merge_runs

-- name: map_runs
-- The shard's runs to the target's of the same name; fresh: created by
-- this shard (run id > ?1).
INSERT INTO temp.merge_runs (old, new, fresh)
 SELECT r.run_id, m.run_id, m.run_id > ?1 FROM {schema}.runs r
 JOIN main.runs m ON m.name = r.name

-- name: runs_gaining
-- Runs of the target that the shard adds rows to.
SELECT new FROM temp.merge_runs WHERE NOT fresh ORDER BY new

-- name: add_strings
INSERT OR IGNORE INTO main.strings (value) SELECT value FROM {schema}.strings ORDER BY id

-- name: clear_strings
DELETE FROM temp.merge_strings

-- name: map_strings
INSERT INTO temp.merge_strings (old, new)
 SELECT o.id, t.id FROM {schema}.strings o JOIN main.strings t ON t.value = o.value

-- name: strings_moved
-- Whether the map is the identity (the first shard into an empty target).
SELECT EXISTS (SELECT 1 FROM temp.merge_strings WHERE old <> new)

-- name: strings_gaps
-- The identity's range test needs ids 1..count (profdb never deletes a
-- string); a shard with gaps is mapped like any other.
SELECT coalesce(max(id), 0) <> count(*) FROM {schema}.strings

-- name: strings_count
SELECT count(*) FROM {schema}.strings

-- name: rank_conflict
-- A run that gains ranks must not get one it has already.
SELECT t.rank, t.rank_from, s.path, r.name FROM {schema}.traces t
 JOIN temp.merge_runs mr ON mr.old = t.run_id
 JOIN {schema}.sources s ON s.source_id = t.source_id JOIN {schema}.runs r ON r.run_id = t.run_id
 WHERE EXISTS (SELECT 1 FROM main.traces o WHERE o.run_id = mr.new AND o.rank = t.rank)
 ORDER BY t.trace_id LIMIT 1

-- name: pyspy_conflict
-- A run whose py-spy profiles the target and the shard both have: refused
-- (their frames and stack trees would have to be joined; ingest --jobs
-- keeps a run's py-spy files in one worker, so only 'profdb merge' meets it).
SELECT r.name FROM temp.merge_runs mr JOIN main.runs r ON r.run_id = mr.new
 WHERE NOT mr.fresh AND EXISTS (SELECT 1 FROM {schema}.pyspy_frames f WHERE f.run_id = mr.old)
 AND EXISTS (SELECT 1 FROM main.pyspy_frames f WHERE f.run_id = mr.new) LIMIT 1

-- name: clear_pstats_runs
DELETE FROM temp.merge_pstats_runs

-- name: find_pstats_runs
-- Runs whose pstats statistics the target and the shard both have: the
-- shard's are added (merge_pstats.sql), not copied.
INSERT INTO temp.merge_pstats_runs (old, new)
 SELECT mr.old, mr.new FROM temp.merge_runs mr WHERE NOT mr.fresh
 AND EXISTS (SELECT 1 FROM {schema}.pstats_functions f WHERE f.run_id = mr.old)
 AND EXISTS (SELECT 1 FROM main.pstats_functions f WHERE f.run_id = mr.new)

-- name: count_pstats_runs
SELECT count(*) FROM temp.merge_pstats_runs

-- name: tables
-- The target's tables, in the order they were created.
SELECT name FROM main.sqlite_schema WHERE type = 'table' ORDER BY rowid

-- name: columns
-- ?1 = a table: its columns, whether each is (part of) the primary key, its type.
SELECT name, pk, upper(type) FROM pragma_table_info(?1, 'main') ORDER BY cid

-- name: references
-- ?1 = a table, ?2 = one of its columns: the table its REFERENCES clause names.
SELECT "table" FROM pragma_foreign_key_list(?1, 'main') WHERE "from" = ?2

-- name: copy
-- test: table = run_labels
-- test: columns = "run_id", "key", "value"
-- test: values = x."run_id", x."key", x."value"
INSERT INTO main."{table}" ({columns}) SELECT {values} FROM {schema}."{table}" x

-- name: copy_or_ignore
-- A row the target has stays (a label of the run; the built-in metric rules).
-- test: table = run_labels
-- test: columns = "run_id", "key", "value"
-- test: values = x."run_id", x."key", x."value"
INSERT OR IGNORE INTO main."{table}" ({columns}) SELECT {values} FROM {schema}."{table}" x

-- name: copy_fresh_runs
-- Only the rows of runs the shard brings whole (summaries of a whole run).
-- test: table = run_summaries
-- test: columns = "run_id", "metric"
-- test: values = x."run_id", x."metric"
INSERT INTO main."{table}" ({columns}) SELECT {values} FROM {schema}."{table}" x
 WHERE x.run_id IN (SELECT old FROM temp.merge_runs WHERE fresh)

-- name: copy_fresh_pairs
-- Only the rows of two runs the shard brings whole (saved diffs: BASE in
-- run_id, TEST in test_run_id).
-- test: table = diffs
-- test: columns = "run_id", "kind"
-- test: values = x."run_id", x."kind"
INSERT INTO main."{table}" ({columns}) SELECT {values} FROM {schema}."{table}" x
 WHERE x.run_id IN (SELECT old FROM temp.merge_runs WHERE fresh)
 AND x.test_run_id IN (SELECT old FROM temp.merge_runs WHERE fresh)

-- name: copy_unless_added
-- Not the rows of runs whose pstats statistics are added instead.
-- test: table = pstats_edges
-- test: columns = "run_id", "callee_id"
-- test: values = x."run_id", x."callee_id"
INSERT INTO main."{table}" ({columns}) SELECT {values} FROM {schema}."{table}" x
 WHERE x.run_id NOT IN (SELECT old FROM temp.merge_pstats_runs)

-- name: value_same
-- An id that keeps its value, or a column that is no id.
-- test: table = sources
-- test: column = path
SELECT x."{column}" FROM {schema}."{table}" x

-- name: value_shifted
-- An id shifted past the target's largest: :offset_KIND (source, trace, ...) is bound.
-- test: table = sources
-- test: column = source_id
-- test: kind = source
SELECT x."{column}" + :offset_{kind} FROM {schema}."{table}" x

-- name: value_shifted_node
-- A py-spy node id shifted like value_shifted, but a parent_id of 0 (a
-- root: no parent) stays 0.
-- test: table = pyspy_nodes
-- test: column = parent_id
-- test: kind = pynode
SELECT CASE x."{column}" WHEN 0 THEN 0 ELSE x."{column}" + :offset_{kind} END
 FROM {schema}."{table}" x

-- name: value_run
-- test: table = sources
-- test: column = run_id
SELECT (SELECT new FROM temp.merge_runs WHERE old = x."{column}") FROM {schema}."{table}" x

-- name: value_string_same
-- A string id copied as it is (the map is the identity): the shard's ids
-- are 1..:strings (checked), so a range test finds a missing one without a
-- lookup per row. merge_missing_string() (merge.c) fails the merge with
-- the table and column; it is evaluated only for a missing id.
-- test: table = slices
-- test: column = name
SELECT CASE WHEN x."{column}" IS NULL OR x."{column}" BETWEEN 1 AND :strings
 THEN x."{column}" ELSE merge_missing_string('{table}.{column}', x."{column}") END
 FROM {schema}."{table}" x

-- name: value_string
-- A string id through the map.
-- test: table = slices
-- test: column = name
SELECT coalesce((SELECT new FROM temp.merge_strings WHERE old = x."{column}"),
 CASE WHEN x."{column}" IS NOT NULL THEN merge_missing_string('{table}.{column}',
 x."{column}") END) FROM {schema}."{table}" x

-- name: create_seen
-- The scratch connection that checks the ranks of many shards before they
-- are merged in groups (merge.c, check_ranks_across), so a message can
-- name the shard rather than an intermediate file: the ranks each run has
-- so far, the target's, then each shard's.
CREATE TABLE IF NOT EXISTS seen (name TEXT, rank INTEGER, trace TEXT, PRIMARY KEY (name, rank))

-- name: ranks_in_target
-- The target's traces of runs a shard may join: every run, or with an
-- ingest's own shards those it created (run id > ?1).
SELECT r.name, t.rank, s.path FROM main.traces t JOIN main.runs r USING (run_id)
 JOIN main.sources s USING (source_id) WHERE r.run_id > ?1

-- name: add_seen
INSERT INTO seen VALUES (?1, ?2, ?3)

-- name: shard_rank_conflict
-- A rank the shard gives a run that has it already.
SELECT r.name, t.rank, t.rank_from, s.path FROM {schema}.traces t
 JOIN {schema}.runs r USING (run_id) JOIN {schema}.sources s USING (source_id)
 JOIN seen ON seen.name = r.name AND seen.rank = t.rank ORDER BY t.trace_id LIMIT 1

-- name: add_shard_seen
INSERT INTO seen SELECT r.name, t.rank, s.path FROM {schema}.traces t
 JOIN {schema}.runs r USING (run_id) JOIN {schema}.sources s USING (source_id)

-- name: add_shard_files
-- A merge without --full (schemas/90_shards.sql): the shard's own traces
-- keep their events in it; the traces it lists in its own shard_files (a
-- job database merged again, a group's intermediate file) came with that
-- table. ?1 = the shard's absolute path, ?2 size, ?3 mtime_ns, ?4 change
-- counter, ?5 page count, ?6 schema version, ?7 the trace id offset.
INSERT INTO main.shard_files (trace_id, run_id, rank, path, size, mtime_ns, change_counter,
 page_count, schema_version)
 SELECT t.trace_id + ?7, (SELECT new FROM temp.merge_runs WHERE old = t.run_id), t.rank,
 ?1, ?2, ?3, ?4, ?5, ?6 FROM {schema}.traces t
 WHERE NOT EXISTS (SELECT 1 FROM {schema}.shard_files f WHERE f.trace_id = t.trace_id)
 ORDER BY t.trace_id
