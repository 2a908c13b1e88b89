-- profdb schema, part 8 (schema version 16): comparisons kept.
--
-- `profdb diff BASE TEST [KIND...] --save` stores each comparison it prints
-- (one per KIND), keyed by (BASE run, TEST run, kind): a diff saved again
-- replaces the rows it had. Both runs must be in this database. A row of
-- diff_rows is a row diff prints, with the values of the query behind it
-- (times in integer nanoseconds, whatever --unit says), as the JSON object
-- `--format json` would print without --unit; read a column with
-- json_extract():
--   SELECT name, json_extract(data, '$.change_ns') FROM diff_view
--   WHERE base = 'before' AND test = 'after' AND kind = 'kernels' ORDER BY row
-- docs/compare.md lists each kind's columns. Saved diffs are derived from
-- the two runs' rows: deleting or replacing either run, or analysing it
-- again, deletes them.

CREATE TABLE diffs (
    run_id       INTEGER NOT NULL REFERENCES runs, -- the BASE run
    test_run_id  INTEGER NOT NULL REFERENCES runs, -- the TEST run
    kind         TEXT NOT NULL,     -- steps, gpu, kernel-types, kernels, ops, pstats or pyspy
    options      TEXT NOT NULL,     -- the options that chose the rows ('--top 10
                                    -- --normalize-names'), '' for none
    saved_at     TEXT NOT NULL,     -- UTC ISO-8601 time of the diff
    rows         INTEGER NOT NULL,  -- rows in diff_rows
    PRIMARY KEY (run_id, test_run_id, kind)
) WITHOUT ROWID;

CREATE TABLE diff_rows (
    run_id       INTEGER NOT NULL REFERENCES runs, -- the BASE run
    test_run_id  INTEGER NOT NULL REFERENCES runs, -- the TEST run
    kind         TEXT NOT NULL,
    row          INTEGER NOT NULL,  -- 1, 2, ...: the order diff prints
    name         TEXT,              -- the row's first column as text: the kernel, op,
                                    -- function, kernel type or metric compared
    data         TEXT NOT NULL,     -- the row as a JSON object, every column by its name
    PRIMARY KEY (run_id, test_run_id, kind, row)
) WITHOUT ROWID;

CREATE VIEW diff_view AS
SELECT b.name AS base, t.name AS test, r.kind, r.row, r.name, r.data, d.options, d.saved_at,
       r.run_id AS base_run_id, r.test_run_id
FROM diff_rows r
JOIN diffs d ON d.run_id = r.run_id AND d.test_run_id = r.test_run_id AND d.kind = r.kind
JOIN runs b ON b.run_id = r.run_id
JOIN runs t ON t.run_id = r.test_run_id;
