-- diff_save.sql: `profdb diff ... --save` stores each comparison it prints
-- (compare/diff_save.c; the tables are in schemas/80_diffs.sql).
-- A query starts at "-- name: NAME" and is known to C as diff_save.NAME
-- (common/query.h). ?1 = the BASE run, ?2 = the TEST run, ?3 = the kind.

-- name: delete_rows
-- The rows of the diff saved before, if any: a saved diff is replaced.
DELETE FROM diff_rows WHERE run_id = ?1 AND test_run_id = ?2 AND kind = ?3

-- name: delete
DELETE FROM diffs WHERE run_id = ?1 AND test_run_id = ?2 AND kind = ?3

-- name: add_row
-- ?4 = the row's number (1, 2, ...), ?5 its first column as text, ?6 the
-- row as a JSON object.
INSERT INTO diff_rows (run_id, test_run_id, kind, row, name, data)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)

-- name: add
-- ?4 = the options that chose the rows, ?5 = the number of rows.
INSERT INTO diffs (run_id, test_run_id, kind, options, saved_at, rows)
VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?5)
