-- recstore.sql: the temporary table of a record store past its bound
-- (analyze/recstore.c). A query starts at "-- name: NAME" and is known to
-- C as recstore.NAME (common/query.h). {table} is the store's table,
-- pdb_rs_NAME (a name fixed in the code: "ops", "nodes", ...); h is a
-- record's number, k its key, r the record.

-- name: create_store
-- test: table = pdb_rs_test
CREATE TEMP TABLE IF NOT EXISTS {table} (h INTEGER PRIMARY KEY, k BLOB NOT NULL,
 r BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS temp.{table}_k ON {table} (k);
DELETE FROM temp.{table}

-- name: cache_size
-- SQLite's cache for temporary tables while records spill (its default
-- is 2 MB): bounded memory that saves most reads of the key index. 16 MB
-- rather than 8: a million spilled names analysed in 0.88 of the time
-- (paired runs), and 2 M names peak at 55 MB (57 with 400-character
-- names), under the 64 MB bound.
PRAGMA temp.cache_size = -16384

-- name: add
-- New records; a statement of many rows repeats the row of values
-- (pdb_query_rows). OR FAIL: a statement of many rows that may abort
-- halfway makes SQLite journal every page it changes; an upsert did, and
-- wrote 2 GB for 2 million spilled records.
-- test: table = pdb_rs_test
INSERT OR FAIL INTO temp.{table} (h, k, r) VALUES (?,?,?)

-- name: change
-- Changed records: {cases} is " WHEN ?1 THEN ?2 WHEN ?3 THEN ?4 ..." and
-- {keys} "?1,?3,...", one of each per record (recstore.c makes them for
-- the number of rows).
-- test: table = pdb_rs_test
-- test: cases = WHEN ?1 THEN ?2
-- test: keys = ?1
UPDATE OR FAIL temp.{table} SET r = CASE h {cases} END WHERE h IN ({keys})

-- name: get
-- test: table = pdb_rs_test
SELECT h, k, r FROM temp.{table} WHERE h = ?1

-- name: get_range
-- test: table = pdb_rs_test
SELECT h, k, r FROM temp.{table} WHERE h >= ?1 AND h < ?2

-- name: find
-- test: table = pdb_rs_test
SELECT h FROM temp.{table} WHERE k = ?

-- name: all
-- test: table = pdb_rs_test
SELECT h, k, r FROM temp.{table} ORDER BY h
