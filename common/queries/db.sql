-- db.sql: opening a database, creating and migrating its schema
-- (common/db.c). A query starts at "-- name: NAME" and is known to C as
-- db.NAME (common/query.h). BEGIN, COMMIT and ROLLBACK are common/db.c's
-- pdb_db_begin, pdb_db_commit and pdb_db_rollback.

-- name: temp_page_size
-- Temporary tables (the analysis's spill tables, the readers' overflow
-- tables) are written to their file a page per system call: with 4 KiB
-- pages a million spilled names took 77,000 calls and a second. The size
-- only counts before the first temporary table exists.
PRAGMA temp.page_size = 16384

-- name: private
-- A new file no other process opens before it is published or deleted
-- (PDB_DB_PRIVATE): no journal, no syncing.
PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF

-- name: wal
-- Readers never block the writer. main. only: a shard may still be
-- attached read-only (ingest --jobs), and a bare journal_mode pragma sets
-- every attached database.
PRAGMA main.journal_mode = WAL

-- name: synchronous
-- In WAL mode, a commit is durable at the next checkpoint's sync.
PRAGMA synchronous = NORMAL

-- name: header
-- Version, application id and table count, read in one statement so they
-- come from one snapshot while another process may be creating the schema.
SELECT (SELECT user_version FROM pragma_user_version),
 (SELECT application_id FROM pragma_application_id),
 (SELECT count(*) FROM sqlite_schema)

-- name: tables
SELECT count(*) FROM sqlite_schema

-- name: version
PRAGMA user_version

-- name: stamp
-- A new database's schema version and profdb's application id, as numbers
-- (pragmas take no bound parameters).
-- test: version = 1
-- test: application_id = 1
PRAGMA user_version = {version}; PRAGMA application_id = {application_id}

-- name: set_version
-- The schema version after a migration.
-- test: version = 1
PRAGMA user_version = {version}

-- name: traces
-- Traces held (a migration that adds analysis tables says to analyse them).
SELECT count(*) FROM traces

-- name: respelt_traces
-- Traces whose categories migration 013 respelt (their analyses are stale).
SELECT count(DISTINCT trace_id) FROM trace_spellings

-- name: bytes
-- The size of the database in bytes, as SQLite counts its pages.
SELECT page_count * page_size FROM pragma_page_count('main'), pragma_page_size('main')

-- name: vacuum
VACUUM
