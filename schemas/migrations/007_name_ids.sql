-- 007_name_ids.sql: schema version 6 -> 7 (common/db.c applies it).
--
-- analysis_kernels, analysis_ops and analysis_annotations are keyed by the
-- name's string id (a new column name_id, REFERENCES strings) instead of
-- its text: every row the analysis wrote copied the name a second time into
-- an index keyed by text (2 million distinct names of 400 characters: 1.5
-- GB of the 5.1 GB database). The text stays in the name column, so every
-- reader is unchanged. The rows are copied as they are, each name given
-- the id its text has in strings (added there if missing: nothing the
-- analysis wrote is); the view gpu_attribution is made again over the new
-- key.

DROP VIEW gpu_attribution;

INSERT OR IGNORE INTO strings (value)
SELECT name FROM analysis_kernels UNION SELECT name FROM analysis_ops
UNION SELECT name FROM analysis_annotations;

ALTER TABLE analysis_kernels RENAME TO analysis_kernels_v6;
CREATE TABLE analysis_kernels (
    run_id       INTEGER NOT NULL REFERENCES runs,
    mode         TEXT NOT NULL,
    rank         INTEGER NOT NULL,
    name         TEXT NOT NULL,
    kernel_type  TEXT NOT NULL,
    count        INTEGER NOT NULL,
    total_ns     INTEGER NOT NULL,
    min_ns       INTEGER NOT NULL,
    max_ns       INTEGER NOT NULL,
    mean_ns      REAL NOT NULL,
    std_ns       REAL,                -- sample standard deviation; NULL for one event
    name_id      INTEGER NOT NULL REFERENCES strings, -- name as strings.id (schema 7)
    PRIMARY KEY (run_id, mode, rank, name_id)
);
INSERT INTO analysis_kernels
SELECT k.run_id, k.mode, k.rank, k.name, k.kernel_type, k.count, k.total_ns, k.min_ns,
       k.max_ns, k.mean_ns, k.std_ns, s.id
FROM analysis_kernels_v6 k JOIN strings s ON s.value = k.name ORDER BY k.rowid;
DROP TABLE analysis_kernels_v6;

ALTER TABLE analysis_ops RENAME TO analysis_ops_v6;
CREATE TABLE analysis_ops (
    run_id      INTEGER NOT NULL REFERENCES runs,
    rank        INTEGER NOT NULL,
    name        TEXT NOT NULL,
    cat         TEXT,
    input_dims  TEXT NOT NULL,        -- args["Input Dims"] as JSON, '' when absent
    count       INTEGER NOT NULL,
    self_ns     INTEGER NOT NULL,
    total_ns    INTEGER NOT NULL,
    gpu_self_ns  INTEGER NOT NULL DEFAULT 0, -- (defaults: migration 002 adds the columns)
    gpu_total_ns INTEGER NOT NULL DEFAULT 0,
    name_id     INTEGER NOT NULL REFERENCES strings, -- name as strings.id (schema 7)
    PRIMARY KEY (run_id, rank, name_id, input_dims)
);
INSERT INTO analysis_ops
SELECT o.run_id, o.rank, o.name, o.cat, o.input_dims, o.count, o.self_ns, o.total_ns,
       o.gpu_self_ns, o.gpu_total_ns, s.id
FROM analysis_ops_v6 o JOIN strings s ON s.value = o.name ORDER BY o.rowid;
DROP TABLE analysis_ops_v6;

ALTER TABLE analysis_annotations RENAME TO analysis_annotations_v6;
CREATE TABLE analysis_annotations (
    run_id          INTEGER NOT NULL REFERENCES runs,
    mode            TEXT NOT NULL,
    rank            INTEGER NOT NULL,
    kind            TEXT NOT NULL,     -- 'cpu' or 'gpu'
    name            TEXT NOT NULL,
    count           INTEGER NOT NULL,
    total_ns        INTEGER NOT NULL,
    min_ns          INTEGER NOT NULL,
    max_ns          INTEGER NOT NULL,
    mean_ns         REAL NOT NULL,
    std_ns          REAL NOT NULL,
    kernel_ns       INTEGER,
    kernel_self_ns  INTEGER,
    kernels         INTEGER,
    name_id         INTEGER NOT NULL REFERENCES strings, -- name as strings.id (schema 7)
    PRIMARY KEY (run_id, mode, rank, kind, name_id)
);
INSERT INTO analysis_annotations
SELECT a.run_id, a.mode, a.rank, a.kind, a.name, a.count, a.total_ns, a.min_ns, a.max_ns,
       a.mean_ns, a.std_ns, a.kernel_ns, a.kernel_self_ns, a.kernels, s.id
FROM analysis_annotations_v6 a JOIN strings s ON s.value = a.name ORDER BY a.rowid;
DROP TABLE analysis_annotations_v6;

CREATE VIEW gpu_attribution AS
SELECT a.run_id, a.rank, a.slice_id, k.value AS kernel,
       (SELECT kernel_type FROM analysis_kernels x WHERE x.run_id = a.run_id
        AND x.mode = 'exact' AND x.rank = a.rank AND x.name_id = a.name) AS kernel_type,
       (SELECT ts FROM slices WHERE id = a.slice_id) AS ts, a.dur_ns,
       a.step, a.launch_id, (SELECT n.value FROM slices l JOIN strings n ON n.id = l.name
                             WHERE l.id = a.launch_id) AS launch,
       a.op_id, o.value AS op, t.value AS top_op, u.value AS annotation,
       g.value AS gpu_annotation, m.value AS module
FROM analysis_gpu_attribution a
JOIN strings k ON k.id = a.name
LEFT JOIN strings o ON o.id = a.op
LEFT JOIN strings t ON t.id = a.top_op
LEFT JOIN strings u ON u.id = a.annotation
LEFT JOIN strings g ON g.id = a.gpu_annotation
LEFT JOIN strings m ON m.id = a.module;
