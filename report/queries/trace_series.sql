-- trace_series.sql: the reports over quantities followed in time:
-- queue-length, memory-bw (report/trace_series.c).
-- A query starts at "-- name: NAME" and is known to C as trace_series.NAME
-- (common/query.h). ?1 is the run_id, ?2 the mode ('exact' or 'hta'), ?3
-- --top N (-1: the default), ?5 the queue limit (--queue-limit, 1024).
--
-- Quartiles are pandas' describe(): numpy's linear interpolation between
-- the two order statistics around (n - 1) q, computed as numpy does it
-- (a + (b - a) t below t = 0.5, b - (b - a) (1 - t) from there), so the
-- printed digits agree.

-- name: queue_require
SELECT count(*) FROM analysis_queue WHERE run_id = ?1 AND mode = ?2

-- fragment: queue_stats
-- The queue-length histogram per stream (analysis_queue) summarised: count,
-- mean, std (n - 1) and quartiles of the points' values; the time-weighted
-- mean; the time at or above the limit ?5.
h AS (SELECT rank, device, stream, queue_length AS v, points, duration_ns
   FROM analysis_queue WHERE run_id = ?1 AND mode = ?2),
 c AS (SELECT h.*, sum(points) OVER (PARTITION BY rank, device, stream ORDER BY v
   ROWS UNBOUNDED PRECEDING) AS cum FROM h),
 s AS (SELECT rank, device, stream, sum(points) AS n,
   1.0 * sum(v * points) / sum(points) AS mean, min(v) AS minv, max(v) AS maxv,
   sum(duration_ns) AS dur, sum(v * duration_ns) AS vdur,
   sum(CASE WHEN v >= ?5 THEN duration_ns ELSE 0 END) AS full_ns,
   sum(CASE WHEN v >= ?5 THEN points ELSE 0 END) AS full_points
   FROM h WHERE points > 0 OR duration_ns > 0 GROUP BY rank, device, stream),
 sd AS (SELECT s.rank, s.device, s.stream,
   CASE WHEN s.n > 1 THEN sqrt(sum(h.points * (h.v - s.mean) * (h.v - s.mean)) / (s.n - 1))
   END AS std FROM s JOIN h ON h.rank = s.rank AND h.device IS s.device AND h.stream = s.stream
   GROUP BY s.rank, s.device, s.stream),
 qs(q) AS (VALUES (0.25), (0.5), (0.75)),
 qp AS (SELECT s.rank, s.device, s.stream, qs.q, (s.n - 1) * qs.q AS pos,
   CAST((s.n - 1) * qs.q AS INTEGER) AS lo, min(CAST((s.n - 1) * qs.q AS INTEGER) + 1, s.n - 1) AS hi
   FROM s, qs),
 qv AS (SELECT qp.rank, qp.device, qp.stream, qp.q, qp.pos - qp.lo AS t,
   min(CASE WHEN c.cum > qp.lo THEN c.v END) AS a,
   min(CASE WHEN c.cum > qp.hi THEN c.v END) AS b
   FROM qp JOIN c ON c.rank = qp.rank AND c.device IS qp.device AND c.stream = qp.stream
   GROUP BY qp.rank, qp.device, qp.stream, qp.q),
 qr AS (SELECT rank, device, stream,
   max(CASE WHEN q = 0.25 THEN CASE WHEN t >= 0.5 THEN b - (b - a) * (1 - t) ELSE a + (b - a) * t END END) AS p25,
   max(CASE WHEN q = 0.5 THEN CASE WHEN t >= 0.5 THEN b - (b - a) * (1 - t) ELSE a + (b - a) * t END END) AS p50,
   max(CASE WHEN q = 0.75 THEN CASE WHEN t >= 0.5 THEN b - (b - a) * (1 - t) ELSE a + (b - a) * t END END) AS p75
   FROM qv GROUP BY rank, device, stream),
 span AS (SELECT rank, last_start - first_start AS span_ns FROM analysis_queue_ranks
   WHERE run_id = ?1 AND mode = ?2)

-- name: queue_length
-- exact: per device and stream. points = the series' points (a launch or a
-- GPU event start each); mean_time = the queue length averaged over time
-- (from the stream's first point to its last); full_ns = time at or above
-- the limit (--queue-limit, CUDA's 1024), full_pct its share of the
-- trace's span.
WITH
-- include: queue_stats
 SELECT s.rank, s.device, s.stream, s.n AS points, s.mean AS mean, sd.std AS std,
 s.minv AS min, qr.p25, qr.p50, qr.p75, s.maxv AS max,
 CASE WHEN s.dur > 0 THEN 1.0 * s.vdur / s.dur END AS mean_time,
 s.full_ns, CASE WHEN span.span_ns > 0 THEN 100.0 * s.full_ns / span.span_ns END AS full_pct
 FROM s JOIN sd USING (rank, stream) JOIN qr USING (rank, stream)
 LEFT JOIN span USING (rank)
 WHERE sd.device IS s.device AND qr.device IS s.device
 ORDER BY s.rank, s.device, s.stream

-- name: queue_length_hta
-- --compat hta: get_queue_length_summary's describe() per rank and stream
-- (count, mean, std, min, 25%, 50%, 75%, max), and the time at the limit
-- per stream (HTA reports only one stream per rank: see queue_blocked_hta).
WITH
-- include: queue_stats
 SELECT s.rank, s.stream, s.n AS count, s.mean AS mean, sd.std AS std, s.minv AS min,
 qr.p25, qr.p50, qr.p75, s.maxv AS max,
 s.full_ns AS duration_at_max_queue_length_ns,
 CASE WHEN span.span_ns > 0 THEN 1.0 * s.full_ns / span.span_ns END
   AS relative_duration_at_max_queue_length
 FROM s JOIN sd USING (rank, stream) JOIN qr USING (rank, stream)
 LEFT JOIN span USING (rank)
 ORDER BY s.rank, s.stream

-- name: queue_blocked_hta
-- HTA's get_time_spent_blocked_on_full_queue(max_queue_length=?5): one row
-- per rank - each stream that reaches the limit overwrites the previous
-- one, so the highest such stream is reported - with its time at or above
-- the limit and that time over the rank's span (first to last event start).
WITH
-- include: queue_stats
 , hit AS (SELECT rank, max(stream) AS stream FROM s WHERE full_points > 0 GROUP BY rank)
 SELECT hit.rank, hit.stream, s.full_ns AS duration_at_max_queue_length_ns,
 CASE WHEN span.span_ns > 0 THEN 1.0 * s.full_ns / span.span_ns END
   AS relative_duration_at_max_queue_length
 FROM hit JOIN s USING (rank, stream) LEFT JOIN span USING (rank)
 ORDER BY hit.rank

-- name: create_memory_bw
-- memory-bw, filled on demand by report/trace_series.c (analyze/ondemand/bw_pass.c):
-- the bandwidth series of one mode, per rank and kind, in order (seq).
CREATE TEMP TABLE IF NOT EXISTS memory_bw (rank INTEGER, name TEXT, seq INTEGER, ts INTEGER,
  bw_gbps REAL);
CREATE TEMP TABLE IF NOT EXISTS memory_bw_filled (run_id INTEGER, hta INTEGER);
DELETE FROM memory_bw;
DELETE FROM memory_bw_filled

-- name: memory_bw_filled
-- Whether temp.memory_bw holds the series of run ?1 in mode ?2 (1: hta)
-- already: a report folder reads it four times (the report's three
-- renderings and its chart), and each fill reads every copy of the run.
SELECT count(*) FROM temp.memory_bw_filled WHERE run_id = ?1 AND hta = ?2

-- name: create_memory_bw_filled
CREATE TEMP TABLE IF NOT EXISTS memory_bw_filled (run_id INTEGER, hta INTEGER)

-- name: insert_memory_bw_filled
INSERT INTO temp.memory_bw_filled VALUES (?1, ?2)

-- name: insert_memory_bw
INSERT INTO temp.memory_bw VALUES (?,?,?,?,?)

-- name: bw_require
SELECT count(*) FROM memory_bw

-- name: memory_bw
-- Per rank and kind: pandas' describe() of the bandwidth at the series'
-- points where it is above 0 (HTA's get_memory_bw_summary), in GB/s, and
-- (exact) the copies' busy time: how long some bandwidth was in use.
WITH p AS (SELECT rank, name, ts, bw_gbps AS v,
   lead(ts) OVER (PARTITION BY rank, name ORDER BY seq) AS next_ts FROM memory_bw),
 k AS (SELECT rank, name, v,
   row_number() OVER (PARTITION BY rank, name ORDER BY v) - 1 AS i,
   count(*) OVER (PARTITION BY rank, name) AS n,
   avg(v) OVER (PARTITION BY rank, name) AS mean FROM p WHERE v > 0),
 busy AS (SELECT rank, name, sum(CASE WHEN v > 0 THEN next_ts - ts ELSE 0 END) AS busy_ns
   FROM p GROUP BY rank, name),
 g AS (SELECT rank, name, max(n) AS n, max(mean) AS mean,
   CASE WHEN max(n) > 1 THEN sqrt(sum((v - mean) * (v - mean)) / (max(n) - 1)) END AS std,
   min(v) AS minv, max(v) AS maxv,
   max(CASE WHEN i = CAST((n - 1) * 0.25 AS INTEGER) THEN v END) AS a25,
   max(CASE WHEN i = min(CAST((n - 1) * 0.25 AS INTEGER) + 1, n - 1) THEN v END) AS b25,
   max((n - 1) * 0.25 - CAST((n - 1) * 0.25 AS INTEGER)) AS t25,
   max(CASE WHEN i = CAST((n - 1) * 0.5 AS INTEGER) THEN v END) AS a50,
   max(CASE WHEN i = min(CAST((n - 1) * 0.5 AS INTEGER) + 1, n - 1) THEN v END) AS b50,
   max((n - 1) * 0.5 - CAST((n - 1) * 0.5 AS INTEGER)) AS t50,
   max(CASE WHEN i = CAST((n - 1) * 0.75 AS INTEGER) THEN v END) AS a75,
   max(CASE WHEN i = min(CAST((n - 1) * 0.75 AS INTEGER) + 1, n - 1) THEN v END) AS b75,
   max((n - 1) * 0.75 - CAST((n - 1) * 0.75 AS INTEGER)) AS t75
   FROM k GROUP BY rank, name)
 SELECT g.rank, g.name, g.n AS count, g.mean AS mean_gbps, g.std AS std_gbps,
 g.minv AS min_gbps,
 CASE WHEN t25 >= 0.5 THEN b25 - (b25 - a25) * (1 - t25) ELSE a25 + (b25 - a25) * t25 END AS p25_gbps,
 CASE WHEN t50 >= 0.5 THEN b50 - (b50 - a50) * (1 - t50) ELSE a50 + (b50 - a50) * t50 END AS p50_gbps,
 CASE WHEN t75 >= 0.5 THEN b75 - (b75 - a75) * (1 - t75) ELSE a75 + (b75 - a75) * t75 END AS p75_gbps,
 g.maxv AS max_gbps, busy.busy_ns
 FROM g JOIN busy USING (rank, name) ORDER BY g.rank, g.name

-- name: memory_bw_points
-- --by point: the series itself (HTA's get_memory_bw_time_series), in order.
SELECT rank, name, ts AS ts_ns, bw_gbps FROM memory_bw ORDER BY rank, name, seq

-- name: memory_require
SELECT count(*) FROM analysis_memory_peaks WHERE run_id = ?1

-- name: memory_ops
-- Per rank and op (key_averages' grouping: ProfilerStep#N folded into
-- ProfilerStep*): memory with children and self, CPU and device, bytes;
-- the ?3 ops with most self memory first (all by default), then the rest
-- summed in one row.
WITH o AS (SELECT rank, CASE WHEN name GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE name END
   AS op, sum(calls) AS calls, sum(cpu_bytes) AS cpu_bytes, sum(self_cpu_bytes) AS self_cpu_bytes,
   sum(device_bytes) AS device_bytes, sum(self_device_bytes) AS self_device_bytes
   FROM analysis_memory_ops WHERE run_id = ?1 GROUP BY rank, op
   HAVING sum(cpu_bytes) <> 0 OR sum(self_cpu_bytes) <> 0 OR sum(device_bytes) <> 0
     OR sum(self_device_bytes) <> 0),
 r AS (SELECT o.*, row_number() OVER (PARTITION BY rank ORDER BY abs(self_cpu_bytes) +
   abs(self_device_bytes) DESC, op) AS n FROM o)
 SELECT rank, op, calls, cpu_bytes, self_cpu_bytes, device_bytes, self_device_bytes FROM (
   SELECT rank, op, calls, cpu_bytes, self_cpu_bytes, device_bytes, self_device_bytes, n AS k
   FROM r WHERE ?3 < 0 OR n <= ?3
   UNION ALL SELECT rank, '(others)', sum(calls), sum(cpu_bytes), sum(self_cpu_bytes),
   sum(device_bytes), sum(self_device_bytes), max(n) + 1 FROM r WHERE ?3 >= 0 AND n > ?3
   GROUP BY rank)
 ORDER BY rank, k

-- name: memory_peaks
-- --by step: per rank and device, the peak of Total Allocated over the
-- trace (step empty) and in each ProfilerStep, when (ns from the trace's
-- first memory event), the op around it, and the largest Total Reserved.
WITH f AS (SELECT rank, min(alloc_ts) AS t0 FROM analysis_memory_allocs WHERE run_id = ?1
   GROUP BY rank)
 SELECT p.rank, CASE p.device_type WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda:' || p.device_id
   ELSE 'device ' || p.device_type || ':' || p.device_id END AS device,
 p.step, p.peak_allocated_bytes, p.peak_ts - f.t0 AS at_ns, p.op, p.max_reserved_bytes,
 p.events AS memory_events
 FROM analysis_memory_peaks p LEFT JOIN f USING (rank) WHERE p.run_id = ?1
 ORDER BY p.rank, p.device_type, p.device_id, p.step IS NOT NULL, p.step

-- name: memory_alive
-- --by alloc: the allocations alive at each device's peak (analysis_memory_allocs),
-- largest first (?3 of them, all by default): size, when made (ns before
-- the peak), by which op, and when freed (ns after the peak; empty: never
-- in the trace).
WITH p AS (SELECT * FROM analysis_memory_peaks WHERE run_id = ?1 AND step IS NULL),
 a AS (SELECT p.rank, p.device_type, p.device_id, x.addr, x.bytes, p.peak_ts - x.alloc_ts AS age_ns,
   CASE WHEN x.free_ts IS NOT NULL THEN x.free_ts - p.peak_ts END AS freed_after_ns, x.op,
   row_number() OVER (PARTITION BY p.rank, p.device_type, p.device_id
     ORDER BY x.bytes DESC, x.alloc_seq) AS n
   FROM p JOIN analysis_memory_allocs x ON x.run_id = p.run_id AND x.rank = p.rank
   AND x.device_type = p.device_type AND x.device_id = p.device_id
   AND x.alloc_seq <= p.peak_seq AND (x.free_seq IS NULL OR x.free_seq > p.peak_seq))
 SELECT rank, CASE device_type WHEN 0 THEN 'cpu' WHEN 1 THEN 'cuda:' || device_id
   ELSE 'device ' || device_type || ':' || device_id END AS device,
 printf('0x%x', addr) AS addr, bytes, age_ns, freed_after_ns, op FROM a
 WHERE ?3 < 0 OR n <= ?3 ORDER BY rank, device_type, device_id, n
