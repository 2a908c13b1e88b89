-- overview.sql: `profdb report` without names: what the run contains and
-- the pstats key findings (report/overview.c).
-- A query starts at "-- name: NAME" and is known to C as overview.NAME
-- (common/query.h). ?1 is the run_id. The count_* queries return one number.

-- name: count_sources
SELECT count(*) FROM sources WHERE run_id = ?1

-- name: count_records
SELECT coalesce(sum(records), 0) FROM sources WHERE run_id = ?1

-- name: count_traces
SELECT count(*) FROM traces WHERE run_id = ?1

-- name: count_ranks
SELECT count(DISTINCT rank) FROM traces WHERE run_id = ?1

-- name: count_gpu_events
SELECT coalesce(sum(gpu_events), 0) FROM analysis_gpu WHERE run_id = ?1
 AND mode = 'exact'

-- name: count_steps
SELECT count(*) FROM analysis_steps WHERE run_id = ?1

-- name: count_pyspy_profiles
-- Sampled-stack profiles (py-spy raw, speedscope, flame-graph SVG).
SELECT count(*) FROM pyspy_profiles WHERE run_id = ?1

-- name: count_memory_events
-- Memory events of profile_memory traces, as the memory pass counted them.
SELECT coalesce(sum(events), 0) FROM analysis_memory_peaks WHERE run_id = ?1 AND step IS NULL

-- name: count_ops
SELECT count(*) FROM analysis_ops WHERE run_id = ?1

-- name: count_pstats_functions
SELECT count(*) FROM pstats_functions WHERE run_id = ?1 AND in_stats

-- name: count_steplog_values
SELECT count(*) FROM steplog_values WHERE run_id = ?1

-- name: count_steplog_steps
SELECT count(DISTINCT step) FROM steplog_values WHERE run_id = ?1

-- name: pstats_findings
-- pstats has no insights report: its findings are the costliest functions.
SELECT std_name AS function, nc AS calls, CAST(round(tt * 1e9) AS INTEGER) AS tottime_ns,
 CAST(round(ct * 1e9) AS INTEGER) AS cumtime_ns,
 100.0 * ct / nullif((SELECT max(ct) FROM pstats_functions WHERE run_id = ?1), 0)
   AS of_max_cumtime_pct
 FROM pstats_functions WHERE run_id = ?1 AND in_stats ORDER BY ct DESC, ord LIMIT 5
