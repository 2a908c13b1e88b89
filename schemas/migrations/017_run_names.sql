-- 017_run_names.sql: schema version 16 -> 17 (common/db.c applies it).
--
-- The older views gain the run's name, a last column run (last, so that
-- the columns of analysis_kernels and analysis_ops, tables before version
-- 8, keep their places): analysis_kernels, analysis_ops, analysis_op_steps,
-- gpu_attribution, analysis_annotations, steplog_points and steplog_values
-- (whose INSTEAD OF triggers are made again, unchanged: dropping a view
-- drops them); process_names and thread_names gain run_id, run and rank.
-- Nothing stored changes.

DROP VIEW analysis_kernels;
DROP VIEW analysis_ops;
DROP VIEW analysis_op_steps;
DROP VIEW gpu_attribution;
DROP VIEW analysis_annotations;
DROP VIEW process_names;
DROP VIEW thread_names;
DROP VIEW steplog_values;
DROP VIEW steplog_points;

CREATE VIEW analysis_kernels AS
SELECT k.run_id, k.mode, k.rank, s.value AS name, k.kernel_type, k.count, k.total_ns,
       k.min_ns, k.max_ns, k.mean_ns, k.std_ns, k.name_id,
       (SELECT name FROM runs WHERE run_id = k.run_id) AS run
FROM analysis_kernels_by_id k JOIN strings s ON s.id = k.name_id;

CREATE VIEW analysis_ops AS
SELECT o.run_id, o.rank, s.value AS name, c.value AS cat, o.input_dims, o.count, o.self_ns,
       o.total_ns, o.gpu_self_ns, o.gpu_total_ns, o.name_id,
       (SELECT name FROM runs WHERE run_id = o.run_id) AS run
FROM analysis_ops_by_id o JOIN strings s ON s.id = o.name_id
LEFT JOIN strings c ON c.id = o.cat_id;

CREATE VIEW analysis_op_steps AS
SELECT o.run_id, o.rank, o.step, s.value AS name, c.value AS cat, o.calls, o.total_ns,
       o.self_ns, o.name_id, (SELECT name FROM runs WHERE run_id = o.run_id) AS run
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
       g.value AS gpu_annotation, m.value AS module,
       (SELECT name FROM runs WHERE run_id = a.run_id) AS run
FROM analysis_gpu_attribution a
JOIN strings k ON k.id = a.name
LEFT JOIN strings o ON o.id = a.op
LEFT JOIN strings t ON t.id = a.top_op
LEFT JOIN strings u ON u.id = a.annotation
LEFT JOIN strings g ON g.id = a.gpu_annotation
LEFT JOIN strings m ON m.id = a.module;

CREATE VIEW analysis_annotations AS
SELECT a.run_id, a.mode, a.rank, a.kind, s.value AS name, a.count, a.total_ns, a.min_ns,
       a.max_ns, a.mean_ns, a.std_ns, a.kernel_ns, a.kernel_self_ns, a.kernels, a.name_id,
       (SELECT name FROM runs WHERE run_id = a.run_id) AS run
FROM analysis_annotations_by_id a JOIN strings s ON s.id = a.name_id;

CREATE VIEW process_names AS
SELECT m.trace_id, m.pid, json_extract(m.args, '$.name') AS name, t.run_id,
       (SELECT name FROM runs WHERE run_id = t.run_id) AS run, t.rank
FROM metadata_events m JOIN traces t ON t.trace_id = m.trace_id WHERE m.name = 'process_name';

CREATE VIEW thread_names AS
SELECT m.trace_id, m.pid, m.tid, json_extract(m.args, '$.name') AS name, t.run_id,
       (SELECT name FROM runs WHERE run_id = t.run_id) AS run, t.rank
FROM metadata_events m JOIN traces t ON t.trace_id = m.trace_id WHERE m.name = 'thread_name';

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

CREATE VIEW steplog_values AS
SELECT run_id, source_id, record, line, kind, rank, loader, split, step, epoch, wall_time,
    metric, value, unit, agg, window, raw_name, run
FROM steplog_points;

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
