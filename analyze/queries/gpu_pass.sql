-- gpu_pass.sql: the GPU time breakdown of a trace, per kernel type and per
-- kernel (analyze/gpu_pass.c). A query starts at "-- name: NAME" and is
-- known to C as gpu_pass.NAME (common/query.h).

-- name: add_gpu
INSERT INTO analysis_gpu VALUES (?,?,?,?,?,?,?,?,?,?,?)

-- name: add_kernel_type
INSERT INTO analysis_kernel_types VALUES (?,?,?,?,?)

-- name: add_kernel
-- One row; a batch of them goes in one statement (analyze/batch.h).
INSERT OR FAIL INTO analysis_kernels_by_id VALUES (?,?,?,?,?,?,?,?,?,?,?)
