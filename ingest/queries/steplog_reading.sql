-- steplog_reading.sql: what an ingest understood of a step log: its
-- counter, where step times and throughput come from (the gate's picks),
-- stored in steplog_readings (ingest/steplog/steplog_reading.c). A query
-- starts at "-- name: NAME" and is known to C as steplog_reading.NAME
-- (common/query.h). ?1 is the source.

-- name: step_time
-- The series that times the steps, as the gate picks it: step_time in
-- seconds of training records, the first agg of point, derived,
-- interval_mean, window_median, moving_avg (running_mean last: the gate
-- does not use it); of those the raw name with most values.
SELECT s.raw_name, s.agg, sum(c.n) AS n FROM steplog_series s
 JOIN steplog_chunks c USING (series_id)
 WHERE s.source_id = ?1 AND s.metric = 'step_time' AND s.unit = 's'
 AND coalesce(s.split, 'train') = 'train'
 AND s.agg IN ('point', 'derived', 'interval_mean', 'window_median', 'moving_avg',
 'running_mean')
 GROUP BY s.raw_name, s.agg ORDER BY CASE s.agg WHEN 'point' THEN 0 WHEN 'derived' THEN 1
 WHEN 'interval_mean' THEN 2 WHEN 'window_median' THEN 3 WHEN 'moving_avg' THEN 4
 ELSE 5 END, n DESC, s.raw_name LIMIT 1

-- name: sample
-- A sample of a series' values (?2 raw name, ?3 agg), in storage order.
SELECT value, window, wall_time FROM steplog_points WHERE source_id = ?1
 AND raw_name = ?2 AND agg = ?3 AND coalesce(split, 'train') = 'train' LIMIT 2000

-- name: throughput
-- What gives throughput: a logged rate first, then consumed counters, then
-- a batch size (times steps/s).
SELECT raw_name, metric FROM steplog_series WHERE source_id = ?1
 AND coalesce(split, 'train') = 'train' AND metric IN ('tokens_per_s', 'samples_per_s',
 'tokens_per_s_per_gpu', 'samples_per_s_avg', 'steps_per_s', 'consumed_tokens',
 'consumed_samples', 'batch_size')
 GROUP BY raw_name, metric ORDER BY CASE metric WHEN 'tokens_per_s' THEN 0
 WHEN 'samples_per_s' THEN 1 WHEN 'tokens_per_s_per_gpu' THEN 2
 WHEN 'samples_per_s_avg' THEN 3 WHEN 'steps_per_s' THEN 4 WHEN 'consumed_tokens' THEN 5
 WHEN 'consumed_samples' THEN 6 ELSE 7 END, raw_name LIMIT 1

-- name: has_series
-- Whether the source has a series of this raw name (?2: a window time's).
SELECT EXISTS (SELECT 1 FROM steplog_series WHERE source_id = ?1 AND raw_name = ?2)

-- name: names
-- The raw names of the source's series (prefix-like names are looked for).
SELECT DISTINCT raw_name FROM steplog_series WHERE source_id = ?1 LIMIT 100000

-- name: add
INSERT INTO steplog_readings (source_id, run_id, reader, counter, counter_line,
 step_records, first_step, last_step, step_time, step_time_agg, resolution, throughput,
 epochs, lines, lines_used, warnings, summary, pattern) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?16,
 ?17, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?18)
