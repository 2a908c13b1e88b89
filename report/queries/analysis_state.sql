-- analysis_state.sql: whether a run's trace analysis is there and current
-- (report/analysis_state.c). A query starts at "-- name: NAME" and is known
-- to C as analysis_state.NAME (common/query.h). ?1 is the run_id.

-- name: state
-- What the traces hold (trace_counts, counted at ingest) against what the
-- analysis passes wrote. Every pass writes rows for what it finds: GPU
-- events get analysis_gpu rows and one attribution row each, launches a
-- launch queue, [memory] events the memory tables. A run merged without
-- --full keeps its attribution rows in its shards (shard_files).
SELECT
 (SELECT coalesce(sum(c.count), 0) FROM trace_counts c JOIN traces t USING (trace_id)
   WHERE t.run_id = ?1 AND c.ph IN ('X', 'B')) AS slices,
 (SELECT coalesce(sum(c.count), 0) FROM trace_counts c JOIN traces t USING (trace_id)
   WHERE t.run_id = ?1 AND c.ph = 'gpu') AS gpu_events,
 EXISTS (SELECT 1 FROM analysis_gpu WHERE run_id = ?1)
   OR EXISTS (SELECT 1 FROM analysis_ops_by_id WHERE run_id = ?1)
   OR EXISTS (SELECT 1 FROM analysis_steps WHERE run_id = ?1)
   OR EXISTS (SELECT 1 FROM analysis_kernels_by_id WHERE run_id = ?1)
   OR EXISTS (SELECT 1 FROM analysis_annotations_by_id WHERE run_id = ?1) AS analysed,
 EXISTS (SELECT 1 FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact')
   AND NOT EXISTS (SELECT 1 FROM analysis_gpu_attribution WHERE run_id = ?1)
   AND NOT EXISTS (SELECT 1 FROM shard_files WHERE run_id = ?1) AS no_attribution,
 EXISTS (SELECT 1 FROM analysis_gpu_attribution WHERE run_id = ?1 AND launch_id IS NOT NULL)
   AND NOT EXISTS (SELECT 1 FROM analysis_queue WHERE run_id = ?1) AS no_queue,
 NOT EXISTS (SELECT 1 FROM analysis_memory_peaks WHERE run_id = ?1)
   AND EXISTS (SELECT 1 FROM instants i JOIN traces t USING (trace_id) WHERE t.run_id = ?1
     AND i.name = (SELECT id FROM strings WHERE value = '[memory]')) AS no_memory
