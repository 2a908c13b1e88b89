-- traces.sql: the traces of a run, for the reports that analyse each one
-- on demand (critical-path, launch --by op, kernel-sequences, memory-bw,
-- HTA's reading of each trace). A query starts at "-- name: NAME" and is
-- known to C as traces.NAME (common/query.h).

-- name: of_run
-- ?1 = the run; its traces by rank.
SELECT trace_id, rank FROM traces WHERE run_id = ?1 ORDER BY rank
