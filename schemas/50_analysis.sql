-- profdb schema, part 5: results of the analysis passes (`profdb analyze`,
-- run by `profdb ingest` unless --no-analyze). Each pass replaces its rows
-- for a run, so reports are cheap and repeatable.
--
-- mode: 'exact' analyses the trace as written (nanoseconds, every event with
-- a stream arg is a GPU event). 'hta' applies Holistic Trace Analysis's
-- (0.6) conventions so its users get the numbers they know:
--  * only X events with a category (not 'Trace');
--  * a GPU event is one whose stream arg, read as pandas' to_numeric does
--    (numbers and decimal text; anything else is -1), is not -1: the
--    device-wide 'Event Sync' and 'Context Sync' events (stream -1) and
--    AMD's "0x0" runtime calls are not GPU events;
--  * when the trace writes fractional (or missing) timestamps, each event is
--    rounded inward to whole microseconds in float64 as pandas does it:
--    start = ceil(float(ts)), end = floor(float(ts) + float(dur)); at
--    today's clock (1.7e15 us) float64 steps by 0.25 us, so this is not
--    exact decimal rounding, and a sub-microsecond event can end 1 us
--    before it starts (its duration is then -1 us, as in HTA);
--  * the last ProfilerStep is dropped when there are two or more (CPU
--    events from its start on, GPU events launched from then on);
--  * HTA's kernel types (below) and its interval arithmetic: each type's
--    intervals are merged (a new group where ts exceeds every earlier end),
--    times are sum(end) - sum(start) over the groups, and the kernel-type
--    split is a running sum over group boundaries (+1/+2/+4 at a group's
--    start, minus at its end). On well-formed intervals that is the union
--    arithmetic of exact mode; a -1 us group subtracts a microsecond and can
--    name a combination that is not there (MTIA traces show 1 us of
--    "COMPUTATION overlapping COMMUNICATION" without any communication).
-- Kernel types, exact mode: MEMORY (names starting Memcpy, Memset, dma,
-- optionally after 'hip'), COMMUNICATION (starting nccl, hccl or hip, or
-- containing ncclKernel), OTHER (containing Sync, or starting 'Stream
-- Wait'), COMPUTATION (every other GPU event). hta mode, as HTA's
-- get_kernel_type: COMMUNICATION first (so hipMemcpy is communication),
-- then MEMORY (starting Memcpy, Memset, dma), then OTHER for names HTA's
-- compute pattern excludes (containing Memcpy, Memset, dma or Sync;
-- starting 'Stream Wait Event', runFunction, job_exe, packet, pe_exe,
-- cpum_exe_subgraph, collective_subgraph_execution, or cuda...LaunchKernel),
-- COMPUTATION for the rest. OTHER is busy time but neither computation nor
-- part of the kernel-type breakdown.

-- GPU temporal breakdown per rank.
CREATE TABLE analysis_gpu (
    run_id          INTEGER NOT NULL REFERENCES runs,
    mode            TEXT NOT NULL,     -- 'exact' or 'hta'
    rank            INTEGER NOT NULL,
    gpu_events      INTEGER NOT NULL,  -- GPU events analysed
    kernel_time_ns  INTEGER NOT NULL,  -- the span: last GPU event end - first GPU event
                                       -- start (HTA's name; the gpu report says span_ns)
    busy_ns         INTEGER NOT NULL,  -- length of the union of all GPU events
    idle_ns         INTEGER NOT NULL,  -- kernel_time_ns - busy_ns
    compute_ns      INTEGER NOT NULL,  -- union of COMPUTATION events
    non_compute_ns  INTEGER NOT NULL,  -- busy_ns - compute_ns
    comm_ns         INTEGER NOT NULL,  -- union of COMMUNICATION events
    comm_comp_overlap_ns INTEGER NOT NULL, -- union(COMMUNICATION) ∩ union(COMPUTATION)
    PRIMARY KEY (run_id, mode, rank)
);

-- Time per kernel type alone and per overlapping combination
-- ("COMPUTATION overlapping COMMUNICATION"), from one sweep per rank.
CREATE TABLE analysis_kernel_types (
    run_id       INTEGER NOT NULL REFERENCES runs,
    mode         TEXT NOT NULL,
    rank         INTEGER NOT NULL,
    kernel_type  TEXT NOT NULL,
    time_ns      INTEGER NOT NULL,
    PRIMARY KEY (run_id, mode, rank, kernel_type)
);

-- Per rank and GPU event name.
CREATE TABLE analysis_kernels (
    run_id       INTEGER NOT NULL REFERENCES runs,
    mode         TEXT NOT NULL,
    rank         INTEGER NOT NULL,
    name         TEXT NOT NULL,
    kernel_type  TEXT NOT NULL,
    count        INTEGER NOT NULL,
    total_ns     INTEGER NOT NULL,
    min_ns       INTEGER NOT NULL,
    max_ns       INTEGER NOT NULL,
    mean_ns      REAL NOT NULL,
    std_ns       REAL,                -- sample standard deviation; NULL for one event
    PRIMARY KEY (run_id, mode, rank, name)
);

-- CPU operators (slices without a stream arg) per rank, name and input shape.
-- self = duration minus the durations of direct children on the same thread.
-- GPU time (see analysis_gpu_attribution for how a GPU event finds the ops
-- around its launch) is kept for ops (cpu_op; events without a category in
-- legacy traces), annotations (user_annotation) and modules (python_function
-- "nn.Module: ..."): gpu_self_ns is the GPU time of events whose innermost
-- enclosing op (annotation, module: of the same kind) is this one;
-- gpu_total_ns the GPU time of events with this one anywhere around their
-- launch, counted once under recursion. Other rows (runtime calls, plain
-- python frames, ProfilerStep) have 0. Over the ops of a rank, the
-- gpu_self_ns add up to the attributed GPU time; gpu_total_ns do not add up
-- (a parent's includes its children's).
CREATE TABLE analysis_ops (
    run_id      INTEGER NOT NULL REFERENCES runs,
    rank        INTEGER NOT NULL,
    name        TEXT NOT NULL,
    cat         TEXT,
    input_dims  TEXT NOT NULL,        -- args["Input Dims"] as JSON, '' when absent
    count       INTEGER NOT NULL,
    self_ns     INTEGER NOT NULL,
    total_ns    INTEGER NOT NULL,
    gpu_self_ns  INTEGER NOT NULL DEFAULT 0, -- (defaults: migration 002 adds the columns)
    gpu_total_ns INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, rank, name, input_dims)
);

-- CPU operators per rank, ProfilerStep and name (all shapes): the step is
-- the one whose window holds the op's start (NULL: outside every step).
-- calls, total_ns and self_ns as in analysis_ops; summed over steps they
-- equal analysis_ops summed over shapes. One row per (rank, step, name, cat),
-- unless ProfilerStep windows overlap (then sum the rows).
CREATE TABLE analysis_op_steps (
    run_id     INTEGER NOT NULL REFERENCES runs,
    rank       INTEGER NOT NULL,
    step       INTEGER,               -- N of ProfilerStep#N, NULL outside steps
    name       TEXT NOT NULL,
    cat        TEXT,
    calls      INTEGER NOT NULL,
    total_ns   INTEGER NOT NULL,
    self_ns    INTEGER NOT NULL
);

-- One row per GPU event (exact mode: every slice with a stream arg outside
-- the CPU-side categories), saying where it came from. Names are string ids
-- (strings.id); the gpu_attribution view shows them as text.
--   launch: the runtime call (cudaLaunchKernel, cudaMemcpyAsync, ...) with
--     the same correlation; the earliest CPU-side one when there are several.
--     NULL when no CPU-side event has the correlation (launched before the
--     trace began, or a trace without CPU events).
--   op / op_id / top_op: the innermost op (cpu_op; events without a category
--     in legacy traces) enclosing the launch on its thread, that op's slice,
--     and the outermost op on that stack. NULL when the launch is in no op.
--   annotation: the innermost user_annotation (record_function) enclosing
--     the launch, ProfilerStep#N excepted (that is step).
--   module: the nn.Module path ("Model_0/Linear_1") of the python_function
--     "nn.Module: ..." events enclosing the launch (traces recorded with
--     with_modules or with_stack); NULL otherwise.
--   step: N of the ProfilerStep#N whose window holds the launch's start.
--   gpu_annotation: the gpu_user_annotation range on the event's pid and tid
--     whose [ts, end) overlaps the event's, the shortest one when several do
--     (HTA's get_gpu_kernels_with_user_annotations); the later one on a tie.
-- Over a rank, sum(dur_ns) is the GPU events' total time; rows with op NULL
-- are the time no op accounts for.
CREATE TABLE analysis_gpu_attribution (
    slice_id        INTEGER PRIMARY KEY, -- the GPU event (slices.id)
    run_id          INTEGER NOT NULL REFERENCES runs,
    rank            INTEGER NOT NULL,
    name            INTEGER NOT NULL,  -- kernel name (strings.id)
    dur_ns          INTEGER NOT NULL,  -- (its start is slices.ts)
    step            INTEGER,           -- ProfilerStep number of the launch
    launch_id       INTEGER,           -- the launching runtime call (slices.id)
    op_id           INTEGER,           -- the innermost op around it (slices.id)
    op              INTEGER,           -- its name (strings.id)
    top_op          INTEGER,           -- the outermost op around the launch (strings.id)
    annotation      INTEGER,           -- innermost user_annotation (strings.id)
    gpu_annotation  INTEGER,           -- gpu_user_annotation range (strings.id)
    module          INTEGER            -- nn.Module path (strings.id)
);

-- analysis_gpu_attribution with names as text, the event's start, and the
-- kernel type of analysis_kernels (exact mode).
CREATE VIEW gpu_attribution AS
SELECT a.run_id, a.rank, a.slice_id, k.value AS kernel,
       (SELECT kernel_type FROM analysis_kernels x WHERE x.run_id = a.run_id
        AND x.mode = 'exact' AND x.rank = a.rank AND x.name = k.value) AS kernel_type,
       (SELECT ts FROM slices WHERE id = a.slice_id) AS ts, a.dur_ns,
       a.step, a.launch_id, (SELECT n.value FROM slices l JOIN strings n ON n.id = l.name
                             WHERE l.id = a.launch_id) AS launch,
       a.op_id, o.value AS op, t.value AS top_op, u.value AS annotation,
       g.value AS gpu_annotation, m.value AS module
FROM analysis_gpu_attribution a
JOIN strings k ON k.id = a.name
LEFT JOIN strings o ON o.id = a.op
LEFT JOIN strings t ON t.id = a.top_op
LEFT JOIN strings u ON u.id = a.annotation
LEFT JOIN strings g ON g.id = a.gpu_annotation
LEFT JOIN strings m ON m.id = a.module;

-- record_function ranges per rank and name: kind 'cpu' = user_annotation
-- events (ProfilerStep#N included, as HTA counts them), 'gpu' =
-- gpu_user_annotation events (the same ranges as the GPU ran them). Per mode
-- ('hta': HTA's kept, rounded events, for get_gpu_user_annotation_breakdown).
-- std_ns is the sample standard deviation, 0 for a single range (as HTA).
-- kernel_ns: for 'cpu' (exact mode), the GPU time launched inside the range
-- (analysis_ops.gpu_total_ns) and kernel_self_ns where it is the innermost
-- annotation; for 'gpu', the GPU time and count (kernels) of the events the
-- range claims by the overlap rule of analysis_gpu_attribution.gpu_annotation.
CREATE TABLE analysis_annotations (
    run_id          INTEGER NOT NULL REFERENCES runs,
    mode            TEXT NOT NULL,
    rank            INTEGER NOT NULL,
    kind            TEXT NOT NULL,     -- 'cpu' or 'gpu'
    name            TEXT NOT NULL,
    count           INTEGER NOT NULL,
    total_ns        INTEGER NOT NULL,
    min_ns          INTEGER NOT NULL,
    max_ns          INTEGER NOT NULL,
    mean_ns         REAL NOT NULL,
    std_ns          REAL NOT NULL,
    kernel_ns       INTEGER,
    kernel_self_ns  INTEGER,
    kernels         INTEGER,
    PRIMARY KEY (run_id, mode, rank, kind, name)
);

-- Per rank and ProfilerStep: the step's wall time split into TensorBoard
-- profiler's overview categories. Everything active inside the step window
-- (clipped to it) counts; where categories overlap, the time goes to the
-- first in this order: kernel, memcpy, memset, runtime, dataloader, cpu_exec;
-- other = the rest of the step. The columns kernel_ns ... other_ns add up to
-- dur_ns. copy_ns and sync_ns (not part of that split) measure two op
-- families by their outermost calls starting in the step, so a call inside
-- another of its family is not counted twice: copies (aten::to,
-- aten::_to_copy, aten::copy_) and device-to-host syncs (aten::item,
-- aten::_local_scalar_dense, cuda/hip Stream/Device/Event Synchronize,
-- cudaMemcpy, hipMemcpy). Summed over threads.
CREATE TABLE analysis_steps (
    run_id         INTEGER NOT NULL REFERENCES runs,
    rank           INTEGER NOT NULL,
    step           TEXT NOT NULL,       -- 'ProfilerStep#12'
    step_num       INTEGER,             -- 12
    ts             INTEGER NOT NULL,    -- step start, trace clock, ns
    dur_ns         INTEGER NOT NULL,
    kernel_ns      INTEGER NOT NULL,    -- GPU kernels (computation, communication)
    memcpy_ns      INTEGER NOT NULL,
    memset_ns      INTEGER NOT NULL,
    runtime_ns     INTEGER NOT NULL,    -- CUDA/HIP runtime and driver calls
    dataloader_ns  INTEGER NOT NULL,    -- slices whose name mentions DataLoader
    cpu_exec_ns    INTEGER NOT NULL,    -- other CPU slices
    other_ns       INTEGER NOT NULL,
    copy_ns        INTEGER NOT NULL DEFAULT 0, -- outermost copy calls (defaults: as migration 002)
    sync_ns        INTEGER NOT NULL DEFAULT 0, -- outermost device-to-host sync calls
    PRIMARY KEY (run_id, rank, step)
);

-- GPU idle time per rank and stream, split the way HTA splits it: a gap
-- before an event whose launching runtime call (same correlation) started
-- after the previous event ended is host_wait; otherwise a gap shorter than
-- 30 us is kernel_wait; the rest is other. In exact mode a gap is measured
-- from the latest end so far (overlapping events leave no gap); HTA measures
-- from the previous event's end, which can make waits negative.
CREATE TABLE analysis_idle (
    run_id          INTEGER NOT NULL REFERENCES runs,
    mode            TEXT NOT NULL,
    rank            INTEGER NOT NULL,
    stream          NOT NULL,
    events          INTEGER NOT NULL,
    host_wait_ns    INTEGER NOT NULL,
    kernel_wait_ns  INTEGER NOT NULL,
    other_ns        INTEGER NOT NULL,
    PRIMARY KEY (run_id, mode, rank, stream)
);

-- The gate and trends read one kernel's (or op's) time per step of one run;
-- re-analysis deletes one run's rows. Both need the run first.
CREATE INDEX analysis_gpu_attribution_run_name
    ON analysis_gpu_attribution (run_id, name, rank, step);
CREATE INDEX analysis_op_steps_run_name ON analysis_op_steps (run_id, name, rank, step);
