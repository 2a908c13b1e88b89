-- strings.sql: names and categories, each stored once in strings
-- (schemas/10_core.sql) and referred to by id. A query starts at
-- "-- name: NAME" and is known to C as strings.NAME (common/query.h).

-- name: id
-- ?1 = the text.
SELECT id FROM strings WHERE value = ?1

-- name: text
-- ?1 = the id.
SELECT value FROM strings WHERE id = ?1

-- name: add
-- ?1 = the text; nothing when it is there already.
INSERT OR IGNORE INTO strings (value) VALUES (?1)
