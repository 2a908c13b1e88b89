-- profdb schema, part 5: results of the analysis passes (`profdb analyze`,
-- run by `profdb ingest` unless --no-analyze). Each pass replaces its rows
-- for a run, so reports are cheap and repeatable.
--
-- mode: 'exact' analyses the trace as written (nanoseconds, every event with
-- a stream arg is a GPU event). 'hta' applies Holistic Trace Analysis's
-- conventions so its users get the numbers they know: only X events with a
-- category (not 'Trace'), timestamps rounded inward to whole microseconds when
-- the trace writes fractional ones, the last ProfilerStep dropped when there
-- are two or more, and only integer stream args count as GPU streams.
-- Kernel types: MEMORY (names starting Memcpy, Memset, dma, optionally after
-- 'hip'), COMMUNICATION (starting nccl, hccl or hip, or containing
-- ncclKernel), COMPUTATION (every other GPU event).

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
