-- trace_gpu.sql: the GPU reports over the trace analysis tables: gpu,
-- kernel-types, kernels and kernels --by KEY (report/trace_gpu.c).
-- A query starts at "-- name: NAME" and is known to C as trace_gpu.NAME
-- (common/query.h); a fragment is SQL that queries below pull in with
-- "-- include: NAME". ?1 is the run_id, ?2 the analysis mode ('exact', or
-- 'hta' with --compat hta), ?3 --top N (-1: every row), ?4 1 for short names
-- (short_name() and name_tag(), report/trace_sql.h), ?5 the --by key.

-- name: require
-- Whether the run has GPU events at all (the GPU reports need them).
SELECT count(*) FROM analysis_gpu WHERE run_id = ?1 AND mode = ?2

-- name: gpu
-- Default mode: every column says what it holds. span: first GPU event
-- start to last end (HTA calls it kernel time); busy: time any GPU event
-- runs; idle = span - busy; compute: time a COMPUTATION event runs;
-- non_compute = busy - compute; percentages are of the span; event_sum:
-- the GPU events' durations added up (overlaps count twice).
SELECT g.rank, kernel_time_ns AS span_ns, busy_ns, idle_ns, compute_ns, non_compute_ns,
 100.0 * idle_ns / kernel_time_ns AS idle_pct,
 100.0 * compute_ns / kernel_time_ns AS compute_pct,
 100.0 * non_compute_ns / kernel_time_ns AS non_compute_pct,
 CASE WHEN comm_ns > 0 THEN 100.0 * comm_comp_overlap_ns / comm_ns END
   AS comm_comp_overlap_pct,
 gpu_events,
 (SELECT sum(total_ns) FROM analysis_kernels k WHERE k.run_id = ?1 AND k.mode = ?2
   AND k.rank = g.rank) AS event_sum_ns
 FROM analysis_gpu g WHERE run_id = ?1 AND mode = ?2 ORDER BY rank

-- name: gpu_hta
-- --compat hta: HTA's get_temporal_breakdown columns, by HTA's names
-- (kernel_time is the span from the first GPU event to the last).
SELECT rank, kernel_time_ns, idle_ns, compute_ns, non_compute_ns,
 100.0 * idle_ns / kernel_time_ns AS idle_pct,
 100.0 * compute_ns / kernel_time_ns AS compute_pct,
 100.0 * non_compute_ns / kernel_time_ns AS non_compute_pct,
 CASE WHEN comm_ns > 0 THEN 100.0 * comm_comp_overlap_ns / comm_ns END
   AS comm_comp_overlap_pct,
 gpu_events
 FROM analysis_gpu WHERE run_id = ?1 AND mode = ?2 ORDER BY rank

-- name: gpu_hta_undefined
-- A rank where HTA's get_temporal_breakdown stops at its assertions
-- (idle <= kernel time, compute <= kernel time, non-compute >= 0): GPU
-- events that its rounding to whole microseconds leaves of negative length.
SELECT rank, kernel_time_ns, idle_ns, compute_ns, non_compute_ns
 FROM analysis_gpu WHERE run_id = ?1 AND mode = ?2
 AND (idle_ns > kernel_time_ns OR compute_ns > kernel_time_ns OR non_compute_ns < 0)
 ORDER BY rank LIMIT 1

-- name: kernel_types
SELECT rank, kernel_type, time_ns,
 100.0 * time_ns / sum(time_ns) OVER (PARTITION BY rank) AS share_pct
 FROM analysis_kernel_types WHERE run_id = ?1 AND mode = ?2
 ORDER BY rank, time_ns DESC, kernel_type

-- name: kernel_types_require
-- Whether any kernel type has GPU time in this mode (with --compat hta,
-- events that round to no length leave none).
SELECT count(*) FROM analysis_kernel_types WHERE run_id = ?1 AND mode = ?2

-- name: kernel_types_hta
-- HTA's shape (get_gpu_kernel_breakdown): one total per kernel type over
-- the run's ranks, its share of all of them.
SELECT kernel_type, sum(time_ns) AS time_ns,
 100.0 * sum(time_ns) / sum(sum(time_ns)) OVER () AS share_pct
 FROM analysis_kernel_types WHERE run_id = ?1 AND mode = ?2
 GROUP BY kernel_type ORDER BY time_ns DESC, kernel_type

-- name: kernels
-- The top ?3 kernels of each rank, then one 'others' row for the rest.
-- Short names get a tag of their full name where two share one.
WITH k AS (SELECT rank, name, kernel_type, count, total_ns, mean_ns, min_ns, max_ns,
   std_ns, 100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank) AS share_pct,
   row_number() OVER (PARTITION BY rank ORDER BY total_ns DESC, name) AS n,
   CASE WHEN ?4 THEN short_name(name) END AS sname
   FROM analysis_kernels WHERE run_id = ?1 AND mode = ?2),
 t AS (SELECT *, CASE WHEN ?4 THEN sname || CASE WHEN count(*) OVER (PARTITION BY rank, sname) > 1
   THEN ' [' || name_tag(name) || ']' ELSE '' END ELSE name END AS shown FROM k)
 SELECT rank, shown AS name, kernel_type, count, total_ns, mean_ns, min_ns, max_ns, std_ns,
   share_pct FROM (
   SELECT *, 0 AS others FROM t WHERE ?3 < 0 OR n <= ?3
   UNION ALL
   SELECT rank, 'others', NULL, sum(count), sum(total_ns),
     1.0 * sum(total_ns) / sum(count), min(min_ns), max(max_ns), NULL, sum(share_pct),
     NULL, NULL, 'others', 1 FROM t WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)
 ORDER BY rank, others, total_ns DESC, name

-- fragment: by_key
-- GPU time per rank and attribution key (?5: op, top-op, annotation,
-- gpu-annotation, module, step), from analysis_gpu_attribution. The groups
-- do not overlap: with the row for events the key does not apply to (no
-- op around the launch, ...) they add up to the rank's GPU event time.
a AS (SELECT rank, CASE ?5 WHEN 'op' THEN op WHEN 'top-op' THEN top_op
     WHEN 'annotation' THEN annotation WHEN 'gpu-annotation' THEN gpu_annotation
     WHEN 'module' THEN module WHEN 'step' THEN step END AS key, name, dur_ns
   FROM analysis_gpu_attribution WHERE run_id = ?1),
 k AS (SELECT rank, key, name, count(*) AS events, sum(dur_ns) AS total_ns FROM a
   GROUP BY rank, key, name),
 -- one row per key; top_kernel is the name of the row with max(total_ns) (SQLite's bare
 -- column of a max() aggregate)
 g AS (SELECT rank, key, sum(events) AS events, sum(total_ns) AS total_ns,
   count(*) AS distinct_kernels, name AS top_name, max(total_ns) FROM k GROUP BY rank, key),
 r AS (SELECT g.*, 100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank) AS share_pct,
   row_number() OVER (PARTITION BY rank ORDER BY key IS NULL, total_ns DESC, key) AS n,
   CASE WHEN ?5 = 'step' THEN CAST(key AS TEXT)
   ELSE (SELECT value FROM strings WHERE id = key) END AS label,
   (SELECT value FROM strings WHERE id = top_name) AS top_kernel FROM g),
 shown AS (SELECT rank, CASE WHEN label IS NULL THEN '(none)' WHEN ?4 AND ?5 <> 'step'
   THEN short_name(label) ELSE label END AS key, events, distinct_kernels, total_ns,
   1.0 * total_ns / events AS mean_ns, share_pct,
   CASE WHEN ?4 THEN short_name(top_kernel) ELSE top_kernel END AS top_kernel,
   0 AS others, n FROM r WHERE ?3 < 0 OR n <= ?3 OR label IS NULL
   UNION ALL
   SELECT rank, 'others', sum(events), NULL, sum(total_ns), 1.0 * sum(total_ns) / sum(events),
   sum(share_pct), NULL, 1, NULL FROM r WHERE ?3 >= 0 AND n > ?3 AND label IS NOT NULL
   GROUP BY rank)

-- name: by_op
-- kernels --by op: the innermost op around each launch; (none): no op.
WITH
-- include: by_key
 SELECT rank, key AS op, events, distinct_kernels, total_ns, mean_ns, share_pct, top_kernel FROM shown
 ORDER BY rank, others, key = '(none)', total_ns DESC, key

-- name: by_top_op
-- kernels --by top-op: the outermost op around each launch.
WITH
-- include: by_key
 SELECT rank, key AS top_op, events, distinct_kernels, total_ns, mean_ns, share_pct, top_kernel FROM shown
 ORDER BY rank, others, key = '(none)', total_ns DESC, key

-- name: by_annotation
-- kernels --by annotation: the innermost record_function range (not
-- ProfilerStep) around each launch.
WITH
-- include: by_key
 SELECT rank, key AS annotation, events, distinct_kernels, total_ns, mean_ns, share_pct, top_kernel
 FROM shown ORDER BY rank, others, key = '(none)', total_ns DESC, key

-- name: by_gpu_annotation
-- kernels --by gpu-annotation: the gpu_user_annotation range each event
-- falls in (HTA's rule).
WITH
-- include: by_key
 SELECT rank, key AS gpu_annotation, events, distinct_kernels, total_ns, mean_ns, share_pct, top_kernel
 FROM shown ORDER BY rank, others, key = '(none)', total_ns DESC, key

-- name: by_module
-- kernels --by module: the nn.Module path around each launch.
WITH
-- include: by_key
 SELECT rank, key AS module, events, distinct_kernels, total_ns, mean_ns, share_pct, top_kernel FROM shown
 ORDER BY rank, others, key = '(none)', total_ns DESC, key

-- name: by_step
-- kernels --by step: the ProfilerStep the launch lies in.
WITH
-- include: by_key
 SELECT rank, key AS step, events, distinct_kernels, total_ns, mean_ns, share_pct, top_kernel FROM shown
 ORDER BY rank, others, key = '(none)', CAST(key AS INTEGER), key

-- name: by_require
-- Whether the run has attributed GPU events (exact mode only).
SELECT EXISTS (SELECT 1 FROM analysis_gpu_attribution WHERE run_id = ?1)

-- fragment: carried
-- Every GPU event of the run (analysis_gpu_attribution) with its key for
-- attribution --by ?5, and whether the key came through a backward op
-- (temp tables of analyze/ondemand/fwd_bwd.c): an event launched inside a
-- backward op linked to its forward op takes the forward op's name (op),
-- outermost op (top-op), and, when its own thread has none around the
-- launch, the forward op's annotation and nn.Module path. via: 'direct'
-- (the key around the launch, as kernels --by), 'backward' (the forward
-- op's); NULL keys are the (none) rows, told apart the same way.
e AS (SELECT a.rank, a.name, a.dur_ns, k.fwd_id IS NOT NULL AS linked,
   a.op, a.top_op, a.annotation, a.module, f.op AS f_op, f.top_op AS f_top_op,
   f.annotation AS f_annotation, f.module AS f_module
   FROM analysis_gpu_attribution a
   LEFT JOIN temp.fb_launch l ON l.launch_id = a.launch_id
   LEFT JOIN temp.fb_links k ON k.bwd_id = l.bwd_id
   LEFT JOIN temp.fb_fwd f ON f.fwd_id = k.fwd_id
   WHERE a.run_id = ?1),
 c AS (SELECT rank, name, dur_ns, linked,
   CASE ?5 WHEN 'op' THEN linked WHEN 'top-op' THEN linked
    WHEN 'annotation' THEN annotation IS NULL AND linked
    WHEN 'module' THEN module IS NULL AND linked ELSE 0 END AS carried,
   op, top_op, annotation, module, f_op, f_top_op, f_annotation, f_module FROM e),
 v AS (SELECT rank, name, dur_ns, linked, carried,
   CASE WHEN carried THEN 'backward' ELSE 'direct' END AS via,
   CASE ?5 WHEN 'op' THEN CASE WHEN carried THEN f_op ELSE op END
    WHEN 'top-op' THEN CASE WHEN carried THEN f_top_op ELSE top_op END
    WHEN 'annotation' THEN CASE WHEN carried THEN f_annotation ELSE annotation END
    WHEN 'module' THEN CASE WHEN carried THEN NULL ELSE module END END AS key_id,
   CASE WHEN ?5 = 'module' AND carried THEN f_module END AS key_text FROM c)

-- fragment: attribution_key
-- GPU time per rank, key and via; the rows of a rank add up to its GPU
-- event time. The (none) rows: no key around the launch, and (via
-- backward) a linked backward op whose forward op has none either.
, k AS (SELECT rank, via, key_id, key_text, name, count(*) AS events, sum(dur_ns) AS total_ns
   FROM v GROUP BY rank, via, key_id, key_text, name),
 g AS (SELECT rank, via, coalesce(key_text, (SELECT value FROM strings WHERE id = key_id))
   AS label, sum(events) AS events, sum(total_ns) AS total_ns, count(DISTINCT name)
   AS distinct_kernels, name AS top_name, max(total_ns) FROM k
   GROUP BY rank, via, label),
 r AS (SELECT g.*, 100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank) AS share_pct,
   row_number() OVER (PARTITION BY rank ORDER BY label IS NULL, total_ns DESC, label, via)
   AS n, (SELECT value FROM strings WHERE id = top_name) AS top_kernel FROM g),
 shown AS (SELECT rank, CASE WHEN label IS NULL THEN '(none)' WHEN ?4 THEN short_name(label)
   ELSE label END AS key, via, events, distinct_kernels, total_ns,
   1.0 * total_ns / events AS mean_ns, share_pct,
   CASE WHEN ?4 THEN short_name(top_kernel) ELSE top_kernel END AS top_kernel,
   0 AS others, n FROM r WHERE ?3 < 0 OR n <= ?3 OR label IS NULL
   UNION ALL
   SELECT rank, 'others', NULL, sum(events), NULL, sum(total_ns),
   1.0 * sum(total_ns) / sum(events), sum(share_pct), NULL, 1, NULL FROM r
   WHERE ?3 >= 0 AND n > ?3 AND label IS NOT NULL GROUP BY rank)

-- name: attribution_op
-- attribution --by op: the innermost op around the launch; for a backward kernel, the
-- forward op its backward op is linked to.
WITH
-- include: carried
-- include: attribution_key
 SELECT rank, key AS op, via, events, distinct_kernels, total_ns, mean_ns, share_pct,
 top_kernel FROM shown ORDER BY rank, others, key = '(none)', total_ns DESC, key, via

-- name: attribution_top_op
-- attribution --by top-op: the outermost op; for a backward kernel, the forward op's.
WITH
-- include: carried
-- include: attribution_key
 SELECT rank, key AS top_op, via, events, distinct_kernels, total_ns, mean_ns, share_pct,
 top_kernel FROM shown ORDER BY rank, others, key = '(none)', total_ns DESC, key, via

-- name: attribution_annotation
-- attribution --by annotation: the record_function range around the launch, else (via
-- backward) the forward op's.
WITH
-- include: carried
-- include: attribution_key
 SELECT rank, key AS annotation, via, events, distinct_kernels, total_ns, mean_ns, share_pct,
 top_kernel FROM shown ORDER BY rank, others, key = '(none)', total_ns DESC, key, via

-- name: attribution_module
-- attribution --by module: the nn.Module path around the launch, else (via backward)
-- the forward op's.
WITH
-- include: carried
-- include: attribution_key
 SELECT rank, key AS module, via, events, distinct_kernels, total_ns, mean_ns, share_pct,
 top_kernel FROM shown ORDER BY rank, others, key = '(none)', total_ns DESC, key, via

-- name: attribution_kernels
-- attribution --by kernel: per rank, each kernel with the op, annotation
-- and nn.Module path its GPU time goes to (carried from the forward op
-- for an event launched in a linked backward op: via 'backward'; op is
-- then the forward op), the top ?3 rows by time per rank.
WITH
-- include: carried
, w AS (SELECT rank, name, dur_ns, linked AS backward,
   CASE WHEN linked THEN f_op ELSE op END AS op_id,
   CASE WHEN annotation IS NULL AND linked THEN f_annotation ELSE annotation END AS ann_id,
   CASE WHEN module IS NULL AND linked THEN f_module
    ELSE (SELECT value FROM strings WHERE id = module) END AS module FROM e),
 g AS (SELECT rank, name, backward, op_id, ann_id, module, count(*) AS events,
   sum(dur_ns) AS total_ns FROM w GROUP BY rank, name, backward, op_id, ann_id, module),
 r AS (SELECT g.*, 100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank) AS share_pct,
   row_number() OVER (PARTITION BY rank ORDER BY total_ns DESC, name, backward, op_id,
    ann_id, module) AS n FROM g)
 SELECT rank, CASE WHEN ?4 THEN short_name(s.value) ELSE s.value END AS kernel,
 CASE WHEN backward THEN 'backward' ELSE 'direct' END AS via,
 coalesce(CASE WHEN ?4 THEN short_name(o.value) ELSE o.value END, '(none)') AS op,
 coalesce(CASE WHEN ?4 THEN short_name(u.value) ELSE u.value END, '(none)') AS annotation,
 coalesce(CASE WHEN ?4 THEN short_name(module) ELSE module END, '(none)') AS module,
 events, total_ns, share_pct
 FROM r JOIN strings s ON s.id = r.name LEFT JOIN strings o ON o.id = r.op_id
 LEFT JOIN strings u ON u.id = r.ann_id
 WHERE ?3 < 0 OR n <= ?3 ORDER BY rank, n
