-- 014_mode_views.sql: schema version 13 -> 14 (common/db.c applies it).
--
-- slice_view (and gpu_events, made from it) gains the run's name, column
-- run after run_id; the per-mode views of the analysis tables with a mode
-- column are added (50_analysis.sql says what they hold). Nothing stored
-- changes.

DROP VIEW gpu_events;
DROP VIEW slice_view;
CREATE VIEW slice_view AS
SELECT s.id, t.run_id, r.name AS run, t.rank, s.trace_id, s.ph, n.value AS name,
       c.value AS cat, s.pid, s.tid, s.ts, s.dur, s.ts + s.dur AS end_ts, s.stream, s.device,
       s.context, s.correlation, s.external_id, s.input_dims, s.bytes,
       s.coll_name, s.in_nelems, s.out_nelems, s.group_size, s.dtype, s.args
FROM slices s
JOIN traces t USING (trace_id)
JOIN runs r ON r.run_id = t.run_id
LEFT JOIN strings n ON n.id = s.name
LEFT JOIN strings c ON c.id = s.cat;
CREATE VIEW gpu_events AS SELECT * FROM slice_view WHERE stream IS NOT NULL
    AND coalesce(cat, '') NOT IN ('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op',
                                  'user_annotation', 'python_function');

CREATE VIEW gpu_exact AS
SELECT g.run_id, r.name AS run, g.rank, g.gpu_events, g.kernel_time_ns, g.busy_ns, g.idle_ns,
       g.compute_ns, g.non_compute_ns, g.comm_ns, g.comm_comp_overlap_ns
FROM analysis_gpu g JOIN runs r ON r.run_id = g.run_id WHERE g.mode = 'exact';
CREATE VIEW gpu_hta AS
SELECT g.run_id, r.name AS run, g.rank, g.gpu_events, g.kernel_time_ns, g.busy_ns, g.idle_ns,
       g.compute_ns, g.non_compute_ns, g.comm_ns, g.comm_comp_overlap_ns
FROM analysis_gpu g JOIN runs r ON r.run_id = g.run_id WHERE g.mode = 'hta';

CREATE VIEW kernel_types_exact AS
SELECT k.run_id, r.name AS run, k.rank, k.kernel_type, k.time_ns
FROM analysis_kernel_types k JOIN runs r ON r.run_id = k.run_id WHERE k.mode = 'exact';
CREATE VIEW kernel_types_hta AS
SELECT k.run_id, r.name AS run, k.rank, k.kernel_type, k.time_ns
FROM analysis_kernel_types k JOIN runs r ON r.run_id = k.run_id WHERE k.mode = 'hta';

CREATE VIEW kernels_exact AS
SELECT k.run_id, r.name AS run, k.rank, s.value AS name, k.kernel_type, k.count, k.total_ns,
       k.min_ns, k.max_ns, k.mean_ns, k.std_ns, k.name_id
FROM analysis_kernels_by_id k JOIN runs r ON r.run_id = k.run_id
JOIN strings s ON s.id = k.name_id WHERE k.mode = 'exact';
CREATE VIEW kernels_hta AS
SELECT k.run_id, r.name AS run, k.rank, s.value AS name, k.kernel_type, k.count, k.total_ns,
       k.min_ns, k.max_ns, k.mean_ns, k.std_ns, k.name_id
FROM analysis_kernels_by_id k JOIN runs r ON r.run_id = k.run_id
JOIN strings s ON s.id = k.name_id WHERE k.mode = 'hta';

CREATE VIEW annotations_exact AS
SELECT a.run_id, r.name AS run, a.rank, a.kind, s.value AS name, a.count, a.total_ns,
       a.min_ns, a.max_ns, a.mean_ns, a.std_ns, a.kernel_ns, a.kernel_self_ns, a.kernels,
       a.name_id
FROM analysis_annotations_by_id a JOIN runs r ON r.run_id = a.run_id
JOIN strings s ON s.id = a.name_id WHERE a.mode = 'exact';
CREATE VIEW annotations_hta AS
SELECT a.run_id, r.name AS run, a.rank, a.kind, s.value AS name, a.count, a.total_ns,
       a.min_ns, a.max_ns, a.mean_ns, a.std_ns, a.kernel_ns, a.kernel_self_ns, a.kernels,
       a.name_id
FROM analysis_annotations_by_id a JOIN runs r ON r.run_id = a.run_id
JOIN strings s ON s.id = a.name_id WHERE a.mode = 'hta';

CREATE VIEW idle_exact AS
SELECT i.run_id, r.name AS run, i.rank, i.stream, i.events, i.host_wait_ns,
       i.kernel_wait_ns, i.other_ns
FROM analysis_idle i JOIN runs r ON r.run_id = i.run_id WHERE i.mode = 'exact';
CREATE VIEW idle_hta AS
SELECT i.run_id, r.name AS run, i.rank, i.stream, i.events, i.host_wait_ns,
       i.kernel_wait_ns, i.other_ns
FROM analysis_idle i JOIN runs r ON r.run_id = i.run_id WHERE i.mode = 'hta';

CREATE VIEW queue_exact AS
SELECT q.run_id, r.name AS run, q.rank, q.device, q.stream, q.queue_length, q.points,
       q.duration_ns
FROM analysis_queue q JOIN runs r ON r.run_id = q.run_id WHERE q.mode = 'exact';
CREATE VIEW queue_hta AS
SELECT q.run_id, r.name AS run, q.rank, q.device, q.stream, q.queue_length, q.points,
       q.duration_ns
FROM analysis_queue q JOIN runs r ON r.run_id = q.run_id WHERE q.mode = 'hta';

CREATE VIEW queue_ranks_exact AS
SELECT q.run_id, r.name AS run, q.rank, q.first_start, q.last_start, q.late_launches
FROM analysis_queue_ranks q JOIN runs r ON r.run_id = q.run_id WHERE q.mode = 'exact';
CREATE VIEW queue_ranks_hta AS
SELECT q.run_id, r.name AS run, q.rank, q.first_start, q.last_start, q.late_launches
FROM analysis_queue_ranks q JOIN runs r ON r.run_id = q.run_id WHERE q.mode = 'hta';
