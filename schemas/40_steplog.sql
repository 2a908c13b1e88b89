-- profdb schema, part 4: per-step training logs (ingest/steplog/*.c).
--
-- Every metric value a step log holds is one row of the view steplog_values,
-- whatever the framework that printed it. Values are REAL in a canonical
-- unit named in the `unit` column: times in seconds ('s'), sizes in bytes
-- ('B'), shares in percent ('%'), rates per second ('/s'; '1/s' for
-- iterations), plain counts and losses with unit ''. A value the log
-- printed as nan/inf is stored as NULL.

-- Storage. A log repeats its names on every line, so the values are not
-- stored one row each: a series (one raw name of one kind of record, with
-- its rank, loader, split, metric, unit and aggregation) is a row of
-- steplog_series; what a record shares (line, step, epoch, timestamp) is a
-- row of steplog_contexts; and the values of a series sit in
-- steplog_chunks, up to 32 a row, where they form a regular run: contexts a
-- fixed number of rows apart, the same position in their records and the
-- same window. A 1,000,000-line JSON Lines log takes about 90 bytes a line
-- this way against 575 in one row per value (bench/steplog.sh). Read the
-- view steplog_values: it has one row per value, with every column.

-- One series of values: a raw name in the records of one kind of one source.
CREATE TABLE steplog_series (
    series_id  INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs,
    source_id  INTEGER NOT NULL REFERENCES sources,
    kind       TEXT NOT NULL,     -- record type: 'iteration', 'timer', 'ds_step', 'jsonl', 'csv', ...
    rank       INTEGER,           -- process rank or GPU index, when the log says
    loader     TEXT,              -- dataloader name (profile/train/dl_NAME/...); for
                                  -- DeepSpeed-Chat's two engines (actor, critic) that
                                  -- both print step=N: 'engine0', 'engine1'; else NULL
    split      TEXT,              -- 'train', 'val', 'summary' (an end-of-epoch or end-of-run
                                  -- aggregate, not a step) or NULL when the log does not say
    metric     TEXT NOT NULL,     -- canonical name (steplog_metric_rules), e.g. 'forward', 'loss'
    unit       TEXT NOT NULL,     -- 's', 'B', '%', '/s' (a rate), '1/s', 'W', 'J', or ''
    agg        TEXT NOT NULL,     -- how the values aggregate steps: 'point' (this step),
                                  -- 'interval_mean' (mean over the `window` steps up to this
                                  -- one), 'cumulative' (a counter since the start),
                                  -- 'running_mean' (mean since the start or the epoch's start),
                                  -- 'moving_avg' (EMA), 'window_median', 'derived' (exact mean
                                  -- over `window` steps, from a cumulative clock or from
                                  -- timestamps), 'total', 'mean', 'min', 'max', 'share' (of a
                                  -- summary block), 'epoch_total'; see docs/steplogs.md
    raw_name   TEXT NOT NULL,     -- the metric's name as printed
    ctx_base   INTEGER NOT NULL   -- the source's contexts are the ctx_ids above this
);
CREATE INDEX steplog_series_metric ON steplog_series (run_id, metric);
CREATE INDEX steplog_series_source ON steplog_series (source_id);

-- What the values of one record share: one row per record, or more when
-- the record's line or step changes within it (a multi-line timer block).
-- The record number and the line are stored as offsets, mostly 0 (no
-- bytes on disk): record = ctx_id - ctx_base - rec_off, line = record + line_off.
CREATE TABLE steplog_contexts (
    ctx_id     INTEGER PRIMARY KEY,
    rec_off    INTEGER NOT NULL,  -- see above
    line_off   INTEGER,           -- see above; lines are 1-based (0: a JSON document; NULL: none)
    step       INTEGER,           -- step/iteration number as the log counts it
    epoch      REAL,              -- epoch, possibly fractional (HF rounds to 2 decimals)
    wall_time  REAL               -- seconds since 1970 of the record's timestamp, read as UTC
);

-- Up to 32 values of one series: the value in slot i (1..n) belongs to
-- context ctx + (i - 1) * stride, is the pos-th value of its record, covers
-- `window` steps and is v<i>; slots whose bit i - 1 is set in gaps hold no
-- value (a record without this series, a value deleted).
CREATE TABLE steplog_chunks (
    chunk_id   INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs,
    series_id  INTEGER NOT NULL REFERENCES steplog_series,
    ctx        INTEGER NOT NULL,  -- the first value's context
    stride     INTEGER NOT NULL,  -- contexts from one value to the next (0 when n = 1)
    pos        INTEGER NOT NULL,  -- order of the values within their records (from 0; values
                                  -- derived after the file come after the logged ones)
    window     INTEGER,           -- steps each value covers (log interval, window), or NULL
                                  -- when unknown (e.g. the first record of an interval log)
    n          INTEGER NOT NULL,  -- slots in this row, 1..32
    gaps       INTEGER,           -- bit i - 1 set: slot i is empty; NULL: none is
    v1       REAL,
    v2       REAL,
    v3       REAL,
    v4       REAL,
    v5       REAL,
    v6       REAL,
    v7       REAL,
    v8       REAL,
    v9       REAL,
    v10      REAL,
    v11      REAL,
    v12      REAL,
    v13      REAL,
    v14      REAL,
    v15      REAL,
    v16      REAL,
    v17      REAL,
    v18      REAL,
    v19      REAL,
    v20      REAL,
    v21      REAL,
    v22      REAL,
    v23      REAL,
    v24      REAL,
    v25      REAL,
    v26      REAL,
    v27      REAL,
    v28      REAL,
    v29      REAL,
    v30      REAL,
    v31      REAL,
    v32      REAL   -- value i in the series' unit; NULL for nan/inf
);
-- Not a bulk index (session.c drops those around large loads): the passes
-- after each file read their series through it, and keeping it costs
-- nothing measurable (chunks are few).
CREATE INDEX steplog_chunks_series ON steplog_chunks (series_id, ctx);

-- The numbers 1..32: the slots of a chunk, for the view.
CREATE TABLE steplog_slots (i INTEGER PRIMARY KEY);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 32)
INSERT INTO steplog_slots SELECT i FROM k;

-- A source's contexts go with its last series (run deletion, --replace).
CREATE TRIGGER steplog_series_delete AFTER DELETE ON steplog_series
WHEN NOT EXISTS (SELECT 1 FROM steplog_series WHERE source_id = OLD.source_id)
BEGIN
    DELETE FROM steplog_contexts WHERE ctx_id > OLD.ctx_base AND ctx_id <= coalesce(
        (SELECT min(ctx_base) FROM steplog_series WHERE ctx_base > OLD.ctx_base),
        9223372036854775807);
END;

-- Every value with its context and its place: steplog_values plus series_id,
-- chunk_id, slot (1..32), pos and ctx_id (then run, the run's name, last).
-- profdb's own readers use it where they need the order of values within a
-- record (record, pos). CROSS JOIN
-- fixes the loops: series (few, indexed by run and metric) outside their
-- chunks, chunks outside their slots; without it SQLite, knowing no sizes,
-- may loop over the 32 slots outside and read every chunk 32 times.
CREATE VIEW steplog_points AS
SELECT s.run_id, s.source_id, x.ctx_id - s.ctx_base - x.rec_off AS record,
    x.ctx_id - s.ctx_base - x.rec_off + x.line_off AS line, s.kind, s.rank, s.loader,
    s.split, x.step, x.epoch, x.wall_time, s.metric, CASE k.i
    WHEN 1 THEN c.v1
    WHEN 2 THEN c.v2
    WHEN 3 THEN c.v3
    WHEN 4 THEN c.v4
    WHEN 5 THEN c.v5
    WHEN 6 THEN c.v6
    WHEN 7 THEN c.v7
    WHEN 8 THEN c.v8
    WHEN 9 THEN c.v9
    WHEN 10 THEN c.v10
    WHEN 11 THEN c.v11
    WHEN 12 THEN c.v12
    WHEN 13 THEN c.v13
    WHEN 14 THEN c.v14
    WHEN 15 THEN c.v15
    WHEN 16 THEN c.v16
    WHEN 17 THEN c.v17
    WHEN 18 THEN c.v18
    WHEN 19 THEN c.v19
    WHEN 20 THEN c.v20
    WHEN 21 THEN c.v21
    WHEN 22 THEN c.v22
    WHEN 23 THEN c.v23
    WHEN 24 THEN c.v24
    WHEN 25 THEN c.v25
    WHEN 26 THEN c.v26
    WHEN 27 THEN c.v27
    WHEN 28 THEN c.v28
    WHEN 29 THEN c.v29
    WHEN 30 THEN c.v30
    WHEN 31 THEN c.v31
    WHEN 32 THEN c.v32
    END AS value, s.unit, s.agg, c.window, s.raw_name, c.series_id, c.chunk_id, k.i AS slot,
    c.pos, x.ctx_id, (SELECT name FROM runs WHERE run_id = s.run_id) AS run
FROM steplog_series s
CROSS JOIN steplog_chunks c ON c.series_id = s.series_id
CROSS JOIN steplog_slots k ON k.i <= c.n AND (c.gaps IS NULL OR (c.gaps >> (k.i - 1)) & 1 = 0)
JOIN steplog_contexts x ON x.ctx_id = c.ctx + (k.i - 1) * c.stride;

-- One metric value of one record of a step log: the long table, as a view.
--   run_id, source_id, kind, rank, loader, split, metric, unit, agg, raw_name:
--     the series' (steplog_series)
--   record     ordinal of the record (line or block) in its source, from 1
--   line       line number of the value's record (or of its line, in a multi-line
--              record) in the file (1-based; 0 for JSON documents)
--   step, epoch, wall_time: the context's (steplog_contexts)
--   value      in `unit`; NULL for nan/inf
--   window     steps the value covers, or NULL
--   run        the run's name (runs.name; schema version 17), last
CREATE VIEW steplog_values AS
SELECT run_id, source_id, record, line, kind, rank, loader, split, step, epoch, wall_time,
    metric, value, unit, agg, window, raw_name, run
FROM steplog_points;

-- Writing through the view. INSERT stores each row as a chunk of its own
-- (its series and context made or reused: the newest context is reused when
-- the row has its record, line, step, epoch and wall_time). A new record
-- can go only to the newest step-log source or a new one, since a source's
-- contexts are one range of ctx_ids. DELETE empties the row's slot; it
-- reads the series to find it, so it suits edits, not bulk deletions (for
-- those delete the run, or rows of steplog_series). UPDATE is refused:
-- change steplog_series (metric, unit, agg, ... of all its values) instead.
CREATE TRIGGER steplog_values_insert INSTEAD OF INSERT ON steplog_values
BEGIN
    INSERT INTO steplog_series (run_id, source_id, kind, rank, loader, split, metric, unit, agg,
        raw_name, ctx_base)
    SELECT NEW.run_id, NEW.source_id, NEW.kind, NEW.rank, NEW.loader, NEW.split, NEW.metric,
        NEW.unit, NEW.agg, NEW.raw_name,
        coalesce((SELECT ctx_base FROM steplog_series WHERE source_id = NEW.source_id),
            (SELECT coalesce(max(ctx_id), 0) FROM steplog_contexts))
    WHERE NOT EXISTS (SELECT 1 FROM steplog_series WHERE source_id = NEW.source_id
        AND kind = NEW.kind AND rank IS NEW.rank AND loader IS NEW.loader
        AND split IS NEW.split AND metric = NEW.metric AND unit = NEW.unit AND agg = NEW.agg
        AND raw_name = NEW.raw_name);
    -- b: the source's ctx_base; m: the newest context, when it is this row's
    SELECT RAISE(ABORT, 'steplog_values: a new record can be added only to the newest step-log source')
    FROM (SELECT ctx_base AS b FROM steplog_series WHERE source_id = NEW.source_id LIMIT 1)
    WHERE EXISTS (SELECT 1 FROM steplog_series WHERE ctx_base > b)
    AND NOT EXISTS (SELECT 1 FROM steplog_contexts x
        WHERE x.ctx_id = (SELECT max(ctx_id) FROM steplog_contexts) AND x.ctx_id > b
        AND x.ctx_id - b - x.rec_off = NEW.record
        AND x.ctx_id - b - x.rec_off + x.line_off IS NEW.line AND x.step IS NEW.step
        AND x.epoch IS NEW.epoch AND x.wall_time IS NEW.wall_time);
    INSERT INTO steplog_contexts (ctx_id, rec_off, line_off, step, epoch, wall_time)
    SELECT m + 1, m + 1 - b - NEW.record, NEW.line - NEW.record, NEW.step, NEW.epoch,
        NEW.wall_time
    FROM (SELECT ctx_base AS b FROM steplog_series WHERE source_id = NEW.source_id LIMIT 1),
        (SELECT coalesce(max(ctx_id), 0) AS m FROM steplog_contexts)
    WHERE NOT EXISTS (SELECT 1 FROM steplog_contexts x WHERE x.ctx_id = m AND x.ctx_id > b
        AND x.ctx_id - b - x.rec_off = NEW.record
        AND x.ctx_id - b - x.rec_off + x.line_off IS NEW.line AND x.step IS NEW.step
        AND x.epoch IS NEW.epoch AND x.wall_time IS NEW.wall_time);
    -- after the logged values of its record (pos from 2^40, in insertion order)
    INSERT INTO steplog_chunks (run_id, series_id, ctx, stride, pos, window, n, v1)
    SELECT NEW.run_id, (SELECT series_id FROM steplog_series WHERE source_id = NEW.source_id
            AND kind = NEW.kind AND rank IS NEW.rank AND loader IS NEW.loader
            AND split IS NEW.split AND metric = NEW.metric AND unit = NEW.unit
            AND agg = NEW.agg AND raw_name = NEW.raw_name),
        (SELECT max(ctx_id) FROM steplog_contexts), 0,
        1099511627776 + (SELECT coalesce(max(chunk_id), 0) FROM steplog_chunks), NEW.window, 1,
        NEW.value;
END;

CREATE TRIGGER steplog_values_delete INSTEAD OF DELETE ON steplog_values
BEGIN
    UPDATE steplog_chunks SET gaps = coalesce(gaps, 0) | (1 << (p.slot - 1))
    FROM (SELECT chunk_id, slot FROM steplog_points WHERE source_id = OLD.source_id
        AND run_id = OLD.run_id AND kind = OLD.kind AND rank IS OLD.rank
        AND loader IS OLD.loader AND split IS OLD.split AND metric = OLD.metric
        AND unit = OLD.unit AND agg = OLD.agg AND raw_name = OLD.raw_name
        AND record = OLD.record AND line IS OLD.line AND step IS OLD.step
        AND epoch IS OLD.epoch AND wall_time IS OLD.wall_time AND value IS OLD.value
        AND window IS OLD.window LIMIT 1) AS p
    WHERE steplog_chunks.chunk_id = p.chunk_id;
END;

-- How raw metric names map to canonical names: the first matching rule by
-- descending priority wins; patterns are SQLite GLOBs on the lower-cased
-- raw name. Add rows with a higher priority (`profdb sql --write`) to
-- override, then re-ingest with --replace. Unmatched names are kept lower-cased.
CREATE TABLE steplog_metric_rules (
    priority  INTEGER NOT NULL,   -- higher wins; built-in rules use 0..99
    pattern   TEXT NOT NULL,      -- GLOB on the lower-cased raw name
    metric    TEXT NOT NULL,      -- canonical name
    is_phase  INTEGER NOT NULL,   -- 1 when the metric is a phase of a step (a time)
    PRIMARY KEY (pattern, priority)
);

-- Text lines of summary blocks that carry no number (rectified-flow
-- "Performance Insights" and MAE bottleneck warnings), kept for reports.
CREATE TABLE steplog_notes (
    run_id     INTEGER NOT NULL REFERENCES runs,
    source_id  INTEGER NOT NULL REFERENCES sources,
    record     INTEGER NOT NULL,  -- the summary block's record number in steplog_values
    line       INTEGER NOT NULL,  -- line number in the file
    section    TEXT NOT NULL,     -- e.g. 'Performance Insights'
    text       TEXT NOT NULL      -- the line without its bullet
);

-- Header of each summary block ("=== Profiling Report (Step 50) ===").
CREATE TABLE steplog_blocks (
    run_id     INTEGER NOT NULL REFERENCES runs,
    source_id  INTEGER NOT NULL REFERENCES sources,
    record     INTEGER NOT NULL,  -- record number of the block's values
    line       INTEGER NOT NULL,  -- line of the header
    title      TEXT NOT NULL,     -- the header without '=' signs
    step       INTEGER            -- the step (or step count) the header names
);

-- How each step log was read (ingest/steplog/steplog_reading.c), one row per
-- step-log source: what the ingest printed as its reading, for `profdb runs`
-- (the summary column) and `profdb runs --reading` (every column). Sources
-- ingested before schema version 10 have none.
CREATE TABLE steplog_readings (
    source_id     INTEGER PRIMARY KEY REFERENCES sources,
    run_id        INTEGER NOT NULL REFERENCES runs,
    reader        TEXT NOT NULL,   -- 'text' (the general reader) or the flavor
    counter       TEXT,            -- the step counter as printed ('Up. N', '"iteration": N'),
                                   -- several separated by ', '; NULL: none
    counter_line  INTEGER,         -- the first line the (main) counter was read from
    step_records  INTEGER NOT NULL,-- records that are training steps
    first_step    INTEGER,         -- the smallest and largest step of training records
    last_step     INTEGER,
    step_time     TEXT NOT NULL,   -- where step times come from: 'logged field NAME',
                                   -- 'window mean of NAME over W steps', 'cumulative clock
                                   -- NAME ...', 'timestamp deltas over W steps', 'none ...'
    step_time_agg TEXT,            -- its agg in steplog_values (what the gate reads), or NULL
    resolution    REAL,            -- seconds: the finest step time the source can show
    throughput    TEXT NOT NULL,   -- where throughput comes from: 'logged NAME (metric)', ...
    epochs        TEXT NOT NULL,   -- 'global counter', 'per-epoch counter made global: ...'
    lines         INTEGER,         -- lines of the log (NULL: a JSON document)
    lines_used    INTEGER,         -- lines that held a stored value
    warnings      TEXT,            -- why the reading is weak ('; '-separated), or NULL
    summary       TEXT NOT NULL,   -- the compact form `profdb runs` shows
    pattern       TEXT             -- the rules it was read with (steplog_patterns), or NULL
);

-- Step-log rules users taught (--pattern, --rules; ingest/steplog/steplog_pattern.c;
-- docs/steplogs.md, Teaching a format), kept so that later ingests of text logs they
-- read, and --replace, use them again. Schema version 11.
CREATE TABLE steplog_patterns (
    rules       TEXT PRIMARY KEY,  -- lines 'step: PATTERN', 'val: PATTERN', 'summary: PATTERN'
    origin      TEXT NOT NULL,     -- '--pattern', or the rules file's path as given
    created_at  TEXT NOT NULL
);

-- Built-in metric rules. Phases (is_phase = 1) are times in seconds.
INSERT INTO steplog_metric_rules VALUES
 (90, '*time_data_ms', 'data', 1), (90, '*data_time', 'data', 1),
 (90, '*batch-generator*', 'data', 1), (90, '*data_loading*', 'data', 1),
 (90, '*data_fetch*', 'data', 1), (90, '*data_load*', 'data', 1),
 (95, '*_std', 'std_dev', 0), (87, '*_percentage', 'share_pct', 0),
 (88, '*data_generation_time*', 'data_generation', 1),
 (88, '*data_gen_percentage*', 'data_generation_pct', 0),
 (88, '*transfer_percentage*', 'transfer_pct', 0),
 (87, '*data_transfer*', 'transfer', 1), (87, '*h2d*', 'transfer', 1),
 (87, '*host_to_device*', 'transfer', 1), (87, '*to_device_time*', 'transfer', 1),
 (86, '*time_batch_wait*', 'batch_wait', 1),
 (99, '*(min across ranks)', 'timer_min_across_ranks', 0),
 (86, 'forward-backward*', 'forward_backward', 1), (86, 'forward_backward*', 'forward_backward', 1),
 (85, '*forward*', 'forward', 1), (85, 'fwd*', 'forward', 1),
 (85, '*backward_allreduce*', 'sync', 1), (85, '*backward_inner*', 'backward_inner', 1),
 (85, 'bwd_inner*', 'backward_inner', 1), (85, '*bwd_allreduce*', 'sync', 1),
 (84, '*backward*', 'backward', 1), (84, 'bwd*', 'backward', 1),
 (83, '*optimizer*', 'optimizer', 1), (83, 'step_microstep', 'optimizer', 1),
 (83, 'step', 'optimizer', 1),
 (82, '*ema_update*', 'ema', 1), (82, 'ema', 'ema', 1), (82, '*_ema_*', 'ema', 1),
 (82, '*/ema*', 'ema', 1), (82, '*validation*', 'validation', 1),
 (82, '*eval_runtime*', 'validation', 1),
 (82, '*checkpoint*', 'checkpoint', 1), (82, '*save*time*', 'checkpoint', 1),
 (82, '*sampling*', 'sampling', 1), (82, '*visualization*', 'sampling', 1),
 (82, '*sample_gen*', 'sampling', 1),
 (82, '*synchroniz*', 'sync', 1), (86, '*all-reduce*', 'sync', 1),
 (82, '*allreduce*', 'sync', 1), (82, '*allgather*', 'sync', 1),
 (82, '*metrics_computation*', 'metrics', 1),
 (82, 'gather latency', 'gather', 1), (82, 'generate time', 'generation', 1),
 (82, 'training time', 'training', 1), (82, 'others', 'other', 1),
 (80, 'elapsed time per iteration*', 'step_time', 1),
 (80, 'elapsed_time_per_iteration*', 'step_time', 1),
 (80, 'iteration-time', 'step_time', 1), (80, '*batch_time*', 'step_time', 1),
 (80, 'time', 'step_time', 1), (80, 'e2e latency', 'step_time', 1),
 (80, 'iter_time', 'step_time', 1), (80, 'step_time*', 'step_time', 1),
 (80, '*/step_time*', 'step_time', 1),
 (80, 'tqdm', 'step_time', 1), (80, 'timestamp delta', 'step_time', 1),
 (80, 'delta *', 'step_time', 1), (80, 'step_avg', 'step_time', 1),
 (80, 'last_time', 'step_time', 1), (80, 'iter time', 'step_time', 1),
 (80, 'time per step', 'step_time', 1), (80, 'step time', 'step_time', 1),
 (80, 'dt', 'step_time', 1),
 (79, '*epoch time*', 'epoch_time', 0),
 (70, 'ups', 'steps_per_s', 0), (70, '*batches_per_second', 'steps_per_s', 0),
 (70, 'lm_loss', 'loss', 0), (70, 'train/crossentropyloss', 'loss', 0),
 (70, 'loss train', 'loss', 0), (72, '*tokens_per_sec_per_gpu*', 'tokens_per_s_per_gpu', 0),
 (79, 'train_time', 'elapsed_time', 0), (79, 'elapsed_time', 'elapsed_time', 0),
 (79, '_runtime', 'elapsed_time', 0), (79, 'elapsed', 'elapsed_time', 0),
 (80, 'other/overhead', 'other', 1),
 (79, 'epoch_time', 'epoch_time', 0), (79, '*epoch_total_time*', 'epoch_time', 0),
 (79, 'total time', 'epoch_time', 0), (79, 'train_runtime', 'train_runtime', 0),
 (70, '*lm loss', 'loss', 0), (70, 'lm loss value', 'loss', 0), (70, 'lm loss ppl', 'ppl', 0), (70, 'loss', 'loss', 0), (70, 'total_loss', 'loss', 0),
 (70, 'train_loss_step', 'loss', 0), (70, 'train_loss', 'loss', 0),
 (70, 'train loss', 'loss', 0), (70, 'val loss', 'val_loss', 0),
 (70, 'eval_loss', 'val_loss', 0), (70, 'val_loss', 'val_loss', 0),
 (70, 'learning rate', 'lr', 0), (70, 'learning_rate', 'lr', 0), (70, 'lr', 'lr', 0),
 (70, 'grad_norm', 'grad_norm', 0), (70, 'grad norm', 'grad_norm', 0),
 (70, 'mfu', 'mfu', 0), (70, 'tflops', 'tflops', 0),
 (70, 'tps', 'tokens_per_s', 0), (70, '*tokens_per_sec*', 'tokens_per_s', 0),
 (70, 'currsamplespersec', 'samples_per_s', 0), (70, 'cursamplespersec', 'samples_per_s', 0),
 (70, 'runningavgsamplespersec', 'samples_per_s_avg', 0),
 (70, 'avgsamplespersec', 'samples_per_s_avg', 0),
 (70, '*samples_per_second', 'samples_per_s', 0), (70, 'samples per second', 'samples_per_s', 0),
 (70, 'tokens per gpu per second*', 'tokens_per_s_per_gpu', 0), (70, 'wps', 'tokens_per_s', 0),
 (70, 'throughput per gpu*', 'tflops_per_gpu', 0), (70, 'tflops*', 'tflops', 0), (70, '*steps_per_second', 'steps_per_s', 0),
 (70, 'consumed samples', 'consumed_samples', 0), (70, 'consumed tokens', 'consumed_tokens', 0),
 (70, 'consumed_tokens', 'consumed_tokens', 0),
 (70, 'global batch size', 'batch_size', 0), (70, 'batch_size', 'batch_size', 0),
 (70, 'memallocated', 'mem_allocated', 0), (70, 'maxmemallocated', 'mem_max_allocated', 0),
 (70, 'mem-allocated-bytes', 'mem_allocated', 0), (70, 'allocated', 'mem_allocated', 0),
 (70, 'max allocated', 'mem_max_allocated', 0), (70, 'reserved', 'mem_reserved', 0),
 (70, 'max reserved', 'mem_max_reserved', 0),
 (70, 'mem-max-allocated-bytes', 'mem_max_allocated', 0),
 (70, 'memory', 'mem_used', 0), (70, 'memory_pct', 'mem_used_pct', 0),
 (70, '*ram_usage_percent', 'ram_pct', 0), (70, '*memory_pressure', 'ram_pressure', 0),
 (70, '*gpu_*_memory_pressure', 'gpu_mem_pressure', 0),
 (71, '*gpu_*_memory_utilization', 'gpu_mem_pct', 0),
 (70, 'utilization.gpu*', 'gpu_util', 0), (70, 'utilization.memory*', 'gpu_mem_util', 0),
 (70, 'memory.used*', 'gpu_mem_used', 0), (70, 'memory.total*', 'gpu_mem_total', 0),
 (70, 'power.draw*', 'power', 0), (70, 'power_w', 'power', 0), (70, 'power', 'power', 0),
 (70, '*utilization_gpu*', 'gpu_util', 0), (70, 'gpu_util*', 'gpu_util', 0), (70, 'temperature.gpu*', 'temperature', 0);
