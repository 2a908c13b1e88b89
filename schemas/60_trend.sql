-- profdb schema, part 6 (schema version 2): per-run summaries that
-- `profdb trend` reads, so a history of a thousand runs is one indexed
-- query instead of a thousand sample reads.
--
-- A row summarises one run's samples of one metric, read exactly as
-- `profdb check` reads them (docs/compare.md: one sample per step).
-- `profdb trend` computes a run's row the first time it needs it and keeps
-- it; `profdb analyze` drops the rows of the runs it analyses again, and
-- they are deleted with the run.

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
