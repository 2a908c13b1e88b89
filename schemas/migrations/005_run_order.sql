-- 005_run_order.sql: schema version 4 -> 5 (common/db.c applies it).
--
-- The per-row analysis tables are kept in the order one analysis writes
-- them: analysis_gpu_attribution is stored by (run_id, slice_id) (WITHOUT
-- ROWID) and analysis_op_steps indexed by run_id alone, instead of both
-- carrying an index by (run_id, name, rank, step), into which every row the
-- analysis wrote went at a random place (10% of the analysis instructions
-- on the bench trace). Their readers (reports, `profdb check`, `profdb
-- trend`, re-analysis) all start from one run. The rows are copied as they
-- are; the view gpu_attribution is made again over the new table.

DROP VIEW gpu_attribution;
DROP INDEX analysis_gpu_attribution_run_name;
DROP INDEX analysis_op_steps_run_name;
CREATE INDEX analysis_op_steps_run ON analysis_op_steps (run_id);
ALTER TABLE analysis_gpu_attribution RENAME TO analysis_gpu_attribution_v4;

CREATE TABLE analysis_gpu_attribution (
    slice_id        INTEGER NOT NULL,  -- the GPU event (slices.id)
    run_id          INTEGER NOT NULL REFERENCES runs,
    rank            INTEGER NOT NULL,
    name            INTEGER NOT NULL,  -- kernel name (strings.id)
    dur_ns          INTEGER NOT NULL,  -- (its start is slices.ts)
    step            INTEGER,           -- ProfilerStep number of the launch
    launch_id       INTEGER,           -- the launching runtime call (slices.id)
    op_id           INTEGER,           -- the innermost op around it (slices.id)
    op              INTEGER,           -- its name (strings.id)
    top_op          INTEGER,           -- the outermost op around the launch (strings.id)
    annotation      INTEGER,           -- innermost user_annotation (strings.id)
    gpu_annotation  INTEGER,           -- gpu_user_annotation range (strings.id)
    module          INTEGER,           -- nn.Module path (strings.id)
    -- Stored by run (schema version 5): a run's rows are read and deleted
    -- together, and one analysis writes them nearly in this order.
    PRIMARY KEY (run_id, slice_id)
) WITHOUT ROWID;

INSERT INTO analysis_gpu_attribution (slice_id, run_id, rank, name, dur_ns, step, launch_id, op_id, op, top_op, annotation, gpu_annotation, module)
SELECT slice_id, run_id, rank, name, dur_ns, step, launch_id, op_id, op, top_op, annotation, gpu_annotation, module FROM analysis_gpu_attribution_v4;
DROP TABLE analysis_gpu_attribution_v4;

CREATE VIEW gpu_attribution AS
SELECT a.run_id, a.rank, a.slice_id, k.value AS kernel,
       (SELECT kernel_type FROM analysis_kernels x WHERE x.run_id = a.run_id
        AND x.mode = 'exact' AND x.rank = a.rank AND x.name = k.value) AS kernel_type,
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
