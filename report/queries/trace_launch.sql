-- trace_launch.sql: the reports that join the CPU and GPU sides of a
-- trace: launch and comm (report/trace_launch.c).
-- A query starts at "-- name: NAME" and is known to C as trace_launch.NAME
-- (common/query.h); a fragment is SQL that queries below pull in with
-- "-- include: NAME". ?1 is the run_id, ?3 --top N (-1: the default).
--
-- A GPU event is a slice with a stream whose category is none of
-- PDB_CPU_CATEGORIES (analyze/analyze.h; the gpu_events view in
-- schemas/20_trace.sql). Where it is tested on the slices table itself, by
-- string id, the category list is written out, and tests/unit/test_queries.c
-- checks it is the same list.

-- name: create_launch_delays
-- GPU events and their launching runtime call, into temp.launch_delays
-- (report/trace_launch.c fills it once per run: the summary, the longest
-- delays and a report folder's three renderings read it): the launch of
-- analysis_gpu_attribution (the earliest CPU-side event with the event's
-- correlation), the call `launch --by launch` shows; a correlation of 0
-- links nothing. (Looking the call up per event cost four times as much.)
-- Per rank (temp.launch_ranks) the counts and extremes, and the
-- percentiles read at their place in a (rank, delay) index: a window
-- function over every launch cost three sorts (2 M events: 1.3 s of the
-- report's 1.5 s).
CREATE TEMP TABLE IF NOT EXISTS launch_delays (rank INTEGER, gid INTEGER, gts INTEGER,
  gname INTEGER, rname INTEGER, delay_ns INTEGER, kernel_ns INTEGER, runtime_ns INTEGER);
CREATE TEMP TABLE IF NOT EXISTS launch_ranks (rank INTEGER, n INTEGER, mean_delay_ns,
  min_delay_ns INTEGER, max_delay_ns INTEGER, shorter INTEGER, p50 INTEGER, p90 INTEGER,
  p99 INTEGER);
CREATE TEMP TABLE IF NOT EXISTS launch_delays_of (run_id INTEGER);
DROP INDEX IF EXISTS temp.launch_delays_rank;
DELETE FROM temp.launch_delays;
DELETE FROM temp.launch_ranks;
DELETE FROM temp.launch_delays_of

-- name: launch_delays_of
-- Whether temp.launch_delays holds run ?1.
SELECT count(*) FROM temp.launch_delays_of WHERE run_id = ?1

-- name: create_launch_delays_of
CREATE TEMP TABLE IF NOT EXISTS launch_delays_of (run_id INTEGER)

-- name: fill_launch_delays
INSERT INTO temp.launch_delays
WITH p AS (SELECT a.rank, a.slice_id AS gid, a.name AS gname, g.ts AS gts, a.dur_ns AS gdur,
   a.launch_id AS rid
 FROM analysis_gpu_attribution a JOIN slices g ON g.id = a.slice_id
 WHERE a.run_id = ?1 AND a.launch_id IS NOT NULL AND g.correlation <> 0)
 SELECT p.rank, p.gid, p.gts, p.gname, r.name, p.gts - r.ts, p.gdur, r.dur
 FROM p JOIN slices r ON r.id = p.rid

-- name: index_launch_delays
CREATE INDEX temp.launch_delays_rank ON launch_delays (rank, delay_ns)

-- name: fill_launch_ranks
INSERT INTO temp.launch_ranks (rank, n, mean_delay_ns, min_delay_ns, max_delay_ns, shorter)
SELECT rank, count(*), avg(delay_ns), min(delay_ns), max(delay_ns), sum(kernel_ns < runtime_ns)
 FROM temp.launch_delays NOT INDEXED GROUP BY rank

-- name: launch_ranks
SELECT rank, n FROM temp.launch_ranks ORDER BY rank

-- name: launch_delay_at
-- The delay at place ?2 (from 0) of rank ?1's sorted delays.
SELECT delay_ns FROM temp.launch_delays WHERE rank = ?1 ORDER BY delay_ns LIMIT 1 OFFSET ?2

-- name: set_launch_percentiles
UPDATE temp.launch_ranks SET p50 = ?2, p90 = ?3, p99 = ?4 WHERE rank = ?1

-- name: insert_launch_delays_of
INSERT INTO temp.launch_delays_of VALUES (?1)

-- name: launch_require
-- Whether there is one (a require query's first column > 0): EXISTS stops
-- at the first, where count(*) read every slice of the run.
SELECT EXISTS (SELECT 1 FROM slices g JOIN traces t USING (trace_id)
 WHERE t.run_id = ?1
 AND (g.stream IS NOT NULL AND coalesce(g.cat, 0) NOT IN (SELECT id FROM strings
   WHERE value IN ('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op', 'user_annotation', 'python_function')))
 AND g.correlation IS NOT NULL)

-- name: launch
-- Launch delays per rank (temp.launch_ranks, filled by report/trace_launch.c
-- from temp.launch_delays); percentiles by nearest rank over the sorted
-- delays: the delay at place max(1, ceil(n * p / 100)).
SELECT rank, n AS launches, mean_delay_ns, min_delay_ns, p50 AS p50_delay_ns,
 p90 AS p90_delay_ns, p99 AS p99_delay_ns, max_delay_ns, shorter AS shorter_than_launch,
 100.0 * shorter / n AS shorter_than_launch_pct
 FROM temp.launch_ranks ORDER BY rank

-- name: longest
-- The longest launch delays (?3 of them, 10 by default); ties in the order
-- the GPU events started.
SELECT rank, (SELECT value FROM strings WHERE id = gname) AS kernel,
 (SELECT value FROM strings WHERE id = rname) AS runtime, delay_ns, kernel_ns, runtime_ns
 FROM temp.launch_delays
 ORDER BY delay_ns DESC, gts, rank, gid LIMIT (CASE WHEN ?3 < 0 THEN 10 ELSE ?3 END)

-- fragment: comm_events
-- The run's collectives: GPU events named like a NCCL or HCCL kernel. The
-- names are matched once in strings and the events found through
-- analysis_gpu_attribution (one row per GPU event, the gpu_events rule),
-- not by resolving the name of every slice of the run (2 M events: 1.7 s
-- of CPU for comm and again for its test, against a few ms); a run
-- analysed by a profdb from before the attribution falls back on the
-- scan.
cm AS (SELECT id FROM strings WHERE value LIKE 'nccl%' OR value LIKE '%ncclKernel%'
   OR value LIKE 'hccl%'),
 ce AS (SELECT a.slice_id AS id FROM analysis_gpu_attribution a
   WHERE a.run_id = ?1 AND a.name IN cm
   UNION ALL SELECT g.id FROM gpu_events g
   WHERE NOT EXISTS (SELECT 1 FROM analysis_gpu_attribution WHERE run_id = ?1)
   AND g.run_id = ?1 AND (g.name LIKE 'nccl%' OR g.name LIKE '%ncclKernel%'
   OR g.name LIKE 'hccl%'))

-- name: comm_require
WITH
-- include: comm_events
SELECT EXISTS (SELECT 1 FROM ce)

-- name: comm
-- NCCL collectives: kind from the Collective name arg or the kernel name;
-- bytes from the element count and the dtype's size.
WITH
-- include: comm_events
 , c AS (SELECT rank, dur, coalesce(coll_name, CASE
   WHEN name LIKE '%AllReduce%' THEN 'allreduce' WHEN name LIKE '%AllGather%' THEN 'allgather'
   WHEN name LIKE '%ReduceScatter%' THEN 'reduce_scatter' WHEN name LIKE '%Broadcast%'
   THEN 'broadcast' WHEN name LIKE '%SendRecv%' THEN 'send_recv' WHEN name LIKE '%AllToAll%'
   THEN 'all_to_all' WHEN name LIKE '%Reduce%' THEN 'reduce' ELSE 'other' END) AS kind,
   in_nelems * CASE lower(dtype) WHEN 'float' THEN 4 WHEN 'float32' THEN 4
     WHEN 'int' THEN 4 WHEN 'int32' THEN 4 WHEN 'half' THEN 2 WHEN 'float16' THEN 2
     WHEN 'bfloat16' THEN 2 WHEN 'double' THEN 8 WHEN 'long' THEN 8 WHEN 'int64' THEN 8
     WHEN 'byte' THEN 1 WHEN 'char' THEN 1 WHEN 'bool' THEN 1 WHEN 'uint8' THEN 1
     WHEN 'int8' THEN 1 END AS bytes, group_size
   FROM ce JOIN gpu_events USING (id))
 SELECT rank, kind, count(*) AS count, sum(dur) AS time_ns, avg(dur) AS mean_ns,
 sum(bytes) AS bytes, count(bytes) AS with_size,
 sum(bytes) / (sum(CASE WHEN bytes IS NOT NULL THEN dur END) / 1e9) / 1e9 AS algbw_gbps
 FROM c GROUP BY rank, kind ORDER BY rank, time_ns DESC

-- name: create_hta_traces
-- HTA's reading of each trace of the run (filled by report/trace_sql.c
-- from analyze/hta.h): whether it rounds times, whether it drops the last
-- ProfilerStep, and where (the step's start, ns, rounded as HTA does).
CREATE TEMP TABLE IF NOT EXISTS hta_traces (trace_id INTEGER PRIMARY KEY, rank INTEGER,
  round INTEGER, drop_last INTEGER, cutoff INTEGER);
DELETE FROM hta_traces

-- name: insert_hta_trace
INSERT INTO temp.hta_traces VALUES (?,?,?,?,?)

-- fragment: hta_launch_rows
t AS (SELECT h.* FROM traces x JOIN temp.hta_traces h USING (trace_id) WHERE x.run_id = ?1),
 ln AS (SELECT id FROM strings WHERE value IN ('cudaLaunchKernel', 'cudaLaunchKernelExC',
   'cudaMemcpyAsync', 'cudaMemsetAsync', 'runFunction - job_prep_and_submit_for_execution')),
 tr AS (SELECT id FROM strings WHERE value = 'Trace'),
 ev AS MATERIALIZED (SELECT s.id, t.rank, s.trace_id, s.name, s.correlation, hta_stream(s.stream) AS hs,
   hta_start(s.ts, t.round) AS start, hta_end(s.ts, s.dur, t.round) AS end_, t.drop_last, t.cutoff
   FROM t JOIN slices s ON s.trace_id = t.trace_id
   WHERE s.correlation IS NOT NULL AND s.ph = 'X' AND s.cat IS NOT NULL AND s.cat NOT IN tr),
 corr AS (SELECT DISTINCT trace_id, correlation FROM ev
   WHERE name IN ln AND (NOT drop_last OR start < cutoff)),
 cpu AS (SELECT * FROM ev WHERE hs = -1 AND (NOT drop_last OR start < cutoff)
   AND (trace_id, correlation) IN corr),
-- the GPU events of each CPU event's correlation, looked up in the slices'
-- (trace_id, correlation) index: a join of two CTEs has none (quadratic)
 gpu AS (SELECT cpu.rank, cpu.id AS cid, g.id AS gid, cpu.correlation,
   cpu.end_ - cpu.start AS cpu_duration_ns,
   hta_start(g.ts, t.round) AS start, hta_end(g.ts, g.dur, t.round) AS end_, cpu.end_ AS cpu_end
   FROM cpu CROSS JOIN slices g ON g.trace_id = cpu.trace_id AND g.correlation = cpu.correlation
   JOIN t ON t.trace_id = cpu.trace_id
   WHERE g.ph = 'X' AND g.cat IS NOT NULL AND g.cat NOT IN tr AND hta_stream(g.stream) <> -1),
 r AS MATERIALIZED (SELECT rank, cid, gid, correlation, cpu_duration_ns, end_ - start AS gpu_duration_ns,
   max(0, start - cpu_end) AS launch_delay_ns FROM gpu)

-- name: hta_launches
-- --compat hta, --by launch: get_cuda_kernel_launch_stats' rows. CPU events
-- (stream -1) whose correlation is that of a cudaLaunchKernel,
-- cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync or MTIA runFunction
-- event, joined with the GPU events (stream not -1) of that correlation, in
-- CPU row order; HTA's event set and rounded times; launch_delay = GPU
-- start - CPU end, 0 when negative.
WITH
-- include: hta_launch_rows
 SELECT rank, correlation, cpu_duration_ns, gpu_duration_ns, launch_delay_ns FROM r
 ORDER BY rank, cid, gid

-- name: hta_launch_summary
-- --compat hta: the per-launch rows summarised per rank and measure (count,
-- sum, mean, min, max, std (n - 1)), with the counts HTA would plot:
-- beyond = launches whose CPU duration is over 50 us (runtime_cutoff) /
-- whose delay is over 100 us (launch_delay_cutoff) / short GPU kernels
-- (CPU duration <= 50 us and GPU duration below it).
WITH
-- include: hta_launch_rows
 , m AS (SELECT rank, 'cpu_duration' AS measure, cpu_duration_ns AS v,
   cpu_duration_ns > 50000 AS beyond FROM r
   UNION ALL SELECT rank, 'gpu_duration', gpu_duration_ns,
   cpu_duration_ns <= 50000 AND gpu_duration_ns < cpu_duration_ns FROM r
   UNION ALL SELECT rank, 'launch_delay', launch_delay_ns, launch_delay_ns > 100000 FROM r),
 a AS (SELECT rank, measure, count(*) AS n, avg(v) AS mean FROM m GROUP BY rank, measure)
 SELECT m.rank, m.measure, count(*) AS count, sum(v) AS sum_ns, a.mean AS mean_ns,
 min(v) AS min_ns, max(v) AS max_ns,
 CASE WHEN a.n > 1 THEN sqrt(sum((v - a.mean) * (v - a.mean)) / (a.n - 1)) END AS std_ns,
 sum(beyond) AS beyond
 FROM m JOIN a USING (rank, measure) GROUP BY m.rank, m.measure
 ORDER BY m.rank, m.measure

-- name: launch_rows
-- --by launch: one row per GPU event with its launching runtime call (the
-- launch of analysis_gpu_attribution): cpu = the call's duration, gpu = the
-- event's, launch_delay = event start - call end (negative: the GPU began
-- before the call returned), start_delay = event start - call start; in
-- launch order. Kernels, copies and sets (categories kernel, gpu_memcpy,
-- gpu_memset, mtia_ccp_events, or none): synchronisation events are not
-- launched work.
SELECT a.rank, l.correlation, (SELECT value FROM strings WHERE id = l.name) AS launch,
 CASE WHEN ?4 THEN short_name(k.value) ELSE k.value END AS kernel,
 l.dur AS cpu_ns, a.dur_ns AS gpu_ns, g.ts - (l.ts + l.dur) AS launch_delay_ns,
 g.ts - l.ts AS start_delay_ns
 FROM analysis_gpu_attribution a JOIN slices g ON g.id = a.slice_id
 JOIN slices l ON l.id = a.launch_id JOIN strings k ON k.id = a.name
 WHERE a.run_id = ?1 AND coalesce(g.cat, 0) IN (SELECT id FROM strings WHERE value IN
   ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events') UNION ALL SELECT 0)
 ORDER BY a.rank, l.ts, l.id, g.id

-- name: create_op_delays
-- launch --by op, filled by report/trace_launch.c from analyze/ondemand/op_kernels.h:
-- per rank, op and kernel sequence: op instances, kernels in the sequence,
-- mean delay from the op's start to its first launch and from that launch
-- to its kernel's start (ns).
CREATE TEMP TABLE IF NOT EXISTS op_delays (rank INTEGER, op TEXT, sequence TEXT,
  count INTEGER, kernels INTEGER, op_delay_ns REAL, runtime_delay_ns REAL);
DELETE FROM op_delays

-- name: insert_op_delay
INSERT INTO temp.op_delays VALUES (?,?,?,?,?,?,?)

-- name: op_delays
-- launch --by op: the rows of temp.op_delays, most frequent first. hta
-- mode rounds the means to HTA's 3 decimals of a microsecond, half to even
-- as numpy does.
WITH r AS (SELECT *, floor(op_delay_ns) AS f1, floor(runtime_delay_ns) AS f2 FROM op_delays)
SELECT rank, op, CASE WHEN ?4 THEN short_name(sequence) ELSE sequence END AS kernel_sequence,
 count, kernels,
 CASE WHEN ?2 <> 'hta' THEN op_delay_ns WHEN op_delay_ns - f1 = 0.5
   THEN f1 + (CAST(f1 AS INTEGER) % 2 <> 0) ELSE round(op_delay_ns) END AS op_launch_delay_ns,
 CASE WHEN ?2 <> 'hta' THEN runtime_delay_ns WHEN runtime_delay_ns - f2 = 0.5
   THEN f2 + (CAST(f2 AS INTEGER) % 2 <> 0) ELSE round(runtime_delay_ns) END AS runtime_delay_ns
 FROM r ORDER BY rank, count DESC, op, sequence

-- name: create_sequences
-- kernel-sequences, filled by report/trace_launch.c from analyze/ondemand/op_kernels.h:
-- per rank and pattern (the op's name and its kernels' names in start
-- order, joined by |): occurrences, kernels, summed GPU and CPU time (ns).
CREATE TEMP TABLE IF NOT EXISTS kernel_sequences (rank INTEGER, op TEXT, pattern TEXT,
  count INTEGER, kernels INTEGER, gpu_ns INTEGER, cpu_ns INTEGER);
DELETE FROM kernel_sequences

-- name: insert_sequence
INSERT INTO temp.kernel_sequences VALUES (?,?,?,?,?,?,?)

-- name: sequences
-- The patterns by count (most frequent first), then pattern, as HTA sorts
-- them; the first ?3 per rank (all by default).
WITH r AS (SELECT *, row_number() OVER (PARTITION BY rank ORDER BY count DESC, pattern) AS n
   FROM kernel_sequences)
 SELECT rank, CASE WHEN ?4 THEN short_name(op) ELSE op END AS op, count, kernels,
 CASE WHEN ?4 THEN (SELECT group_concat(short_name(value), ' | ') FROM json_each('["' ||
   replace(replace(replace(pattern, '\', '\\'), '"', '\"'), '|', '","') || '"]')) ELSE pattern END
   AS pattern,
 gpu_ns AS gpu_kernel_ns, cpu_ns AS cpu_op_ns
 FROM r WHERE ?3 < 0 OR n <= ?3 ORDER BY rank, n

-- name: default_op
-- kernel-sequences without --op: of the ops (cpu_op) that launch at least
-- ?2 (the pattern length) GPU events per call below them, the one with the
-- most GPU time (an op launching one kernel per call has no sequence to
-- find). Outermost ops: their events are the whole subtree's.
SELECT s.value FROM analysis_gpu_attribution a
JOIN strings s ON s.id = a.top_op
JOIN (SELECT name, sum(count) AS calls FROM analysis_ops
      WHERE run_id = ?1 AND cat = 'cpu_op' GROUP BY name) o ON o.name = s.value
WHERE a.run_id = ?1
GROUP BY s.value HAVING count(*) >= ?2 * max(o.calls)
ORDER BY sum(a.dur_ns) DESC, s.value LIMIT 1
