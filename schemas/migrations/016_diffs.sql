-- 016_diffs.sql: schema version 15 -> 16 (common/db.c applies it).
--
-- Stored comparisons (`profdb diff ... --save`): the tables diffs and
-- diff_rows and the view diff_view, empty (80_diffs.sql says what they hold).

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
