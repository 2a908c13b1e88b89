-- trace_insights.sql: the `insights` report (report/trace_insights.c).
-- A query starts at "-- name: NAME" and is known to C as trace_insights.NAME
-- (common/query.h). ?1 is the run_id; the thresholds are bound from
-- report/thresholds.h: ?2 data loading, ?3 copies, ?4 GPU idle, each a
-- percentage; ?5 is 1 for short names (report/trace_sql.h).
--
-- Every finding measures something that adds up: self times, never a
-- parent's total next to its child's; op families (copies, syncs) by their
-- outermost calls (analysis_steps.copy_ns, sync_ns), so aten::to and the
-- aten::copy_ inside it count once.

-- name: insights
-- The slowest components and the named bottlenecks, each with its evidence.
WITH steps AS (SELECT rank, sum(dur_ns) AS step_ns, sum(dataloader_ns) AS dl_ns,
   sum(kernel_ns) AS kernel_ns, sum(memcpy_ns) AS memcpy_ns, sum(memset_ns) AS memset_ns,
   sum(runtime_ns) AS runtime_ns, sum(cpu_exec_ns) AS cpu_exec_ns, sum(other_ns) AS other_ns,
   sum(copy_ns) AS copy_ns, sum(sync_ns) AS sync_ns
   FROM analysis_steps WHERE run_id = ?1 GROUP BY rank),
 cpu AS (SELECT rank, sum(self_ns) AS self_ns FROM analysis_ops WHERE run_id = ?1 GROUP BY rank),
 ops AS (SELECT rank, name, cat, sum(count) AS count, sum(self_ns) AS self_ns,
   sum(total_ns) AS total_ns FROM analysis_ops WHERE run_id = ?1 GROUP BY rank, name, cat),
 top_ops AS (SELECT *, row_number() OVER (PARTITION BY rank ORDER BY self_ns DESC) AS n FROM ops
   WHERE name NOT GLOB 'ProfilerStep#*' AND coalesce(cat, '') NOT IN ('user_annotation',
   'gpu_user_annotation', 'python_function')),
 kern AS (SELECT rank, name, count, total_ns, row_number() OVER (PARTITION BY rank
   ORDER BY total_ns DESC) AS n, 100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank)
   AS pct FROM analysis_kernels WHERE run_id = ?1 AND mode = 'exact'),
 phases AS (SELECT rank, 'kernel' AS phase, kernel_ns AS ns, step_ns FROM steps
   UNION ALL SELECT rank, 'memcpy', memcpy_ns, step_ns FROM steps
   UNION ALL SELECT rank, 'memset', memset_ns, step_ns FROM steps
   UNION ALL SELECT rank, 'runtime', runtime_ns, step_ns FROM steps
   UNION ALL SELECT rank, 'dataloader', dl_ns, step_ns FROM steps
   UNION ALL SELECT rank, 'cpu_exec', cpu_exec_ns, step_ns FROM steps
   UNION ALL SELECT rank, 'other', other_ns, step_ns FROM steps),
 top_phases AS (SELECT *, row_number() OVER (PARTITION BY rank ORDER BY ns DESC) AS n
   FROM phases),
 family AS (SELECT rank, group_concat(name, ' / ') AS names,
   group_concat(name || ' ' || count || 'x', ', ') AS calls FROM (
   SELECT rank, name, count FROM ops WHERE name IN ('aten::item', 'aten::_local_scalar_dense',
   'cudaStreamSynchronize', 'cudaDeviceSynchronize', 'cudaEventSynchronize', 'cudaMemcpy',
   'hipStreamSynchronize', 'hipDeviceSynchronize', 'hipEventSynchronize', 'hipMemcpy')
   ORDER BY rank, total_ns DESC) GROUP BY rank),
 copies AS (SELECT rank, group_concat(name, ' / ') AS names,
   group_concat(name || ' ' || count || 'x', ', ') AS calls FROM (
   SELECT rank, name, count FROM ops WHERE name IN ('aten::to', 'aten::_to_copy', 'aten::copy_')
   ORDER BY rank, total_ns DESC) GROUP BY rank)
 SELECT rank, 'slowest op' AS finding, CASE WHEN ?5 THEN short_name(name) ELSE name END AS item,
   self_ns AS time_ns,
   100.0 * self_ns / nullif((SELECT self_ns FROM cpu WHERE cpu.rank = top_ops.rank), 0)
   AS share_pct, count || ' calls, self time (share of all CPU self time)' AS evidence
   FROM top_ops WHERE n <= 3
 UNION ALL SELECT rank, 'slowest kernel', CASE WHEN ?5 THEN short_name(name) ELSE name END,
   total_ns, pct, count || ' launches (share of GPU kernel time)' FROM kern WHERE n <= 3
 UNION ALL SELECT rank, 'largest step phase', phase, ns, 100.0 * ns / nullif(step_ns, 0),
   'share of ProfilerStep time' FROM top_phases WHERE n <= 3 AND ns > 0
 UNION ALL SELECT s.rank, 'device-to-host sync', f.names, s.sync_ns,
   100.0 * s.sync_ns / nullif(s.step_ns, 0),
   'block the CPU until the GPU catches up: ' || f.calls ||
   ' (outermost calls in steps, summed over threads; share of step time)'
   FROM steps s JOIN family f ON f.rank = s.rank WHERE s.sync_ns > 0
 UNION ALL SELECT s.rank, 'copy-heavy steps', c.names, s.copy_ns,
   100.0 * s.copy_ns / s.step_ns,
   printf('above %g%% of step time: %s (outermost calls in steps, summed over threads)',
     ?3, c.calls)
   FROM steps s JOIN copies c ON c.rank = s.rank
   WHERE s.step_ns > 0 AND 100.0 * s.copy_ns / s.step_ns > ?3
 UNION ALL SELECT rank, 'dataloader shutdown', name, total_ns, NULL,
   count || ' worker shutdowns (workers are re-created: persistent_workers=True avoids it)'
   FROM ops WHERE name LIKE '%shutdown_workers%'
 UNION ALL SELECT rank, 'data loading', 'dataloader', dl_ns, 100.0 * dl_ns / step_ns,
   printf('above %g%% of step time', ?2) FROM steps
   WHERE step_ns > 0 AND 100.0 * dl_ns / step_ns > ?2
 UNION ALL SELECT rank, 'GPU idle', 'all streams', idle_ns, 100.0 * idle_ns / kernel_time_ns,
   printf('above %g%% of the GPU span (first event start to last end)', ?4)
   FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact'
   AND kernel_time_ns > 0 AND 100.0 * idle_ns / kernel_time_ns > ?4
 ORDER BY 1, 2, 4 DESC
