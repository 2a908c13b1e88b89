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
    kernel_time_ns  INTEGER NOT NULL,  -- last GPU event end - first GPU event start
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
CREATE TABLE analysis_ops (
    run_id      INTEGER NOT NULL REFERENCES runs,
    rank        INTEGER NOT NULL,
    name        TEXT NOT NULL,
    cat         TEXT,
    input_dims  TEXT NOT NULL,        -- args["Input Dims"] as JSON, '' when absent
    count       INTEGER NOT NULL,
    self_ns     INTEGER NOT NULL,
    total_ns    INTEGER NOT NULL,
    PRIMARY KEY (run_id, rank, name, input_dims)
);

-- Per rank and ProfilerStep: the step's wall time split into TensorBoard
-- profiler's overview categories. Everything active inside the step window
-- (clipped to it) counts; where categories overlap, the time goes to the
-- first in this order: kernel, memcpy, memset, runtime, dataloader, cpu_exec;
-- other = the rest of the step. The columns add up to dur_ns.
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
