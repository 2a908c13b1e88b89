-- ops_pass.sql: the CPU ops of a trace, their times per op and per step
-- (analyze/ops_pass.c). A query starts at "-- name: NAME" and is known to
-- C as ops_pass.NAME (common/query.h).

-- name: create_stacks
-- Op stacks of threads past common/bounds.h's bound, keyed by thread.
-- Made before the scan: a schema change would abort its query.
CREATE TEMP TABLE IF NOT EXISTS ops_stacks (thread BLOB PRIMARY KEY, stack BLOB NOT NULL)
 WITHOUT ROWID;
DELETE FROM temp.ops_stacks

-- name: stack_put
INSERT INTO temp.ops_stacks VALUES (?, ?)

-- name: stack_get
SELECT stack FROM temp.ops_stacks WHERE thread = ?

-- name: stack_delete
DELETE FROM temp.ops_stacks WHERE thread = ?

-- name: stacks
-- The stacks still in the table at the end of the trace.
SELECT stack FROM temp.ops_stacks

-- name: clear_stacks
DELETE FROM temp.ops_stacks

-- name: add_op_step
-- One row; a batch of them goes in one statement (analyze/batch.h).
INSERT OR FAIL INTO analysis_op_steps_by_id VALUES (?,?,?,?,?,?,?,?)

-- name: add_op
-- One row; a batch of them goes in one statement (analyze/batch.h).
INSERT OR FAIL INTO analysis_ops_by_id VALUES (?,?,?,?,?,?,?,?,?,?)
