-- trace_insights.sql: the `insights` report (report/trace_insights.c).
-- A query starts at "-- name: NAME" and is known to C as trace_insights.NAME
-- (common/query.h). ?1 is the run_id; the thresholds are bound from
-- report/thresholds.h: ?2 data loading, ?3 copies, ?4 GPU idle, each a
-- percentage; ?5 is 1 for short names (report/trace_sql.h); ?6 the
-- iterations of each rank whose critical path temp.cp_bounds holds
-- (report/trace_critical.c fills it first); ?7 the longest mean gap
-- between kernels (ns) that a launch-bound path has, ?8 the most CPU time
-- on a CPU-bound path per launch in its iterations (ns) that is launch
-- overhead.
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
   ORDER BY rank, total_ns DESC) GROUP BY rank),
 cpb AS (SELECT rank, CASE name WHEN 'cpu_bound' THEN 'CPU-bound'
   WHEN 'gpu_compute_bound' THEN 'GPU compute' WHEN 'gpu_communication_bound'
   THEN 'GPU communication' ELSE 'waiting' END AS bound, sum(duration_ns) AS ns
   FROM cp_bounds WHERE kind = 'bound' AND name <> '' GROUP BY 1, 2),
 -- the kernels on the path and the gaps between them (a launch-bound path:
 -- short kernels, the GPU idle between them while the CPU launches the next)
 cpk AS (SELECT rank,
   sum(CASE name WHEN 'gpu_kernel_kernel_overhead' THEN duration_ns ELSE 0 END) AS gap_ns,
   sum(CASE name WHEN 'gpu_kernel_kernel_overhead' THEN edges ELSE 0 END) AS gaps,
   sum(CASE name WHEN 'gpu_compute_bound' THEN duration_ns ELSE 0 END) AS kern_ns,
   sum(CASE name WHEN 'gpu_compute_bound' THEN edges ELSE 0 END) AS kerns
   FROM cp_bounds WHERE kind = 'bound' GROUP BY rank),
 -- the launches (CPU-side events with a correlation) in the path's
 -- iterations: a CPU-bound path with much CPU time per launch is CPU work
 -- of its own, not launch overhead (counted by the summary fill,
 -- trace_critical.sql's window_launches)
 cpl AS (SELECT w.rank, sum(w.launches) AS launches FROM cp_windows w
   WHERE w.ok GROUP BY w.rank),
 cpt AS (SELECT rank, sum(ns) AS ns, (SELECT count(*) FROM cp_windows w WHERE w.rank = b.rank
   AND w.ok) AS windows FROM cpb b GROUP BY rank),
 -- what the path covers of its iterations: a path shorter than its steps,
 -- or starting late in them, is said, not left for the reader to wonder
 cpw AS (SELECT rank, sum(end_ts - start_ts) AS win_ns, sum(last_ts - first_ts) AS span_ns,
   (SELECT first_ts - start_ts FROM cp_windows f WHERE f.rank = w.rank AND f.ok
     ORDER BY instance LIMIT 1) AS lead_ns
   FROM cp_windows w WHERE ok GROUP BY rank),
 cpr AS (SELECT b.*, t.ns AS total, t.windows, row_number() OVER (PARTITION BY b.rank
   ORDER BY b.ns DESC) AS n FROM cpb b JOIN cpt t USING (rank) WHERE t.ns > 0),
 -- what backs (or contradicts) a CPU-bound path: how idle the GPU is, and
 -- which launch-overhead cures the trace already uses (issue 34: a busy,
 -- compiled, graphed run was told to compile and graph)
 gidle AS (SELECT rank, 100.0 * idle_ns / kernel_time_ns AS idle_pct FROM analysis_gpu
   WHERE run_id = ?1 AND mode = 'exact' AND kernel_time_ns > 0),
 cures AS (SELECT rank, max(name IN ('cudaGraphLaunch', 'hipGraphLaunch')) AS graphs,
   max(name GLOB '*CompiledFunction*' OR name GLOB 'Torch-Compiled Region*') AS compiled
   FROM ops GROUP BY rank),
 peaks AS (SELECT k.*, CASE k.device_type WHEN 0 THEN 'CPU' WHEN 1 THEN 'GPU ' || k.device_id
   ELSE 'device type ' || k.device_type || ':' || k.device_id END AS dev,
   (SELECT min(s.step) FROM analysis_memory_peaks s WHERE s.run_id = k.run_id
     AND s.rank = k.rank AND s.device_type = k.device_type AND s.device_id = k.device_id
     AND s.step IS NOT NULL AND s.peak_seq = k.peak_seq) AS at_step
   FROM analysis_memory_peaks k WHERE k.run_id = ?1 AND k.step IS NULL)
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
 UNION ALL SELECT rank, 'critical path', bound, ns, 100.0 * ns / total,
   printf('the largest part of the critical path of the first %d iteration%s (%.1f ms%s): '
     || 'CPU-bound %.0f%%, GPU compute %.0f%%, GPU communication %.0f%%, waiting %.0f%%; %s',
     windows, CASE windows WHEN 1 THEN '' ELSE 's' END, total / 1e6,
     CASE WHEN cw.win_ns > 0 AND cw.span_ns < 0.9 * cw.win_ns
       THEN printf(', spanning %.1f ms of their %.1f ms, from %.1f ms into the first',
         cw.span_ns / 1e6, cw.win_ns / 1e6, coalesce(cw.lead_ns, 0) / 1e6) ELSE '' END,
     100.0 * coalesce((SELECT ns FROM cpb x WHERE x.rank = cpr.rank AND x.bound = 'CPU-bound'), 0)
       / total,
     100.0 * coalesce((SELECT ns FROM cpb x WHERE x.rank = cpr.rank
       AND x.bound = 'GPU compute'), 0) / total,
     100.0 * coalesce((SELECT ns FROM cpb x WHERE x.rank = cpr.rank
       AND x.bound = 'GPU communication'), 0) / total,
     100.0 * coalesce((SELECT ns FROM cpb x WHERE x.rank = cpr.rank AND x.bound = 'waiting'), 0)
       / total,
     CASE WHEN bound = 'CPU-bound' AND coalesce(gi.idle_pct, 100) < 20
       THEN printf('but the GPU is busy %.0f%% of its span: the CPU work on the path runs while '
         || 'kernels of other work keep the GPU busy, so less CPU work can gain at most the '
         || '%.0f%% idle time', 100 - gi.idle_pct, gi.idle_pct)
     WHEN bound = 'CPU-bound' AND cpr.ns > ?8 * coalesce(cl.launches, 0)
       THEN 'the GPU waits for CPU work on the path (' || CASE WHEN coalesce(cl.launches, 0) = 0
         THEN 'no launch in its iterations' ELSE printf('%.1f ms of it per launch in its '
           || 'iterations', cpr.ns / 1e6 / cl.launches) END || '), which is not launch '
         || 'overhead: the CPU ops on the path first (critical-path --by node), less Python '
         || 'and host work per step'
     WHEN bound = 'CPU-bound' THEN 'the GPU waits for the CPU (launch overhead, Python, '
       || 'syncs): ' || CASE WHEN cu.graphs AND cu.compiled
         THEN 'the trace already uses CUDA graphs and torch.compile: less Python per step, '
           || 'fewer and larger kernels'
         WHEN cu.graphs THEN 'the trace already uses CUDA graphs: torch.compile, larger kernels'
         WHEN cu.compiled THEN 'the trace already uses torch.compile: CUDA graphs '
           || '(mode="reduce-overhead"), larger kernels'
         ELSE 'less CPU work per kernel (CUDA graphs, torch.compile, larger kernels) first' END
     WHEN bound = 'GPU compute' THEN 'faster kernels shorten the step: the top kernels first'
     WHEN bound = 'GPU communication' THEN 'communication is on the path: overlap it with compute '
       || 'or shrink it'
     WHEN ck.gaps > 0 AND ck.kerns > 0 AND 2 * ck.gap_ns >= cpr.ns AND ck.gap_ns <= ?7 * ck.gaps
       AND ck.kern_ns * ck.gaps <= ck.gap_ns * ck.kerns
       THEN printf('the GPU idles between short kernels (%d on the path, %.1f us on average, '
         || 'gaps of %.1f us): the CPU launches them slower than the GPU runs them '
         || '(launch-bound): ', ck.kerns, ck.kern_ns / 1e3 / ck.kerns, ck.gap_ns / 1e3 / ck.gaps)
         || CASE WHEN cu.graphs AND cu.compiled
           THEN 'the trace already uses CUDA graphs and torch.compile: fewer, larger kernels '
             || '(fused ops, larger batches)'
         WHEN cu.graphs THEN 'the trace already uses CUDA graphs: torch.compile, fewer and '
           || 'larger kernels'
         WHEN cu.compiled THEN 'the trace already uses torch.compile: CUDA graphs '
           || '(mode="reduce-overhead"), fewer and larger kernels'
         ELSE 'fewer, larger kernels: CUDA graphs, torch.compile, fused ops' END
     ELSE 'kernels wait for their launch or for each other: the GPU idles on the path' END)
   FROM cpr LEFT JOIN gidle gi USING (rank) LEFT JOIN cures cu USING (rank)
   LEFT JOIN cpw cw USING (rank) LEFT JOIN cpk ck USING (rank) LEFT JOIN cpl cl USING (rank)
   WHERE n = 1
 UNION ALL SELECT rank, 'peak memory', CASE WHEN ?5 THEN short_name(op) ELSE op END, NULL, NULL,
   printf('%.4g MiB allocated on %s%s, the most of the trace (%.4g MiB reserved at most)',
     peak_allocated_bytes / 1048576.0, dev,
     CASE WHEN at_step IS NOT NULL THEN ' at step ' || at_step ELSE ' outside the steps' END,
     max_reserved_bytes / 1048576.0)
   FROM peaks WHERE peak_allocated_bytes > 0
 ORDER BY 1, 2, 4 DESC
