-- 003_steplog_series.sql: schema version 2 -> 3 (common/db.c applies it).
--
-- Step-log values move from one row each in the table steplog_values to
-- series, contexts and chunks (schemas/40_steplog.sql), and steplog_values
-- becomes a view with the same columns. Every value is kept, with its
-- context and its order within its record (the order of the old rowids).
-- Migrated chunks have no gaps: a series breaks into a new chunk where its
-- spacing changes.

-- ---- the new tables (as in schemas/40_steplog.sql) ------------------------------

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

-- ---- the values, moved --------------------------------------------------------

-- Contexts: one per distinct (record, line, step, epoch, wall_time) of a
-- source, numbered in the order of the sources and records.
CREATE TEMP TABLE m_ctx AS
SELECT row_number() OVER (ORDER BY source_id, record, first) AS ctx_id, source_id, record,
    line, step, epoch, wall_time
FROM (SELECT source_id, record, line, step, epoch, wall_time, min(rowid) AS first
    FROM steplog_values GROUP BY source_id, record, line, step, epoch, wall_time);
CREATE INDEX temp.m_ctx_key ON m_ctx (source_id, record);
CREATE TEMP TABLE m_base AS
SELECT source_id, min(ctx_id) - 1 AS ctx_base FROM m_ctx GROUP BY source_id;
INSERT INTO steplog_contexts (ctx_id, rec_off, line_off, step, epoch, wall_time)
SELECT c.ctx_id, c.ctx_id - b.ctx_base - c.record, c.line - c.record, c.step, c.epoch,
    c.wall_time
FROM m_ctx c JOIN m_base b USING (source_id) ORDER BY c.ctx_id;

-- Series, in the order their first values were stored.
INSERT INTO steplog_series (run_id, source_id, kind, rank, loader, split, metric, unit, agg,
    raw_name, ctx_base)
SELECT v.run_id, v.source_id, v.kind, v.rank, v.loader, v.split, v.metric, v.unit, v.agg,
    v.raw_name, b.ctx_base
FROM steplog_values v JOIN m_base b USING (source_id)
GROUP BY v.run_id, v.source_id, v.kind, v.rank, v.loader, v.split, v.metric, v.unit, v.agg,
    v.raw_name
ORDER BY min(v.rowid);
CREATE TEMP TABLE m_series AS SELECT * FROM steplog_series;
CREATE INDEX temp.m_series_key ON m_series (source_id, raw_name);

-- Each value with its series, context and position in its record (the
-- order of the old rowids), numbered k within its series.
CREATE TEMP TABLE m_v AS
SELECT s.series_id, c.ctx_id AS ctx, v.pos, v.window, v.value,
    row_number() OVER (PARTITION BY s.series_id ORDER BY c.ctx_id, v.pos) AS k
FROM (SELECT *, row_number() OVER (PARTITION BY source_id, record ORDER BY rowid) - 1 AS pos
    FROM steplog_values) v
JOIN m_series s ON s.source_id = v.source_id AND s.raw_name = v.raw_name AND s.kind = v.kind
    AND s.rank IS v.rank AND s.loader IS v.loader AND s.split IS v.split
    AND s.metric = v.metric AND s.unit = v.unit AND s.agg = v.agg
JOIN m_ctx c ON c.source_id = v.source_id AND c.record = v.record AND c.line IS v.line
    AND c.step IS v.step AND c.epoch IS v.epoch AND c.wall_time IS v.wall_time;

-- Chunks: a value starts a new run when its position or window differs from
-- the previous value's, or its distance in contexts does (so the values of
-- a run are evenly spaced); runs are cut every 32 values.
CREATE TEMP TABLE m_d AS
SELECT *, ctx - lag(ctx) OVER w AS d, lag(pos) OVER w AS ppos, lag(window) OVER w AS pwin
FROM m_v WINDOW w AS (PARTITION BY series_id ORDER BY k);
CREATE TEMP TABLE m_b AS
SELECT *, CASE WHEN k = 1 OR pos <> ppos OR window IS NOT pwin OR d <= 0
    OR (lag(d) OVER w IS NOT NULL AND d <> lag(d) OVER w) THEN 1 ELSE 0 END AS b
FROM m_d WINDOW w AS (PARTITION BY series_id ORDER BY k);
CREATE TEMP TABLE m_s AS
SELECT series_id, ctx, pos, window, value, run, j / 32 AS piece, j % 32 + 1 AS slot
FROM (SELECT *, row_number() OVER (PARTITION BY series_id, run ORDER BY k) - 1 AS j
    FROM (SELECT *, sum(b) OVER (PARTITION BY series_id ORDER BY k ROWS UNBOUNDED PRECEDING)
        AS run FROM m_b));
INSERT INTO steplog_chunks (run_id, series_id, ctx, stride, pos, window, n, gaps, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20, v21, v22, v23, v24, v25, v26, v27, v28, v29, v30, v31, v32)
SELECT (SELECT run_id FROM m_series s WHERE s.series_id = g.series_id), series_id, min(ctx),
    CASE WHEN count(*) > 1 THEN (max(ctx) - min(ctx)) / (count(*) - 1) ELSE 0 END,
    min(pos), min(window), count(*), NULL,
    max(CASE slot WHEN 1 THEN value END),
    max(CASE slot WHEN 2 THEN value END),
    max(CASE slot WHEN 3 THEN value END),
    max(CASE slot WHEN 4 THEN value END),
    max(CASE slot WHEN 5 THEN value END),
    max(CASE slot WHEN 6 THEN value END),
    max(CASE slot WHEN 7 THEN value END),
    max(CASE slot WHEN 8 THEN value END),
    max(CASE slot WHEN 9 THEN value END),
    max(CASE slot WHEN 10 THEN value END),
    max(CASE slot WHEN 11 THEN value END),
    max(CASE slot WHEN 12 THEN value END),
    max(CASE slot WHEN 13 THEN value END),
    max(CASE slot WHEN 14 THEN value END),
    max(CASE slot WHEN 15 THEN value END),
    max(CASE slot WHEN 16 THEN value END),
    max(CASE slot WHEN 17 THEN value END),
    max(CASE slot WHEN 18 THEN value END),
    max(CASE slot WHEN 19 THEN value END),
    max(CASE slot WHEN 20 THEN value END),
    max(CASE slot WHEN 21 THEN value END),
    max(CASE slot WHEN 22 THEN value END),
    max(CASE slot WHEN 23 THEN value END),
    max(CASE slot WHEN 24 THEN value END),
    max(CASE slot WHEN 25 THEN value END),
    max(CASE slot WHEN 26 THEN value END),
    max(CASE slot WHEN 27 THEN value END),
    max(CASE slot WHEN 28 THEN value END),
    max(CASE slot WHEN 29 THEN value END),
    max(CASE slot WHEN 30 THEN value END),
    max(CASE slot WHEN 31 THEN value END),
    max(CASE slot WHEN 32 THEN value END)
FROM m_s g GROUP BY series_id, run, piece ORDER BY series_id, run, piece;

DROP TABLE temp.m_ctx;
DROP TABLE temp.m_base;
DROP TABLE temp.m_series;
DROP TABLE temp.m_v;
DROP TABLE temp.m_d;
DROP TABLE temp.m_b;
DROP TABLE temp.m_s;
DROP TABLE steplog_values;

-- ---- the views and their triggers (as in schemas/40_steplog.sql) -----------------

-- Every value with its context and its place: steplog_values plus series_id,
-- chunk_id, slot (1..32), pos and ctx_id. profdb's own readers use it where
-- they need the order of values within a record (record, pos). CROSS JOIN
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
    c.pos, x.ctx_id
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
CREATE VIEW steplog_values AS
SELECT run_id, source_id, record, line, kind, rank, loader, split, step, epoch, wall_time,
    metric, value, unit, agg, window, raw_name
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
