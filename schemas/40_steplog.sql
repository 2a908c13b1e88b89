-- profdb schema, part 4: per-step training logs (ingest/steplog*.c).
--
-- Every metric value a step log holds becomes one row of steplog_values,
-- whatever the framework that printed it. Values are REAL in a canonical
-- unit named in the `unit` column: times in seconds ('s'), sizes in bytes
-- ('B'), shares in percent ('%'), rates per second ('/s'; '1/s' for
-- iterations), plain counts and losses with unit ''. A value the log
-- printed as nan/inf is stored as NULL.

-- One metric value of one record of a step log: the long table.
CREATE TABLE steplog_values (
    run_id     INTEGER NOT NULL REFERENCES runs,
    source_id  INTEGER NOT NULL REFERENCES sources,
    record     INTEGER NOT NULL,  -- ordinal of the record (line or block) in its source, from 1
    line       INTEGER,           -- line number of the record in the file (1-based)
    kind       TEXT NOT NULL,     -- record type: 'iteration', 'timer', 'ds_step', 'jsonl', 'csv', ...
    rank       INTEGER,           -- process rank or GPU index, when the log says
    loader     TEXT,              -- dataloader name (profile/train/dl_NAME/...); for
                                  -- DeepSpeed-Chat's two engines (actor, critic) that
                                  -- both print step=N: 'engine0', 'engine1'; else NULL
    split      TEXT,              -- 'train', 'val', 'summary' (an end-of-epoch or end-of-run
                                  -- aggregate, not a step) or NULL when the log does not say
    step       INTEGER,           -- step/iteration number as the log counts it
    epoch      REAL,              -- epoch, possibly fractional (HF rounds to 2 decimals)
    wall_time  REAL,              -- seconds since 1970 of the record's timestamp, read as UTC
    metric     TEXT NOT NULL,     -- canonical name (steplog_metric_rules), e.g. 'forward', 'loss'
    value      REAL,              -- in `unit`; NULL for nan/inf
    unit       TEXT NOT NULL,     -- 's', 'B', '%', '/s' (a rate), '1/s', 'W', 'J', or ''
    agg        TEXT NOT NULL,     -- how the value aggregates steps: 'point' (this step),
                                  -- 'interval_mean' (mean over the `window` steps up to this
                                  -- one), 'cumulative' (a counter since the start),
                                  -- 'running_mean' (mean since the start or the epoch's start),
                                  -- 'moving_avg' (EMA), 'window_median', 'derived' (exact mean
                                  -- over `window` steps, from a cumulative clock or from
                                  -- timestamps), 'total', 'mean', 'min', 'max', 'share' (of a
                                  -- summary block), 'epoch_total'; see docs/steplogs.md
    window     INTEGER,           -- steps the aggregation covers (log interval, window), or NULL
                                  -- when unknown (e.g. the first record of an interval log)
    raw_name   TEXT NOT NULL      -- the metric's name as printed
);
-- Reports read one run at a time; an integer key keeps the rebuild after
-- each ingest cheap (a (run_id, metric) index cost 25% more ingest time).
CREATE INDEX bulk_steplog_values_run ON steplog_values (run_id);

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
