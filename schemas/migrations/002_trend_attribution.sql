-- 002_trend_attribution.sql: schema version 1 -> 2 (common/db.c applies it).
--
-- What schema version 2 added to version 1 (the schema files hold the same
-- statements for new databases):
--  * run_summaries, the per-run summaries `profdb trend` reads
--    (schemas/60_trend.sql); filled on demand, so nothing to compute here.
--  * GPU attribution (schemas/50_analysis.sql): analysis_gpu_attribution and
--    its view, analysis_op_steps, analysis_annotations, the GPU columns of
--    analysis_ops and the copy and sync columns of analysis_steps. SQL cannot
--    fill them from what a version 1 database stores: the new columns start
--    at 0 and the new tables empty, and profdb says to run `profdb analyze`
--    when the database holds traces (common/db.c).
--  * the analysis scan's index orders ties longest first, and the
--    correlation index covers the columns attribution reads.

CREATE TABLE run_summaries (
    run_id    INTEGER NOT NULL REFERENCES runs,
    metric    TEXT NOT NULL,     -- as `profdb check` names it: step_time, throughput, kernel:NAME, loss
    method    INTEGER NOT NULL,  -- how the row was computed; profdb recomputes rows of another method
    samples   INTEGER NOT NULL,  -- samples (steps) summarised; 0: the run has none of this metric
    absent    INTEGER NOT NULL,  -- 1: a kernel or op the run never ran (each step counts 0)
    median    REAL,              -- in the metric's unit: seconds for times, per second for rates
    q1        REAL,              -- first quartile (linear interpolation, as numpy and R's default)
    q3        REAL,              -- third quartile
    mean      REAL,
    min       REAL,
    max       REAL,
    unit      TEXT,              -- 's', '/s', 'calls', or the step log's unit ('B', '%', '' for none)
    source    TEXT,              -- where the samples came from: 'step log', 'trace steps'
    what      TEXT,              -- which values: 'per-step values', 'interval means (window 10)', ...
    PRIMARY KEY (run_id, metric)
) WITHOUT ROWID;

-- New columns: NOT NULL needs a default for the rows already there.
ALTER TABLE analysis_ops ADD COLUMN gpu_self_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE analysis_ops ADD COLUMN gpu_total_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE analysis_steps ADD COLUMN copy_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE analysis_steps ADD COLUMN sync_ns INTEGER NOT NULL DEFAULT 0;

CREATE TABLE analysis_op_steps (
    run_id     INTEGER NOT NULL REFERENCES runs,
    rank       INTEGER NOT NULL,
    step       INTEGER,               -- N of ProfilerStep#N, NULL outside steps
    name       TEXT NOT NULL,
    cat        TEXT,
    calls      INTEGER NOT NULL,
    total_ns   INTEGER NOT NULL,
    self_ns    INTEGER NOT NULL
);

CREATE TABLE analysis_gpu_attribution (
    slice_id        INTEGER PRIMARY KEY, -- the GPU event (slices.id)
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
    module          INTEGER            -- nn.Module path (strings.id)
);

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
    PRIMARY KEY (run_id, mode, rank, kind, name)
);

CREATE INDEX analysis_gpu_attribution_run_name
    ON analysis_gpu_attribution (run_id, name, rank, step);

CREATE INDEX analysis_op_steps_run_name ON analysis_op_steps (run_id, name, rank, step);

-- The bulk_ indexes are dropped at the start of a large ingest and rebuilt
-- at its end, so a version 1 file may lack them.
DROP INDEX IF EXISTS bulk_slices_trace_ts;
DROP INDEX IF EXISTS bulk_slices_correlation;

CREATE INDEX bulk_slices_trace_ts ON slices (trace_id, ts, dur DESC);

CREATE INDEX bulk_slices_correlation ON slices (trace_id, correlation, ts, cat, stream)
    WHERE correlation IS NOT NULL;
