-- steplog_writer.sql: a step log's notes and blocks, its metric rules, and
-- the passes over its values once the file is read
-- (ingest/steplog_writer.c). A query starts at "-- name: NAME" and is
-- known to C as steplog_writer.NAME (common/query.h).
--
-- The passes read steplog_points (schemas/40_steplog.sql) or the series
-- summaries of this source, ?1 = its source_id. Every open chunk is
-- written before a pass reads. Where the order within a record matters,
-- it is (record, pos): the order the values were read. :tentative is the
-- agg of the step times worked out from timestamps while reading (see
-- steplog_writer.c): kept ('derived') only when nothing else times the
-- steps.

-- fragment: source_points
-- Training values of this source: no eval or summary split.
source_id = ?1 AND coalesce(split, 'train') = 'train'

-- fragment: series
-- One series as the passes group values: the same raw name in records of
-- one kind, split, rank, loader (whatever their unit and agg).
raw_name, kind, coalesce(split, ''), coalesce(rank, -1), coalesce(loader, '')

-- name: metric_rules
-- Sorted in C (steplog_writer.c says why).
SELECT pattern, metric, priority, rowid, is_phase FROM steplog_metric_rules

-- name: add_note
INSERT INTO steplog_notes VALUES (?,?,?,?,?,?)

-- name: add_block
INSERT INTO steplog_blocks VALUES (?,?,?,?,?,?)

-- name: detect_cumulative
-- A time column (seconds, point values) whose values never decrease over
-- at least three records and which extrapolates to about zero at counter
-- zero is a clock since the start of training, not a per-step time:
-- Ultralytics' results.csv `time`, fairseq's `wall`. The counter is the
-- step, else the epoch, else the record ordinal. "About zero" is within a
-- quarter of the last value: a per-step time that happens to creep up
-- extrapolates to nearly its own size, a clock to the length of its first
-- interval. Unit and agg are the series', so the change is one of series
-- rows; what it needs of the values (count, decreases, first and last) is
-- in temp.steplog_summary (steplog_store.h), one row per series row: a
-- series the store forgot and met again has two, read one after the other.
UPDATE steplog_series SET agg = 'cumulative',
 metric = CASE metric WHEN 'step_time' THEN 'elapsed_time' ELSE metric END
 WHERE source_id = ?1 AND unit = 's' AND agg = 'point'
 AND (
-- include: series
 ) IN (
  WITH t AS (SELECT m.*, s.raw_name AS rn, s.kind AS k, coalesce(s.split, '') AS sp,
     coalesce(s.rank, -1) AS rk, coalesce(s.loader, '') AS ld
     FROM temp.steplog_summary m JOIN steplog_series s USING (series_id)
     WHERE s.source_id = ?1 AND s.unit = 's' AND s.agg = 'point'
     AND coalesce(s.split, 'train') = 'train' AND m.n > 0),
  o AS (SELECT *, coalesce(x1 < lag(xn) OVER w, 0) AS bdec, first_value(x1) OVER w AS gx1,
     first_value(c1) OVER w AS gc1, last_value(xn) OVER w AS gxn,
     last_value(cn) OVER w AS gcn FROM t
     WINDOW w AS (PARTITION BY rn, k, sp, rk, ld ORDER BY r1, p1
     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
  g AS (SELECT rn, k, sp, rk, ld, sum(n) AS n, sum(ndec) + sum(bdec) AS ndec,
     max(gx1) AS x1, max(gc1) AS c1, max(gxn) AS xn, max(gcn) AS cn
     FROM o GROUP BY rn, k, sp, rk, ld)
  SELECT rn, k, sp, rk, ld FROM g WHERE n >= 3 AND ndec = 0 AND xn > x1 AND cn > c1
  AND abs(x1 - (xn - x1) / (cn - c1) * c1) <= 0.25 * xn)

-- name: first_window
-- The first record of an interval log does not know its interval: Megatron
-- resumed at iteration 43 does not average over 43 iterations. Readers
-- leave its window NULL; here it gets the distance to the next record of
-- the same series (the log interval), when that record has a window. Of
-- the values whose context has a step, only each series' first two can be
-- a group's first two: temp.steplog_summary has them. Rows: the value's
-- chunk and slot, and its window. Only groups where a window is known can
-- change (window functions over many tiny partitions cost ~7 us each).
WITH c AS (SELECT series_id, f_record AS r, f_pos AS p, f_step AS step, f_window AS win,
   f_chunk AS chunk, f_slot AS slot FROM temp.steplog_summary WHERE f_record IS NOT NULL
  UNION ALL SELECT series_id, s_record, s_pos, s_step, s_window, NULL, NULL
   FROM temp.steplog_summary WHERE s_record IS NOT NULL),
 cs AS (SELECT c.*, s.raw_name, s.kind, s.split, s.rank, s.loader FROM c
   JOIN steplog_series s USING (series_id) WHERE s.source_id = ?1),
 k AS (SELECT DISTINCT
-- include: series
   FROM cs WHERE win IS NOT NULL),
 g AS (SELECT *, row_number() OVER o AS i, lead(step) OVER o - step AS w,
   lead(win) OVER o AS nw FROM cs WHERE (
-- include: series
   ) IN k
   WINDOW o AS (PARTITION BY
-- include: series
   ORDER BY r, p))
 SELECT chunk, slot, w FROM g WHERE i = 1 AND w > 0 AND nw IS NOT NULL AND win IS NULL
 ORDER BY chunk, slot

-- name: derive_cumulative
-- Per-step times from cumulative clocks: the difference to the previous
-- record of the same series over the steps between them (window). A value
-- below the previous one means the clock restarted (modded-nanogpt
-- restarts it after its warm-up steps): the value itself is the time since
-- then. The first record gets its own value when its counter is at most
-- one interval from zero (the clock started with the run). When a record
-- holds several clocks (fairseq's wall and train_wall), the one that grew
-- least is the training clock and gives "delta NAME" (step_time); the
-- others are stored as "NAME per step".
WITH v AS (SELECT raw_name AS rn, kind AS k, split AS sp, rank AS rk, loader AS ld,
   record AS r, pos, ctx_id, value AS x,
   coalesce(step, epoch, record) AS c FROM steplog_points
   WHERE
-- include: source_points
   AND unit = 's' AND agg = 'cumulative' AND value IS NOT NULL),
 d AS (SELECT *, lag(x) OVER w AS xp, lag(c) OVER w AS cp, lead(c) OVER w AS cnext,
   row_number() OVER w AS i, max(x) OVER p - min(x) OVER p AS growth FROM v
   WINDOW p AS (PARTITION BY rn, k, sp, rk, ld), w AS (p ORDER BY r, pos)),
 e AS (SELECT *, dense_rank() OVER (PARTITION BY k, rk, ld ORDER BY growth, rn) AS pick
   FROM d)
 SELECT r, ctx_id, k, rk, ld, sp, rn, pick,
  CASE WHEN i = 1 THEN x / c WHEN x >= xp THEN (x - xp) / (c - cp) ELSE x / (c - cp) END,
  CASE WHEN i = 1 THEN c ELSE c - cp END
 FROM e WHERE (i = 1 AND c > 0 AND cnext IS NOT NULL AND c <= cnext - c AND x >= 0)
  OR (i > 1 AND c > cp)
 ORDER BY r, k, rk, ld, pick

-- name: clock_part
-- A training clock whose per-step deltas are well below the time between
-- the lines' timestamps times a part of the step, not the step (habitat's
-- "env-time: 296.408s  pth-time: 172.698s": the PyTorch clock grew least,
-- 8.2 s per update, where the lines are 17.1 s per update apart, the
-- environment's clock being the rest): its deltas become "NAME per step"
-- (no step time), and the timestamps time the steps. "Well below" is under
-- 60% in the mean over the same records; fairseq's train_wall beside the
-- line clock is 90% or more (its wall adds only the validations).
UPDATE steplog_series SET raw_name = substr(raw_name, 7) || ' per step',
 metric = substr(raw_name, 7) || ' per step'
 WHERE source_id = ?1 AND agg = 'derived' AND metric = 'step_time'
 AND raw_name LIKE 'delta %' AND series_id IN (
  WITH d AS (SELECT series_id, record, value FROM steplog_points WHERE source_id = ?1
    AND agg = 'derived' AND metric = 'step_time' AND raw_name LIKE 'delta %'
    AND value IS NOT NULL),
   t AS (SELECT record, value FROM steplog_points WHERE source_id = ?1
    AND agg = :tentative AND metric = 'step_time' AND value > 0)
  SELECT d.series_id FROM d JOIN t USING (record) GROUP BY d.series_id
  HAVING count(*) >= 2 AND sum(d.value) < 0.6 * sum(t.value))

-- name: steps_timed
-- Whether something other than timestamps times the steps. A progress bar
-- not found to be the training loop's (split 'progress': a dataset load's
-- "1/1 [00:00<00:00, 19.27it/s]") times its own items, not the steps.
SELECT EXISTS (SELECT 1 FROM steplog_points WHERE source_id = ?1
 AND metric = 'step_time' AND unit = 's' AND agg <> :tentative
 AND coalesce(split, '') <> 'progress')

-- name: keep_tentative
UPDATE steplog_series SET agg = 'derived' WHERE source_id = ?1 AND agg = :tentative

-- name: drop_tentative_chunks
DELETE FROM steplog_chunks WHERE series_id IN (SELECT series_id
 FROM steplog_series WHERE source_id = ?1 AND agg = :tentative)

-- name: drop_tentative_series
DELETE FROM steplog_series WHERE source_id = ?1 AND agg = :tentative

-- name: hf_epoch_evidence
-- HF Trainer stdout: the last training dict with a step and an epoch. Its
-- step / epoch is the steps per epoch, so the training bar's total is about
-- num_train_epochs of them (steplog_writer.c, hf_training_bar).
SELECT step, epoch FROM steplog_values
 WHERE source_id = ?1 AND kind = 'hf-log' AND split = 'train' AND step > 0 AND epoch > 0
 ORDER BY step DESC, epoch DESC LIMIT 1

-- name: hf_train_bar
-- The bar found to be the training loop's: its series become training step
-- times (?2 = its loader, "bar of T").
UPDATE steplog_series SET split = 'train', loader = NULL
 WHERE source_id = ?1 AND split = 'progress' AND loader = ?2
