-- 008_name_views.sql: schema version 7 -> 8 (common/db.c applies it).
--
-- analysis_kernels, analysis_ops, analysis_op_steps and
-- analysis_annotations keep a name as its string id only: the rows are
-- stored in tables of the same name + "_by_id" (all but op_steps WITHOUT
-- ROWID, by their primary key), and the old names are views that add the
-- text from strings, with the columns in their old order, so every reader
-- is unchanged. Each row had copied its name's text (a trace of 2 million
-- distinct 400-character names wrote every name three more times), and its
-- table kept a second b-tree for the key. The ops tables keep the category
-- as its string id too. The rows are copied as they are; analysis_op_steps
-- gains the name's id, and texts missing from strings are added there;
-- gpu_attribution is made again over the new table.

DROP VIEW gpu_attribution;
DROP INDEX analysis_op_steps_run;

ALTER TABLE analysis_kernels RENAME TO analysis_kernels_v7;
CREATE TABLE analysis_kernels_by_id (
    run_id       INTEGER NOT NULL REFERENCES runs,
    mode         TEXT NOT NULL,
    rank         INTEGER NOT NULL,
    name_id      INTEGER NOT NULL REFERENCES strings, -- the name (strings.id)
    kernel_type  TEXT NOT NULL,
    count        INTEGER NOT NULL,
    total_ns     INTEGER NOT NULL,
    min_ns       INTEGER NOT NULL,
    max_ns       INTEGER NOT NULL,
    mean_ns      REAL NOT NULL,
    std_ns       REAL,                -- sample standard deviation; NULL for one event
    PRIMARY KEY (run_id, rank, name_id, mode)
) WITHOUT ROWID;

INSERT INTO analysis_kernels_by_id (run_id, mode, rank, name_id, kernel_type, count, total_ns, min_ns, max_ns, mean_ns, std_ns)
SELECT run_id, mode, rank, name_id, kernel_type, count, total_ns, min_ns, max_ns, mean_ns, std_ns FROM analysis_kernels_v7;
DROP TABLE analysis_kernels_v7;
CREATE VIEW analysis_kernels AS
SELECT k.run_id, k.mode, k.rank, s.value AS name, k.kernel_type, k.count, k.total_ns,
       k.min_ns, k.max_ns, k.mean_ns, k.std_ns, k.name_id
FROM analysis_kernels_by_id k JOIN strings s ON s.id = k.name_id;

ALTER TABLE analysis_ops RENAME TO analysis_ops_v7;
CREATE TABLE analysis_ops_by_id (
    run_id      INTEGER NOT NULL REFERENCES runs,
    rank        INTEGER NOT NULL,
    name_id     INTEGER NOT NULL REFERENCES strings, -- the name (strings.id)
    cat_id      INTEGER REFERENCES strings, -- the category (strings.id), NULL: none
    input_dims  TEXT NOT NULL,        -- args["Input Dims"] as JSON, '' when absent
    count       INTEGER NOT NULL,
    self_ns     INTEGER NOT NULL,
    total_ns    INTEGER NOT NULL,
    gpu_self_ns  INTEGER NOT NULL,
    gpu_total_ns INTEGER NOT NULL,
    PRIMARY KEY (run_id, rank, name_id, input_dims)
) WITHOUT ROWID;

INSERT OR IGNORE INTO strings (value) SELECT DISTINCT cat FROM analysis_ops_v7 WHERE cat IS NOT NULL;
INSERT INTO analysis_ops_by_id (run_id, rank, name_id, cat_id, input_dims, count, self_ns, total_ns, gpu_self_ns, gpu_total_ns)
SELECT o.run_id, o.rank, o.name_id, c.id, o.input_dims, o.count, o.self_ns, o.total_ns, o.gpu_self_ns, o.gpu_total_ns
FROM analysis_ops_v7 o LEFT JOIN strings c ON c.value = o.cat;
DROP TABLE analysis_ops_v7;
CREATE VIEW analysis_ops AS
SELECT o.run_id, o.rank, s.value AS name, c.value AS cat, o.input_dims, o.count, o.self_ns,
       o.total_ns, o.gpu_self_ns, o.gpu_total_ns, o.name_id
FROM analysis_ops_by_id o JOIN strings s ON s.id = o.name_id
LEFT JOIN strings c ON c.id = o.cat_id;

ALTER TABLE analysis_annotations RENAME TO analysis_annotations_v7;
CREATE TABLE analysis_annotations_by_id (
    run_id          INTEGER NOT NULL REFERENCES runs,
    mode            TEXT NOT NULL,
    rank            INTEGER NOT NULL,
    kind            TEXT NOT NULL,     -- 'cpu' or 'gpu'
    name_id         INTEGER NOT NULL REFERENCES strings, -- the name (strings.id)
    count           INTEGER NOT NULL,
    total_ns        INTEGER NOT NULL,
    min_ns          INTEGER NOT NULL,
    max_ns          INTEGER NOT NULL,
    mean_ns         REAL NOT NULL,
    std_ns          REAL NOT NULL,
    kernel_ns       INTEGER,
    kernel_self_ns  INTEGER,
    kernels         INTEGER,
    PRIMARY KEY (run_id, rank, name_id, mode, kind)
) WITHOUT ROWID;

INSERT INTO analysis_annotations_by_id (run_id, mode, rank, kind, name_id, count, total_ns, min_ns, max_ns, mean_ns, std_ns, kernel_ns, kernel_self_ns, kernels)
SELECT run_id, mode, rank, kind, name_id, count, total_ns, min_ns, max_ns, mean_ns, std_ns, kernel_ns, kernel_self_ns, kernels FROM analysis_annotations_v7;
DROP TABLE analysis_annotations_v7;
CREATE VIEW analysis_annotations AS
SELECT a.run_id, a.mode, a.rank, a.kind, s.value AS name, a.count, a.total_ns, a.min_ns,
       a.max_ns, a.mean_ns, a.std_ns, a.kernel_ns, a.kernel_self_ns, a.kernels, a.name_id
FROM analysis_annotations_by_id a JOIN strings s ON s.id = a.name_id;

INSERT OR IGNORE INTO strings (value) SELECT DISTINCT name FROM analysis_op_steps
UNION SELECT cat FROM analysis_op_steps WHERE cat IS NOT NULL;
ALTER TABLE analysis_op_steps RENAME TO analysis_op_steps_v7;
CREATE TABLE analysis_op_steps_by_id (
    run_id     INTEGER NOT NULL REFERENCES runs,
    rank       INTEGER NOT NULL,
    step       INTEGER,               -- N of ProfilerStep#N, NULL outside steps
    name_id    INTEGER NOT NULL REFERENCES strings, -- the name (strings.id)
    cat_id     INTEGER REFERENCES strings, -- the category (strings.id), NULL: none
    calls      INTEGER NOT NULL,
    total_ns   INTEGER NOT NULL,
    self_ns    INTEGER NOT NULL
);
INSERT INTO analysis_op_steps_by_id (run_id, rank, step, name_id, cat_id, calls, total_ns, self_ns)
SELECT o.run_id, o.rank, o.step, s.id, c.id, o.calls, o.total_ns, o.self_ns
FROM analysis_op_steps_v7 o JOIN strings s ON s.value = o.name
LEFT JOIN strings c ON c.value = o.cat ORDER BY o.rowid;
DROP TABLE analysis_op_steps_v7;
CREATE INDEX analysis_op_steps_run ON analysis_op_steps_by_id (run_id);
CREATE VIEW analysis_op_steps AS
SELECT o.run_id, o.rank, o.step, s.value AS name, c.value AS cat, o.calls, o.total_ns,
       o.self_ns, o.name_id
FROM analysis_op_steps_by_id o JOIN strings s ON s.id = o.name_id
LEFT JOIN strings c ON c.id = o.cat_id;

CREATE VIEW gpu_attribution AS
SELECT a.run_id, a.rank, a.slice_id, k.value AS kernel,
       (SELECT kernel_type FROM analysis_kernels_by_id x WHERE x.run_id = a.run_id
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
